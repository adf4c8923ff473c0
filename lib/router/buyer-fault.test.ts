/**
 * Whose failure it is, on a real anvil: authorizations signed as a buyer's wallet signs them (viem,
 * the test USDC's EIP-712 domain), each wrong in one way, and the chain read for the balance.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keccak256, toHex, type Address, type PrivateKeyAccount } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { startFundedChain } from "@/test/chain";
import type { AnvilNode } from "@/lib/chain/anvil";
import { LOCAL_CHAIN_ID, LOCAL_NETWORK, LOCAL_USDC_ADDRESS, LOCAL_USDC_DOMAIN } from "@/lib/chain/local-chain";
import type { RpcSettings } from "@/lib/chain/rpc";
import { EIP3009_TYPES } from "@/lib/chain/test-usdc";
import { buyerFault } from "./buyer-fault";

let node: AnvilNode;
let payer: PrivateKeyAccount;
let payTo: Address;
let settings: RpcSettings;
const broke = privateKeyToAccount(keccak256(toHex("buyer-fault test: a wallet with no USDC")));
const NOW = new Date();
const nowS = Math.floor(NOW.getTime() / 1000);

beforeAll(async () => {
  ({ node, payer, payTo } = await startFundedChain());
  settings = { rpcUrls: { [LOCAL_NETWORK]: node.rpcUrl } };
}, 60_000);
afterAll(async () => {
  await node?.stop();
});

/** An x402 v2 exact payload as @x402/evm's client builds it, with `change` applied before signing. */
async function payment(
  signer: PrivateKeyAccount,
  change: { value?: string; to?: Address; validAfter?: number; validBefore?: number; signAs?: PrivateKeyAccount; amount?: string } = {},
) {
  const authorization = {
    from: signer.address,
    to: change.to ?? payTo,
    value: change.value ?? "10000",
    validAfter: String(change.validAfter ?? nowS - 600),
    validBefore: String(change.validBefore ?? nowS + 300),
    nonce: keccak256(toHex(`nonce ${Math.random()}`)),
  };
  const signature = await (change.signAs ?? signer).signTypedData({
    domain: { ...LOCAL_USDC_DOMAIN, chainId: LOCAL_CHAIN_ID, verifyingContract: LOCAL_USDC_ADDRESS },
    types: { TransferWithAuthorization: EIP3009_TYPES.TransferWithAuthorization },
    primaryType: "TransferWithAuthorization",
    message: { ...authorization, value: BigInt(authorization.value), validAfter: BigInt(authorization.validAfter), validBefore: BigInt(authorization.validBefore) },
  });
  return {
    x402Version: 2,
    accepted: { scheme: "exact", network: LOCAL_NETWORK, amount: change.amount ?? "10000", asset: LOCAL_USDC_ADDRESS, payTo, maxTimeoutSeconds: 300, extra: { ...LOCAL_USDC_DOMAIN } },
    payload: { signature, authorization },
  };
}

const judge = (p: unknown, s: RpcSettings = settings) => buyerFault(p, { settings: s, now: NOW, timeoutMs: 2_000 });

describe("buyerFault", () => {
  it("a well-formed authorization from a funded payer is nobody's fault: the seller's failure is its own", async () => {
    expect(await judge(await payment(payer))).toBeNull();
  });

  it("an authorization for another amount or another payee than the requirement it answers", async () => {
    expect(await judge(await payment(payer, { value: "9999" }))).toBe("payer_authorization_mismatch");
    expect(await judge(await payment(payer, { to: payer.address }))).toBe("payer_authorization_mismatch");
  });

  it("outside its validity window", async () => {
    expect(await judge(await payment(payer, { validBefore: nowS - 1 }))).toBe("payer_authorization_expired");
    expect(await judge(await payment(payer, { validAfter: nowS + 60 }))).toBe("payer_authorization_not_yet_valid");
  });

  it("signed by a key that is not the payer's", async () => {
    expect(await judge(await payment(payer, { signAs: broke }))).toBe("payer_bad_signature");
  });

  it("a payer whose balance, read from the chain, does not cover it", async () => {
    expect(await judge(await payment(broke))).toBe("payer_insufficient_funds");
  });

  it("while the chain cannot be read, an unfunded payer is not blamed (an outage never shifts blame)", async () => {
    const down = { rpcUrls: { [LOCAL_NETWORK]: "http://127.0.0.1:9" } };
    expect(await judge(await payment(broke), down)).toBeNull();
    // What needs no chain is still judged.
    expect(await judge(await payment(broke, { validBefore: nowS - 1 }), down)).toBe("payer_authorization_expired");
  });

  it("a payload of another shape (not an EIP-3009 authorization) is not judged", async () => {
    expect(await judge({ x402Version: 2, accepted: { network: LOCAL_NETWORK }, payload: { permit2Authorization: {} } })).toBeNull();
    expect(await judge(null)).toBeNull();
  });
});
