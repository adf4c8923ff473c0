/**
 * The facilitator on a real anvil: a buyer's real EIP-3009 authorization (built by @x402/core's
 * x402Client with @x402/evm's exact client scheme) verified and settled on chain; the refusals the
 * rank floors rely on; the HTTP routes through their exported handlers.
 */
import { serveRoutes, type RouteServer } from "@/test/route-server";
import { x402Client } from "@x402/core/client";
import { HTTPFacilitatorClient } from "@x402/core/http";
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from "@x402/core/types";
import { toClientEvmSigner } from "@x402/evm";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { keccak256, parseEventLogs, toHex, type Address, type Hex, type PrivateKeyAccount } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFundedChain } from "@/test/chain";
import { GET as supportedRoute } from "@/app/api/facilitator/supported/route";
import { POST as settleRoute } from "@/app/api/facilitator/settle/route";
import { POST as verifyRoute } from "@/app/api/facilitator/verify/route";
import { AppError } from "@/lib/errors";
import { freePort, type AnvilNode } from "./anvil";
import { createFacilitator, settle, supported, verify, type FacilitatorRequest, type FacilitatorSetup } from "./facilitator";
import { LOCAL_DEV_KEYS, LOCAL_NETWORK, LOCAL_USDC_ADDRESS, LOCAL_USDC_DOMAIN, type LocalChain } from "./local-chain";
import { EIP3009_TYPES, TEST_USDC_ABI } from "./test-usdc";

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
  // The routes read these (lib/env.ts parses process.env on first use, which is after this).
  process.env.TOLLGATE_CHAIN_RPC_URL = node.rpcUrl;
  process.env.TOLLGATE_FACILITATOR_KEY = FACILITATOR_KEY;
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
const post = (handler: (r: Request) => Promise<Response>, payload: unknown) =>
  handler(new Request("http://127.0.0.1/api/facilitator", { method: "POST", headers: { "content-type": "application/json" }, body: typeof payload === "string" ? payload : JSON.stringify(payload) }));

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

describe("/api/facilitator routes", () => {
  it("GET supported lists exact on eip155:31337 (x402 v2) and the signer", async () => {
    const res = await supportedRoute();
    expect(res.status).toBe(200);
    const json = await res.json();
    expect(json).toEqual(JSON.parse(JSON.stringify(supported(setup))));
    expect(json.kinds).toContainEqual({ x402Version: 2, scheme: "exact", network: LOCAL_NETWORK });
    expect(Object.values(json.signers as Record<string, string[]>).flat()).toContain(setup.address);
  });

  it("POST verify then POST settle move the money; the settle answer names the transaction", async () => {
    const req = requirements("25000");
    const payload = await pay(req);
    const verified = await post(verifyRoute, body(payload, req));
    expect(verified.status).toBe(200);
    expect(await verified.json()).toMatchObject({ isValid: true, payer: payer.address });
    const before = await local.balanceOf(seller);
    const settled = await post(settleRoute, body(payload, req));
    expect(settled.status).toBe(200);
    const json = await settled.json();
    expect(json).toMatchObject({ success: true, network: LOCAL_NETWORK, payer: payer.address });
    expect(await local.balanceOf(seller)).toBe(before + 25_000n);
    const again = await post(verifyRoute, body(payload, req));
    expect(await again.json()).toMatchObject({ isValid: false, invalidReason: "invalid_exact_evm_nonce_already_used" });
  });

  it("bad JSON, a missing field, a wrong field and x402 v1 are 400s naming the problem", async () => {
    const req = requirements("10000");
    const payload = await pay(req);
    const cases: { send: unknown; status: number; pointer?: string; message: RegExp }[] = [
      { send: "{not json", status: 400, message: /not JSON/ },
      { send: "", status: 400, message: /empty/ },
      { send: { x402Version: 2, paymentPayload: payload }, status: 400, pointer: "/paymentRequirements", message: /paymentRequirements/ },
      { send: body(payload, { ...req, amount: "1.5" }), status: 400, pointer: "/paymentRequirements/amount", message: /atomic units/ },
      { send: body(payload, { ...req, network: "base" as PaymentRequirements["network"] }), status: 400, pointer: "/paymentRequirements/network", message: /CAIP-2/ },
      { send: { ...body(payload, req), x402Version: 1 }, status: 400, pointer: "/x402Version", message: /x402 v2/ },
    ];
    for (const c of cases) {
      for (const route of [verifyRoute, settleRoute]) {
        const res = await post(route, c.send);
        expect(res.status, JSON.stringify(c.send).slice(0, 80)).toBe(c.status);
        const json = await res.json();
        expect(json.error.code).toBe("bad_request");
        expect(json.error.message).toMatch(c.message);
        if (c.pointer) expect(json.error.details[0].pointer).toBe(c.pointer);
      }
    }
  });
});

describe("interoperability with @x402/core's HTTPFacilitatorClient (what seller middleware calls)", () => {
  let server: RouteServer;
  let url: string;

  beforeAll(async () => {
    // The route handlers behind a plain node HTTP server, at the paths the client appends.
    const routes: Record<string, (req: Request) => Promise<Response>> = {
      "GET /facilitator/supported": () => supportedRoute(),
      "POST /facilitator/verify": verifyRoute,
      "POST /facilitator/settle": settleRoute,
    };
    server = await serveRoutes(routes);
    url = `${server.origin}/facilitator`;
  });
  afterAll(async () => {
    await server?.close();
  });

  it("getSupported, verify and settle parse our answers; a refusal comes back as data", async () => {
    const client = new HTTPFacilitatorClient({ url });
    const kinds = (await client.getSupported()).kinds;
    expect(kinds).toContainEqual({ x402Version: 2, scheme: "exact", network: LOCAL_NETWORK });
    const req = requirements("7000");
    const payload = await pay(req);
    expect(await client.verify(payload, req)).toMatchObject({ isValid: true, payer: payer.address });
    const before = await local.balanceOf(seller);
    const settled = await client.settle(payload, req);
    expect(settled).toMatchObject({ success: true, network: LOCAL_NETWORK });
    expect(await local.balanceOf(seller)).toBe(before + 7_000n);
    expect(await client.verify(payload, req)).toMatchObject({ isValid: false, invalidReason: "invalid_exact_evm_nonce_already_used" });
  });
});
