/**
 * The demo market end to end on a real anvil: the seed's listing shapes served live (sellers/market),
 * their buyers paying with @x402/fetch through the router (its route handler over loopback HTTP), the
 * sellers settling through the facilitator's own routes, and the catalog's rank read from those
 * ledger rows only. Nothing here seeds a ledger row.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey } from "@/lib/apikeys";
import { startAnvil, type AnvilNode } from "@/devchain/anvil";
import { LOCAL_DEV_KEYS, setupLocalChain, type LocalChain } from "@/devchain/local-chain";
import { rankForListing, type ListingRank } from "@/lib/rank/inputs";
import { runRankSweep } from "@/lib/rank/sweep-ranks";
import { confirmationsSettled } from "@/lib/router/confirm-after-answer";
import { CANARY_HOUSE_LABEL, demoKey, demoWallet, fundBuyers, marketExtras, marketPlan, marketSellers, MATURE_BUYERS, MPP_BUYERS, playMarket, productPlan, type TrafficResult } from "@/demo/market";
import { draftListingFromUrl } from "@/lib/discovery/import";
import type { ListingDocument } from "@/lib/listing-document/document";
import { startAgentVerdict, type AgentVerdictService } from "@/sellers/agent-verdict/index";
import { startValidityCheck, type ValidityCheck } from "@/sellers/validity-check/service";
import { seedDemo, shapeDocument, SHAPES, type DemoSeedResult } from "@/demo/seed-demo";
import { startMarket, type Market } from "@/sellers/market";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { serveRoutes, type RouteServer } from "@/test/route-server";
import { facilitatorRoutes, rigFacilitator, routerCallRoute } from "@/test/router-routes";
import { canaryConfigured, queueDueRuns, runDueRuns } from "@/lib/canary/runs";
import { adminCanaryDesk } from "@/lib/surfaces/admin-canary";
import type { RunResult } from "@/lib/canary/run";
import { decodePaymentRequiredHeader } from "@x402/core/http";
import { indexingSettled } from "@/lib/facilitator/receipt";
import { sellerReport } from "@/lib/surfaces/seller";

let node: AnvilNode;
let local: LocalChain;
let routes: RouteServer;
let market: Market;
let t: TestDatabase;
let seeded: DemoSeedResult;
let played: TrafficResult[];
let validityCheck: ValidityCheck;
let agentVerdict: AgentVerdictService;
const plan = marketPlan();
const products = productPlan();
const ranks: Record<string, ListingRank> = {};
const canary: Record<string, RunResult & { trigger: string }> = {};

beforeAll(async () => {
  node = await startAnvil();
  local = await setupLocalChain(node.rpcUrl);
  routes = await serveRoutes({ ...facilitatorRoutes(), ...routerCallRoute() });
  const facilitator = rigFacilitator(routes.origin);
  market = await startMarket({
    facilitator,
    usdc: local.usdc,
    sellers: marketSellers(plan, { ...Object.fromEntries(SHAPES.map((s) => [s.key, shapeDocument(s.key)])), ...marketExtras() }),
  });
  validityCheck = await startValidityCheck({ facilitator, usdc: local.usdc, payTo: products[0].payTo });
  agentVerdict = await startAgentVerdict({ facilitator, usdc: local.usdc, payTo: products[1].payTo });
  const hosts = [market.port, validityCheck.port, agentVerdict.port].map((p) => `127.0.0.1:${p}`);
  // Read on first use of lib/env (after this): the relay reaches the sellers, the facilitator and the
  // ledger read the chain.
  process.env.TOLLGATE_PROBE_ALLOW_HOSTS = hosts.join(",");
  process.env.TOLLGATE_CHAIN_RPC_URL = node.rpcUrl;
  process.env.TOLLGATE_FACILITATOR_KEY = LOCAL_DEV_KEYS[9];
  process.env.TOLLGATE_CANARY_KEY = demoKey(CANARY_HOUSE_LABEL);
  await local.mint(demoWallet(CANARY_HOUSE_LABEL).address, 5_000_000n);
  t = await createTestDatabase();
  const extras = Object.fromEntries(Object.keys(marketExtras()).map((k) => [k, market.documents[k]]));
  // The products are listed from the documents their services publish, as a seller would list them.
  const productDocuments: Record<string, ListingDocument> = {};
  for (const [key, url] of [["003", `${validityCheck.url}/criteria`], ["002", `${agentVerdict.url}/docs/AGENT_VERDICT.json`]] as const) {
    const drafted = await draftListingFromUrl(url, { allowHosts: hosts });
    if (!drafted.ok) throw new Error(`${url}: ${drafted.detail}`);
    productDocuments[key] = drafted.draft;
  }
  seeded = await seedDemo(t.prisma, { sellersOrigin: "http://127.0.0.1:4020", shapeDocuments: market.documents, marketListings: extras, productDocuments });
  const admin = await t.prisma.user.findUniqueOrThrow({ where: { demoLogin: "admin@demo" } });
  const apiKey = (await createApiKey({ actorId: admin.id, name: "demo market buyers", scopes: ["router:call"] })).secret;
  await fundBuyers(local, [...plan, ...products]);
  played = await playMarket({ local, plan: [...plan, ...products], documents: { ...market.documents, ...productDocuments }, slugs: seeded.marketSlugs, routerOrigin: routes.origin, apiKey });
  // The router confirms each payment on chain after its answer: wait for those before reading.
  await confirmationsSettled();
  // After the market plays, the canary runs every published listing as the demo server's ticks do
  // (lib/canary/ticks.ts): canary.schedule queues a `publish` run for each listing never run, and
  // canary.runs executes the due runs. The verification factors below are their outcomes, not a seed's.
  expect(canaryConfigured()).toBe(true);
  const queued = await queueDueRuns();
  const executed = await runDueRuns({ limit: queued });
  expect(executed).toHaveLength(queued);
  for (const [key, id] of Object.entries({ ...seeded.listingIdsByShape, ...seeded.marketListingIds })) {
    const run = await t.prisma.canaryRun.findFirstOrThrow({ where: { listingId: id }, orderBy: { createdAt: "desc" } });
    canary[key] = { runId: run.id, state: run.state as RunResult["state"], outcome: run.outcome, reason: run.reason ?? "", trigger: run.trigger };
  }
  await runRankSweep();
  for (const [shape, id] of Object.entries(seeded.listingIdsByShape)) ranks[shape] = (await rankForListing(id))!;
}, 180_000);

afterAll(async () => {
  await t?.close();
  await market?.close();
  await validityCheck?.close();
  await agentVerdict?.close();
  await routes?.close();
  await node?.stop();
});

/** The buyers' rows (the canary's house rows are checked in their own describe). */
const rowsOf = (shape: string) => t.prisma.routerPayment.findMany({ where: { listingId: seeded.listingIdsByShape[shape], house: false } });

