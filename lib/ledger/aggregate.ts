/**
 * The rank inputs of a batch of listings, aggregated in SQL in ONE statement per batch (never one
 * query per listing): rolling 30-day settlement aggregates over `router_payments`, the settle facts
 * since the last success, 7- and 30-day uptime from `monitor_health_samples`, the latest health
 * reading and the latest fresh quote from `price_quotes`, beside the listing's own price and levers.
 *
 * Readings this module makes (docs/RANK.md leaves them to the database layer):
 * - Amounts are atomic units of a USD stablecoin. Settled amounts are converted with the listing's
 *   decimals (its first payable endpoint's `priceDecimals`, else 6 for USDC), a quote with its own
 *   endpoint's. No FX is captured (seed "Revenue in fiat"), so prices are USD per call throughout.
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
 * `$1` is the batch (an id array, or the id to page after), `$2` now as a UTC wall-clock timestamp
 * (Prisma's timestamp(3) columns hold UTC), `$3` the page size.
 *
 * Set-based, one pass per source table: a sweep batch is a contiguous id range, so its payments and
 * health samples are ONE index range scan each (router_payments_rank_idx, monitor_health_samples_rank_idx,
 * both covering) rather than one probe per listing. Every payment fact comes out of that single scan:
 * the listing's last settlement as a window max over its rows, then one hash GROUP BY (listing, payer)
 * (distinct buyers without count(DISTINCT)'s per-group sort, failures since the last settlement),
 * then one GROUP BY listing. The median sorts only each listing's own settled amounts (~10 rows).
 */
