/**
 * The buyer-side check's cost and timing on a real anvil, behind a JSON-RPC proxy that records every
 * request: a settled call pays for the arrival block's number and no more; the exact scheme's verify,
 * when asked, is pinned to that block however late it runs; and the scheme's own signature check is
 * answered from the recovery already made only for the very same signer, signature and typed data;
 * the confirmation skips the settling block's time only for a transfer mined after the arrival block
 * (docs/ROUTER.md "The hot path").
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { keccak256, toHex, type Address, type Hex, type PrivateKeyAccount } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AnvilNode } from "@/devchain/anvil";
import { LOCAL_CHAIN_ID, LOCAL_NETWORK, LOCAL_USDC_ADDRESS, LOCAL_USDC_DOMAIN, type LocalChain } from "@/devchain/local-chain";
import { settleOnToken, startFundedChain } from "@/test/chain";
import { TRANSFER_WITH_AUTHORIZATION_TYPES } from "@/lib/x402/eip3009";
import { readSettlement } from "@/lib/ledger/confirm-payment";
import { alreadyRecovered, startBuyerSideCheck, type PaymentTerms } from "./buyer-side";
import type { DecodedPayment, SignedAuthorization } from "./payment-headers";

const PRICE = 10_000n;
let node: AnvilNode;
let local: LocalChain;
let buyer: PrivateKeyAccount;
let payTo: Address;
let proxy: Server;
/** Every JSON-RPC request the proxy forwarded: its method and params. */
const seen: Array<{ method: string; params: unknown[] }> = [];
let chain: { settings: { rpcUrls: Record<string, string> } };
const terms: PaymentTerms = { asset: LOCAL_USDC_ADDRESS, network: LOCAL_NETWORK, maxTimeoutSeconds: 300 };
const domain = { ...LOCAL_USDC_DOMAIN, chainId: LOCAL_CHAIN_ID, verifyingContract: LOCAL_USDC_ADDRESS as Address };

let nonces = 0;
async function payment(signer: PrivateKeyAccount = buyer): Promise<DecodedPayment> {
  const now = BigInt(Math.floor(Date.now() / 1000));
  const authorization: SignedAuthorization = { from: buyer.address, to: payTo, value: PRICE, validAfter: now - 60n, validBefore: now + 300n, nonce: keccak256(toHex(`buyer-side nonce ${nonces++} ${Date.now()}`)) };
  const signature = await signer.signTypedData({ domain, types: TRANSFER_WITH_AUTHORIZATION_TYPES, primaryType: "TransferWithAuthorization", message: authorization });
  return {
    protocol: "x402",
    x402Version: 2,
    resource: "http://127.0.0.1/x",
    payer: buyer.address,
    network: LOCAL_NETWORK,
    asset: LOCAL_USDC_ADDRESS,
    amount: PRICE.toString(),
    payTo,
    nonce: authorization.nonce,
    authorization,
    signature,
    requirement: { scheme: "exact", network: LOCAL_NETWORK, amount: PRICE.toString(), asset: LOCAL_USDC_ADDRESS, payTo, maxTimeoutSeconds: 300 },
  };
}

/** Spend the authorization on the token, as a seller settling it would. */
const settle = (p: DecodedPayment): Promise<Hex> => settleOnToken(local, p.authorization, p.signature);

