/**
 * Raw-fact fixtures for the seed's "Both scores on real shapes" table (docs/spec/scoring-system.md), rank columns. Each
 * row's ledger, monitor and price facts are built so that computeRank reproduces the row's L, T, P and
 * gate, and so quality and rank to the digit. docs/spec/scoring-notes.md: rows 1–4 must come out of such facts;
 * row 5's components are illustrative in the seed, and its fixture here is one consistent reading.
 *
 * Exported for the demo, which seeds ledger and health histories from these facts. Times are relative
 * to `now`, so `buildRankFixtures(new Date())` gives the same scores today.
 */
import { DAY_MS } from "@/lib/rank/score/constants";
import type { RankInputs } from "@/lib/rank/score/compute";

/** The seed's status date ("Status · 7 Oct 2026"); any date works, the fixtures are relative. */
export const FIXTURE_NOW = new Date("2026-10-07T12:00:00.000Z");

export type RankFixtureKey =
  | "matureAndHonest"
  | "matureAndHonestFeatured"
  | "popularButThin"
  | "wellBuiltBrandNew"
  | "wellBuiltBrandNewUnfeatured"
  | "traffickedButUnpayable";

export interface RankFixture {
  key: RankFixtureKey;
  /** The seed table's "Listing shape", verbatim. */
  shape: string;
  /** 1-based row of the seed table; the unfeatured newcomer is the prose's "from 31". */
  seedRow: number | null;
  /** Which facts produce which component, so a reader can hold the fixture against the seed. */
  note: string;
  inputs: RankInputs;
}

const ago = (now: Date, days: number) => new Date(now.getTime() - days * DAY_MS).toISOString();

