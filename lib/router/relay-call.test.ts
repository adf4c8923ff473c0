/**
 * The router end to end on a real anvil, through the route handler: a buyer paying with @x402/fetch
 * calls `/router/call/<listing>/<path>` in front of each paid reference seller (sellers/paid, the real
 * @x402/express middleware over lib/chain's facilitator), and the ledger records what the chain
 * shows, not what the seller claims.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { x402Client } from "@x402/core/client";
import { encodePaymentSignatureHeader } from "@x402/core/http";
import { toClientEvmSigner } from "@x402/evm";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { wrapFetchWithPayment } from "@x402/fetch";
import { keccak256, toHex, type Address, type PrivateKeyAccount } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFundedChain } from "@/test/chain";
import * as route from "@/app/router/call/[listing]/[...path]/route";
import { createApiKey } from "@/lib/apikeys";
import { type AnvilNode } from "@/devchain/anvil";
import { createFacilitator } from "@/lib/chain/facilitator";
import { LOCAL_DEV_KEYS, LOCAL_NETWORK, LOCAL_USDC_ADDRESS, type LocalChain } from "@/devchain/local-chain";
import { inProcessFacilitator, PAID_SELLERS, startPaidSellers, type PaidSellerName, type PaidSellers } from "@/sellers/paid";
import { confirmationsSettled } from "@/lib/router/confirm-after-answer";
import { relayCall } from "@/lib/router/relay-call";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { createTestListing } from "@/test/ledger";

let node: AnvilNode;
let local: LocalChain;
let sellers: PaidSellers;
let t: TestDatabase;
let payer: PrivateKeyAccount;
let payTo: Address;
let otherPayTo: Address;
let secret: string;
const slugs = {} as Record<PaidSellerName, string>;
const listingIds = {} as Record<PaidSellerName, string>;
/** The PAYMENT-SIGNATURE headers the buyer sent, in order. */
const signatures: string[] = [];
let paidFetch: typeof fetch;
let client: x402Client;
/** A misbehaving seller: redirects off-host, or answers more than the relay's cap. */
let rogue: Server;
let rogueListing: string;

/** A fetch whose every request goes to the route handler (as Next would call it). */
const viaRouter = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
  const req = new Request(input, init);
  const sig = req.headers.get("payment-signature");
  if (sig) signatures.push(sig);
  const [, , , listing, ...path] = new URL(req.url).pathname.split("/");
  const handler = (route as unknown as Record<string, (r: Request, c: { params: Promise<{ listing: string; path: string[] }> }) => Promise<Response>>)[req.method];
  return handler(req, { params: Promise.resolve({ listing: decodeURIComponent(listing), path: path.map(decodeURIComponent) }) });
};
const callUrl = (seller: PaidSellerName, path = "weather") => `http://127.0.0.1/router/call/${slugs[seller]}/${path}`;
const auth = () => ({ authorization: `Bearer ${secret}` });