describe("the demo market's ledger is the router's, confirmed on chain", () => {
  it("every planned call went through the router, and no row is seeded", async () => {
    expect(played.map((r) => [r.key, r.calls])).toEqual([
      ["mature-and-honest", MATURE_BUYERS * 2],
      ["popular-but-thin", 12],
      ["trafficked-but-unpayable", 9],
      ["geo-lookup-mpp", MPP_BUYERS * 2],
      ["quillsum-overcharges", 8],
      ["digestly-fails-after-payment", 9],
      ["003", 10],
      ["002", 4],
    ]);
    // The honest sellers deliver; the one that never settles still answers 200 (its claim is what fails).
    expect(played.map((r) => r.statuses)).toEqual([{ 200: MATURE_BUYERS * 2 }, { 200: 12 }, { 200: 9 }, { 200: MPP_BUYERS * 2 }, { 200: 8 }, { 500: 9 }, { 200: 10 }, { 200: 4 }]);
    expect(await t.prisma.routerPayment.count({ where: { demo: true } })).toBe(0);
    expect(await t.prisma.routerPayment.count({ where: { transactionId: null, house: false } })).toBe(0);
    expect(await rowsOf("well-built-brand-new")).toEqual([]);
  });

  it("mature-and-honest: settled rows with the chain's amount, block and the seller's payee, one per call", async () => {
    const rows = await rowsOf("mature-and-honest");
    const payee = plan[0].payTo.toLowerCase();
    expect(rows).toHaveLength(MATURE_BUYERS * 2);
    expect(new Set(rows.map((r) => r.payer)).size).toBe(MATURE_BUYERS);
    for (const r of rows) {
      expect(r).toMatchObject({ status: "settled", advertisedAmount: "3000", settledAmount: "3000", chainAmount: "3000", chainTo: payee, chainFrom: r.payer, house: false });
      expect(r.blockNumber).toBeGreaterThan(0n);
      // The chain shows the transfer the row names.
      const receipt = await local.publicClient.getTransactionReceipt({ hash: r.transactionId as `0x${string}` });
      expect(receipt.status).toBe("success");
    }
  });

  it("the sellers show their receipts: each settlement through the facilitator left a bazaar receipt naming its listing, listed", async () => {
    await indexingSettled();
    const listingId = seeded.listingIdsByShape["mature-and-honest"];
    const owner = await t.prisma.user.findFirstOrThrow({ where: { organization: { listings: { some: { id: listingId } } } }, select: { id: true } });
    const { receipts } = await sellerReport(owner.id, listingId);
    // The buyers' and the canary's payments alike settle through the facilitator.
    const settled = (await t.prisma.routerPayment.findMany({ where: { listingId, status: "settled" } })).map((r) => r.transactionId!.toLowerCase());
    const indexed = receipts.items.filter((r) => r.kind === "index" && r.status === "success");
    expect(indexed.length).toBeGreaterThan(0);
    for (const r of indexed) {
      expect(settled).toContain(r.transaction!.toLowerCase());
      expect(r.checks.length).toBeGreaterThan(0);
      expect(r.checks.every((c) => c.pass)).toBe(true);
    }
    expect(receipts.firstSettlementToListedMs).not.toBeNull();
    expect(receipts.firstSettlementToListedMs!).toBeGreaterThanOrEqual(0);
  });

  it("popular-but-thin: one wallet paying itself is twelve settled rows and one payer", async () => {
    const rows = await rowsOf("popular-but-thin");
    expect(rows).toHaveLength(12);
    expect(new Set(rows.map((r) => r.payer))).toEqual(new Set([plan[1].payTo.toLowerCase()]));
    expect(rows.every((r) => r.status === "settled" && r.chainTo === r.payer)).toBe(true);
  });

  it("trafficked-but-unpayable: the seller's claimed transactions are not on chain, so every row failed unproven", async () => {
    const rows = await rowsOf("trafficked-but-unpayable");
    expect(rows).toHaveLength(9);
    expect(new Set(rows.map((r) => r.payer)).size).toBe(3);
    expect(rows.every((r) => r.status === "failed" && r.reason === "unproven" && r.settledAmount === null)).toBe(true);
  });

  it("geo-lookup-mpp: paid over MPP with the mppx client through the router, settled with the chain's facts", async () => {
    const rows = await t.prisma.routerPayment.findMany({ where: { listingId: seeded.marketListingIds["geo-lookup-mpp"] } });
    expect(rows).toHaveLength(MPP_BUYERS * 2);
    expect(new Set(rows.map((r) => r.payer)).size).toBe(MPP_BUYERS);
    for (const r of rows) expect(r).toMatchObject({ protocol: "mpp", status: "settled", advertisedAmount: "5000", chainAmount: "5000", chainTo: plan[4].payTo.toLowerCase() });
  });
});

