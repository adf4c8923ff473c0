/**
 * The rank inputs of listings, aggregated in SQL set-based (never one query per listing): rolling
 * 30-day settlement aggregates over `router_payments`, the settle facts since the last success, 7-
 * and 30-day uptime from `monitor_health_samples`, the latest health reading and the latest fresh
 * quote from `price_quotes`, beside the listing's own price and levers. The sweep reads every
 * listing in one pass per table; a Featured edit or the CLI reads a few ids through the same SQL.
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
import pg from "pg";
import { database } from "@/lib/db";
import type { HealthStatus } from "@/lib/scoring/signals";
import type { VerificationStatus } from "@/lib/scoring/rank";

export const MIN_UPTIME_SAMPLES = 12;
export const DEFAULT_ASSET_DECIMALS = 6;

/** One listing's facts, as the aggregate statements give them (dates as epoch milliseconds). */
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

/**
 * Which listings to aggregate: a range of ids (the sweep reads the catalog in a few such ranges, the
 * next read overlapping the scoring of the last; both bounds null is every listing), or these ids (a
 * Featured edit, the CLI). Both run the very same statements; a scope only adds its condition on the
 * listing id to each source (`$2`, `$3`).
 */
export type FactsScope = { ids: readonly string[] } | IdRange;
/** Listing ids `from ≤ id < below`; null is unbounded. */
export interface IdRange {
  from: string | null;
  below: string | null;
}

/**
 * The facts are three statements, one per source, each ONE set-based pass over its whole table
 * (hash aggregates, no per-listing probe, no per-listing sort), run side by side on their own
 * connections and joined by listing id in memory:
 *
 * - payments: one hash GROUP BY (listing, payer), then one GROUP BY listing: distinct attempting and
 *   paying buyers (without count(DISTINCT)'s per-group sort), settled count, the last settlement, the
 *   last failure, and each listing's settled amounts (the median is taken from them in memory, see
 *   medianOfAmounts: percentile_cont sorts per group and was the costliest aggregate). The failures
 *   since the last settlement need that settlement first, so they are counted by an index probe
 *   (router_payments_rank_idx) only for listings whose last failure is after it.
 * - health samples: one GROUP BY listing (window counts; the latest reading as max of [time, confidence]).
 * - the listing with its price facts (lowest payable price, first label and decimals by position),
 *   its latest fresh quote and its stored inputs hash.
 *
 * `$1` is now as a UTC wall-clock timestamp (Prisma's timestamp(3) columns hold UTC), `$2` the ids.
 */