export function buildRankFixtures(now: Date = FIXTURE_NOW): Record<RankFixtureKey, RankFixture> {
  const matureAndHonest: RankInputs = {
    now,
    // Settled an hour ago, no failures since: settleable ×1.00.
    settle: { lastSettledAt: ago(now, 1 / 24), failedAttemptsSinceLastSettle: 0, distinctFailingBuyersSinceLastSettle: 0 },
    // 44 distinct payers ÷ 50 = T 0.88. Median settled $0.0096 vs advertised $0.01: 4% divergence, P 0.96.
    ledger: { distinctPayers30d: 44, distinctAttemptingBuyers30d: 45, settled30d: 612, medianSettledPrice30d: 0.0096 },
    // 7-day uptime 95% (30-day 97% is the fallback, unused): L 0.95.
    monitor: { uptime7d: 95, uptime30d: 97, healthStatus: "operational", healthConfidence: 1 },
    price: { advertisedPrice: 0.01, priceLabel: "$0.01 per call", quote: { price: 0.01, quotedAt: ago(now, 2) } },
    featuredLevel: 0,
    verification: "verified",
  };

  const popularButThin: RankInputs = {
    now,
    settle: { lastSettledAt: ago(now, 0.5 / 24), failedAttemptsSinceLastSettle: 1, distinctFailingBuyersSinceLastSettle: 1 },
    // 60 distinct payers: T capped at 1. Median settled $0.0275 vs advertised $0.025: 10% divergence, P 0.90.
    ledger: { distinctPayers30d: 60, distinctAttemptingBuyers30d: 63, settled30d: 1480, medianSettledPrice30d: 0.0275 },
    // 7-day uptime 92%: L 0.92.
    monitor: { uptime7d: 92, uptime30d: 94, healthStatus: "operational", healthConfidence: 1 },
    price: { advertisedPrice: 0.025, priceLabel: "$0.025", quote: { price: 0.025, quotedAt: ago(now, 1) } },
    featuredLevel: 0,
    verification: "unverified",
  };

  const wellBuiltBrandNew: RankInputs = {
    now,
    // Never settled and never failed: unknown ×0.85.
    settle: { lastSettledAt: null, failedAttemptsSinceLastSettle: 0, distinctFailingBuyersSinceLastSettle: 0 },
    // 0 payers: T 0 (floored), and no settled-price signal.
    ledger: { distinctPayers30d: 0, distinctAttemptingBuyers30d: 0, settled30d: 0, medianSettledPrice30d: null },
    // No uptime samples yet: operational baseline 0.9, confidence 1 (valid challenge) does not cap it: L 0.90.
    monitor: { uptime7d: null, uptime30d: null, healthStatus: "operational", healthConfidence: 1 },
    // Quoted price only, 3 days old: "a price is advertised", P 0.70.
    price: { advertisedPrice: null, priceLabel: null, quote: { price: 0.04, quotedAt: ago(now, 3) } },
    featuredLevel: 5,
    verification: "unverified",
  };

  const traffickedButUnpayable: RankInputs = {
    now,
    // Settled 12 days ago, then 9 failed attempts from 5 distinct buyers: unpayable ×0.25.
    settle: { lastSettledAt: ago(now, 12), failedAttemptsSinceLastSettle: 9, distinctFailingBuyersSinceLastSettle: 5 },
    // 35 distinct payers in the window ÷ 50 = T 0.70. Median settled $0.18 vs advertised $0.10: 80% drift, P 0.20.
    // Payments did settle within 30 days, so the uptime is not withheld.
    ledger: { distinctPayers30d: 35, distinctAttemptingBuyers30d: 40, settled30d: 140, medianSettledPrice30d: 0.18 },
    // 7-day uptime 55%: L 0.55.
    monitor: { uptime7d: 55, uptime30d: 71, healthStatus: "degraded", healthConfidence: 1 },
    price: { advertisedPrice: 0.1, priceLabel: "$0.10 per call", quote: { price: 0.18, quotedAt: ago(now, 5) } },
    // Featured at max, forced to ×1.00 by the gate.
    featuredLevel: 5,
    verification: "degraded",
  };

  return {
    matureAndHonest: {
      key: "matureAndHonest",
      shape: "Mature and honest",
      seedRow: 1,
      note: "44 payers · settled ≈ quoted (4% under) · 7-day uptime 95 · settled within the hour · canary-verified",
      inputs: matureAndHonest,
    },
    matureAndHonestFeatured: {
      key: "matureAndHonestFeatured",
      shape: "Mature and honest, featured",
      seedRow: 2,
      note: "the same facts as row 1 · Nevermined featured at level 3",
      inputs: { ...matureAndHonest, featuredLevel: 3 },
    },
    popularButThin: {
      key: "popularButThin",
      shape: "Popular but thin listing",
      seedRow: 3,
      note: "60 payers (capped at 50) · uptime 92 · settled price 10% over advertised · not canary-verified",
      inputs: popularButThin,
    },
    wellBuiltBrandNew: {
      key: "wellBuiltBrandNew",
      shape: "Well built, brand new",
      seedRow: 4,
      note: "0 payers (floored) · no uptime, operational baseline at confidence 1 · quote 3 days old · never settled · featured at max",
      inputs: wellBuiltBrandNew,
    },
    wellBuiltBrandNewUnfeatured: {
      key: "wellBuiltBrandNewUnfeatured",
      shape: "Well built, brand new",
      seedRow: null,
      note: "row 4 at featured level 0: the seed's \"lifts it from 31 to 47\"",
      inputs: { ...wellBuiltBrandNew, featuredLevel: 0 },
    },
    traffickedButUnpayable: {
      key: "traffickedButUnpayable",
      shape: "Trafficked but unpayable",
      seedRow: 5,
      note: "illustrative in the seed; here: 35 payers · 80% price drift · 9 failures from 5 buyers since the last settlement · uptime 55 · canary degraded",
      inputs: traffickedButUnpayable,
    },
  };
}

export const RANK_FIXTURES = buildRankFixtures(FIXTURE_NOW);
