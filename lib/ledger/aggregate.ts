/**
 * The rank inputs of a batch of listings, aggregated in SQL in ONE statement per batch (never one
 * query per listing): rolling 30-day settlement aggregates over `router_payments`, the settle facts
 * since the last success, 7- and 30-day uptime from `monitor_health_samples`, the latest health
 * reading and the latest fresh quote from `price_quotes`, beside the listing's own price and levers.
 *
 * Readings this module makes (docs/RANK.md leaves them to the database layer):
 * - Amounts are atomic units of a USD stablecoin; decimals come from the payment's or quote's
 *   endpoint (`priceDecimals`), else 6 (USDC). No FX is captured (seed "Revenue in fiat"), so the
 *   catalog's prices are USD per call throughout.
 * - The listing's advertised price is the lowest numeric `priceUsd` among its payable endpoints (the
 *   price a tile shows); its price label the first non-blank label by endpoint position.
 * - The 30-day window is inclusive at its old end (`createdAt >= now − 30 d`), matching
 *   signals.settleGate's "settled within 30 days" (`age ≤ 30 d`), so the gate and settled30d flip at
 *   the same instant. A quote is fresh when `now − 30 d < quotedAt ≤ now` ("quote age < 30 days").
 * - Uptime over a window needs at least MIN_UPTIME_SAMPLES samples in it (an hour of the 5-minute
 *   sweep); below that the share is noise and the listing is "with no uptime yet".
 * - The health reading is the latest sample within 30 days: its confidence, and the status it
 *   implies (healthStatusFor). With no reading, the listing's stored healthStatus is the baseline
 *   and nothing caps it (confidence 1): the seed's baselines exist for exactly that case.
 */
import { db } from "@/lib/db";
import type { HealthStatus } from "@/lib/scoring/signals";
import type { VerificationStatus } from "@/lib/scoring/rank";

export const MIN_UPTIME_SAMPLES = 12;
export const DEFAULT_ASSET_DECIMALS = 6;

/** One row of the batch aggregate, as SQL returns it (dates as epoch milliseconds). */
export interface LedgerFactsRow {
  id: string;
  publicationState: string;
  featuredLevel: number;
  verificationStatus: VerificationStatus;
  listingHealthStatus: HealthStatus;
  rankInputsHash: string | null;
  advertisedPrice: number | null;
  priceLabel: string | null;
  distinctPayers30d: number;
  distinctAttemptingBuyers30d: number;
  settled30d: number;
  medianSettledPrice30d: number | null;
  lastSettledAtMs: number | null;
  failedSinceLastSettle: number;
  failingBuyersSinceLastSettle: number;
  samples7d: number;
  up7d: number;
  samples30d: number;
  up30d: number;
  latestConfidence: number | null;
  quotePrice: number | null;
  quotedAtMs: number | null;
}

export type BatchSelector = { ids: readonly string[] } | { afterId: string | null; limit: number };

/**
 * `$1` is the batch (an id array, or the id to page after), `$2` now in epoch ms, `$3` the page size.
 * Timestamps are compared as UTC wall time (Prisma's timestamp(3) columns), independent of the
 * server's TimeZone.
 */
