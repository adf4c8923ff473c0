/**
 * Whose a payment is when its authorization is spent but the seller claims nothing (lib/router/blame.ts):
 * a buyer that settles its own authorization, to a payee of its own choosing, while an honest seller refuses it,
 * gets no settled row on the seller's listing (before, the "settled without claiming it" path bound the transfer
 * to the seller without comparing the payment with the seller's challenge, counted it as a settlement and a paying
 * buyer, and the payTo trigger reset the seller's verification); and a seller whose challenge carries a fresh
 * value in `extra` every time blames neither its buyers nor itself: `unmeasured` `seller_challenge_unstable`.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { encodePaymentRequiredHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import { keccak256, toHex, type Address, type Hex, type PrivateKeyAccount } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { settleOnToken, startFundedChain } from "@/test/chain";
import { type AnvilNode } from "@/devchain/anvil";
import { LOCAL_NETWORK, LOCAL_USDC_ADDRESS, type LocalChain } from "@/devchain/local-chain";
import { ledgerFacts } from "@/lib/facts/aggregate";
import { confirmationsSettled } from "@/lib/router/confirm-after-answer";
import { relayCall } from "@/lib/router/relay-call";
import type { SignedAuthorization } from "@/lib/router/payment-headers";
import { TRANSFER_WITH_AUTHORIZATION_TYPES } from "@/lib/x402/eip3009";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { createTestListing } from "@/test/ledger";

let node: AnvilNode;
let local: LocalChain;
let t: TestDatabase;
let buyer: PrivateKeyAccount;
let sellerPayTo: Address;
let buyersOwnWallet: Address;
let seller: Server;
let sellerHost: string;
let listingId: string;
let slug: string;
/** What the buyer does while the seller answers (the race the buyer wins). */
let whileSellerAnswers: (() => Promise<void>) | null = null;
/** A seller that never settles and puts a fresh value in every challenge's `extra`. */
let evader: Server;
let evaderHost: string;
let evaderSlug: string;
let evaderListingId: string;
let challenges = 0;

const requirement = () => ({ scheme: "exact", network: LOCAL_NETWORK, amount: "10000", asset: LOCAL_USDC_ADDRESS, payTo: sellerPayTo, maxTimeoutSeconds: 300, extra: { name: "USD Coin", version: "2" } });

beforeAll(async () => {
  let payTo: Address;
  ({ node, local, payer: buyer, payTo } = await startFundedChain());
  sellerPayTo = payTo;
  buyersOwnWallet = local.accounts[5].address;
  // An honest seller: its 402 always names its own payTo; it never settles a payment to anyone else.
  seller = createServer((req, res) => {
    void (async () => {
      if (req.headers["payment-signature"] && whileSellerAnswers) await whileSellerAnswers();
      const challenge = encodePaymentRequiredHeader({ x402Version: 2, resource: { url: "http://seller/weather" }, accepts: [requirement()] } as never);
      res.writeHead(402, { "content-type": "application/json", "payment-required": challenge }).end("{}");
    })();
  });
  await new Promise<void>((r) => seller.listen(0, "127.0.0.1", r));
  sellerHost = `127.0.0.1:${(seller.address() as AddressInfo).port}`;
  evader = createServer((req, res) => {
    // Never settles; answers every call, paid or not, with a fresh challenge.
    const challenge = encodePaymentRequiredHeader({ x402Version: 2, resource: { url: "http://evader/weather" }, accepts: [{ ...requirement(), extra: { name: "USD Coin", version: "2", challenge: `c${++challenges}` } }] } as never);
    res.writeHead(402, { "content-type": "application/json", "payment-required": challenge }).end("{}");
  });
  await new Promise<void>((r) => evader.listen(0, "127.0.0.1", r));
  evaderHost = `127.0.0.1:${(evader.address() as AddressInfo).port}`;
  process.env.TOLLGATE_CHAIN_RPC_URL = node.rpcUrl;
  t = await createTestDatabase();
  evaderListingId = await createTestListing(t.prisma, {
    baseUrl: `http://${evaderHost}`,
    networks: [LOCAL_NETWORK],
    endpoints: [{ method: "GET", path: "/weather", priceAmount: "10000", priceAsset: LOCAL_USDC_ADDRESS, priceNetwork: LOCAL_NETWORK, priceUsd: "0.01" }],
  });
  evaderSlug = (await t.prisma.listing.findUniqueOrThrow({ where: { id: evaderListingId }, select: { slug: true } })).slug;
  listingId = await createTestListing(t.prisma, {
    baseUrl: `http://${sellerHost}`,
    networks: [LOCAL_NETWORK],
    endpoints: [{ method: "GET", path: "/weather", priceAmount: "10000", priceAsset: LOCAL_USDC_ADDRESS, priceNetwork: LOCAL_NETWORK, priceUsd: "0.01" }],
  });
  slug = (await t.prisma.listing.findUniqueOrThrow({ where: { id: listingId }, select: { slug: true } })).slug;
  // Verified by the canary, which was quoted the seller's own payTo.
  const run = await t.prisma.canaryRun.create({ data: { listingId, trigger: "publish", requestedBy: "test" } });
  await t.prisma.canaryRun.update({ where: { id: run.id }, data: { state: "done", outcome: "verified", reason: "all passed", finishedAt: new Date() } });
  await t.prisma.canarySample.create({
    data: { runId: run.id, listingId, endpointId: "e1", method: "GET", path: "/weather", quotedPayTo: sellerPayTo.toLowerCase(), state: "completed", completedAt: new Date(), outcome: "pass", reason: "pass" },
  });
  await t.prisma.listing.update({ where: { id: listingId }, data: { verificationStatus: "verified" } });
}, 120_000);

