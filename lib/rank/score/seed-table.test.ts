/**
 * docs/spec/scoring-system.md "Both scores on real shapes", rank columns, to the digit (docs/spec/scoring-notes.md "Rank"): from each
 * row's components, and for rows 1–4 (plus our reading of row 5) end to end from raw facts.
 */
import { describe, expect, it } from "vitest";
import type { SettleGate } from "@/lib/scoring/signals";
import type { VerificationStatus } from "./constants";
import { computeRank, computeRankFromComponents, type RankInputs, type RankResult } from "./compute";
import { buildRankFixtures, RANK_FIXTURES, type RankFixtureKey } from "@/test/rank-shapes";

interface Row {
  shape: string;
  fixture: RankFixtureKey;
  gate: SettleGate;
  L: number;
  T: number;
  P: number;
  feat: number;
  verification: VerificationStatus;
  /** The seed's printed columns. */
  gateFactor: number;
  featFactor: number;
  verifFactor: number;
  quality100: number;
  rank100: number;
}

// The seed's table as printed (L, T, P ×100 there; 0–1 here).
const SEED_TABLE: Row[] = [
  { shape: "Mature and honest", fixture: "matureAndHonest", gate: "settleable", L: 0.95, T: 0.88, P: 0.96, feat: 0, verification: "verified", gateFactor: 1.0, featFactor: 1.0, verifFactor: 1.0, quality100: 92, rank100: 92 },
  { shape: "Mature and honest, featured", fixture: "matureAndHonestFeatured", gate: "settleable", L: 0.95, T: 0.88, P: 0.96, feat: 3, verification: "verified", gateFactor: 1.0, featFactor: 1.3, verifFactor: 1.0, quality100: 92, rank100: 120 },
  { shape: "Popular but thin listing", fixture: "popularButThin", gate: "settleable", L: 0.92, T: 1.0, P: 0.9, feat: 0, verification: "unverified", gateFactor: 1.0, featFactor: 1.0, verifFactor: 0.85, quality100: 95, rank100: 81 },
  { shape: "Well built, brand new", fixture: "wellBuiltBrandNew", gate: "unknown", L: 0.9, T: 0, P: 0.7, feat: 5, verification: "unverified", gateFactor: 0.85, featFactor: 1.5, verifFactor: 0.85, quality100: 37, rank100: 47 },
  { shape: "Trafficked but unpayable", fixture: "traffickedButUnpayable", gate: "unpayable", L: 0.55, T: 0.7, P: 0.2, feat: 5, verification: "degraded", gateFactor: 0.25, featFactor: 1.0, verifFactor: 0.5, quality100: 13, rank100: 6 },
];

describe("seed table from components", () => {
  it.each(SEED_TABLE)("$shape: quality $quality100, rank $rank100", (row) => {
    const r = computeRankFromComponents({ gate: row.gate, liveness: row.L, traction: row.T, priceIntegrity: row.P, featuredLevel: row.feat, verification: row.verification });
    expect(r.quality100).toBe(row.quality100);
    expect(r.rank100).toBe(row.rank100);
    expect(r.components.gate.value).toBe(row.gateFactor);
    expect(r.components.featured.value).toBeCloseTo(row.featFactor, 12);
    expect(r.components.verification.value).toBe(row.verifFactor);
    // Stored unrounded: the seed's formula on the printed columns, not the display integers.
    const q = row.gateFactor * (0.25 * row.L + 0.45 * row.T + 0.3 * row.P);
    expect(r.quality).toBeCloseTo(q, 12);
    expect(r.rank).toBeCloseTo(q * row.featFactor * row.verifFactor, 12);
  });

  it("featuring the newcomer lifts it from 31 to 47, still well below an unfeatured 92", () => {
    const base = { gate: "unknown" as const, liveness: 0.9, traction: 0, priceIntegrity: 0.7, verification: "unverified" as const };
    expect(computeRankFromComponents({ ...base, featuredLevel: 0 }).rank100).toBe(31);
    expect(computeRankFromComponents({ ...base, featuredLevel: 5 }).rank100).toBe(47);
  });

  it("max Featured on the unpayable listing does nothing: forced to ×1.00", () => {
    const base = { gate: "unpayable" as const, liveness: 0.55, traction: 0.7, priceIntegrity: 0.2, verification: "degraded" as const };
    const at5 = computeRankFromComponents({ ...base, featuredLevel: 5 });
    const at0 = computeRankFromComponents({ ...base, featuredLevel: 0 });
    expect(at5.components.featured.value).toBe(1);
    expect(at5.components.featured.facts.forced).toBe(true);
    expect(at5.rank).toBe(at0.rank);
  });
});