describe("the market's sellers answer as their services (sellers/market/answers.ts), not with placeholders", () => {
  it("free endpoints over HTTP, and the answer a paid endpoint publishes as its discovery example", async () => {
    const status = await (await fetch(`${market.url}/mature-and-honest/v1/status`)).json();
    expect(status).toMatchObject({ healthy: true, indexBuiltAt: expect.stringMatching(/^2026-/) });
    expect(status.countries).toBeGreaterThan(10);
    const languages = await (await fetch(`${market.url}/well-built-brand-new/v1/languages`)).json();
    expect(languages.languages).toContainEqual({ code: "es", name: "Spanish", translate: true });
    const unpaid = await fetch(`${market.url}/mature-and-honest/v1/geocode?q=${encodeURIComponent("Alexanderplatz 1, Berlin")}&country=DE&limit=1`);
    expect(unpaid.status).toBe(402);
    const required = decodePaymentRequiredHeader(unpaid.headers.get("payment-required")!);
    const bazaar = (required.extensions as Record<string, { info: { output: { example: { results: unknown[] } } } }>).bazaar;
    expect(bazaar.info.output.example.results).toEqual([expect.objectContaining({ lat: 52.5219, lon: 13.4132, confidence: 1 })]);
  });

  it("the MPP geo lookup refuses a malformed request carrying a credential before charging; unpaid, it still gets its 402", async () => {
    const post = (headers: Record<string, string>) =>
      fetch(`${market.url}/geo-lookup-mpp/api/reverse`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify({ lat: 200, lon: 0 }) });
    const paid = await post({ authorization: "Payment not-a-credential" });
    expect(paid.status).toBe(400);
    expect(await paid.json()).toMatchObject({ error: "invalid_request", pointer: "/lat" });
    expect((await post({})).status).toBe(402);
  });
});

