/**
 * Rank end to end from ledger and health rows in a real database (PGlite, or a server PostgreSQL with
 * TEST_DATABASE_URL): rows are written, rankInputsFor aggregates them in SQL, computeRank scores them.
 * The seed's rows 1–4 must come out to the digit (docs/spec/scoring-notes.md "Rank"), and every floor of "Why the
 * scores hold up" must hold through the SQL, not only in the pure maths.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { computeRank, DAY_MS, publicSettledPrice } from "@/lib/rank/score";
import { buildRankFixtures, type RankFixtureKey } from "@/test/rank-shapes";
import { seedDemoLedger } from "@/test/rank-shape-ledger";
import { rankForListing, rankInputsFor } from "./inputs";
import { recordHealthSample, recordPayment, recordQuote } from "@/lib/ledger/record";
import { createTestListing } from "@/test/ledger";

let t: TestDatabase;
const NOW = new Date("2026-12-02T12:00:00.000Z");
const ago = (days: number) => new Date(NOW.getTime() - days * DAY_MS);
const wallet = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;

beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => {
  await t?.close();
});

const PRICES: Record<RankFixtureKey, { priceUsd: string | null; priceLabel: string | null }> = {
  matureAndHonest: { priceUsd: "0.01", priceLabel: "$0.01 per call" },
  matureAndHonestFeatured: { priceUsd: "0.01", priceLabel: "$0.01 per call" },
  popularButThin: { priceUsd: "0.025", priceLabel: "$0.025" },
  wellBuiltBrandNew: { priceUsd: null, priceLabel: null },
  wellBuiltBrandNewUnfeatured: { priceUsd: null, priceLabel: null },
  traffickedButUnpayable: { priceUsd: "0.10", priceLabel: "$0.10 per call" },
};

describe("the seed's rows from ledger and health rows", () => {
  const fixtures = buildRankFixtures(NOW);
  const ids: Partial<Record<RankFixtureKey, string>> = {};

  beforeAll(async () => {
    for (const key of Object.keys(PRICES) as RankFixtureKey[]) {
      ids[key] = await createTestListing(t.prisma, { title: fixtures[key].shape, endpoints: [{ ...PRICES[key], priceAmount: null }] });
    }
    const seeded = await seedDemoLedger(t.prisma, { listingIdsByShape: ids, now: NOW });
    expect(seeded.warnings).toEqual([]);
  });

  it.each([
    ["matureAndHonest", 92, 92],
    ["matureAndHonestFeatured", 92, 120],
    ["popularButThin", 95, 81],
    ["wellBuiltBrandNew", 37, 47],
    ["wellBuiltBrandNewUnfeatured", 37, 31],
  ] as const)("%s: quality %i, rank %i, from facts equal to the fixture's", async (key, quality100, rank100) => {
    const inputs = (await rankInputsFor([ids[key]!], NOW)).get(ids[key]!)!;
    expect(inputs).toEqual(fixtures[key].inputs);
    const r = computeRank(inputs);
    expect([r.quality100, r.rank100]).toEqual([quality100, rank100]);
  });

  it("row 5 (illustrative) keeps its components: 13/6 with Featured forced to 1.00", async () => {
    const r = (await rankForListing(ids.traffickedButUnpayable!, NOW))!;
    expect(r.components.gate.gate).toBe("unpayable");
    expect(r.components.featured.value).toBe(1);
    expect([r.quality100, r.rank100]).toEqual([13, 6]);
  });

  it("re-seeding is idempotent", async () => {
    const before = (await rankInputsFor(Object.values(ids), NOW));
    await seedDemoLedger(t.prisma, { listingIdsByShape: ids, now: NOW });
    expect(await rankInputsFor(Object.values(ids), NOW)).toEqual(before);
    expect(await t.prisma.routerPayment.count({ where: { listingId: ids.matureAndHonest } })).toBe(613);
  });

  it("one SQL statement serves the whole batch, unknown ids left out", async () => {
    const map = await rankInputsFor([...Object.values(ids), "no-such-listing"], NOW);
    expect(map.size).toBe(Object.keys(ids).length);
  });
});

describe("floors end to end (seed 'Why the scores hold up')", () => {
  it("self-pay: one wallet (in any letter case) gives traction 0 and hides the settled price", async () => {
    const id = await createTestListing(t.prisma);
    for (let i = 0; i < 10; i++) {
      const payer = i % 2 ? wallet(7).toUpperCase().replace("0X", "0x") : wallet(7);
      await recordPayment({ listingId: id, payer, status: "settled", advertisedAmount: "10000", settledAmount: "50000", asset: "USDC", network: "eip155:8453", at: ago(i + 1) });
    }
    const r = (await rankForListing(id, NOW))!;
    expect(r.inputs.ledger.distinctPayers30d).toBe(1);
    expect(r.components.traction.value).toBe(0);
    expect(r.components.traction.facts).toMatchObject({ floored: true });
    // No settled-price signal below the floor: the 5× overpayment does not move price integrity.
    expect(r.components.priceIntegrity.value).toBe(0.7);
    expect(publicSettledPrice({ distinctPayers30d: r.inputs.ledger.distinctPayers30d, medianSettledPrice: r.inputs.ledger.medianSettledPrice30d })).toBeNull();
  });

  it("two distinct payers lift the floor: traction counts and the settled price is read", async () => {
    const id = await createTestListing(t.prisma);
    for (const n of [1, 2]) await recordPayment({ listingId: id, payer: wallet(n), status: "settled", advertisedAmount: "10000", settledAmount: "9000", asset: "USDC", network: "eip155:8453", at: ago(n) });
    const r = (await rankForListing(id, NOW))!;
    expect(r.inputs.ledger).toEqual({ distinctPayers30d: 2, distinctAttemptingBuyers30d: 2, settled30d: 2, medianSettledPrice30d: 0.009 });
    expect(r.components.traction.value).toBeCloseTo(0.04, 12);
    expect(r.components.priceIntegrity.value).toBeCloseTo(0.9, 12);
  });

  it("2 failed attempts from 2 buyers are not unpayable; a third attempt is", async () => {
    const id = await createTestListing(t.prisma);
    await recordPayment({ listingId: id, payer: wallet(1), status: "settled", advertisedAmount: "10000", settledAmount: "10000", asset: "USDC", network: "eip155:8453", at: ago(3) });
    // A failure before the last success never counts towards the verdict.
    await recordPayment({ listingId: id, payer: wallet(9), status: "failed", advertisedAmount: "10000", asset: "USDC", network: "eip155:8453", at: ago(4) });
    await recordPayment({ listingId: id, payer: wallet(2), status: "failed", advertisedAmount: "10000", asset: "USDC", network: "eip155:8453", at: ago(2) });
    await recordPayment({ listingId: id, payer: wallet(3), status: "failed", advertisedAmount: "10000", asset: "USDC", network: "eip155:8453", at: ago(1) });
    let r = (await rankForListing(id, NOW))!;
    expect(r.inputs.settle).toMatchObject({ failedAttemptsSinceLastSettle: 2, distinctFailingBuyersSinceLastSettle: 2 });
    expect(r.components.gate.gate).toBe("settleable");

    await recordPayment({ listingId: id, payer: wallet(2), status: "failed", advertisedAmount: "10000", asset: "USDC", network: "eip155:8453", at: ago(0.5) });
    r = (await rankForListing(id, NOW))!;
    expect(r.inputs.settle).toMatchObject({ failedAttemptsSinceLastSettle: 3, distinctFailingBuyersSinceLastSettle: 2 });
    expect(r.components.gate.gate).toBe("unpayable");
  });

  it("one broken wallet failing five times is not unpayable", async () => {
    const id = await createTestListing(t.prisma);
    for (let i = 0; i < 5; i++) await recordPayment({ listingId: id, payer: wallet(5), status: "failed", advertisedAmount: "10000", asset: "USDC", network: "eip155:8453", at: ago(i + 1) });
    const r = (await rankForListing(id, NOW))!;
    expect(r.inputs.settle).toEqual({ lastSettledAt: null, failedAttemptsSinceLastSettle: 5, distinctFailingBuyersSinceLastSettle: 1 });
    expect(r.components.gate.gate).toBe("unknown");
  });

  it("a 31-day-old quote is ignored; a 29-day-old one counts as an advertised price", async () => {
    const id = await createTestListing(t.prisma, { endpoints: [{ priceUsd: null, priceLabel: null, priceAmount: null }] });
    await recordQuote({ listingId: id, amount: "20000", asset: "USDC", network: "eip155:8453", quotedAt: ago(31), source: "test" });
    let r = (await rankForListing(id, NOW))!;
    expect(r.inputs.price.quote).toBeNull();
    expect(r.components.priceIntegrity.value).toBe(0.3);

    await recordQuote({ listingId: id, amount: "20000", asset: "USDC", network: "eip155:8453", quotedAt: ago(29), source: "test" });
    r = (await rankForListing(id, NOW))!;
    expect(r.inputs.price.quote).toEqual({ price: 0.02, quotedAt: ago(29).toISOString() });
    expect(r.components.priceIntegrity.value).toBe(0.7);
  });

  it("buyers trying and none settling withholds the probe's uptime", async () => {
    const id = await createTestListing(t.prisma);
    for (let i = 0; i < 24; i++) {
      await recordHealthSample({ listingId: id, at: new Date(NOW.getTime() - (i + 1) * 3_600_000), outcome: "up", httpStatus: 402, latencyMs: 80, confidence: 1, challengeKind: "x402-v2", vantage: "test" });
    }
    let r = (await rankForListing(id, NOW))!;
    expect(r.inputs.monitor.uptime7d).toBe(100);
    expect(r.components.liveness.value).toBe(1);

    await recordPayment({ listingId: id, payer: wallet(1), status: "failed", advertisedAmount: "10000", asset: "USDC", network: "eip155:8453", at: ago(1) });
    await recordPayment({ listingId: id, payer: wallet(2), status: "failed", advertisedAmount: "10000", asset: "USDC", network: "eip155:8453", at: ago(1) });
    r = (await rankForListing(id, NOW))!;
    expect(r.components.liveness.facts).toMatchObject({ source: "baseline", uptimeWithheld: true });
    expect(r.components.liveness.value).toBe(0.9); // operational baseline, from the latest sample
  });

  it("uptime needs a dozen samples in its window; fewer read as 'no uptime yet'", async () => {
    const id = await createTestListing(t.prisma);
    for (let i = 0; i < 11; i++) {
      await recordHealthSample({ listingId: id, at: new Date(NOW.getTime() - (i + 1) * 300_000), outcome: i === 0 ? "up" : "down", httpStatus: i === 0 ? 400 : null, confidence: i === 0 ? 0.6 : 0, vantage: "test" });
    }
    const r = (await rankForListing(id, NOW))!;
    expect(r.inputs.monitor).toEqual({ uptime7d: null, uptime30d: null, healthStatus: "degraded", healthConfidence: 0.6 });
    expect(r.components.liveness.value).toBe(0.5);
  });

  it("rows in the future or outside the window do not count", async () => {
    const id = await createTestListing(t.prisma);
    await recordPayment({ listingId: id, payer: wallet(1), status: "settled", advertisedAmount: "10000", settledAmount: "10000", asset: "USDC", network: "eip155:8453", at: ago(31) });
    await recordPayment({ listingId: id, payer: wallet(2), status: "settled", advertisedAmount: "10000", settledAmount: "10000", asset: "USDC", network: "eip155:8453", at: ago(-1) });
    const r = (await rankForListing(id, NOW))!;
    expect(r.inputs.ledger.settled30d).toBe(0);
    expect(r.inputs.settle.lastSettledAt).toBe(ago(31).toISOString());
    expect(r.components.gate.gate).toBe("unknown");
  });

  it("rankForListing is null for an unknown listing", async () => {
    expect(await rankForListing("nope", NOW)).toBeNull();
  });

  it("recordPayment refuses a settled payment without an amount, naming the field", async () => {
    const id = await createTestListing(t.prisma);
    await expect(recordPayment({ listingId: id, payer: wallet(1), status: "settled", advertisedAmount: "1", asset: "USDC", network: "n" })).rejects.toMatchObject({ code: "bad_request", details: [{ pointer: "/settledAmount" }] });
  });
});