beforeAll(async () => {
  ({ node, local, payer, payTo, otherPayTo } = await startFundedChain());
  sellers = await startPaidSellers({ facilitator: inProcessFacilitator(createFacilitator(node.rpcUrl, LOCAL_DEV_KEYS[9])), usdc: LOCAL_USDC_ADDRESS, payTo, otherPayTo });
  rogue = createServer((req, res) => {
    if (req.url === "/redirect") {
      res.writeHead(302, { location: "https://example.com/weather" }).end();
    } else {
      res.writeHead(200, { "content-type": "application/octet-stream" });
      res.end(Buffer.alloc(11 * 1024 * 1024, 1));
    }
  });
  await new Promise<void>((r) => rogue.listen(0, "127.0.0.1", r));
  const roguePort = (rogue.address() as AddressInfo).port;
  // Read by the relay (the loopback sellers through the probe allow-list) and the chain reader;
  // lib/env.ts parses the environment on first use, which is after this.
  process.env.TOLLGATE_PROBE_ALLOW_HOSTS = `127.0.0.1:${sellers.port},127.0.0.1:${roguePort}`;
  process.env.TOLLGATE_CHAIN_RPC_URL = node.rpcUrl;
  t = await createTestDatabase();
  const admin = (await t.prisma.user.create({ data: { name: "Admin", role: "admin" } })).id;
  secret = (await createApiKey({ actorId: admin, name: "buyer agent", scopes: ["router:call"] })).secret;
  for (const seller of PAID_SELLERS) {
    const id = await createTestListing(t.prisma, {
      title: `${seller} weather`,
      baseUrl: `${sellers.url}/${seller}`,
      networks: [LOCAL_NETWORK],
      endpoints: [{ method: "GET", path: "/weather", priceAmount: "10000", priceAsset: LOCAL_USDC_ADDRESS, priceNetwork: LOCAL_NETWORK, priceUsd: "0.01" }],
    });
    listingIds[seller] = id;
    slugs[seller] = (await t.prisma.listing.findUniqueOrThrow({ where: { id }, select: { slug: true } })).slug;
  }
  const rogueId = await createTestListing(t.prisma, {
    baseUrl: `http://127.0.0.1:${roguePort}`,
    endpoints: [
      { method: "GET", path: "/redirect" },
      { method: "GET", path: "/big" },
    ],
  });
  rogueListing = (await t.prisma.listing.findUniqueOrThrow({ where: { id: rogueId }, select: { slug: true } })).slug;
  client = new x402Client()
    .register(LOCAL_NETWORK, new ExactEvmScheme(toClientEvmSigner(payer, local.publicClient)))
    .setSpendControls({ allowedAssets: [{ network: LOCAL_NETWORK, asset: LOCAL_USDC_ADDRESS }] });
  const paying = wrapFetchWithPayment(viaRouter, client);
  paidFetch = ((input: RequestInfo | URL, init?: RequestInit) => paying(input, { ...init, headers: { ...auth(), ...(init?.headers as Record<string, string>) } })) as typeof fetch;
}, 60_000);
afterAll(async () => {
  await t?.close();
  await sellers?.close();
  await new Promise<void>((r) => (rogue ? rogue.close(() => r()) : r()));
  await node?.stop();
});

/** The seller's ledger rows, once every confirmation the route ran after its answer has ended. */
const rows = async (seller: PaidSellerName) => {
  await confirmationsSettled();
  return t.prisma.routerPayment.findMany({ where: { listingId: listingIds[seller] }, orderBy: { createdAt: "asc" } });
};

describe("bad input", () => {
  it("no API key: 401", async () => {
    const res = await viaRouter(callUrl("honest"));
    expect(res.status).toBe(401);
  });

  it("an unknown listing or endpoint: 404 naming it", async () => {
    const noListing = await viaRouter("http://127.0.0.1/router/call/no-such-listing/weather", { headers: auth() });
    expect(noListing.status).toBe(404);
    expect((await noListing.json()).error.message).toContain("no-such-listing");
    const noEndpoint = await viaRouter(callUrl("honest", "forecast"), { headers: auth() });
    expect(noEndpoint.status).toBe(404);
    expect((await noEndpoint.json()).error.message).toContain("GET /forecast");
    const wrongMethod = await viaRouter(callUrl("honest"), { method: "POST", headers: auth() });
    expect(wrongMethod.status).toBe(404);
  });
});

describe("unpaid", () => {
  it("the seller's 402 comes back untouched, and nothing is recorded", async () => {
    const direct = await fetch(sellers.resource("honest"));
    const relayed = await viaRouter(callUrl("honest"), { headers: auth() });
    expect(relayed.status).toBe(402);
    expect(relayed.headers.get("payment-required")).toBe(direct.headers.get("payment-required"));
    expect(await relayed.text()).toBe(await direct.text());
    expect(await rows("honest")).toEqual([]);
  });
});

