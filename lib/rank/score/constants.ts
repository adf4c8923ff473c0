/** Every number the rank score uses (docs/RANK.md); the floors shared with readiness live in ../signals.ts. */
import { MIN_DISTINCT_FAILING_BUYERS } from "@/lib/scoring/signals";

export {
  MIN_DISTINCT_FAILING_BUYERS,
  MIN_SETTLE_ATTEMPTS,
  SETTLE_GATE_FACTOR,
  HEALTH_BASELINE,
  HEALTH_CONFIDENCE,
} from "@/lib/scoring/signals";

/** qualityScore = SettleGate × (0.25·Liveness + 0.45·Traction + 0.30·PriceIntegrity). */
export const QUALITY_WEIGHTS = { liveness: 0.25, traction: 0.45, priceIntegrity: 0.3 } as const;

/** "Distinct-buyer floor": one constant for both uses, so they cannot drift apart. */
export const MIN_DISTINCT_PAYERS = MIN_DISTINCT_FAILING_BUYERS;

/** Distinct payers in 30 days ÷ 50, capped at 1. */
export const TRACTION_FULL_PAYERS = 50;

/** Without a settled-price signal: 0.7 advertised, 0.3 not. */
export const PRICE_INTEGRITY_ADVERTISED = 0.7;
export const PRICE_INTEGRITY_NO_PRICE = 0.3;
/** "Quote freshness": a stale quote never feeds price integrity. */
export const QUOTE_MAX_AGE_DAYS = 30;

/** Featured = 1 + 0.1 × level, level 0–5. */
export const FEATURED_STEP = 0.1;
export const FEATURED_MAX_LEVEL = 5;
export const FEATURED_FORCED_WHEN_UNPAYABLE = 1.0;

/** verified 1.00, unverified 0.85 (default), degraded 0.50. */
export type VerificationStatus = "verified" | "unverified" | "degraded";
export const VERIFICATION_FACTOR: Record<VerificationStatus, number> = { verified: 1.0, unverified: 0.85, degraded: 0.5 };

/** Browse shuffle period: 6 hours. */
export const BROWSE_SEED_PERIOD_SECONDS = 21_600;

/** relevance × (1 + 0.25·q), q = rankScore ÷ best in set. */
export const ROUTER_RANK_WEIGHT = 0.25;

/** Below API version 1.55, rankScore is null. */
export const CATALOG_API_VERSION_HEADER = "Catalog-Api-Version";
export const RANK_SCORE_MIN_API_VERSION = "1.55";

export const DAY_MS = 86_400_000;