describe("seed table end to end from raw facts", () => {
  it.each(SEED_TABLE)("$shape: facts give gate $gate, L $L, T $T, P $P → $quality100 / $rank100", (row) => {
    const fx = RANK_FIXTURES[row.fixture];
    expect(fx.shape).toBe(row.shape);
    const r = computeRank(fx.inputs);
    expect(r.components.gate.gate).toBe(row.gate);
    expect(r.components.liveness.value).toBeCloseTo(row.L, 10);
    expect(r.components.traction.value).toBeCloseTo(row.T, 10);
    expect(r.components.priceIntegrity.value).toBeCloseTo(row.P, 10);
    expect(r.components.featured.value).toBeCloseTo(row.featFactor, 12);
    expect(r.components.verification.value).toBe(row.verifFactor);
    expect(r.quality100).toBe(row.quality100);
    expect(r.rank100).toBe(row.rank100);
  });

  it("the unfeatured newcomer's facts rank 31", () => {
    expect(computeRank(RANK_FIXTURES.wellBuiltBrandNewUnfeatured.inputs).rank100).toBe(31);
  });

  it("the fixtures are relative to now: the same scores on another day", () => {
    const later = buildRankFixtures(new Date("2031-02-03T04:05:06.000Z"));
    for (const key of Object.keys(RANK_FIXTURES) as RankFixtureKey[]) {
      expect(computeRank(later[key].inputs).rank).toBeCloseTo(computeRank(RANK_FIXTURES[key].inputs).rank, 12);
    }
  });

  it("each component carries the facts it used", () => {
    const r = computeRank(RANK_FIXTURES.matureAndHonest.inputs);
    expect(r.components.traction.facts).toMatchObject({ distinctPayers30d: 44, floored: false });
    expect(r.components.priceIntegrity.facts).toMatchObject({ basis: "settled", referenceSource: "advertisedPrice", referencePrice: 0.01, medianSettledPrice: 0.0096 });
    expect(r.components.liveness.facts).toMatchObject({ source: "uptime7d", cappedByConfidence: false, uptimeWithheld: false });
    expect(r.components.gate.reason).toMatch(/settled within 30 days/);
    const nw = computeRank(RANK_FIXTURES.wellBuiltBrandNew.inputs);
    expect(nw.components.liveness.facts).toMatchObject({ source: "baseline" });
    expect(nw.components.priceIntegrity.facts).toMatchObject({ basis: "advertised", quoteFresh: true });
    expect(nw.components.traction.reason).toMatch(/below the floor of 2/);
  });
});

describe("computeRank without reasons (explain: false, the rank sweep's call)", () => {
  const withoutReasons = (r: RankResult) => {
    const c = r.components;
    const strip = <T extends { reason: string }>(x: T) => ({ ...x, reason: "" });
    return { ...r, components: { gate: strip(c.gate), liveness: strip(c.liveness), traction: strip(c.traction), priceIntegrity: strip(c.priceIntegrity), featured: strip(c.featured), verification: strip(c.verification) } };
  };

  it("gives the very values and facts, every reason empty, on every fixture and on varied facts", () => {
    const inputs: RankInputs[] = Object.values(RANK_FIXTURES).map((f) => f.inputs);
    // Varied facts around the fixtures: payers across the floor, failures across the unpayable gate,
    // no uptime, a stale quote, every Featured level and verification status.
    const base = RANK_FIXTURES.matureAndHonest.inputs;
    for (let i = 0; i < 60; i++) {
      inputs.push({
        ...base,
        settle: { lastSettledAt: i % 5 === 0 ? null : base.settle.lastSettledAt, failedAttemptsSinceLastSettle: i % 4, distinctFailingBuyersSinceLastSettle: i % 3 },
        ledger: { distinctPayers30d: i % 7, distinctAttemptingBuyers30d: i % 9, settled30d: i % 6, medianSettledPrice30d: i % 8 === 0 ? null : 0.009 + i / 10000 },
        monitor: { ...base.monitor, uptime7d: i % 3 === 0 ? null : 90 + (i % 10), uptime30d: i % 6 === 0 ? null : 95, healthConfidence: i % 5 === 1 ? 0.6 : 1 },
        price: { ...base.price, advertisedPrice: i % 4 === 0 ? null : base.price.advertisedPrice, quote: i % 2 ? { price: 0.01, quotedAt: new Date(base.now.getTime() - (i % 40) * 86_400_000).toISOString() } : null },
        featuredLevel: i % 6,
        verification: (["verified", "unverified", "degraded"] as const)[i % 3],
      });
    }
    for (const input of inputs) {
      const full = computeRank(input);
      const lean = computeRank(input, { explain: false });
      expect(lean).toEqual(withoutReasons(full));
      for (const c of Object.values(lean.components)) expect(c.reason).toBe("");
      expect(Object.values(full.components).every((c) => c.reason.length > 0)).toBe(true);
    }
  });
});