describe("sellers that take real money and misbehave: the chain's facts, not the seller's claims", () => {
  const extraRows = (key: string) => t.prisma.routerPayment.findMany({ where: { listingId: seeded.marketListingIds[key], house: false } });

  it("overcharges: buyers paid twice the listed price on chain, and price integrity falls", async () => {
    const rows = await extraRows("quillsum-overcharges");
    expect(rows).toHaveLength(8);
    for (const r of rows) expect(r).toMatchObject({ status: "settled", chainAmount: "20000", advertisedAmount: "20000" });
    const rank = (await rankForListing(seeded.marketListingIds["quillsum-overcharges"]))!;
    // The listing says $0.01; the chain says $0.02 was taken: 100% divergence.
    expect(rank.components.priceIntegrity.value).toBe(0);
  });

  it("fails-after-payment: settled on chain, recorded with the 500 the buyer got", async () => {
    const rows = await extraRows("digestly-fails-after-payment");
    expect(rows).toHaveLength(9);
    for (const r of rows) expect(r).toMatchObject({ status: "settled", httpStatus: 500, chainAmount: "10000" });
  });
});

describe("the seed products, listed from their own documents and paid through the router", () => {
  /** The buyers' rows (the canary's house rows are the canary's, asserted apart). */
  const productRows = (file: string, house = false) => t.prisma.routerPayment.findMany({ where: { listingId: seeded.productListingIds[file], house } });

  it("validity-check: each paid /validity call settled on chain at $0.01, to its payee", async () => {
    const rows = await productRows("003-validity-check.json");
    expect(rows).toHaveLength(10);
    for (const r of rows) expect(r).toMatchObject({ status: "settled", chainAmount: "10000", chainTo: products[0].payTo.toLowerCase(), httpStatus: 200 });
    // The canary paid both paid routes once each (/upto and /validity), also at $0.01 to the payee.
    const house = await productRows("003-validity-check.json", true);
    expect(house).toHaveLength(2);
    for (const r of house) expect(r).toMatchObject({ status: "settled", chainAmount: "10000", chainTo: products[0].payTo.toLowerCase(), httpStatus: 200 });
    // The service's own ledger holds one row per delivery (the buyers' and the canary's), and only its closed field list.
    expect(validityCheck.ledger()).toHaveLength(rows.length + house.length);
  });

  it("agent-verdict: each verdict paid at its dynamic quote from the $0.04 floor, settled on chain", async () => {
    const rows = await productRows("002-agent-verdict.json");
    expect(rows).toHaveLength(4);
    const house = await productRows("002-agent-verdict.json", true);
    expect(house).toHaveLength(1);
    for (const r of [...rows, ...house]) {
      expect(r).toMatchObject({ status: "settled", chainTo: products[1].payTo.toLowerCase(), httpStatus: 200 });
      expect(BigInt(r.chainAmount!)).toBeGreaterThanOrEqual(40_000n);
    }
  });
});

