/**
 * Failures the relay itself causes are never the seller's (docs/ROUTER.md "Whose failure it is"): a URL the
 * relay refuses before sending (a buyer's query over the cap, a backslash), this process's connection caps, and a
 * seller unreachable while our own egress is down. Each was, before, a `failed seller_<code>` row: a stranger with
 * an API key and two unfunded wallets could close an honest seller's settle gate without it ever being called.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { encodePaymentSignatureHeader } from "@x402/core/http";
import { keccak256, toHex, type Hex } from "viem";
import { privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import dns from "node:dns";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import * as route from "@/app/router/call/[listing]/[...path]/route";
import { createApiKey } from "@/lib/apikeys";
import { LOCAL_NETWORK, LOCAL_USDC_ADDRESS } from "@/devchain/local-chain";
import { ledgerFacts, settleFactsOf } from "@/lib/facts/aggregate";
import { confirmationsSettled } from "@/lib/router/confirm-after-answer";
import { resetEgressCheck } from "@/lib/router/relay-call";
import { settleGate } from "@/lib/scoring/signals";
import { TRANSFER_WITH_AUTHORIZATION_TYPES } from "@/lib/x402/eip3009";
import { configureConnectionLimits } from "@/lib/net/connection-limits";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { createTestListing } from "@/test/ledger";

let t: TestDatabase;
let seller: Server;
let slow: Server;
let reference: Server;
let referencePort = 0;
let sellerHits = 0;
let secret: string;
let slug: string;
let slowSlug: string;
let deadSlug: string;
let listingId: string;
let deadId: string;
let namedId: string;
let namedSlug: string;
const payTo = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8" as const;

const listen = (s: Server, host = "127.0.0.1") => new Promise<number>((r) => s.listen(0, host, () => r((s.address() as AddressInfo).port)));
const close = (s: Server | undefined) => new Promise<void>((r) => (s?.listening ? s.close(() => r()) : r()));

const viaRouter = async (url: string, headers: Record<string, string>): Promise<Response> => {
  const req = new Request(url, { headers });
  const [, , , listing, ...path] = new URL(req.url).pathname.split("/");
  const handler = (route as unknown as Record<string, (r: Request, c: { params: Promise<{ listing: string; path: string[] }> }) => Promise<Response>>)[req.method];
  return handler(req, { params: Promise.resolve({ listing: decodeURIComponent(listing), path: path.map(decodeURIComponent) }) });
};

/** A sound x402 v2 payment of the listed price, signed by a wallet with nothing in it. */
async function payment(account: PrivateKeyAccount, n: number): Promise<string> {
  const now = BigInt(Math.floor(Date.now() / 1000));
  const authorization = { from: account.address, to: payTo, value: 10_000n, validAfter: now - 600n, validBefore: now + 600n, nonce: keccak256(toHex(`own fault nonce ${n} ${Math.random()}`)) as Hex };
  const signature = await account.signTypedData({
    domain: { name: "USD Coin", version: "2", chainId: 31337, verifyingContract: LOCAL_USDC_ADDRESS },
    types: TRANSFER_WITH_AUTHORIZATION_TYPES,
    primaryType: "TransferWithAuthorization",
    message: authorization,
  });
  const accepted = { scheme: "exact", network: LOCAL_NETWORK, amount: "10000", asset: LOCAL_USDC_ADDRESS, payTo, maxTimeoutSeconds: 300, extra: { name: "USD Coin", version: "2" } };
  return encodePaymentSignatureHeader({
    x402Version: 2,
    resource: { url: "http://127.0.0.1/weather" },
    accepted,
    payload: { signature, authorization: { ...authorization, value: "10000", validAfter: authorization.validAfter.toString(), validBefore: authorization.validBefore.toString() } },
  } as never);
}

const rowsOf = (id: string) => t.prisma.routerPayment.findMany({ where: { listingId: id }, orderBy: { createdAt: "asc" } });