describe("paid through the router", () => {
  it("honest: 200 delivered; settled, amount = quote, the chain's recipient and block", async () => {
    const before = await local.balanceOf(payTo);
    const res = await paidFetch(callUrl("honest"));
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ seller: "honest", city: "Lisbon" });
    expect(await local.balanceOf(payTo)).toBe(before + 10_000n);
    const [row] = await rows("honest");
    expect(row).toMatchObject({
      protocol: "x402",
      status: "settled",
      payer: payer.address.toLowerCase(),
      advertisedAmount: "10000",
      settledAmount: "10000",
      chainAmount: "10000",
      chainFrom: payer.address.toLowerCase(),
      chainTo: payTo.toLowerCase(),
      quotedPayTo: payTo.toLowerCase(),
      asset: LOCAL_USDC_ADDRESS,
      network: LOCAL_NETWORK,
      httpStatus: 200,
      reason: null,
      house: false,
    });
    expect(row.blockNumber).toBeGreaterThan(0n);
    expect(row.latencyMs).toBeGreaterThanOrEqual(0);
    expect(row.authorizationNonce).toMatch(/^0x[0-9a-f]{64}$/);
    expect(row.transactionId).toMatch(/^0x[0-9a-f]{64}$/);
    expect(row.paymentResponse).toMatchObject({ success: true, transaction: row.transactionId });
  });

  it("never-settles: the buyer got 200, but the claimed transaction is not on chain: failed, unproven", async () => {
    const res = await paidFetch(callUrl("never-settles"));
    expect(res.status).toBe(200);
    const [row] = await rows("never-settles");
    expect(row).toMatchObject({ status: "failed", reason: "unproven", settledAmount: null, chainAmount: null, httpStatus: 200 });
    expect(row.paymentResponse).toMatchObject({ success: true, transaction: row.transactionId });
  });

  it("fails-after-payment: settled (the chain shows it), with the seller's 500 recorded", async () => {
    const res = await paidFetch(callUrl("fails-after-payment"));
    expect(res.status).toBe(500);
    const [row] = await rows("fails-after-payment");
    expect(row).toMatchObject({ status: "settled", httpStatus: 500, chainAmount: "10000", chainTo: payTo.toLowerCase() });
  });

  it("overcharges: the chain's amount is recorded (twice the listed price)", async () => {
    const res = await paidFetch(callUrl("overcharges"));
    expect(res.status).toBe(200);
    const [row] = await rows("overcharges");
    const listed = await t.prisma.endpoint.findFirstOrThrow({ where: { listingId: listingIds.overcharges } });
    expect(listed.priceAmount).toBe("10000");
    expect(row).toMatchObject({ status: "settled", chainAmount: "20000", settledAmount: "20000", advertisedAmount: "20000" });
  });

  it("wrong-payee: the chain's recipient is recorded, not the payTo the seller advertises", async () => {
    const res = await paidFetch(callUrl("wrong-payee"));
    expect(res.status).toBe(200);
    expect(res.headers.get("x-pay-to")).toBe(payTo);
    const [row] = await rows("wrong-payee");
    expect(row).toMatchObject({ status: "settled", chainTo: otherPayTo.toLowerCase(), chainAmount: "10000" });
  });

  it("a replayed authorization is recorded once", async () => {
    const replayed = signatures[0];
    expect(replayed).toBeDefined();
    const before = await rows("honest");
    expect(before).toHaveLength(1);
    const res = await viaRouter(callUrl("honest"), { headers: { ...auth(), "payment-signature": replayed } });
    expect(res.status).toBe(402); // the seller refuses the used nonce
    const after = await rows("honest");
    expect(after).toHaveLength(1);
    expect(after[0]).toMatchObject({ id: before[0].id, status: "settled" });
  });

  it("a replay of an authorization the ledger holds is not judged: no chain read beyond the arrival block's number", async () => {
    // The chain behind a counting proxy: a stranger replaying one header must not buy a chain verify each time.
    const methods: string[] = [];
    const proxy = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", async () => {
        const body = Buffer.concat(chunks).toString();
        const calls = [JSON.parse(body)].flat() as Array<{ method: string }>;
        methods.push(...calls.map((c) => c.method));
        const upstream = await fetch(node.rpcUrl, { method: "POST", headers: { "content-type": "application/json" }, body });
        res.writeHead(upstream.status, { "content-type": "application/json" }).end(await upstream.text());
      });
    });
    await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
    try {
      const chain = { settings: { rpcUrls: { [LOCAL_NETWORK]: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}` } } };
      const before = await rows("honest");
      const res = await relayCall(new Request(callUrl("honest"), { headers: { ...auth(), "payment-signature": signatures[0] } }), slugs.honest, "weather", { chain });
      expect(res.status).toBe(402);
      expect(await rows("honest")).toEqual(before);
      expect(methods.filter((m) => m !== "eth_blockNumber")).toEqual([]);
    } finally {
      await new Promise((r) => proxy.close(r));
    }
  });

  it("a payment header that does not decode: the seller's answer returned, recorded rejected malformed_payment (the buyer's fault)", async () => {
    const res = await viaRouter(callUrl("honest"), { headers: { ...auth(), "payment-signature": "not-a-payment" } });
    expect(res.status).toBe(402);
    const malformed = (await rows("honest")).filter((r) => r.reason === "malformed_payment");
    expect(malformed).toHaveLength(1);
    expect(malformed[0]).toMatchObject({ protocol: "x402", status: "rejected", settledAmount: null, httpStatus: 402 });
    expect(malformed[0].payer).toMatch(/^api_key:/);
  });
});

describe("whose failure it is", () => {
  it("a buyer with no USDC: the seller refuses, and the attempt is rejected payer_insufficient_funds, not the seller's failure", async () => {
    const broke = privateKeyToAccount(keccak256(toHex("relay test: a wallet with no USDC")));
    const brokeClient = new x402Client()
      .register(LOCAL_NETWORK, new ExactEvmScheme(toClientEvmSigner(broke, local.publicClient)))
      .setSpendControls({ allowedAssets: [{ network: LOCAL_NETWORK, asset: LOCAL_USDC_ADDRESS }] });
    const pay = wrapFetchWithPayment(viaRouter, brokeClient);
    const res = await pay(callUrl("honest"), { headers: auth() });
    expect(res.status).toBe(402);
    const row = await t.prisma.routerPayment.findFirstOrThrow({ where: { listingId: listingIds.honest, payer: broke.address.toLowerCase() } });
    expect(row).toMatchObject({ status: "rejected", reason: "payer_insufficient_funds", httpStatus: 402, transactionId: null });
  });
});

describe("a seller the relay stops at", () => {
  it("redirecting off-host or sending more than 10 MB: 502 with a code, and the payment attempt recorded", async () => {
    for (const [path, code] of [["redirect", "seller_redirect_off_host"], ["big", "seller_body_too_large"]] as const) {
      const payload = await client.createPaymentPayload({
        x402Version: 2,
        resource: { url: `http://127.0.0.1/${path}` },
        accepts: [{ scheme: "exact", network: LOCAL_NETWORK, amount: "10000", asset: LOCAL_USDC_ADDRESS, payTo, maxTimeoutSeconds: 300, extra: { name: "USD Coin", version: "2" } }],
      });
      const res = await viaRouter(`http://127.0.0.1/router/call/${rogueListing}/${path}`, { headers: { ...auth(), "payment-signature": encodePaymentSignatureHeader(payload) } });
      expect(res.status, path).toBe(502);
      expect((await res.json()).error.code, path).toBe(code);
      const nonce = (payload.payload as { authorization: { nonce: string } }).authorization.nonce.toLowerCase();
      const row = await t.prisma.routerPayment.findFirstOrThrow({ where: { authorizationNonce: nonce } });
      expect(row, path).toMatchObject({ status: "failed", reason: code, payer: payer.address.toLowerCase(), advertisedAmount: "10000", quotedPayTo: payTo.toLowerCase() });
    }
  });
});

