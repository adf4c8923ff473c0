/**
 * The facilitator on a real anvil: a buyer's real EIP-3009 authorization (built by @x402/core's
 * x402Client with @x402/evm's exact client scheme) verified and settled on chain; the refusals the
 * rank floors rely on; what is refused before the signer sends anything (zero value, a payer that
 * cannot pay, a bad signature) and the 400 of a malformed payload. The HTTP door (who may call,
 * limits, gas budget, fairness) is lib/facilitator/door.test.ts.
 */
import { x402Client } from "@x402/core/client";
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from "@x402/core/types";
import { toClientEvmSigner } from "@x402/evm";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { keccak256, parseEventLogs, toHex, type Address, type Hex, type PrivateKeyAccount } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFundedChain } from "@/test/chain";
import { AppError } from "@/lib/errors";
import { freePort, type AnvilNode } from "@/devchain/anvil";
import { INSUFFICIENT_BALANCE, ZERO_VALUE, createFacilitator, settle, verify, type FacilitatorRequest, type FacilitatorSetup } from "./facilitator";
import { LOCAL_DEV_KEYS, LOCAL_NETWORK, LOCAL_USDC_ADDRESS, LOCAL_USDC_DOMAIN, type LocalChain } from "@/devchain/local-chain";
import { EIP3009_TYPES } from "@/lib/x402/eip3009";
import { TEST_USDC_ABI } from "@/devchain/test-usdc";

let node: AnvilNode;
let local: LocalChain;
let setup: FacilitatorSetup;
let payer: PrivateKeyAccount;
let seller: Address;
let other: Address;
let buyer: x402Client;

const FACILITATOR_KEY = LOCAL_DEV_KEYS[9];

beforeAll(async () => {
  ({ node, local, payer, payTo: seller, otherPayTo: other } = await startFundedChain());
  setup = createFacilitator(node.rpcUrl, FACILITATOR_KEY);
  // A client pays only in assets it recognises (since @x402/core PR #3124): declare the local token.
  buyer = new x402Client()
    .register(LOCAL_NETWORK, new ExactEvmScheme(toClientEvmSigner(payer, local.publicClient)))
    .setSpendControls({ allowedAssets: [{ network: LOCAL_NETWORK, asset: LOCAL_USDC_ADDRESS }] });
});
afterAll(async () => {
  await node?.stop();
});

function requirements(amount: string, payTo: Address = seller): PaymentRequirements {
  return { scheme: "exact", network: LOCAL_NETWORK, amount, asset: LOCAL_USDC_ADDRESS, payTo, maxTimeoutSeconds: 300, extra: { ...LOCAL_USDC_DOMAIN } };
}
function paymentRequired(req: PaymentRequirements): PaymentRequired {
  return { x402Version: 2, resource: { url: "http://127.0.0.1/facilitator-test" }, accepts: [req] };
}
function body(paymentPayload: PaymentPayload, paymentRequirements: PaymentRequirements): FacilitatorRequest {
  return JSON.parse(JSON.stringify({ x402Version: 2, paymentPayload, paymentRequirements })) as FacilitatorRequest;
}
async function pay(req: PaymentRequirements): Promise<PaymentPayload> {
  return buyer.createPaymentPayload(paymentRequired(req));
}
/** An EIP-3009 authorization signed by `from` for `value` (the x402 client refuses a zero amount itself). */
async function signAuthorization(from: PrivateKeyAccount, req: PaymentRequirements, value: bigint): Promise<PaymentPayload> {
  const validBefore = BigInt(Math.floor(Date.now() / 1000) + 300);
  const nonce = keccak256(toHex(`${from.address} ${value} ${Math.random()}`));
  const message = { from: from.address, to: req.payTo as Address, value, validAfter: 0n, validBefore, nonce };
  const signature = await from.signTypedData({
    domain: { ...LOCAL_USDC_DOMAIN, chainId: 31337, verifyingContract: LOCAL_USDC_ADDRESS },
    types: { TransferWithAuthorization: EIP3009_TYPES.TransferWithAuthorization },
    primaryType: "TransferWithAuthorization",
    message,
  });
  const authorization = { ...message, value: String(value), validAfter: "0", validBefore: String(validBefore) };
  return { x402Version: 2, accepted: req, payload: { authorization, signature } };
}

describe("the buyer side (@x402/core client)", () => {
  it("a default client refuses the local token: it pays only in assets it recognises", async () => {
    const defaults = new x402Client().register(LOCAL_NETWORK, new ExactEvmScheme(toClientEvmSigner(payer, local.publicClient)));
    await expect(defaults.createPaymentPayload(paymentRequired(requirements("10000")))).rejects.toThrow(/spendControls/);
  });
});