export function factsSql(scope: FactsScope): { payments: string; health: string; listings: string } {
  const only = (col: string) =>
    "ids" in scope ? ` AND ${col} = ANY($2::text[])` : ` AND ($2::text IS NULL OR ${col} >= $2::text) AND ($3::text IS NULL OR ${col} < $3::text)`;
  const now = `$1::timestamp`;
  const d30 = `${now} - interval '30 days'`;
  // The failures since the listing's last settlement: one range of router_payments_rank_idx.
  const failures = (what: string) => `SELECT ${what} FROM "router_payments" x
      WHERE x."listingId" = b.lid AND x."status" = 'failed'
        AND x."createdAt" > COALESCE(b.last_settled, '-infinity'::timestamp) AND x."createdAt" <= ${now}`;
  const payments = `
SELECT b.lid AS id, b.attempting, b.payers, b.settled, b.amounts::text AS amounts,
       (extract(epoch FROM b.last_settled) * 1000)::float8 AS "lastSettledAtMs",
       -- Only a listing whose last failure is after its last settlement has failures since it.
       CASE WHEN b.last_failed > COALESCE(b.last_settled, '-infinity'::timestamp) THEN (${failures("count(*)::int")}) ELSE 0 END AS failed,
       CASE WHEN b.last_failed > COALESCE(b.last_settled, '-infinity'::timestamp) THEN (${failures(`count(DISTINCT x."payer")::int`)}) ELSE 0 END AS failing
FROM (
  SELECT pp.lid,
         count(*) FILTER (WHERE pp.attempted)::int AS attempting,
         count(*) FILTER (WHERE pp.settled > 0)::int AS payers,
         sum(pp.settled)::int AS settled,
         max(pp.last_settled) AS last_settled,
         max(pp.last_failed) AS last_failed,
         tollgate_array_cat_agg(pp.amounts) AS amounts
  FROM (
    SELECT p."listingId" AS lid, p."payer",
           bool_or(p."createdAt" >= ${d30}) AS attempted,
           count(*) FILTER (WHERE p."status" = 'settled' AND p."createdAt" >= ${d30}) AS settled,
           max(p."createdAt") FILTER (WHERE p."status" = 'settled') AS last_settled,
           max(p."createdAt") FILTER (WHERE p."status" = 'failed') AS last_failed,
           array_agg(p."settledAmount") FILTER (WHERE p."status" = 'settled' AND p."createdAt" >= ${d30}) AS amounts
    FROM "router_payments" p
    WHERE p."createdAt" <= ${now}${only(`p."listingId"`)}
    GROUP BY 1, 2
  ) pp
  GROUP BY 1
) b`;
  const health = `
SELECT h."listingId" AS id,
       count(*) FILTER (WHERE h."at" > ${now} - interval '7 days')::int AS n7,
       count(*) FILTER (WHERE h."at" > ${now} - interval '7 days' AND h."outcome" = 'up')::int AS up7,
       count(*)::int AS n30,
       count(*) FILTER (WHERE h."outcome" = 'up')::int AS up30,
       (max(ARRAY[date_part('epoch', h."at"), h."confidence"]))[2] AS confidence
FROM "monitor_health_samples" h
WHERE h."at" > ${d30} AND h."at" <= ${now}${only(`h."listingId"`)}
GROUP BY 1`;
  const listings = `
SELECT l.id,
       l."publicationState"::text AS "publicationState",
       l."featuredLevel",
       l."verificationStatus"::text AS "verificationStatus",
       l."healthStatus"::text AS "listingHealthStatus",
       r."inputsHash" AS "rankInputsHash",
       price.advertised AS "advertisedPrice",
       price.label AS "priceLabel",
       price.decimals,
       quote.latest[2] AS "quotePrice",
       quote.latest[1] AS "quotedAtS"
FROM "listings" l
LEFT JOIN "listing_ranks" r ON r."listingId" = l.id${only(`r."listingId"`)}
LEFT JOIN (
  SELECT e."listingId" AS lid,
         min(tollgate_decimal_or_null(e."priceUsd"))::float8 AS advertised,
         -- "first by position" as the least [position, value]: hashable, unlike an ordered array_agg.
         (min(ARRAY[lpad((e."position"::bigint + 2147483648)::text, 10, '0'), e."priceLabel"] COLLATE "C")
            FILTER (WHERE btrim(COALESCE(e."priceLabel", '')) <> ''))[2] AS label,
         (min(ARRAY[e."position", e."priceDecimals"]) FILTER (WHERE e."priceDecimals" IS NOT NULL))[2] AS decimals
  FROM "endpoints" e
  WHERE e."payable"${only(`e."listingId"`)}
  GROUP BY 1
) price ON price.lid = l.id
LEFT JOIN (
  -- The latest fresh quote: the greatest [epoch seconds, price].
  SELECT q."listingId" AS lid,
         max(ARRAY[date_part('epoch', q."quotedAt"),
                   tollgate_atomic_to_units(q."amount", COALESCE(e."priceDecimals", ${DEFAULT_ASSET_DECIMALS}))]) AS latest
  FROM "price_quotes" q LEFT JOIN "endpoints" e ON e.id = q."endpointId"
  WHERE q."quotedAt" <= ${now} AND q."quotedAt" > ${d30}${only(`q."listingId"`)}
  GROUP BY 1
) quote ON quote.lid = l.id
${"ids" in scope ? "WHERE l.id = ANY($2::text[]) ORDER BY l.id" : `WHERE true${only("l.id")}`}`;
  return { payments, health, listings };
}

interface PaymentFacts {
  id: string;
  attempting: number;
  payers: number;
  settled: number;
  /** The settled amounts as an array literal, e.g. "{9600,9700}" (parseAmounts). */
  amounts: string | null;
  lastSettledAtMs: number | null;
  failed: number;
  failing: number;
}