function batchSql(selector: BatchSelector): string {
  const ids =
    "ids" in selector
      ? `SELECT DISTINCT unnest($1::text[]) AS id`
      : `SELECT id FROM "listings" WHERE ($1::text IS NULL OR id > $1::text) ORDER BY id LIMIT $3::int`;
  return `
WITH ids AS (${ids}),
b AS (
  SELECT (to_timestamp($2::float8 / 1000) AT TIME ZONE 'UTC') AS now
),
pay AS (
  SELECT p."listingId",
         count(DISTINCT p."payer") FILTER (WHERE p."status" = 'settled')::int AS payers,
         count(DISTINCT p."payer")::int AS attempting,
         count(*) FILTER (WHERE p."status" = 'settled')::int AS settled,
         percentile_cont(0.5) WITHIN GROUP (
           ORDER BY tollgate_atomic_to_units(p."settledAmount", COALESCE(e."priceDecimals", ${DEFAULT_ASSET_DECIMALS}))
         ) FILTER (WHERE p."status" = 'settled') AS median
  FROM "router_payments" p
  JOIN ids ON ids.id = p."listingId"
  CROSS JOIN b
  LEFT JOIN "endpoints" e ON e.id = p."endpointId"
  WHERE p."createdAt" >= b.now - interval '30 days' AND p."createdAt" <= b.now
  GROUP BY p."listingId"
),
last_settle AS (
  SELECT ids.id AS "listingId", ls.at
  FROM ids CROSS JOIN b
  CROSS JOIN LATERAL (
    SELECT p."createdAt" AS at FROM "router_payments" p
    WHERE p."listingId" = ids.id AND p."status" = 'settled' AND p."createdAt" <= b.now
    ORDER BY p."createdAt" DESC LIMIT 1
  ) ls
),
fails AS (
  SELECT p."listingId", count(*)::int AS failed, count(DISTINCT p."payer")::int AS buyers
  FROM "router_payments" p
  JOIN ids ON ids.id = p."listingId"
  CROSS JOIN b
  LEFT JOIN last_settle s ON s."listingId" = p."listingId"
  WHERE p."status" = 'failed' AND p."createdAt" <= b.now AND (s.at IS NULL OR p."createdAt" > s.at)
  GROUP BY p."listingId"
),
health AS (
  SELECT h."listingId",
         count(*) FILTER (WHERE h."at" > b.now - interval '7 days')::int AS n7,
         count(*) FILTER (WHERE h."at" > b.now - interval '7 days' AND h."outcome" = 'up')::int AS up7,
         count(*)::int AS n30,
         count(*) FILTER (WHERE h."outcome" = 'up')::int AS up30
  FROM "monitor_health_samples" h
  JOIN ids ON ids.id = h."listingId"
  CROSS JOIN b
  WHERE h."at" > b.now - interval '30 days' AND h."at" <= b.now
  GROUP BY h."listingId"
)
SELECT l.id,
       l."publicationState"::text AS "publicationState",
       l."featuredLevel",
       l."verificationStatus"::text AS "verificationStatus",
       l."healthStatus"::text AS "listingHealthStatus",
       l."rankInputsHash",
       price."advertisedPrice",
       price."priceLabel",
       COALESCE(pay.payers, 0) AS "distinctPayers30d",
       COALESCE(pay.attempting, 0) AS "distinctAttemptingBuyers30d",
       COALESCE(pay.settled, 0) AS "settled30d",
       pay.median AS "medianSettledPrice30d",
       (extract(epoch FROM s.at) * 1000)::float8 AS "lastSettledAtMs",
       COALESCE(fails.failed, 0) AS "failedSinceLastSettle",
       COALESCE(fails.buyers, 0) AS "failingBuyersSinceLastSettle",
       COALESCE(health.n7, 0) AS "samples7d",
       COALESCE(health.up7, 0) AS "up7d",
       COALESCE(health.n30, 0) AS "samples30d",
       COALESCE(health.up30, 0) AS "up30d",
       latest.confidence AS "latestConfidence",
       quote.price AS "quotePrice",
       (extract(epoch FROM quote."quotedAt") * 1000)::float8 AS "quotedAtMs"
FROM ids
JOIN "listings" l ON l.id = ids.id
CROSS JOIN b
LEFT JOIN pay ON pay."listingId" = l.id
LEFT JOIN last_settle s ON s."listingId" = l.id
LEFT JOIN fails ON fails."listingId" = l.id
LEFT JOIN health ON health."listingId" = l.id
LEFT JOIN LATERAL (
  SELECT min(tollgate_decimal_or_null(e."priceUsd"))::float8 AS "advertisedPrice",
         (array_agg(e."priceLabel" ORDER BY e."position") FILTER (WHERE btrim(COALESCE(e."priceLabel", '')) <> ''))[1] AS "priceLabel"
  FROM "endpoints" e WHERE e."listingId" = l.id AND e."payable"
) price ON true
LEFT JOIN LATERAL (
  SELECT h."confidence" FROM "monitor_health_samples" h
  WHERE h."listingId" = l.id AND h."at" <= b.now AND h."at" > b.now - interval '30 days'
  ORDER BY h."at" DESC LIMIT 1
) latest ON true
LEFT JOIN LATERAL (
  SELECT tollgate_atomic_to_units(q."amount", COALESCE(e."priceDecimals", ${DEFAULT_ASSET_DECIMALS})) AS price, q."quotedAt"
  FROM "price_quotes" q LEFT JOIN "endpoints" e ON e.id = q."endpointId"
  WHERE q."listingId" = l.id AND q."quotedAt" <= b.now AND q."quotedAt" > b.now - interval '30 days'
  ORDER BY q."quotedAt" DESC LIMIT 1
) quote ON true
ORDER BY l.id`;
}

/** The aggregate rows of one batch, in id order. */
export async function ledgerFactsBatch(selector: BatchSelector, now: Date): Promise<LedgerFactsRow[]> {
  const prisma = await db();
  const nowMs = now.getTime();
  if (!Number.isFinite(nowMs)) throw new RangeError("ledgerFactsBatch needs a valid date");
  if ("ids" in selector) {
    if (selector.ids.length === 0) return [];
    return prisma.$queryRawUnsafe<LedgerFactsRow[]>(batchSql(selector), [...selector.ids], nowMs);
  }
  return prisma.$queryRawUnsafe<LedgerFactsRow[]>(batchSql(selector), selector.afterId, nowMs, selector.limit);
}

/** The health status a sample of this confidence implies (signals.HEALTH_CONFIDENCE). */
export function healthStatusFor(confidence: number): HealthStatus {
  if (confidence >= 1) return "operational";
  if (confidence > 0) return "degraded";
  return "unavailable";
}