afterAll(async () => {
  await t?.close();
  await new Promise<void>((r) => (seller ? seller.close(() => r()) : r()));
  await new Promise<void>((r) => (evader ? evader.close(() => r()) : r()));
  await node?.stop();
});

/** A sound x402 v2 payment header: `from` signs 0.01 USDC to `to`, answering `accepted` at `resource`. */
async function signedPayment(from: PrivateKeyAccount, to: Address, resource: string, accepted: Record<string, unknown>, label: string) {
  const now = BigInt(Math.floor(Date.now() / 1000));
  const auth: SignedAuthorization = { from: from.address, to, value: 10_000n, validAfter: now - 600n, validBefore: now + 600n, nonce: keccak256(toHex(`${label} ${Math.random()}`)) as Hex };
  const signature = await from.signTypedData({
    domain: { name: "USD Coin", version: "2", chainId: 31337, verifyingContract: LOCAL_USDC_ADDRESS },
    types: TRANSFER_WITH_AUTHORIZATION_TYPES,
    primaryType: "TransferWithAuthorization",
    message: auth,
  });
  const header = encodePaymentSignatureHeader({
    x402Version: 2,
    resource: { url: resource },
    accepted,
    payload: { signature, authorization: { from: auth.from, to: auth.to, value: "10000", validAfter: auth.validAfter.toString(), validBefore: auth.validBefore.toString(), nonce: auth.nonce } },
  } as never);
  return { auth, signature, header };
}

describe("a buyer's own settlement of its authorization", () => {
  it("to another payee than the seller's challenge names: rejected payer_requirements_mismatch, no settlement, the verification kept", async () => {
    const { auth, signature, header } = await signedPayment(buyer, buyersOwnWallet, "http://seller/weather", { ...requirement(), payTo: buyersOwnWallet }, "self-settle");
    // The buyer submits its own authorization on chain while the seller is answering (after the router read the arrival block).
    whileSellerAnswers = async () => {
      await new Promise((r) => setTimeout(r, 300));
      await settleOnToken(local, auth, signature);
    };
    const res = await relayCall(new Request(`http://127.0.0.1/router/call/${slug}/weather`, { headers: { "payment-signature": header } }), slug, "weather", {
      caller: { kind: "api_key", id: "stranger" },
      allowHosts: [sellerHost],
    });
    whileSellerAnswers = null;
    expect(res.status).toBe(402); // the seller refused it and delivered nothing
    await confirmationsSettled();
    const row = await t.prisma.routerPayment.findFirstOrThrow({ where: { listingId, authorizationNonce: auth.nonce } });
    const listing = await t.prisma.listing.findUniqueOrThrow({ where: { id: listingId } });
    const [facts] = await ledgerFacts({ ids: [listingId] }, new Date(Date.now() + 1000));
    expect([row.status, row.reason]).toEqual(["rejected", "payer_requirements_mismatch"]);
    expect(row.detail).toContain("spent on chain");
    expect(row.settledAmount).toBeNull();
    expect(listing.verificationStatus).toBe("verified");
    expect(facts?.settled30d ?? 0).toBe(0);
  });
});

describe("a seller whose challenge changes on every request", () => {
  it("a fresh value in each challenge's extra: sound payments that answer it in every signed field are unmeasured, not the buyers' fault", async () => {
    const { decodePaymentRequiredHeader } = await import("@x402/core/http");
    const buyers = [buyer, local.accounts[6], local.accounts[7]];
    for (const b of buyers.slice(1)) await local.mint(b.address, 1_000_000n);
    for (const [i, b] of buyers.entries()) {
      // The buyer reads the seller's 402 through the router and signs exactly what it asks.
      const unpaid = await relayCall(new Request(`http://127.0.0.1/router/call/${evaderSlug}/weather`), evaderSlug, "weather", { caller: { kind: "api_key", id: "buyer" }, allowHosts: [evaderHost] });
      const asked = (decodePaymentRequiredHeader(unpaid.headers.get("payment-required")!) as { accepts: Array<Record<string, unknown>> }).accepts[0];
      const { header } = await signedPayment(b as PrivateKeyAccount, sellerPayTo, "http://evader/weather", asked, `evader ${i}`);
      await relayCall(new Request(`http://127.0.0.1/router/call/${evaderSlug}/weather`, { headers: { "payment-signature": header } }), evaderSlug, "weather", { caller: { kind: "api_key", id: "buyer" }, allowHosts: [evaderHost] });
    }
    await confirmationsSettled();
    const rows = await t.prisma.routerPayment.findMany({ where: { listingId: evaderListingId }, orderBy: { createdAt: "asc" } });
    // Before: three rejected payer_requirements_mismatch, the buyers blamed for what the seller moved.
    expect(rows.map((r) => [r.status, r.reason])).toEqual([["unmeasured", "seller_challenge_unstable"], ["unmeasured", "seller_challenge_unstable"], ["unmeasured", "seller_challenge_unstable"]]);
    expect(rows[0].detail).toContain("extra is not the seller's");
  });
});