describe("the canary decides the demo's verification from real paid runs", () => {
  it("the seed's shapes: the mature seller verified, the thin one unverified (no examples), the unpayable one degraded", () => {
    expect(canary["mature-and-honest"]).toMatchObject({ state: "done", outcome: "verified" });
    expect(canary["popular-but-thin"]).toMatchObject({ state: "done", outcome: "unverified" });
    expect(canary["popular-but-thin"].reason).toMatch(/GET \/price: no verdict \(no_request_example\)/);
    expect(canary["trafficked-but-unpayable"]).toMatchObject({ state: "done", outcome: "degraded" });
    expect(canary["trafficked-but-unpayable"].reason).toMatch(/GET \/v1\/search: broken \(unproven\)/);
    expect(canary["well-built-brand-new"]).toMatchObject({ state: "done", outcome: "verified" });
    expect(canary["quillsum-overcharges"]).toMatchObject({ outcome: "degraded" });
    expect(canary["quillsum-overcharges"].reason).toMatch(/quote_above_listing/);
    expect(canary["digestly-fails-after-payment"].reason).toMatch(/charged_without_delivery/);
    expect(canary["geo-lookup-mpp"]).toMatchObject({ outcome: "unverified" });
    expect(canary["geo-lookup-mpp"].reason).toMatch(/^protocol_not_supported/);
    // Each was the listing's first run, queued on publish by the schedule tick.
    for (const key of ["mature-and-honest", "popular-but-thin", "trafficked-but-unpayable"]) expect(canary[key].trigger).toBe("publish");
  });

  it("the moderators' canary desk shows those runs: the mature seller's paid calls with their transactions, the thin one's missing examples", async () => {
    const admin = await t.prisma.user.findUniqueOrThrow({ where: { demoLogin: "admin@demo" } });
    const desk = await adminCanaryDesk(admin.id);
    const mature = desk.runs.find((r) => r.id === canary["mature-and-honest"].runId)!;
    expect(mature.samples).toHaveLength(3);
    for (const s of mature.samples) {
      expect(s).toMatchObject({ outcome: "pass", paymentStatus: "settled", replay: "refused" });
      expect(s.transactionId).toMatch(/^0x[0-9a-f]{64}$/);
      expect(s.chainAmount).toBe(s.quotedAmount);
    }
    expect(mature.listing.verificationStatus).toBe("verified");
    const thin = desk.runs.find((r) => r.id === canary["popular-but-thin"].runId)!;
    expect(thin.samples.every((s) => s.outcome === null && s.reason === "no_request_example" && s.transactionId === null)).toBe(true);
    const unpayable = desk.runs.find((r) => r.id === canary["trafficked-but-unpayable"].runId)!;
    expect(unpayable.samples.find((s) => s.path === "/v1/search")).toMatchObject({ outcome: "broken", reason: "unproven", paymentStatus: "failed" });
    expect((await adminCanaryDesk(admin.id, { show: "verified" })).runs.map((r) => r.listing.id)).toContain(seeded.listingIdsByShape["mature-and-honest"]);
    expect((await adminCanaryDesk(admin.id, { show: "degraded" })).runs.map((r) => r.listing.id)).toContain(seeded.listingIdsByShape["trafficked-but-unpayable"]);
    // The house paid: today's budget shows it.
    expect(BigInt(desk.budget.spentToday)).toBeGreaterThan(0n);
  });

  it("the rank's verification factor is each listing's run, and the house rows are no buyer", async () => {
    expect(ranks["mature-and-honest"].components.verification.value).toBe(1);
    expect(ranks["popular-but-thin"].components.verification.value).toBe(0.85);
    expect(ranks["trafficked-but-unpayable"].components.verification.value).toBe(0.5);
    const house = demoWallet(CANARY_HOUSE_LABEL).address.toLowerCase();
    expect(await t.prisma.routerPayment.count({ where: { payer: house, house: false } })).toBe(0);
    expect(await t.prisma.routerPayment.count({ where: { payer: house, house: true } })).toBeGreaterThan(0);
    expect(ranks["mature-and-honest"].inputs.ledger.distinctPayers30d).toBe(MATURE_BUYERS);
  });
});

describe("the seed's floors on real ledger rows", () => {
  it("one wallet paying itself many times gives traction 0", () => {
    expect(ranks["popular-but-thin"].inputs.ledger.distinctPayers30d).toBe(1);
    expect(ranks["popular-but-thin"].components.traction.value).toBe(0);
  });

  it("distinct buyers failing three times each make the listing unpayable, and its featured level counts for nothing", () => {
    const r = ranks["trafficked-but-unpayable"];
    expect(r.components.gate.gate).toBe("unpayable");
    expect(r.inputs.featuredLevel).toBe(5);
    expect(r.components.featured.value).toBe(1);
    expect(r.rank).toBeLessThan(ranks["mature-and-honest"].rank);
  });

  it("many distinct confirmed payers give traction and an honest price", () => {
    expect(ranks["mature-and-honest"].components.traction.value).toBeCloseTo(MATURE_BUYERS / 50, 10);
    expect(ranks["mature-and-honest"].components.priceIntegrity.value).toBe(1);
  });

  it("the catalog order comes from these rows: the mature seller first, the unpayable one last", async () => {
    const order = await t.prisma.listingRank.findMany({
      where: { listingId: { in: Object.values(seeded.listingIdsByShape) } },
      orderBy: [{ rankScore: "desc" }],
      select: { listingId: true },
    });
    const byId = Object.fromEntries(Object.entries(seeded.listingIdsByShape).map(([k, v]) => [v, k]));
    const shapes = order.map((o) => byId[o.listingId]);
    expect(shapes[0]).toBe("mature-and-honest");
    expect(shapes.at(-1)).toBe("trafficked-but-unpayable");
  });
});
