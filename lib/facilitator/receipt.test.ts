/**
 * Indexing with a receipt, on a real anvil and the suite's database (PGlite, or server PostgreSQL
 * with TEST_DATABASE_URL): an unmodified @x402/express seller gets EXTENSION-RESPONSES back through
 * HTTPFacilitatorClient; 30 malformed bazaar extensions are each rejected by name and 30 valid ones
 * listed; forged and replayed receipts change nothing; a changed 402 re-syncs in one sweep.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { x402Client } from "@x402/core/client";
import { HTTPFacilitatorClient, encodePaymentRequiredHeader } from "@x402/core/http";
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from "@x402/core/types";
import { toClientEvmSigner } from "@x402/evm";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { ExactEvmScheme as ServerExactEvmScheme } from "@x402/evm/exact/server";
import { paymentMiddleware, x402ResourceServer } from "@x402/express";
import { bazaarResourceServerExtension, declareDiscoveryExtension } from "@x402/extensions/bazaar";
import { wrapFetchWithPayment } from "@x402/fetch";
import type { Address, PrivateKeyAccount } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFundedChain } from "@/test/chain";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { serveRoutes, type RouteServer } from "@/test/route-server";
import { facilitatorRoutes } from "@/test/router-routes";
import { POST as settleRoute } from "@/app/api/facilitator/settle/route";
import { POST as verifyRoute } from "@/app/api/facilitator/verify/route";
import { GET as supportedRoute } from "@/app/api/facilitator/supported/route";
import { bazaarExtension } from "@/sellers/common";
import type { AnvilNode } from "@/devchain/anvil";
import { LOCAL_DEV_KEYS, LOCAL_NETWORK, LOCAL_USDC_ADDRESS, LOCAL_USDC_DOMAIN, type LocalChain } from "@/devchain/local-chain";
import { createApiKey } from "@/lib/apikeys";
import { configureLimits, restoreLimits, type LimitsConfig } from "@/lib/limits";
import { receiptsOfListing } from "@/lib/intake/receipts";
import { syncIndexedListings } from "@/lib/intake/sync-receipts";
import { decodeExtensionResponses } from "@/lib/x402/bazaar-receipt";
import { indexingSettled } from "./receipt";

let node: AnvilNode;
let local: LocalChain;
let t: TestDatabase;
let payer: PrivateKeyAccount;
let payTo: Address;
let otherPayTo: Address;
let buyer: x402Client;
let keyA = "";
let keyB = "";
let orgA = "";
let orgB = "";
let saved: LimitsConfig;
let facilitator: RouteServer;
let resources: Server;
let origin = "";
let shop: Server;
let shopOrigin = "";
const expressSaw: Array<Record<string, unknown> | undefined> = [];

// ---- A loopback seller whose 402s the tests set per path.
type Offer = { amount: string; payTo: Address; bazaar?: unknown; status?: number };
const offers = new Map<string, Offer>();
const requirementsFor = (o: Offer): PaymentRequirements => ({ scheme: "exact", network: LOCAL_NETWORK, amount: o.amount, asset: LOCAL_USDC_ADDRESS, payTo: o.payTo, maxTimeoutSeconds: 300, extra: { ...LOCAL_USDC_DOMAIN } });
const challengeFor = (path: string, o: Offer): PaymentRequired => ({
  x402Version: 2,
  resource: { url: origin + path, description: `Resource ${path}`, mimeType: "application/json" },
  accepts: [requirementsFor(o)],
  ...(o.bazaar !== undefined ? { extensions: { bazaar: o.bazaar } } : {}),
});
function answer(req: IncomingMessage, res: ServerResponse) {
  const path = (req.url ?? "/").split("?")[0];
  const o = offers.get(path);
  req.resume();
  if (!o) return res.writeHead(404, { "content-type": "text/plain" }).end("not found");
  if (o.status) return res.writeHead(o.status, { "content-type": "application/json" }).end(JSON.stringify({ error: "body.text is required" }));
  const pr = challengeFor(path, o);
  res.writeHead(402, { "content-type": "application/json", "payment-required": encodePaymentRequiredHeader(pr) }).end(JSON.stringify(pr));
}
const listen = async (s: Server) => {
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
};

// ---- Valid extensions as sellers' middleware emits them, three kinds.
function validExtension(i: number): { method: string; bazaar: unknown } {
  if (i % 3 === 0) {
    return { method: "GET", bazaar: bazaarExtension("GET", `/v/${i}`, { input: { q: `term ${i}` }, inputSchema: { properties: { q: { type: "string" } }, required: ["q"] }, output: { example: { hits: i } } }).bazaar };
  }
  if (i % 3 === 1) {
    return { method: "POST", bazaar: bazaarExtension("POST", `/v/${i}`, { bodyType: "json", input: { text: `hello ${i}` }, inputSchema: { properties: { text: { type: "string" } }, required: ["text"] }, output: { example: { words: i } } }).bazaar };
  }
  return { method: "POST", bazaar: (declareDiscoveryExtension({ toolName: `tool_${i}`, description: `Tool ${i}`, inputSchema: { type: "object", properties: { x: { type: "number" } } }, example: { x: i }, output: { example: { y: i } } }) as { bazaar: unknown }).bazaar };
}

beforeAll(async () => {
  ({ node, local, payer, payTo, otherPayTo } = await startFundedChain());
  await local.mint(payer.address, 100_000_000n);
  resources = createServer(answer);
  origin = await listen(resources);
  facilitator = await serveRoutes(facilitatorRoutes());
  // An unmodified @x402/express seller settling through the facilitator over HTTP, with our API key.
  const auth = async () => {
    const h = { Authorization: `Bearer ${keyA}` };
    return { verify: h, settle: h, supported: h };
  };
  const server = new x402ResourceServer(new HTTPFacilitatorClient({ url: `${facilitator.origin}/api/facilitator`, createAuthHeaders: auth }))
    .register(LOCAL_NETWORK, new ServerExactEvmScheme())
    .registerExtension(bazaarResourceServerExtension)
    .onAfterSettle(async (ctx) => {
      expressSaw.push((ctx.result as { extensionResponses?: Record<string, unknown> }).extensionResponses);
    });
  const app = express();
  app.use(
    paymentMiddleware(
      {
        "GET /weather": {
          accepts: { scheme: "exact", network: LOCAL_NETWORK, payTo, price: { amount: "2500", asset: LOCAL_USDC_ADDRESS, extra: { ...LOCAL_USDC_DOMAIN } }, maxTimeoutSeconds: 300 },
          description: "Weather in Lisbon",
          mimeType: "application/json",
          extensions: declareDiscoveryExtension({ input: { city: "Lisbon" }, inputSchema: { properties: { city: { type: "string" } }, required: ["city"] }, output: { example: { city: "Lisbon", temperatureC: 19 } } }),
        },
      },
      server,
    ),
  );
  app.get("/weather", (_req, res) => void res.json({ city: "Lisbon", temperatureC: 19 }));
  shop = createServer(app);
  shopOrigin = await listen(shop);
  // lib/env reads these on first use, which is after this.
  process.env.TOLLGATE_CHAIN_RPC_URL = node.rpcUrl;
  process.env.TOLLGATE_FACILITATOR_KEY = LOCAL_DEV_KEYS[9];
  process.env.TOLLGATE_FACILITATOR_TOKENS = "receipt-demo=receipt-test-token-0123456789abcdefghijklmnop";
  process.env.TOLLGATE_PROBE_ALLOW_HOSTS = `${new URL(origin).host},${new URL(shopOrigin).host}`;
  t = await createTestDatabase();
  saved = configureLimits({ rates: { facilitator: null, facilitatorPayer: null, intake: null, publish: null } });
  const a = await t.prisma.organization.create({ data: { name: "Org A", slug: "org-a" } });
  const b = await t.prisma.organization.create({ data: { name: "Org B", slug: "org-b" } });
  ({ id: orgA } = a);
  ({ id: orgB } = b);
  const adminA = (await t.prisma.user.create({ data: { name: "Admin A", role: "admin", organizationId: orgA } })).id;
  const adminB = (await t.prisma.user.create({ data: { name: "Admin B", role: "admin", organizationId: orgB } })).id;
  keyA = (await createApiKey({ actorId: adminA, name: "seller A", scopes: ["facilitator:settle"] })).secret;
  keyB = (await createApiKey({ actorId: adminB, name: "seller B", scopes: ["facilitator:settle"] })).secret;
  buyer = new x402Client()
    .register(LOCAL_NETWORK, new ExactEvmScheme(toClientEvmSigner(payer, local.publicClient)))
    .setSpendControls({ allowedAssets: [{ network: LOCAL_NETWORK, asset: LOCAL_USDC_ADDRESS }] });
}, 90_000);
afterAll(async () => {
  if (saved) restoreLimits(saved);
  await indexingSettled();
  await Promise.all([facilitator?.close(), new Promise((r) => resources?.close(r)), new Promise((r) => shop?.close(r))]);
  await t?.close();
  await node?.stop();
});

const body = (payload: PaymentPayload, req: PaymentRequirements) => ({ x402Version: 2, paymentPayload: payload, paymentRequirements: req });
async function call(route: (r: Request) => Promise<Response>, payload: PaymentPayload, req: PaymentRequirements, bearer = keyA) {
  const res = await route(new Request("http://tollgate.test/api/facilitator/x", { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${bearer}` }, body: JSON.stringify(body(payload, req)) }));
  return { status: res.status, json: await res.json(), bazaar: decodeExtensionResponses(res.headers.get("extension-responses"))?.bazaar as { status: string; rejectedReason?: string } | undefined };
}
async function payFor(path: string): Promise<{ payload: PaymentPayload; req: PaymentRequirements }> {
  const o = offers.get(path)!;
  const payload = await buyer.createPaymentPayload(challengeFor(path, o));
  return { payload, req: requirementsFor(o) };
}
async function indexReceiptFor(settleTx: string) {
  return t.prisma.bazaarReceipt.findFirst({ where: { kind: "index", settlementId: (await t.prisma.bazaarReceipt.findFirst({ where: { kind: "settle", transaction: settleTx } }))?.id } });
}

describe("an unmodified @x402/express seller", () => {
  it("receives EXTENSION-RESPONSES from our facilitator, and its resource is listed with a receipt", async () => {
    const paidFetch = wrapFetchWithPayment(fetch, buyer);
    const res = await paidFetch(`${shopOrigin}/weather`);
    expect(res.status).toBe(200);
    expect(expressSaw).toEqual([{ bazaar: { status: "processing" } }]);
    await indexingSettled();
    const index = await t.prisma.bazaarReceipt.findFirst({ where: { kind: "index", resourceUrl: `${shopOrigin}/weather` } });
    expect(index).toMatchObject({ status: "success", organizationId: orgA, method: "GET", amount: "2500" });
    const listing = await t.prisma.listing.findUniqueOrThrow({ where: { id: index!.listingId! }, include: { endpoints: true } });
    expect(listing.publicationState).toBe("published");
    expect(listing.endpoints.find((e) => e.path === "/weather")).toMatchObject({ method: "GET", priceAmount: "2500" });
    expect((index!.checks as Array<{ id: string; pass: boolean }>).map((c) => `${c.id}:${c.pass}`)).toEqual(
      ["reachable", "returns_402", "has_bazaar_extension", "parses", "method_matches", "payto_matches", "price_matches"].map((id) => `${id}:true`),
    );
    const shown = await receiptsOfListing(t.prisma, listing.id);
    expect(shown.receipts.map((r) => r.kind).sort()).toEqual(["index", "settle"]);
    expect(shown.firstSettlementToListedMs).toBeGreaterThanOrEqual(0);
    expect(shown.firstSettlementToListedMs).toBeLessThan(5_000);
  }, 60_000);

  it("supported names the bazaar extension", async () => {
    expect((await (await supportedRoute()).json()).extensions).toContain("bazaar");
  });
});

// Each malformed extension (or resource) and the rule that names it.
const SCHEMA_OK = { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object", properties: { input: { type: "object" }, output: { type: "object" } }, required: ["input"] };
const INFO_OK = { input: { type: "http", method: "GET", queryParams: { q: "x" } }, output: { type: "json", example: { n: 1 } } };
const withInfo = (info: unknown, schema: unknown = SCHEMA_OK) => ({ info, schema });
const MALFORMED: Array<[string, unknown, string, { resource?: unknown }?]> = [
  ["a string", "bazaar", "bazaar_not_object"],
  ["an array", [], "bazaar_not_object"],
  ["null", null, "bazaar_not_object"],
  ["a number", 7, "bazaar_not_object"],
  ["no info", { schema: SCHEMA_OK }, "bazaar_info_missing"],
  ["info a string", withInfo("info"), "bazaar_info_missing"],
  ["no input", withInfo({ output: INFO_OK.output }), "bazaar_input_missing"],
  ["input a number", withInfo({ input: 5, output: INFO_OK.output }), "bazaar_input_missing"],
  ["no output", withInfo({ input: INFO_OK.input }), "bazaar_output_missing"],
  ["no schema", { info: INFO_OK }, "bazaar_schema_missing"],
  ["schema a string", withInfo(INFO_OK, "schema"), "bazaar_schema_invalid"],
  ["schema type unknown", withInfo(INFO_OK, { type: "nonsense", properties: { input: {}, output: {} } }), "bazaar_schema_invalid"],
  ["schema properties a number", withInfo(INFO_OK, { type: "object", properties: 5 }), "bazaar_schema_invalid"],
  ["schema required not an array", withInfo(INFO_OK, { ...SCHEMA_OK, required: "input" }), "bazaar_schema_invalid"],
  ["external $ref", withInfo(INFO_OK, { ...SCHEMA_OK, properties: { input: { $ref: "https://evil.example/s.json" }, output: {} } }), "bazaar_ref_external"],
  ["file $ref deep", withInfo(INFO_OK, { ...SCHEMA_OK, properties: { input: { type: "object", properties: { q: { $ref: "file:///etc/passwd" } } }, output: {} } }), "bazaar_ref_external"],
  ["external $id", withInfo(INFO_OK, { ...SCHEMA_OK, $id: "https://evil.example/schema" }), "bazaar_ref_external"],
  ["no input schema", withInfo(INFO_OK, { type: "object", properties: { output: { type: "object" } } }), "bazaar_input_schema_missing"],
  ["no output schema", withInfo(INFO_OK, { type: "object", properties: { input: { type: "object" } } }), "bazaar_output_schema_missing"],
  ["method outside the schema's enum", withInfo(INFO_OK, { ...SCHEMA_OK, properties: { input: { type: "object", properties: { method: { enum: ["POST"] } } }, output: {} } }), "bazaar_info_mismatch"],
  ["a required field missing", withInfo(INFO_OK, { ...SCHEMA_OK, properties: { input: { type: "object", required: ["body"] }, output: {} } }), "bazaar_info_mismatch"],
  ["an example of the wrong type", withInfo(INFO_OK, { ...SCHEMA_OK, properties: { input: { type: "object", properties: { queryParams: { type: "object", properties: { q: { type: "number" } } } } }, output: {} } }), "bazaar_info_mismatch"],
  ["input type ftp", withInfo({ ...INFO_OK, input: { type: "ftp", method: "GET" } }), "bazaar_spec_violation"],
  ["method FETCH", withInfo({ ...INFO_OK, input: { type: "http", method: "FETCH" } }), "bazaar_spec_violation"],
  ["bodyType xml", withInfo({ ...INFO_OK, input: { type: "http", method: "POST", bodyType: "xml", body: {} } }), "bazaar_spec_violation"],
  ["mcp without toolName", withInfo({ ...INFO_OK, input: { type: "mcp", inputSchema: { type: "object" } } }), "bazaar_spec_violation"],
  ["mcp transport websocket", withInfo({ ...INFO_OK, input: { type: "mcp", toolName: "t", inputSchema: { type: "object" }, transport: "websocket" } }), "bazaar_spec_violation"],
  ["no resource", withInfo(INFO_OK), "resource_missing", { resource: null }],
  ["resource not a URL", withInfo(INFO_OK), "resource_url_invalid", { resource: { url: "not a url" } }],
  ["resource with credentials", withInfo(INFO_OK), "resource_url_invalid", { resource: { url: "http://user:pw@127.0.0.1/x" } }],
  ["resource on ftp", withInfo(INFO_OK), "resource_url_invalid", { resource: { url: "ftp://127.0.0.1/x" } }],
];

describe("30 malformed bazaar extensions: each rejected with its named reason, nothing cataloged", () => {
  it("holds 30 or more distinct cases", () => {
    expect(MALFORMED.length).toBeGreaterThanOrEqual(30);
    expect(new Set(MALFORMED.map(([what]) => what)).size).toBe(MALFORMED.length);
  });

  it.each(MALFORMED.map(([what, bazaar, code, over]) => ({ what, bazaar, code, over })))("$what → rejected $code (verify and settle)", async ({ what, bazaar, code, over }) => {
    offers.set(`/bad/${what}`, { amount: "1000", payTo });
    const { payload, req } = await payFor(`/bad/${what}`);
    const forged = { ...payload, extensions: { bazaar }, ...(over && "resource" in over ? { resource: over.resource } : {}) } as PaymentPayload;
    const v = await call(verifyRoute, forged, req);
    expect(v.status, what).toBe(200);
    expect(v.json.isValid, what).toBe(true);
    expect(v.bazaar?.status, what).toBe("rejected");
    expect(v.bazaar?.rejectedReason, what).toMatch(new RegExp(`^${code}: `));
    const listingsBefore = await t.prisma.listing.count();
    const s = await call(settleRoute, forged, req);
    // The payment settles (cataloging is a side effect, never a condition); the catalog is untouched.
    expect(s.json.success, what).toBe(true);
    expect(s.bazaar, what).toEqual({ status: "rejected", rejectedReason: expect.stringMatching(new RegExp(`^${code}: `)) });
    await indexingSettled();
    expect(await t.prisma.listing.count()).toBe(listingsBefore);
    expect(await t.prisma.bazaarReceipt.findFirst({ where: { kind: "settle", transaction: s.json.transaction } })).toMatchObject({ status: "rejected", rejectedCode: code });
  }, 30_000);
});

describe("30 valid bazaar extensions: each settled resource listed", () => {
  it("GET queries, POST bodies and MCP tools alike", async () => {
    const settled: Array<{ tx: string; path: string; method: string }> = [];
    for (let i = 0; i < 30; i++) {
      const { method, bazaar } = validExtension(i);
      offers.set(`/v/${i}`, { amount: String(1000 + i), payTo, bazaar });
      const { payload, req } = await payFor(`/v/${i}`);
      const s = await call(settleRoute, payload, req);
      expect(s.json.success).toBe(true);
      expect(s.bazaar).toEqual({ status: "processing" });
      settled.push({ tx: s.json.transaction, path: `/v/${i}`, method });
    }
    await indexingSettled();
    for (const [i, { tx, path, method }] of settled.entries()) {
      const index = await indexReceiptFor(tx);
      expect(index, path).toMatchObject({ status: "success", resourceUrl: origin + path, method, organizationId: orgA });
      const listing = await t.prisma.listing.findUniqueOrThrow({ where: { id: index!.listingId! }, include: { endpoints: true } });
      expect(listing.publicationState, path).toBe("published");
      expect(listing.endpoints.find((e) => e.path === path), path).toMatchObject({ method, priceAmount: String(1000 + i), priceNetwork: LOCAL_NETWORK });
      expect((index!.readiness as { rubricVersion: string }).rubricVersion).toMatch(/^readiness\//);
    }
  }, 120_000);
});

describe("forgery and replay", () => {
  it("a receipt claimed for someone else's resource: another organisation's listing is not moved or changed", async () => {
    offers.set("/owned", { amount: "5000", payTo, bazaar: validExtension(0).bazaar });
    const first = await payFor("/owned");
    const mine = await call(settleRoute, first.payload, first.req, keyA);
    await indexingSettled();
    const listed = await indexReceiptFor(mine.json.transaction);
    expect(listed).toMatchObject({ status: "success", organizationId: orgA });
    // Org B pays the same resource and claims the receipt.
    const again = await payFor("/owned");
    const theirs = await call(settleRoute, again.payload, again.req, keyB);
    expect(theirs.bazaar).toEqual({ status: "processing" });
    await indexingSettled();
    expect(await indexReceiptFor(theirs.json.transaction)).toMatchObject({ status: "rejected", rejectedCode: "resource_listed_by_another_organisation", organizationId: orgB });
    expect((await t.prisma.listing.findUniqueOrThrow({ where: { id: listed!.listingId! } })).organizationId).toBe(orgA);
    expect(await t.prisma.listing.count({ where: { organizationId: orgB } })).toBe(0);
  }, 60_000);

  it("two first payments for a new resource at once list it once", async () => {
    offers.set("/twice", { amount: "1500", payTo, bazaar: validExtension(12).bazaar });
    const [a, b] = [await payFor("/twice"), await payFor("/twice")];
    const [x, y] = await Promise.all([call(settleRoute, a.payload, a.req), call(settleRoute, b.payload, b.req)]);
    expect([x.json.success, y.json.success]).toEqual([true, true]);
    await indexingSettled();
    expect((await indexReceiptFor(x.json.transaction))?.status).toBe("success");
    expect((await indexReceiptFor(y.json.transaction))?.status).toBe("success");
    expect(await t.prisma.endpoint.count({ where: { path: "/twice", listing: { deletedAt: null } } })).toBe(1);
  }, 60_000);

  it("a receipt for a resource whose live 402 pays someone else is refused (payto_matches)", async () => {
    offers.set("/victim", { amount: "3000", payTo: otherPayTo, bazaar: validExtension(3).bazaar });
    // The forger pays its own address while naming the victim's resource.
    const forgedReq = requirementsFor({ amount: "3000", payTo });
    const payload = await buyer.createPaymentPayload({ ...challengeFor("/victim", offers.get("/victim")!), accepts: [forgedReq] });
    const s = await call(settleRoute, payload, forgedReq, keyB);
    expect(s.json.success).toBe(true);
    await indexingSettled();
    expect(await indexReceiptFor(s.json.transaction)).toMatchObject({ status: "rejected", rejectedCode: "payto_matches" });
    expect(await t.prisma.listing.count({ where: { organizationId: orgB } })).toBe(0);
  }, 60_000);

  it("a settlement replayed to re-list an old price: the replay is refused, a stale price is refused, the listing keeps the live price", async () => {
    offers.set("/priced", { amount: "4000", payTo, bazaar: validExtension(6).bazaar });
    const old = await payFor("/priced");
    const first = await call(settleRoute, old.payload, old.req);
    await indexingSettled();
    const listingId = (await indexReceiptFor(first.json.transaction))!.listingId!;
    // The seller raises its price; one sweep re-syncs the listing, the old price kept in the receipts only.
    offers.set("/priced", { amount: "6000", payTo, bazaar: validExtension(6).bazaar });
    const swept = await syncIndexedListings();
    expect(swept.changed).toContain(listingId);
    const endpoint = async () => (await t.prisma.endpoint.findFirstOrThrow({ where: { listingId, path: "/priced" } })).priceAmount;
    expect(await endpoint()).toBe("6000");
    const shown = await receiptsOfListing(t.prisma, listingId);
    expect(shown.receipts.map((r) => r.amount)).toEqual(expect.arrayContaining(["4000", "6000"]));
    // The same settlement body again: the nonce is spent, nothing settles, nothing is cataloged.
    const replay = await call(settleRoute, old.payload, old.req);
    expect(replay.json.success).toBe(false);
    expect(replay.bazaar?.status).toBe("rejected");
    expect(replay.bazaar?.rejectedReason).toMatch(/^settlement_failed: /);
    // A fresh payment at the old price (the old 402 kept by a buyer): settles, but cannot list 4000.
    const stale = await buyer.createPaymentPayload({ ...challengeFor("/priced", { amount: "4000", payTo, bazaar: validExtension(6).bazaar }) });
    const s = await call(settleRoute, stale, requirementsFor({ amount: "4000", payTo }));
    expect(s.json.success).toBe(true);
    await indexingSettled();
    expect(await indexReceiptFor(s.json.transaction)).toMatchObject({ status: "rejected", rejectedCode: "price_matches" });
    expect(await endpoint()).toBe("6000");
    // The receipts themselves are insert-only.
    await expect(t.prisma.bazaarReceipt.updateMany({ where: { listingId }, data: { amount: "1" } })).rejects.toThrow(/append-only/);
    await expect(t.prisma.bazaarReceipt.deleteMany({ where: { listingId } })).rejects.toThrow(/append-only/);
  }, 90_000);

  it("a named token (no organisation) cannot create a listing; an unprobeable resource is rejected by name", async () => {
    offers.set("/tokened", { amount: "1000", payTo, bazaar: validExtension(9).bazaar });
    const p = await payFor("/tokened");
    const s = await call(settleRoute, p.payload, p.req, "receipt-test-token-0123456789abcdefghijklmnop");
    await indexingSettled();
    expect(await indexReceiptFor(s.json.transaction)).toMatchObject({ status: "rejected", rejectedCode: "caller_has_no_organisation" });
    // On a listed resource a named token's settlement confirms the listing but never re-prices it.
    offers.set("/owned", { amount: "7000", payTo, bazaar: validExtension(0).bazaar });
    const o = await payFor("/owned");
    const confirmed = await call(settleRoute, o.payload, o.req, "receipt-test-token-0123456789abcdefghijklmnop");
    await indexingSettled();
    const receipt = await indexReceiptFor(confirmed.json.transaction);
    expect(receipt).toMatchObject({ status: "success", organizationId: orgA });
    expect((await t.prisma.endpoint.findFirstOrThrow({ where: { listingId: receipt!.listingId!, path: "/owned" } })).priceAmount).toBe("5000");
    offers.set("/strict", { amount: "1000", payTo, bazaar: validExtension(10).bazaar });
    const q = await payFor("/strict");
    offers.set("/strict", { amount: "1000", payTo, status: 422 });
    const u = await call(settleRoute, q.payload, q.req);
    await indexingSettled();
    const r = await indexReceiptFor(u.json.transaction);
    expect(r).toMatchObject({ status: "rejected", rejectedCode: "returns_402" });
    expect(r!.rejectedReason).toMatch(/unprobeable/);
  }, 60_000);
});
