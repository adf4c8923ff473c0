/** The public listing page's facts beyond the listing: health buckets, the last probe, activity (at the payer floor) and quotes (docs/SURFACES.md). */
import { database } from "@/lib/db";
import { rows } from "@/lib/sql";
import { DEFAULT_ASSET_DECIMALS, ledgerFacts, atomicToUnits } from "@/lib/facts/aggregate";
import { MIN_DISTINCT_PAYERS } from "@/lib/rank/score";

export const HEALTH_WINDOW_DAYS = 30;
/** A day-bucket chart of one day is one dot. */
export const HOURLY_BELOW_MS = 48 * 3600_000;

export interface HealthBucket {
  at: string;
  samples: number;
  up: number;
  uptimePct: number;
  /** ms, of the samples that were up; null when none. */
  latencyMs: number | null;
}

export interface ListingHealth {
  granularity: "hour" | "day";
  buckets: HealthBucket[];
  samples: number;
  /** One decimal; null without samples. */
  uptimePct: number | null;
  lastProbe: { at: string; outcome: string; latencyMs: number | null; httpStatus: number | null } | null;
}

export type ListingActivity =
  | { shown: true; distinctPayers30d: number; settled30d: number; floor: number }
  | { shown: false; floor: number };

export interface EndpointQuote {
  method: string;
  path: string;
  /** Whole units of the asset, as a decimal string. */
  amount: string;
  asset: string;
  network: string;
  quotedAt: string;
}

export interface ListingPageFacts {
  health: ListingHealth;
  activity: ListingActivity;
  quotes: Record<string, EndpointQuote>;
}

export const endpointKey = (method: string, path: string) => `${method} ${path}`;

type BucketRow = { at: string; samples: number; up: number; latency: number | null };
type QuoteRow = { method: string; path: string; amount: string; asset: string; network: string; decimals: number | null; quotedAt: string };
type LastRow = { at: string; outcome: string; latencyMs: number | null; httpStatus: number | null };

const AT_NOW = `($2::timestamptz AT TIME ZONE 'UTC')`;
/** Samples since the listing last moved to another server (docs/RANK.md "Liveness"). */
const SINCE_MOVE = `s."at" > coalesce((SELECT l."monitoredSince" FROM "listings" l WHERE l."id" = $1), '-infinity'::timestamp)`;
const IN_WINDOW = `s."listingId" = $1 AND s."at" > ${AT_NOW} - interval '${HEALTH_WINDOW_DAYS} days' AND s."at" <= ${AT_NOW} AND ${SINCE_MOVE}`;

/** All but the ledger's activity in one statement, each part as JSON. */
const FACTS_SQL = `WITH g AS (
    SELECT CASE WHEN ${AT_NOW} - min(s."at") < interval '${HOURLY_BELOW_MS / 3600_000} hours' THEN 'hour' ELSE 'day' END AS gran
      FROM "monitor_health_samples" s WHERE ${IN_WINDOW})
  SELECT (SELECT gran FROM g) AS granularity,
    (SELECT coalesce(json_agg(b ORDER BY b.at), '[]'::json) FROM (
       SELECT to_char(date_trunc(g.gran, s."at"), 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS at,
              count(*)::int AS samples,
              count(*) FILTER (WHERE s."outcome" = 'up')::int AS up,
              (percentile_cont(0.5) WITHIN GROUP (ORDER BY s."latencyMs") FILTER (WHERE s."outcome" = 'up' AND s."latencyMs" IS NOT NULL))::float8 AS latency
         FROM "monitor_health_samples" s, g WHERE ${IN_WINDOW} GROUP BY 1) b) AS buckets,
    (SELECT row_to_json(x) FROM (
       SELECT to_char(s."at", 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at, s."outcome", s."latencyMs", s."httpStatus"
         FROM "monitor_health_samples" s WHERE s."listingId" = $1 AND s."at" <= ${AT_NOW} AND ${SINCE_MOVE}
        ORDER BY s."at" DESC, s.id DESC LIMIT 1) x) AS "last",
    (SELECT coalesce(json_agg(q), '[]'::json) FROM (
       SELECT DISTINCT ON (e.id) e."method"::text AS method, e."path", q."amount", q."asset", q."network", e."priceDecimals" AS decimals,
              to_char(q."quotedAt", 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "quotedAt"
         FROM "price_quotes" q JOIN "endpoints" e ON e.id = q."endpointId"
        WHERE q."listingId" = $1 AND q."quotedAt" <= ${AT_NOW}
        ORDER BY e.id, q."quotedAt" DESC, q.id DESC) q) AS quotes,
    -- The rank's wash check (docs/RANK.md "Wash"), as last stored: payers funded by the seller's own
    -- wallets are not distinct payers here either. No chain read on a page view.
    (SELECT row_to_json(x) FROM (
       SELECT count(DISTINCT p."payer")::int AS payers, count(*)::int AS settled
         FROM "listing_wash" w CROSS JOIN LATERAL jsonb_array_elements(w."excluded") xe
         JOIN "router_payments" p ON p."listingId" = w."listingId" AND lower(p."payer") = xe->>'payer'
        WHERE w."listingId" = $1 AND p."status" = 'settled' AND NOT p."house"
          AND p."createdAt" >= ${AT_NOW} - interval '30 days' AND p."createdAt" <= ${AT_NOW}) x) AS washed`;

