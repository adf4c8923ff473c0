/**
 * bench:select's market behaves as its ground truth declares (PGlite, or server PostgreSQL with
 * TEST_DATABASE_URL): on anvil, through the router's relay, an overcharger takes 3× its listing, a
 * zombie is paid nothing and delivers nothing, a charge-without-delivery seller settles and answers
 * 500, a phantom answers outside its schema, a seller that is down answers 503 before any payment;
 * the wash ring's settled payments come from many wallets; the baselines order as specified.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PublicClient } from "viem";
import { createApiKey } from "@/lib/apikeys";
import { createFacilitator } from "@/lib/chain/facilitator";
import { confirmationsSettled } from "@/lib/router/confirm-after-answer";
import { rows } from "@/lib/sql";
import { LOCAL_DEV_KEYS, LOCAL_NETWORK } from "@/devchain/local-chain";
import { inProcessFacilitator } from "@/sellers/paid";
import { startFundedChain, type FundedChain } from "@/test/chain";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { createTestListing } from "@/test/ledger";
import { serveRoutes, type RouteServer } from "@/test/route-server";
import { routerCallRoute } from "@/test/router-routes";
import { ADVERSARIAL, CAPABILITIES, buildMarket, buildTasks, correctResult, endpointPath, keywordsOf, ringBelowHonest, solved, type SellerSpec } from "./market";
import { startSelectMarket, type SelectMarket } from "./server";
import { benchWallet, callUrlOf, payeeOf, playLedger, ringWallets, type Listed } from "./history";
import { routerBuyer } from "./buyers";
import { choose, readSignals } from "./selectors";

describe("the market as data", () => {
  it("is about 10 % adversarial, every kind present, the ring in one capability, the same for one seed", () => {
    const m = buildMarket(300);
    const adversarial = m.sellers.filter((s) => ADVERSARIAL.has(s.kind));
    expect(adversarial.length).toBeGreaterThanOrEqual(27);
    expect(adversarial.length).toBeLessThanOrEqual(33);
    for (const kind of ADVERSARIAL) expect(m.sellers.some((s) => s.kind === kind), kind).toBe(true);
    expect(new Set(m.sellers.filter((s) => s.kind === "wash").map((s) => s.capability))).toEqual(new Set([m.washCapability]));
    expect(new Set(m.sellers.map((s) => s.capability)).size).toBe(20);
    expect(m.sellers.filter((s) => s.kind === "overcharger").every((s) => s.chargedPrice === 3 * s.price)).toBe(true);
    expect(m.sellers.filter((s) => s.kind === "decoy").every((s) => s.price >= 250_000)).toBe(true);
    expect(buildMarket(300)).toEqual(m);
    expect(buildMarket(300, 7)).not.toEqual(m);
  });

  it("writes 2,000 tasks as varied sentences, fixed by the seed", () => {
    const tasks = buildTasks(2000);
    expect(buildTasks(2000)).toEqual(tasks);
    expect(new Set(tasks.map((t) => t.capability)).size).toBe(20);
    for (const c of CAPABILITIES) expect(new Set(tasks.filter((t) => t.capability === c.key).map((t) => t.sentence.replace(t.input, "{x}"))).size, c.key).toBeGreaterThan(1);
    expect(new Set(tasks.map((t) => t.sentence)).size).toBeGreaterThan(1500);
  });
});

describe("the wash-ring target", () => {
  it("holds when no ring seller is at or above a returned honest one, and a ring left out ties an honest one left out", () => {
    const out = Infinity;
    expect(ringBelowHonest([5, 6], [1, 2, 3, 4])).toBe(true);
    expect(ringBelowHonest([out, out], [1, 2, 3])).toBe(true);
    expect(ringBelowHonest([out, out], [1, 2, out])).toBe(true);
    expect(ringBelowHonest([1, 5], [2, 3, 4])).toBe(false);
    expect(ringBelowHonest([4, out], [1, 2, out])).toBe(false); // a ring seller returned while an honest one is not
    expect(ringBelowHonest([3], [1, 4])).toBe(false);
  });
});

describe("the market on anvil, paid through the router", () => {
  let chain: FundedChain;
  let market: SelectMarket;
  let t: TestDatabase;
  let router: RouteServer;
  let apiKey: string;
  const spec = buildMarket(40);
  const one = (kind: SellerSpec["kind"]) => spec.sellers.find((s) => s.kind === kind)!;
  const honest: SellerSpec = { ...one("honest"), truth: { ...one("honest").truth, uptime: 1, correctness: 1 } };
  const down: SellerSpec = { ...honest, slug: "down-seller", index: 900, truth: { ...honest.truth, uptime: 0 } };
  const kinds = ["overcharger", "zombie", "chargeless", "phantom"] as const;
  const ring = spec.sellers.filter((s) => s.kind === "wash");
  const ringCapHonest = spec.sellers.filter((s) => s.capability === spec.washCapability && s.kind === "honest");
  const sellers = [honest, down, ...kinds.map(one), ...ring, ...ringCapHonest];
  const listed: Listed[] = [];
  const listedOf = (s: SellerSpec) => listed.find((l) => l.seller.slug === s.slug)!;

  beforeAll(async () => {
    chain = await startFundedChain();
    const payee = payeeOf(spec);
    market = await startSelectMarket({ facilitator: inProcessFacilitator(createFacilitator(chain.node.rpcUrl, LOCAL_DEV_KEYS[9])), usdc: chain.local.usdc, sellers, payTo: (s) => (s.slug === "down-seller" ? benchWallet("down").address : payee(s)) });
    process.env.TOLLGATE_PROBE_ALLOW_HOSTS = `127.0.0.1:${market.port}`;
    process.env.TOLLGATE_CHAIN_RPC_URL = chain.node.rpcUrl;
    process.env.TOLLGATE_LIMIT_CALL = "1000000/1m";
    t = await createTestDatabase();
    const admin = (await t.prisma.user.create({ data: { name: "Admin", role: "admin" } })).id;
    apiKey = (await createApiKey({ actorId: admin, name: "select bench test", scopes: ["router:call"] })).secret;
    router = await serveRoutes(routerCallRoute());
    for (const s of sellers) {
      const listingId = await createTestListing(t.prisma, {
        title: s.title,
        shortDescription: s.shortDescription,
        description: s.description,
        baseUrl: market.sellerUrl(s),
        networks: [LOCAL_NETWORK],
        endpoints: [{ method: "POST", path: endpointPath(s.capability), priceAmount: String(s.price), priceAsset: chain.local.usdc, priceNetwork: LOCAL_NETWORK, priceUsd: (s.price / 1e6).toFixed(6) }],
      });
      const { slug } = await t.prisma.listing.findUniqueOrThrow({ where: { id: listingId }, select: { slug: true } });
      listed.push({ listingId, slug, seller: s });
    }
  }, 120_000);
  afterAll(async () => {
    await router?.close();
    await t?.close();
    await market?.close();
    await chain?.node.stop();
  });

  const buyer = (label: string) => routerBuyer(benchWallet(label), chain.local.publicClient as PublicClient, chain.local.usdc, apiKey);
  const fund = (label: string) => chain.local.mint(benchWallet(label).address, 5_000_000n);
  const rowOf = async (payer: string) => (await t.prisma.routerPayment.findMany({ where: { payer: { equals: payer, mode: "insensitive" } } }))[0];

  it("honest delivers the correct answer; a seller that is down answers 503 and takes nothing", async () => {
    await fund("t honest");
    const task = { index: 0, capability: honest.capability, sentence: "", input: "42 Main Street" };
    const res = await buyer("t honest")(callUrlOf(router.origin, listedOf(honest)), task.input);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ result: correctResult(honest.capability, task.input) });
    expect(solved(task, res.status, res.body)).toBe(true);
    const gone = await buyer("t honest")(callUrlOf(router.origin, listedOf(down)), task.input);
    expect(gone).toMatchObject({ status: 503, paid: false });
  });

  it("an overcharger's 402 asks 3× its listing, and the chain moves 3×", async () => {
    const s = one("overcharger");
    await fund("t over");
    const res = await buyer("t over")(callUrlOf(router.origin, listedOf(s)), "x");
    expect(res.status).toBe(200);
    expect(res.authorised).toBe(BigInt(3 * s.price));
    await confirmationsSettled();
    const row = await rowOf(benchWallet("t over").address);
    expect(row).toMatchObject({ status: "settled", chainAmount: String(3 * s.price) });
  });

  it("a zombie answers 402, then fails the paid call and settles nothing", async () => {
    await fund("t zombie");
    const res = await buyer("t zombie")(callUrlOf(router.origin, listedOf(one("zombie"))), "x");
    expect(res).toMatchObject({ status: 502, paid: true });
    await confirmationsSettled();
    const row = await rowOf(benchWallet("t zombie").address);
    expect(row.status).toBe("failed");
    expect(await chain.local.balanceOf(benchWallet("t zombie").address)).toBe(5_000_000n);
  });

  it("a charge-without-delivery seller settles and answers 500; a phantom answers outside its schema", async () => {
    await fund("t chargeless");
    const c = one("chargeless");
    const res = await buyer("t chargeless")(callUrlOf(router.origin, listedOf(c)), "x");
    expect(res).toMatchObject({ status: 500, paid: true });
    await confirmationsSettled();
    expect(await rowOf(benchWallet("t chargeless").address)).toMatchObject({ status: "settled", chainAmount: String(c.price) });
    await fund("t phantom");
    const p = one("phantom");
    const task = { index: 0, capability: p.capability, sentence: "", input: "y" };
    const got = await buyer("t phantom")(callUrlOf(router.origin, listedOf(p)), task.input);
    expect(got.status).toBe(200);
    expect(got.body).not.toHaveProperty("result");
    expect(solved(task, got.status, got.body)).toBe(false);
  });

  it("the wash ring's settled payments come from many wallets, and the baselines order as specified", async () => {
    const only = listed.filter((l) => l.seller.kind === "wash" || l.seller.capability === spec.washCapability);
    await playLedger({ prisma: t.prisma, local: chain.local, spec, sellerUrl: market.sellerUrl, apiKey, routerOrigin: router.origin, log: () => undefined, concurrency: 4 }, only);
    const ringIds = listed.filter((l) => l.seller.kind === "wash").map((l) => l.listingId);
    const [{ payers, settled }] = await rows<{ payers: number; settled: number }>(
      t.prisma,
      `SELECT count(DISTINCT lower("payer"))::int AS payers, count(*)::int AS settled FROM "router_payments" WHERE "listingId" = ANY($1::text[]) AND "status" = 'settled'`,
      ringIds,
    );
    const wallets = ringWallets(spec).map((w) => w.address.toLowerCase());
    // Every ring seller is paid by every ring wallet but its own payee, less the calls its 5 % downtime refused.
    const planned = ring.length * (wallets.length - 1);
    expect(settled).toBeLessThanOrEqual(planned);
    expect(settled).toBeGreaterThanOrEqual(Math.floor(planned * 0.8));
    expect(payers).toBeGreaterThanOrEqual(wallets.length - 1);
    const [{ others }] = await rows<{ others: number }>(t.prisma, `SELECT count(*)::int AS others FROM "router_payments" WHERE "listingId" = ANY($1::text[]) AND NOT (lower("payer") = ANY($2::text[]))`, ringIds, wallets);
    expect(others).toBe(0);

    const signals = await readSignals(t.prisma);
    const query = keywordsOf(spec.washCapability);
    const byVolume = await choose("volume", query, signals, 20);
    expect(byVolume.length).toBeGreaterThan(ring.length);
    const volumes = byVolume.map((id) => signals.get(id)?.volume30d ?? 0);
    expect(volumes).toEqual([...volumes].sort((a, b) => b - a));
    expect(new Set(byVolume.slice(0, ring.length))).toEqual(new Set(ringIds));
    const byBazaar = await choose("bazaar", query, signals, 20);
    expect(new Set(byBazaar.slice(0, ring.length))).toEqual(new Set(ringIds));
    const payersOf = (id: string) => signals.get(id)?.payers30d ?? 0;
    expect(Math.min(...ringIds.map(payersOf))).toBeGreaterThan(Math.max(...byBazaar.slice(ring.length).map(payersOf)));
  }, 120_000);
});