describe("verify and settle a real EIP-3009 authorization", () => {
  it("verifies, settles on chain (the amount reaches payTo), then refuses the reused nonce", async () => {
    const req = requirements("10000");
    const payload = await pay(req);
    const verdict = await verify(setup, body(payload, req));
    expect(verdict).toMatchObject({ isValid: true, payer: payer.address });

    const [payerBefore, sellerBefore] = await Promise.all([local.balanceOf(payer.address), local.balanceOf(seller)]);
    const settled = await settle(setup, body(payload, req));
    expect(settled).toMatchObject({ success: true, network: LOCAL_NETWORK, payer: payer.address });
    expect(settled.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await local.balanceOf(seller)).toBe(sellerBefore + 10_000n);
    expect(await local.balanceOf(payer.address)).toBe(payerBefore - 10_000n);

    // The chain shows it: a successful transaction from the facilitator's signer with the Transfer.
    const receipt = await local.publicClient.getTransactionReceipt({ hash: settled.transaction as Hex });
    expect(receipt.status).toBe("success");
    expect(receipt.from.toLowerCase()).toBe(setup.address.toLowerCase());
    const transfers = parseEventLogs({ abi: TEST_USDC_ABI, logs: receipt.logs, eventName: "Transfer" });
    expect(transfers.map((t) => t.args)).toEqual([{ from: payer.address, to: seller, value: 10_000n }]);

    // Replayed: refused by verify and by settle, and nothing moves.
    expect(await verify(setup, body(payload, req))).toMatchObject({ isValid: false, invalidReason: "invalid_exact_evm_nonce_already_used", payer: payer.address });
    expect(await settle(setup, body(payload, req))).toMatchObject({ success: false, errorReason: "invalid_exact_evm_nonce_already_used" });
    expect(await local.balanceOf(seller)).toBe(sellerBefore + 10_000n);
  });

  it("settles many authorizations at once: one signer, so its transactions are sent one at a time (no nonce collision)", async () => {
    // The demo's facilitator settles the market's buyers and the canary's house calls concurrently.
    const req = requirements("1000");
    const payloads = await Promise.all(Array.from({ length: 8 }, () => pay(req)));
    const sellerBefore = await local.balanceOf(seller);
    const settled = await Promise.all(payloads.map((p) => settle(setup, body(p, req))));
    expect(settled.map((s) => s.success ? "settled" : s.errorReason)).toEqual(Array(8).fill("settled"));
    expect(new Set(settled.map((s) => s.transaction)).size).toBe(8);
    expect(await local.balanceOf(seller)).toBe(sellerBefore + 8_000n);
  });

  it("refuses an expired authorization", async () => {
    const req = requirements("10000");
    const now = Math.floor(Date.now() / 1000);
    const authorization = { from: payer.address, to: seller, value: "10000", validAfter: "0", validBefore: String(now - 60), nonce: keccak256(toHex(`expired ${now}`)) };
    const signature = await payer.signTypedData({
      domain: { ...LOCAL_USDC_DOMAIN, chainId: 31337, verifyingContract: LOCAL_USDC_ADDRESS },
      types: { TransferWithAuthorization: EIP3009_TYPES.TransferWithAuthorization },
      primaryType: "TransferWithAuthorization",
      message: { ...authorization, value: 10_000n, validAfter: 0n, validBefore: BigInt(now - 60) },
    });
    const payload: PaymentPayload = { x402Version: 2, accepted: req, payload: { authorization, signature } };
    expect(await verify(setup, body(payload, req))).toMatchObject({ isValid: false, invalidReason: "invalid_exact_evm_payload_authorization_valid_before" });
    expect(await settle(setup, body(payload, req))).toMatchObject({ success: false, errorReason: "invalid_exact_evm_payload_authorization_valid_before" });
  });

  it("refuses a payment for another amount than the requirements ask", async () => {
    const payload = await pay(requirements("10000"));
    const verdict = await verify(setup, body(payload, requirements("20000")));
    expect(verdict).toMatchObject({ isValid: false, invalidReason: "invalid_exact_evm_payload_authorization_value_mismatch" });
  });

  it("refuses a payment to another payTo than the requirements name", async () => {
    const payload = await pay(requirements("10000", other));
    const verdict = await verify(setup, body(payload, requirements("10000", seller)));
    expect(verdict).toMatchObject({ isValid: false, invalidReason: "invalid_exact_evm_recipient_mismatch" });
    const settled = await settle(setup, body(payload, requirements("10000", seller)));
    expect(settled).toMatchObject({ success: false, errorReason: "invalid_exact_evm_recipient_mismatch" });
  });

  it("refuses a bad signature", async () => {
    const req = requirements("10000");
    const payload = await pay(req);
    const sig = (payload.payload as { signature: Hex }).signature;
    // Flip one byte of r: still a well-formed 65-byte signature, but not the payer's.
    const tampered = (sig.slice(0, 10) + (sig.slice(10, 12) === "00" ? "01" : "00") + sig.slice(12)) as Hex;
    const bad = { ...payload, payload: { ...payload.payload, signature: tampered } };
    expect(await verify(setup, body(bad, req))).toMatchObject({ isValid: false, invalidReason: "invalid_exact_evm_signature" });
    expect(await settle(setup, body(bad, req))).toMatchObject({ success: false, errorReason: "invalid_exact_evm_signature" });
  });

  it("answers a network it does not serve with invalid_network, not a thrown error", async () => {
    const req = { ...requirements("10000"), network: "eip155:8453" as const };
    const payload = await pay(requirements("10000"));
    expect(await verify(setup, body(payload, req))).toMatchObject({ isValid: false, invalidReason: "invalid_network" });
    expect(await settle(setup, body(payload, req))).toMatchObject({ success: false, errorReason: "invalid_network" });
  });

  it("a chain it cannot reach is `unavailable` (503), not a verdict on the payment", async () => {
    const dead = createFacilitator(`http://127.0.0.1:${await freePort()}`, FACILITATOR_KEY);
    const req = requirements("10000");
    const payload = await pay(req);
    // (@x402/evm alone answers this with invalid_exact_evm_signature: it swallows the failed getCode.)
    for (const call of [verify, settle]) {
      const err = await call(dead, body(payload, req)).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).code).toBe("unavailable");
    }
  });
});