export async function listingPageFacts(listingId: string, now = new Date()): Promise<ListingPageFacts> {
  const h = await database();
  const c = h.kind === "postgres" ? h : h.prisma;
  const [[f], facts] = await Promise.all([
    rows<{ granularity: "hour" | "day" | null; buckets: BucketRow[]; last: LastRow | null; quotes: QuoteRow[]; washed: { payers: number; settled: number } | null }>(c, FACTS_SQL, listingId, now.toISOString()),
    // One listing's facts need none of the sweep's plan settings.
    ledgerFacts({ ids: [listingId] }, now, h.prisma),
  ]);
  const granularity = f.granularity ?? "day";
  const [bucketRows, lastRows, quoteRows, washedRows] = [f.buckets, f.last ? [f.last] : [], f.quotes, f.washed ? [f.washed] : []];

  const buckets: HealthBucket[] = bucketRows.map((b) => ({
    at: b.at,
    samples: Number(b.samples),
    up: Number(b.up),
    uptimePct: Math.round((Number(b.up) / Number(b.samples)) * 1000) / 10,
    latencyMs: b.latency === null ? null : Math.round(Number(b.latency)),
  }));
  const samples = buckets.reduce((n, b) => n + b.samples, 0);
  const up = buckets.reduce((n, b) => n + b.up, 0);
  const last = lastRows[0];

  const row = facts[0];
  const washed = washedRows[0] ?? { payers: 0, settled: 0 };
  const payers = (row?.distinctPayers30d ?? 0) - washed.payers;
  const activity: ListingActivity =
    payers >= MIN_DISTINCT_PAYERS ? { shown: true, distinctPayers30d: payers, settled30d: row!.settled30d - washed.settled, floor: MIN_DISTINCT_PAYERS } : { shown: false, floor: MIN_DISTINCT_PAYERS };

  const quotes: Record<string, EndpointQuote> = {};
  for (const q of quoteRows) {
    const units = atomicToUnits(q.amount, q.decimals ?? DEFAULT_ASSET_DECIMALS);
    if (units === null) continue;
    quotes[endpointKey(q.method, q.path)] = { method: q.method, path: q.path, amount: String(units), asset: q.asset, network: q.network, quotedAt: q.quotedAt };
  }

  return {
    health: {
      granularity,
      buckets,
      samples,
      uptimePct: samples ? Math.round((up / samples) * 1000) / 10 : null,
      lastProbe: last ? { at: last.at, outcome: last.outcome, latencyMs: last.latencyMs === null ? null : Number(last.latencyMs), httpStatus: last.httpStatus === null ? null : Number(last.httpStatus) } : null,
    },
    activity,
    quotes,
  };
}