describe("confirmation after the answer", () => {
  it("with afterAnswer the answer leaves with the row recorded unconfirmed, and the task settles it; without, the row is settled before the answer", async () => {
    const held: Array<() => Promise<void>> = [];
    const relayed = (options: Parameters<typeof relayCall>[3]) =>
      wrapFetchWithPayment(async (input: RequestInfo | URL, init?: RequestInit) => relayCall(new Request(input, init), slugs.honest, "weather", options), client);
    const waiting = () => t.prisma.routerPayment.findMany({ where: { listingId: listingIds.honest, status: "unconfirmed" } });
    expect(await waiting()).toEqual([]);

    const res = await relayed({ afterAnswer: (task) => held.push(task) })(callUrl("honest"), { headers: auth() });
    expect(res.status).toBe(200);
    expect(held).toHaveLength(1);
    const [row] = await waiting();
    expect(row).toMatchObject({ status: "unconfirmed", confirmedAt: null, settledAmount: null, httpStatus: 200, payer: payer.address.toLowerCase() });
    expect(row.transactionId).toMatch(/^0x[0-9a-f]{64}$/);
    await held[0]();
    expect(await t.prisma.routerPayment.findUniqueOrThrow({ where: { id: row.id } })).toMatchObject({ status: "settled", chainAmount: "10000", chainTo: payTo.toLowerCase() });

    const before = new Set((await t.prisma.routerPayment.findMany({ where: { listingId: listingIds.honest }, select: { id: true } })).map((r) => r.id));
    expect((await relayed({})(callUrl("honest"), { headers: auth() })).status).toBe(200);
    const fresh = (await t.prisma.routerPayment.findMany({ where: { listingId: listingIds.honest } })).filter((r) => !before.has(r.id));
    expect(fresh).toHaveLength(1);
    expect(fresh[0]).toMatchObject({ status: "settled", chainAmount: "10000" });
  });
});