/** Until nothing new has reached the proxy for a few turns of the event loop. */
async function quiet(): Promise<void> {
  let n = -1;
  while (n !== seen.length) {
    n = seen.length;
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeAll(async () => {
  ({ node, local, payer: buyer, payTo } = await startFundedChain());
  proxy = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const parsed = JSON.parse(body) as { method: string; params: unknown[] } | Array<{ method: string; params: unknown[] }>;
      for (const r of Array.isArray(parsed) ? parsed : [parsed]) seen.push({ method: r.method, params: r.params ?? [] });
      const upstream = await fetch(node.rpcUrl, { method: "POST", headers: { "content-type": "application/json" }, body });
      res.writeHead(upstream.status, { "content-type": "application/json" }).end(await upstream.text());
    });
  });
  await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
  chain = { settings: { rpcUrls: { [LOCAL_NETWORK]: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}` } } };
}, 120_000);

afterAll(async () => {
  await new Promise<void>((r) => proxy?.close(() => r()));
  await node?.stop();
});

describe("the buyer-side check", () => {
  it("a payment the seller settles costs the arrival block's number and nothing else on chain", async () => {
    const p = await payment();
    seen.length = 0;
    const check = startBuyerSideCheck(p, terms, chain, { afterTurn: true });
    const signed = await check.signature;
    expect(signed).toMatchObject({ ok: true, value: { name: LOCAL_USDC_DOMAIN.name, version: LOCAL_USDC_DOMAIN.version } });
    await quiet();
    expect(seen.map((r) => r.method)).toEqual(["eth_blockNumber"]);
  });

  it("the verify, asked after the seller spent the nonce, still judges the arrival block: sound, every read pinned to it; a check started after the spend says spent", async () => {
    const p = await payment();
    seen.length = 0;
    const check = startBuyerSideCheck(p, terms, chain, { afterTurn: true });
    await check.signature;
    await quiet();
    const arrival = await local.publicClient.getBlockNumber({ cacheTime: 0 });
    await settle(p);
    expect(await local.publicClient.getBlockNumber({ cacheTime: 0 })).toBeGreaterThan(arrival);

    seen.length = 0;
    expect(await check.side()).toEqual({ verdict: "sound" });
    const reads = seen.filter((r) => r.method === "eth_call" || r.method === "eth_getBalance" || r.method === "eth_getCode");
    expect(reads.length).toBeGreaterThan(0);
    for (const r of reads) expect(r.params.at(-1), `${r.method} ${JSON.stringify(r.params)}`).toBe(toHex(arrival));
    expect(seen.some((r) => r.method === "eth_blockNumber")).toBe(false);
    // Asked again: the same verdict, no second verify.
    seen.length = 0;
    expect(await check.side()).toEqual({ verdict: "sound" });
    expect(seen).toEqual([]);

    const late = startBuyerSideCheck(p, terms, chain);
    expect(await late.side()).toMatchObject({ verdict: "buyer_fault", reason: "payer_authorization_spent" });
  });

  it("another wallet's signature is still refused, whatever the arrival", async () => {
    const p = await payment(local.accounts[5]);
    const check = startBuyerSideCheck(p, terms, chain, { afterTurn: true });
    expect(await check.signature).toEqual({ ok: true, value: null });
    expect(await check.side()).toMatchObject({ verdict: "buyer_fault", reason: "payer_bad_signature" });
  });

  it("the scheme's signature check is answered from the recovery only for the same signer, signature and typed data", async () => {
    const p = await payment();
    const check = startBuyerSideCheck(p, terms, chain);
    const signed = await check.signature;
    if (!signed.ok || !signed.value) throw new Error("expected a sound signature");
    expect(signed.value.recoveredHash).toMatch(/^0x[0-9a-f]{64}$/);
    const known = { address: buyer.address, signature: p.signature, hash: signed.value.recoveredHash! };
    const message: Record<string, unknown> = { ...p.authorization };
    const typed = { address: buyer.address, domain, types: TRANSFER_WITH_AUTHORIZATION_TYPES, primaryType: "TransferWithAuthorization" as const, message, signature: p.signature };
    expect(alreadyRecovered(typed, known)).toBe(true);
    expect(alreadyRecovered({ ...typed, address: buyer.address.toLowerCase() as Address }, known)).toBe(true);
    expect(alreadyRecovered({ ...typed, message: { ...message, value: PRICE + 1n } }, known)).toBe(false);
    expect(alreadyRecovered({ ...typed, domain: { ...domain, version: "1" } }, known)).toBe(false);
    expect(alreadyRecovered({ ...typed, address: payTo }, known)).toBe(false);
    const other = (await payment()).signature;
    expect(alreadyRecovered({ ...typed, signature: other as Hex }, known)).toBe(false);
    expect(alreadyRecovered(typed, null)).toBe(false);
  });

  it("the confirmation reads the settling block's time only when the transfer is not in a block after the arrival block", async () => {
    const p = await payment();
    const relayedAt = new Date();
    const check = startBuyerSideCheck(p, terms, chain);
    const arrival = await check.arrival;
    if (!arrival.ok) throw new Error(arrival.unmeasured);
    const hash = await settle(p);
    const mined = (await local.publicClient.getTransactionReceipt({ hash })).blockNumber;
    expect(mined).toBeGreaterThan(arrival.value);
    const binding = { transaction: hash, network: LOCAL_NETWORK, asset: LOCAL_USDC_ADDRESS, payer: buyer.address, nonce: p.nonce, payTo, amount: PRICE.toString(), notBefore: relayedAt };

    seen.length = 0;
    expect(await readSettlement({ ...binding, seenAtOrAfterArrival: arrival.value }, chain)).toMatchObject({ status: "settled" });
    expect(seen.map((r) => r.method)).toEqual(["eth_getTransactionReceipt"]);

    // A transfer in the arrival block or before it: its block's time decides, as without an arrival block.
    seen.length = 0;
    expect(await readSettlement({ ...binding, seenAtOrAfterArrival: mined }, chain)).toMatchObject({ status: "settled" });
    expect(seen.map((r) => r.method)).toEqual(["eth_getTransactionReceipt", "eth_getBlockByNumber"]);
    const later = new Date(relayedAt.getTime() + 3_600_000);
    expect(await readSettlement({ ...binding, notBefore: later, seenAtOrAfterArrival: mined }, chain)).toMatchObject({ status: "failed", detail: expect.stringContaining("before the payment reached the router") });
  });
});