beforeAll(async () => {
  seller = createServer((_req, res) => {
    sellerHits++;
    res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
  });
  const port = await listen(seller);
  // Another listing that answers after 1.5 s (its calls fill the caps).
  slow = createServer((_req, res) => setTimeout(() => res.writeHead(200, { "content-type": "application/json" }).end("{}"), 1500));
  const slowPort = await listen(slow, "127.0.0.2");
  // A listing on a port nothing listens on.
  const gone = createServer();
  const deadPort = await listen(gone);
  await close(gone);
  // The operator's reference host: answering means our egress works.
  reference = createServer((_req, res) => res.writeHead(204).end());
  referencePort = await listen(reference);
  // One by IP address, one by name (answered only while our resolver names it).
  process.env.TOLLGATE_MONITOR_REFERENCES = `http://127.0.0.1:${referencePort}/,http://reference.test:${referencePort}/`;
  process.env.TOLLGATE_PROBE_ALLOW_HOSTS = `127.0.0.1:${port},127.0.0.2:${slowPort},127.0.0.1:${deadPort},unresolved.test:${port}`;
  t = await createTestDatabase();
  const admin = (await t.prisma.user.create({ data: { name: "Stranger", role: "admin" } })).id;
  secret = (await createApiKey({ actorId: admin, name: "stranger", scopes: ["router:call"] })).secret;
  const priced = [{ method: "GET" as const, path: "/weather", priceAmount: "10000", priceAsset: LOCAL_USDC_ADDRESS, priceNetwork: LOCAL_NETWORK, priceUsd: "0.01" }];
  listingId = await createTestListing(t.prisma, { baseUrl: `http://127.0.0.1:${port}`, networks: [LOCAL_NETWORK], endpoints: priced });
  deadId = await createTestListing(t.prisma, { baseUrl: `http://127.0.0.1:${deadPort}`, networks: [LOCAL_NETWORK], endpoints: priced });
  namedId = await createTestListing(t.prisma, { baseUrl: `http://unresolved.test:${port}`, networks: [LOCAL_NETWORK], endpoints: priced });
  const slowId = await createTestListing(t.prisma, { baseUrl: `http://127.0.0.2:${slowPort}`, endpoints: [{ method: "GET", path: "/slow" }] });
  const slugOf = async (id: string) => (await t.prisma.listing.findUniqueOrThrow({ where: { id }, select: { slug: true } })).slug;
  [slug, slowSlug, deadSlug, namedSlug] = [await slugOf(listingId), await slugOf(slowId), await slugOf(deadId), await slugOf(namedId)];
}, 60_000);

afterAll(async () => {
  await t?.close();
  await Promise.all([close(seller), close(slow), close(reference)]);
  configureConnectionLimits();
});