interface HealthFacts {
  id: string;
  n7: number;
  up7: number;
  n30: number;
  up30: number;
  confidence: number | null;
}

interface ListingFacts
  extends Pick<LedgerFactsRow, "id" | "publicationState" | "featuredLevel" | "verificationStatus" | "listingHealthStatus" | "rankInputsHash" | "advertisedPrice" | "priceLabel"> {
  decimals: number | null;
  quotePrice: number | null;
  quotedAtS: number | null;
}

/** `now` as the UTC wall-clock timestamp the columns hold, e.g. "2026-12-02 12:00:00.000". */
export function utcTimestamp(now: Date): string {
  return now.toISOString().replace("T", " ").replace("Z", "");
}

/**
 * Session settings for the aggregate statements on a server: no JIT (compiling these plans cost more
 * than running them: ~0.9 s of a 3.7 s run), memory for the hash aggregates to stay in memory, and no
 * parallel workers (the three statements already run side by side).
 */
const SERVER_SETTINGS = ["SET work_mem = '256MB'", "SET jit = off", "SET max_parallel_workers_per_gather = 0"];
const SERVER_RESET = "RESET work_mem; RESET jit; RESET max_parallel_workers_per_gather; RESET enable_sort; RESET enable_incremental_sort";
/**
 * The payments statement's two GROUP BYs as hash aggregates: the planner, misjudging how many
 * (listing, payer) groups there are, otherwise sorts a million rows by (listing, payer) off the
 * index (0.7 s against 0.35 s on bench:rank), or, over an id range, an incremental sort of it.
 */
const PAYMENTS_SETTINGS = ["SET enable_sort = off", "SET enable_incremental_sort = off"];

/**
 * The ledger, monitor and price facts of every listing in scope: in id order for a list of ids, in
 * no particular order for an id range (the sweep does not need one, and sorting 100,000 rows cost 80 ms).
 */
export async function ledgerFacts(scope: FactsScope, now: Date): Promise<LedgerFactsRow[]> {
  if (!Number.isFinite(now.getTime())) throw new RangeError("ledgerFacts needs a valid date");
  if ("ids" in scope && scope.ids.length === 0) return [];
  const handle = await database();
  const sql = factsSql(scope);
  const params: unknown[] = "ids" in scope ? [utcTimestamp(now), [...new Set(scope.ids)]] : [utcTimestamp(now), scope.from, scope.below];
  const run = <T,>(text: string, extra: string[] = []): Promise<T[]> =>
    handle.kind === "postgres"
      ? handle.session(async (conn) => {
          for (const s of [...SERVER_SETTINGS, ...extra]) await conn.exec(s);
          try {
            return await conn.query<T>(text, params);
          } finally {
            await conn.exec(SERVER_RESET);
          }
        })
      : handle.query<T>(text, params);
  const [payments, health, listings] = await Promise.all([run<PaymentFacts>(sql.payments, PAYMENTS_SETTINGS), run<HealthFacts>(sql.health), run<ListingFacts>(sql.listings)]);
  const pay = new Map(payments.map((p) => [p.id, p]));
  const hea = new Map(health.map((h) => [h.id, h]));
  return listings.map((l) => {
    const p = pay.get(l.id);
    const h = hea.get(l.id);
    const median = p ? medianOfAmounts(parseAmounts(p.amounts)) : null;
    return {
      id: l.id,
      publicationState: l.publicationState,
      featuredLevel: l.featuredLevel,
      verificationStatus: l.verificationStatus,
      listingHealthStatus: l.listingHealthStatus,
      rankInputsHash: l.rankInputsHash,
      advertisedPrice: l.advertisedPrice,
      priceLabel: l.priceLabel,
      distinctPayers30d: p?.payers ?? 0,
      distinctAttemptingBuyers30d: p?.attempting ?? 0,
      settled30d: p?.settled ?? 0,
      // Atomic units to whole units with the listing's decimals (its first payable endpoint's, else 6).
      medianSettledPrice30d: median === null ? null : median / powerOf10(l.decimals ?? DEFAULT_ASSET_DECIMALS),
      lastSettledAtMs: p?.lastSettledAtMs ?? null,
      failedSinceLastSettle: p?.failed ?? 0,
      failingBuyersSinceLastSettle: p?.failing ?? 0,
      samples7d: h?.n7 ?? 0,
      up7d: h?.up7 ?? 0,
      samples30d: h?.n30 ?? 0,
      up30d: h?.up30 ?? 0,
      latestConfidence: h?.confidence ?? null,
      quotePrice: l.quotePrice,
      // Epoch seconds of a timestamp(3) as float8, back to its exact millisecond.
      quotedAtMs: l.quotedAtS === null ? null : Math.round(l.quotedAtS * 1000),
    };
  });
}