describe("refused before anything is sent (the signer pays no gas)", () => {
  const signerState = async () => ({
    nonce: await local.publicClient.getTransactionCount({ address: setup.address }),
    balance: await local.publicClient.getBalance({ address: setup.address }),
  });

  it("a zero-value authorization, even from a wallet with nothing", async () => {
    const nobody = privateKeyToAccount(keccak256(toHex("facilitator test: an empty wallet")));
    const req = requirements("0");
    const payload = await signAuthorization(nobody, req, 0n);
    const before = await signerState();
    expect(await verify(setup, body(payload, req))).toMatchObject({ isValid: false, invalidReason: ZERO_VALUE, payer: nobody.address });
    expect(await settle(setup, body(payload, req))).toMatchObject({ success: false, errorReason: ZERO_VALUE, transaction: "" });
    expect(await signerState()).toEqual(before);
  });

  it("a payer that cannot pay: the preflight reads its balance and the scheme's settle never sends", async () => {
    const unfunded = privateKeyToAccount(keccak256(toHex("facilitator test: an unfunded payer")));
    const req = requirements("5000");
    const payload = await signAuthorization(unfunded, req, 5000n);
    const before = await signerState();
    const settled = await settle(setup, body(payload, req));
    expect(settled).toMatchObject({ success: false, errorReason: INSUFFICIENT_BALANCE, transaction: "", payer: unfunded.address });
    expect(settled.errorMessage).toMatch(/holds 0 of the 5000/);
    expect(await signerState()).toEqual(before);
  });

  it("a signature that is not the payer's fails the simulation, not on chain", async () => {
    const req = requirements("3000");
    const payload = await pay(req);
    const sig = (payload.payload as { signature: Hex }).signature;
    const tampered = (sig.slice(0, 10) + (sig.slice(10, 12) === "00" ? "01" : "00") + sig.slice(12)) as Hex;
    const before = await signerState();
    expect(await settle(setup, body({ ...payload, payload: { ...payload.payload, signature: tampered } }, req))).toMatchObject({ success: false, transaction: "" });
    expect(await signerState()).toEqual(before);
  });

  it("a payload without an authorization is a 400 naming its pointer, not a TypeError", async () => {
    const req = requirements("1000");
    const payload = await pay(req);
    const cases: Array<[unknown, string]> = [
      [{ signature: (payload.payload as { signature: string }).signature }, "/paymentPayload/payload/authorization"],
      [{ ...payload.payload, authorization: { ...(payload.payload as { authorization: object }).authorization, from: "me" } }, "/paymentPayload/payload/authorization/from"],
      [{ ...payload.payload, authorization: { ...(payload.payload as { authorization: object }).authorization, value: -1 } }, "/paymentPayload/payload/authorization/value"],
      [{ authorization: (payload.payload as { authorization: object }).authorization }, "/paymentPayload/payload/signature"],
    ];
    for (const [inner, pointer] of cases) {
      for (const call of [verify, settle]) {
        const err = await call(setup, body({ ...payload, payload: inner as Record<string, unknown> }, req)).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(AppError);
        expect((err as AppError).code).toBe("bad_request");
        expect((err as AppError).details[0].pointer).toBe(pointer);
      }
    }
  });
});