describe("failures the relay causes are not recorded against the seller", () => {
  it("a query over the cap or with a backslash: 400 url_refused, the seller never called, no row, the settle gate open", async () => {
    const w1 = privateKeyToAccount(keccak256(toHex("own fault: stranger wallet 1")));
    const w2 = privateKeyToAccount(keccak256(toHex("own fault: stranger wallet 2")));
    const base = `http://127.0.0.1/router/call/${slug}/weather`;
    const calls: Array<[PrivateKeyAccount, string, string]> = [
      [w1, `${base}?q=${"a".repeat(8200)}`, "invalid_url"],
      [w2, `${base}?q=${"a".repeat(8200)}`, "invalid_url"],
      [w1, `${base}?q=a\\b`, "ambiguous_url"],
    ];
    let n = 0;
    for (const [wallet, url, refusal] of calls) {
      const res = await viaRouter(url, { authorization: `Bearer ${secret}`, "payment-signature": await payment(wallet, n++) });
      expect(res.status).toBe(400);
      const body = await res.json();
      expect(body.error.code).toBe("url_refused");
      expect(body.error.message).toContain(refusal);
    }
    await confirmationsSettled();
    expect(sellerHits).toBe(0);
    expect(await rowsOf(listingId)).toEqual([]);
    const [facts] = await ledgerFacts({ ids: [listingId] }, new Date(Date.now() + 1000));
    expect(settleGate(settleFactsOf(facts), new Date()).gate).not.toBe("unpayable");
  });

  it("the relay's own connection cap: 503 relay_busy and no row, so the same authorization sent again reaches the seller", async () => {
    configureConnectionLimits({ total: 1, perHost: 1, maxQueued: 0 });
    try {
      const flood = viaRouter(`http://127.0.0.1/router/call/${slowSlug}/slow`, { authorization: `Bearer ${secret}` });
      await new Promise((r) => setTimeout(r, 200));
      const header = await payment(privateKeyToAccount(keccak256(toHex("own fault: an ordinary buyer"))), 99);
      const res = await viaRouter(`http://127.0.0.1/router/call/${slug}/weather`, { authorization: `Bearer ${secret}`, "payment-signature": header });
      expect(res.status).toBe(503);
      expect(res.headers.get("retry-after")).toBe("1");
      expect((await res.json()).error.code).toBe("relay_busy");
      await flood;
      await confirmationsSettled();
      expect(await rowsOf(listingId)).toEqual([]);
      expect(sellerHits).toBe(0);
      // Once the cap frees, the same header is relayed and judged, not dropped as a replay.
      const again = await viaRouter(`http://127.0.0.1/router/call/${slug}/weather`, { authorization: `Bearer ${secret}`, "payment-signature": header });
      expect(again.status).toBe(200);
      await confirmationsSettled();
      expect(sellerHits).toBe(1);
      expect((await rowsOf(listingId)).map((r) => r.reason)).not.toContain("replayed_authorization");
      expect(await rowsOf(listingId)).toHaveLength(1);
    } finally {
      configureConnectionLimits();
    }
  });

  it("our resolver timing out while the reference by IP address answers: 503 relay_outage and no row (only the named reference asked the resolver)", async () => {
    resetEgressCheck();
    const lookup = vi.spyOn(dns.promises, "lookup").mockImplementation((async () => {
      throw Object.assign(new Error("queryA ETIMEOUT unresolved.test"), { code: "ETIMEOUT" });
    }) as unknown as typeof dns.promises.lookup);
    try {
      const buyer = privateKeyToAccount(keccak256(toHex("own fault: a buyer while our resolver is down")));
      const res = await viaRouter(`http://127.0.0.1/router/call/${namedSlug}/weather`, { authorization: `Bearer ${secret}`, "payment-signature": await payment(buyer, 300) });
      // Before: 502 seller_dns_failed, and a failed row held against the seller.
      expect(res.status).toBe(503);
      expect((await res.json()).error.code).toBe("relay_outage");
      await confirmationsSettled();
      expect(await rowsOf(namedId)).toEqual([]);
      expect(sellerHits).toBe(1);
    } finally {
      lookup.mockRestore();
      resetEgressCheck();
    }
  });

  it("a seller that does not connect is its failure while our references answer, and our outage (503 relay_outage, no row) when they do not", async () => {
    resetEgressCheck();
    const buyer = privateKeyToAccount(keccak256(toHex("own fault: a buyer of the dead listing")));
    const call = async (n: number) => viaRouter(`http://127.0.0.1/router/call/${deadSlug}/weather`, { authorization: `Bearer ${secret}`, "payment-signature": await payment(buyer, 200 + n) });
    const up = await call(1);
    expect(up.status).toBe(502);
    expect((await up.json()).error.code).toBe("seller_connection_failed");
    await confirmationsSettled();
    expect((await rowsOf(deadId)).map((r) => [r.status, r.reason])).toEqual([["failed", "seller_connection_failed"]]);
    // Our egress goes down: the reference host stops answering.
    await close(reference);
    resetEgressCheck();
    const down = await call(2);
    expect(down.status).toBe(503);
    expect((await down.json()).error.code).toBe("relay_outage");
    await confirmationsSettled();
    expect(await rowsOf(deadId)).toHaveLength(1);
  });
});