/**
 * The catalog cut into id ranges of about `size` listings each, in id order (one range when it is
 * smaller): the sweep reads one range while it scores the one before.
 */
export async function listingIdRanges(size: number): Promise<IdRange[]> {
  if (!Number.isSafeInteger(size) || size < 1) throw new RangeError("listingIdRanges needs a positive size");
  const handle = await database();
  const cuts = await handle.query<{ id: string }>(
    // The column's own collation, as the range conditions compare: the ranges then partition the
    // listings exactly, and each is an index range.
    `SELECT id FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM "listings") x
      WHERE n > 1 AND n % $1::int = 1 ORDER BY id`,
    [size],
  );
  const ranges: IdRange[] = [];
  let from: string | null = null;
  for (const { id } of cuts) {
    ranges.push({ from, below: id });
    from = id;
  }
  ranges.push({ from, below: null });
  return ranges;
}

/**
 * A text[] literal of settled amounts. Well-formed amounts are digits only, so the common literal
 * "{9600,9700}" splits directly; anything else (a NULL, a quoted or escaped element) goes through
 * the driver's full array parser.
 */
export function parseAmounts(literal: string | null): (string | null)[] | null {
  if (literal === null) return null;
  if (/^\{[0-9]+(,[0-9]+)*\}$/.test(literal)) return literal.slice(1, -1).split(",");
  if (literal === "{}") return [];
  return parseTextArray(literal);
}

/** An atomic amount as a number, or null: a plain non-negative integer string only (tollgate_atomic_to_units). */
const ATOMIC = /^[0-9]{1,38}$/;

/**
 * The median of a listing's settled amounts, in atomic units: PostgreSQL's percentile_cont(0.5) over
 * tollgate_atomic_to_units(amount, 0), to the bit. Malformed amounts are left out (that function's
 * NULL); an even count interpolates as percentile_cont does, lo + 0.5 × (hi − lo). Null when none.
 */
export function medianOfAmounts(amounts: readonly (string | null)[] | null): number | null {
  if (!amounts || amounts.length === 0) return null;
  const xs: number[] = [];
  for (const a of amounts) if (a !== null && ATOMIC.test(a)) xs.push(Number(a));
  const n = xs.length;
  if (n === 0) return null;
  xs.sort((a, b) => a - b);
  const pos = 0.5 * (n - 1);
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return lo === hi ? xs[lo] : xs[lo] + (pos - lo) * (xs[hi] - xs[lo]);
}

/**
 * node-pg's own parser for text[] (type oid 1009), the one it applies to text[] columns. pg-types'
 * TypeId enum lists scalar types only, hence the widened signature.
 */
const textArrayParser = (pg.types.getTypeParser as (oid: number) => (literal: string) => (string | null)[])(1009);

/** A one-dimensional text[] literal: bare elements (NULL unquoted is null) or double-quoted with backslash escapes. */
export function parseTextArray(literal: string): (string | null)[] {
  if (literal[0] !== "{" || literal[literal.length - 1] !== "}") throw new Error(`not an array literal: ${literal.slice(0, 40)}`);
  return textArrayParser(literal);
}

const POWERS = new Map<number, number>();
/** 10^d exactly as PostgreSQL's power(10::float8, d) gives it (correctly rounded; exact up to 10^22). */
function powerOf10(d: number): number {
  let p = POWERS.get(d);
  if (p === undefined) POWERS.set(d, (p = Number(`1e${d}`)));
  return p;
}

/** The health status a sample of this confidence implies (signals.HEALTH_CONFIDENCE). */
export function healthStatusFor(confidence: number): HealthStatus {
  if (confidence >= 1) return "operational";
  if (confidence > 0) return "degraded";
  return "unavailable";
}