function batchSql(selector: BatchSelector): string {
  const byIds = "ids" in selector;
  const ids = byIds
    ? `SELECT DISTINCT unnest($1::text[]) AS id`
    : `SELECT id FROM "listings" WHERE ($1::text IS NULL OR id > $1::text) ORDER BY id LIMIT $3::int`;
  const now = `$2::timestamp`;
  // Which rows of a per-listing table belong to the batch: the id range (a sweep page is every
  // listing in it, so the range is exactly the batch), or the explicit id list.
  const inBatch = (col: string) =>
    byIds ? `${col} IN (SELECT id FROM ids)` : `${col} >= (SELECT min(id) FROM ids) AND ${col} <= (SELECT max(id) FROM ids)`;
  return `
WITH ids AS MATERIALIZED (${ids}),
pay AS MATERIALIZED (
  SELECT p."listingId", p."payer", p."status", p."createdAt", p."settledAmount",
         max(p."createdAt") FILTER (WHERE p."status" = 'settled') OVER (PARTITION BY p."listingId") AS last_settled
  FROM "router_payments" p
  WHERE ${inBatch(`p."listingId"`)} AND p."createdAt" <= ${now}
),
-- One row per (listing, payer): a hash GROUP BY.
per_payer AS (
  SELECT p."listingId",
         bool_or(p."createdAt" >= ${now} - interval '30 days') AS attempted,
         bool_or(p."status" = 'settled' AND p."createdAt" >= ${now} - interval '30 days') AS paid,
         count(*) FILTER (WHERE p."status" = 'settled' AND p."createdAt" >= ${now} - interval '30 days') AS settled,
         count(*) FILTER (WHERE p."status" = 'failed' AND (p.last_settled IS NULL OR p."createdAt" > p.last_settled)) AS failed,
         max(p.last_settled) AS last_settled
  FROM pay p GROUP BY p."listingId", p."payer"
),
buyers AS (
  SELECT d."listingId",
         count(*) FILTER (WHERE d.attempted)::int AS attempting,
         count(*) FILTER (WHERE d.paid)::int AS payers,
         sum(d.settled)::int AS settled,
         sum(d.failed)::int AS failed,
         count(*) FILTER (WHERE d.failed > 0)::int AS failing,
         max(d.last_settled) AS last_settled
  FROM per_payer d GROUP BY d."listingId"
),
-- The median in atomic units; converted with the listing's decimals below.
settled AS (
  SELECT p."listingId", percentile_cont(0.5) WITHIN GROUP (ORDER BY tollgate_atomic_to_units(p."settledAmount", 0)) AS median_atomic
  FROM pay p
  WHERE p."status" = 'settled' AND p."createdAt" >= ${now} - interval '30 days'
  GROUP BY p."listingId"
),
health AS (
  SELECT h."listingId",
         count(*) FILTER (WHERE h."at" > ${now} - interval '7 days')::int AS n7,
         count(*) FILTER (WHERE h."at" > ${now} - interval '7 days' AND h."outcome" = 'up')::int AS up7,
         count(*)::int AS n30,
         count(*) FILTER (WHERE h."outcome" = 'up')::int AS up30,
         (array_agg(h."confidence" ORDER BY h."at" DESC))[1] AS confidence
  FROM "monitor_health_samples" h
  WHERE ${inBatch(`h."listingId"`)} AND h."at" > ${now} - interval '30 days' AND h."at" <= ${now}
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
       COALESCE(buyers.payers, 0) AS "distinctPayers30d",
       COALESCE(buyers.attempting, 0) AS "distinctAttemptingBuyers30d",
       COALESCE(buyers.settled, 0) AS "settled30d",
       (settled.median_atomic / power(10::float8, COALESCE(price.decimals, ${DEFAULT_ASSET_DECIMALS})))::float8 AS "medianSettledPrice30d",
       (extract(epoch FROM buyers.last_settled) * 1000)::float8 AS "lastSettledAtMs",
       COALESCE(buyers.failed, 0) AS "failedSinceLastSettle",
       COALESCE(buyers.failing, 0) AS "failingBuyersSinceLastSettle",
       COALESCE(health.n7, 0) AS "samples7d",
       COALESCE(health.up7, 0) AS "up7d",
       COALESCE(health.n30, 0) AS "samples30d",
       COALESCE(health.up30, 0) AS "up30d",
       health.confidence AS "latestConfidence",
       quote.price AS "quotePrice",
       (extract(epoch FROM quote."quotedAt") * 1000)::float8 AS "quotedAtMs"
FROM ids
JOIN "listings" l ON l.id = ids.id
LEFT JOIN buyers ON buyers."listingId" = l.id
LEFT JOIN settled ON settled."listingId" = l.id
LEFT JOIN health ON health."listingId" = l.id
LEFT JOIN LATERAL (
  SELECT min(tollgate_decimal_or_null(e."priceUsd"))::float8 AS "advertisedPrice",
         (array_agg(e."priceLabel" ORDER BY e."position") FILTER (WHERE btrim(COALESCE(e."priceLabel", '')) <> ''))[1] AS "priceLabel",
         (array_agg(e."priceDecimals" ORDER BY e."position") FILTER (WHERE e."priceDecimals" IS NOT NULL))[1] AS decimals
  FROM "endpoints" e WHERE e."listingId" = l.id AND e."payable"
) price ON true
LEFT JOIN LATERAL (
  SELECT tollgate_atomic_to_units(q."amount", COALESCE(e."priceDecimals", ${DEFAULT_ASSET_DECIMALS})) AS price, q."quotedAt"
  FROM "price_quotes" q LEFT JOIN "endpoints" e ON e.id = q."endpointId"
  WHERE q."listingId" = l.id AND q."quotedAt" <= ${now} AND q."quotedAt" > ${now} - interval '30 days'
  ORDER BY q."quotedAt" DESC LIMIT 1
) quote ON true
ORDER BY l.id`;
}

/** `now` as the UTC wall-clock timestamp the columns hold, e.g. "2026-12-02 12:00:00.000". */
export function utcTimestamp(now: Date): string {
  return now.toISOString().replace("T", " ").replace("Z", "");
}

/** The aggregate rows of one batch, in id order. */
export async function ledgerFactsBatch(selector: BatchSelector, now: Date): Promise<LedgerFactsRow[]> {
  const prisma = await db();
  if (!Number.isFinite(now.getTime())) throw new RangeError("ledgerFactsBatch needs a valid date");
  const at = utcTimestamp(now);
  if ("ids" in selector) {
    if (selector.ids.length === 0) return [];
    return prisma.$queryRawUnsafe<LedgerFactsRow[]>(batchSql(selector), [...selector.ids], at);
  }
  return prisma.$queryRawUnsafe<LedgerFactsRow[]>(batchSql(selector), selector.afterId, at, selector.limit);
}

/** The health status a sample of this confidence implies (signals.HEALTH_CONFIDENCE). */
export function healthStatusFor(confidence: number): HealthStatus {
  if (confidence >= 1) return "operational";
  if (confidence > 0) return "degraded";
  return "unavailable";
}
