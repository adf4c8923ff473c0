/**
 * Every number the rank score uses, named after docs/spec/scoring-system.md ("Rank score", "Why the scores hold up",
 * "Where rank decides the order") and docs/spec/scoring-notes.md "Rank". The shared floors (MIN_SETTLE_ATTEMPTS,
 * MIN_DISTINCT_FAILING_BUYERS, SETTLE_GATE_FACTOR, HEALTH_BASELINE) live in ../signals.ts because
 * readiness H2/H3 read them too; they are re-exported here so a reader of rank finds them in one place.
 */
import { MIN_DISTINCT_FAILING_BUYERS } from "@/lib/scoring/signals";

export {
  MIN_DISTINCT_FAILING_BUYERS,
  MIN_SETTLE_ATTEMPTS,
  SETTLE_GATE_FACTOR,
  HEALTH_BASELINE,
  HEALTH_CONFIDENCE,
} from "@/lib/scoring/signals";

/** qualityScore = SettleGate × (0.25·Liveness + 0.45·Traction + 0.30·PriceIntegrity) (seed: "Rank score"). */
export const QUALITY_WEIGHTS = { liveness: 0.25, traction: 0.45, priceIntegrity: 0.3 } as const;

/**
 * docs/spec/scoring-system.md "Distinct-buyer floor": "Unpayable verdicts and price signals need ≥ 2 distinct buyers … one owner
 * wallet can't certify it." The seed gives both uses one constant, so the payer floor is defined from
 * MIN_DISTINCT_FAILING_BUYERS rather than restated: the two cannot drift apart.
 */
export const MIN_DISTINCT_PAYERS = MIN_DISTINCT_FAILING_BUYERS;

/** Traction: distinct payers in 30 days ÷ 50, capped at 1 (seed: "Traction"). */
export const TRACTION_FULL_PAYERS = 50;

/** Price integrity without a settled-price signal: 0.7 with an advertised price, 0.3 without. */
export const PRICE_INTEGRITY_ADVERTISED = 0.7;
export const PRICE_INTEGRITY_NO_PRICE = 0.3;
/** docs/spec/scoring-system.md "Quote freshness": quote age < 30 days; a stale quote never feeds price integrity. */
export const QUOTE_MAX_AGE_DAYS = 30;

/** Featured = 1 + 0.1 × level, level 0–5; forced to 1.00 when the gate is unpayable (seed: "Featured"). */
export const FEATURED_STEP = 0.1;
export const FEATURED_MAX_LEVEL = 5;
export const FEATURED_FORCED_WHEN_UNPAYABLE = 1.0;

/** Verification (seed: "New · canary"): verified-by-canary 1.00, unverified 0.85 (default), degraded 0.50. */
export type VerificationStatus = "verified" | "unverified" | "degraded";
export const VERIFICATION_FACTOR: Record<VerificationStatus, number> = { verified: 1.0, unverified: 0.85, degraded: 0.5 };

/** Browse: "seeded shuffle, rotates every 6 h"; seed = floor(unix seconds ÷ 21600) (docs/spec/scoring-notes.md). */
export const BROWSE_SEED_PERIOD_SECONDS = 21_600;

/** Router selection: relevance × (1 + 0.25·q), q = rankScore ÷ best in set (seed: "Router selection"). */
export const ROUTER_RANK_WEIGHT = 0.25;

/** Clients pinned below API version 1.55 receive rankScore: null (seed: "Removed · paid tier"). */
export const CATALOG_API_VERSION_HEADER = "Catalog-Api-Version";
export const RANK_SCORE_MIN_API_VERSION = "1.55";

export const DAY_MS = 86_400_000;
