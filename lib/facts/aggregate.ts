/**
 * The rank inputs of listings, aggregated in SQL set-based (never one query per listing): rolling
 * 30-day settlement aggregates over `router_payments`, the settle facts since the last success, 7-
 * and 30-day uptime from `monitor_health_samples`, the latest health reading and the latest fresh
 * quote from `price_quotes`, beside the listing's own price and levers. The sweep reads every
 * listing in one pass per table; a Featured edit or the CLI reads a few ids through the same SQL,
 * and so does readiness (ledgerFactsForScoring: H2 liveness, H3 settleability, the knownUnpayable
 * cap), so readiness and rank read these facts through ONE set of statements and ONE row→facts
 * mapping (settleFactsOf, monitorFactsOf, livenessFactsOf).
 *
 * Readings this module makes (docs/RANK.md leaves them to the database layer):
 * - Amounts are atomic units of a USD stablecoin. Settled amounts are converted with the listing's
 *   decimals (its first payable endpoint's `priceDecimals`, else 6 for USDC), a quote with its own
 *   endpoint's. No FX is captured (docs/spec/scoring-system.md "Revenue in fiat"), so prices are USD per call throughout.
 * - The listing's advertised price is the lowest numeric `priceUsd` among its payable endpoints (the
 *   price a tile shows); its price label the first non-blank label by endpoint position.
 * - The 30-day window is inclusive at its old end (`createdAt >= now − 30 d`), matching
 *   signals.settleGate's "settled within 30 days" (`age ≤ 30 d`), so the gate and settled30d flip at
 *   the same instant. A quote is fresh when `now − 30 d < quotedAt ≤ now` ("quote age < 30 days").
 * - Uptime over a window needs at least MIN_UPTIME_SAMPLES samples in it (an hour of the 5-minute
 *   sweep); below that the share is noise and the listing is "with no uptime yet"
 *   (signals.uptimePercent).
 * - The health reading is the latest sample within 30 days: its confidence, and the status it
 *   implies (signals.healthStatusFor). With no reading, the listing's stored healthStatus is the
 *   baseline and nothing caps it (signals.NO_READING_CONFIDENCE, 1): the seed's baselines exist for
 *   exactly that case.
 */
import { ATOMIC_AMOUNT, USD_DECIMAL } from "@/lib/amounts";
import {
  healthStatusFor,
  NO_READING_CONFIDENCE,
  settlementUnproven,
  uptimePercent,
  type HealthStatus,
  type LivenessFacts,
  type SettleFacts,
} from "@/lib/scoring/signals";
import { DAY_MS, type MonitorFacts, type VerificationStatus } from "@/lib/rank/score";
import { clientOr, rows, session, type Client, type SessionSettings } from "@/lib/sql";

export { healthStatusFor, MIN_UPTIME_SAMPLES } from "@/lib/scoring/signals";
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
  /** The decimals settled amounts are read in (the listing's first payable endpoint's, else 6). */
  settleDecimals: number;
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
  /** The oldest payment in the 30-day window, the oldest sample in the 7- and in the 30-day window (epoch ms). */
  oldestPayment30dMs: number | null;
  oldestSample7dMs: number | null;
  oldestSample30dMs: number | null;
  /** listing_ranks.rankDueAt as stored by the last ranking (epoch ms). */
  storedDueAtMs: number | null;
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
 * The facts are three statements, one per source. Each reads its table in listing-id order, off an
 * index that holds every column it needs (an index-only scan: no heap visit, no hash table, no sort),
 * and aggregates each listing as its rows stream past (a GroupAggregate): the cost is one ordered
 * pass over the index range, a little more than the bare GROUP BY of the floor. The three run side by
 * side on their own connections, and each returns its whole answer as ONE text document, a line per
 * listing of tab-separated fields (factsDocument; parseDocument reads it), split in memory instead of
 * parsed row by row through the driver (bench:rank: building JSON cost the server 0.6 s, and the
 * driver's rows 0.2 s of this process, against 0.1 s for the text).
 *
 * - payments (router_payments_payer_idx: listing, payer, then status, createdAt, settledAmount, house):
 *   per (listing, payer) whether the payer attempted in 30 days, their settlements in 30 days, their
 *   last settlement and last failure, and their settled amounts. House rows (the catalog's own
 *   wallets) are no buyer: they count in neither the attempts, the settlements nor the amounts (no
 *   traction, no price evidence), only in the last settlement and failures the settle gate reads. An
 *   `unconfirmed` row (the chain not read yet) is an attempt but neither settled nor failed. A
 *   `rejected` row (refused for the buyer's own fault, docs/ROUTER.md "Whose failure it is") is not
 *   even an attempt: it says nothing about the seller. A row a correction names is left out: the
 *   correction counts in its place. Then per
 *   listing distinct attempting and
 *   paying buyers (no count(DISTINCT): its per-group sort was the costliest aggregate), settled count,
 *   last settlement and the settled amounts (the median is taken from them in memory, see
 *   medianOfAmounts: percentile_cont sorts per group). The failures since the last settlement need
 *   that settlement first, so they are counted by an index probe (router_payments_rank_idx) only for
 *   listings whose last failure is after it.
 * - health samples (monitor_health_samples_rank_idx: listing, at, then outcome, confidence): the window
 *   counts and the time of the latest reading; its confidence by one index probe (the greatest
 *   confidence at that instant).
 * - the listing with its price facts (its payable prices, the lowest numeric one taken in memory; the
 *   first label and decimals by position), its latest fresh quote with the decimals of the quote's
 *   endpoint (converted in memory, atomicToUnits) and its stored inputs hash.
 *
 * `$1` is now as a UTC wall-clock timestamp (Prisma's timestamp(3) columns hold UTC); `$2`, `$3` the scope.
 */
export function factsSql(scope: FactsScope): { payments: string; health: string; listings: string } {
  const only = (col: string) =>
    "ids" in scope ? ` AND ${col} = ANY($2::text[])` : ` AND ($2::text IS NULL OR ${col} >= $2::text) AND ($3::text IS NULL OR ${col} < $3::text)`;
  const now = `$1::timestamp`;
  const d30 = `${now} - interval '30 days'`;
  // A corrected ledger row counts as its correction only (lib/ledger/correct.ts): the corrected ids,
  // few, are one hashed set per statement, and both covering indexes carry the row's id.
  const uncorrected = (alias: string) => ` AND ${alias}."id" NOT IN (SELECT c."correctsId" FROM "router_payments" c WHERE c."correctsId" IS NOT NULL)`;
  // The failures since the listing's last settlement: one range of router_payments_rank_idx.
  const failures = (what: string) => `SELECT ${what} FROM "router_payments" x
      WHERE x."listingId" = b.lid AND x."status" = 'failed'
        AND x."createdAt" > COALESCE(b.last_settled, '-infinity'::timestamp) AND x."createdAt" <= ${now}${uncorrected("x")}`;
  const since = `b.last_failed > COALESCE(b.last_settled, '-infinity'::timestamp)`;
  const doc = factsDocument;
  const payments = doc(
    [
      "b.lid",
      "b.attempting",
      "b.payers",
      "b.settled",
      "b.amounts",
      "(extract(epoch FROM b.last_settled) * 1000)::float8",
      // Only a listing whose last failure is after its last settlement has failures since it: one
      // probe for both counts, as "count,distinct payers".
      `CASE WHEN ${since} THEN (${failures(`count(*)::int || ',' || count(DISTINCT x."payer")::int`)}) END`,
      "(extract(epoch FROM b.oldest) * 1000)::float8",
    ],
    `(
  SELECT pp.lid,
         count(*) FILTER (WHERE pp.attempted)::int AS attempting,
         count(*) FILTER (WHERE pp.settled > 0)::int AS payers,
         sum(pp.settled)::int AS settled,
         max(pp.last_settled) AS last_settled,
         max(pp.last_failed) AS last_failed,
         string_agg(pp.amounts, ',') AS amounts,
         min(pp.oldest) AS oldest
  FROM (
    SELECT p."listingId" AS lid, p."payer",
           bool_or(p."createdAt" >= ${d30} AND NOT p."house" AND p."status" NOT IN ('rejected', 'unmeasured')) AS attempted,
           count(*) FILTER (WHERE p."status" = 'settled' AND p."createdAt" >= ${d30} AND NOT p."house") AS settled,
           max(p."createdAt") FILTER (WHERE p."status" = 'settled') AS last_settled,
           max(p."createdAt") FILTER (WHERE p."status" = 'failed') AS last_failed,
           string_agg(p."settledAmount", ',') FILTER (WHERE p."status" = 'settled' AND p."createdAt" >= ${d30} AND NOT p."house") AS amounts,
           min(p."createdAt") FILTER (WHERE p."createdAt" >= ${d30}) AS oldest
    FROM "router_payments" p
    WHERE p."createdAt" <= ${now}${only(`p."listingId"`)}${uncorrected("p")}
    GROUP BY 1, 2
  ) pp
  GROUP BY 1
) b`,
  );
  const health = doc(
    [
      "s.lid",
      "s.n7",
      "s.up7",
      "s.n30",
      "s.up30",
      // The latest reading's confidence (the greatest, should two samples share the instant).
      // (max, not ORDER BY … LIMIT 1: the index is not in confidence order, so that sorted per listing.)
      `(SELECT max(x."confidence") FROM "monitor_health_samples" x WHERE x."listingId" = s.lid AND x."at" = s.latest)`,
      "(extract(epoch FROM s.oldest7) * 1000)::float8",
      "(extract(epoch FROM s.oldest30) * 1000)::float8",
    ],
    `(
  SELECT h."listingId" AS lid,
         count(*) FILTER (WHERE h."at" > ${now} - interval '7 days')::int AS n7,
         count(*) FILTER (WHERE h."at" > ${now} - interval '7 days' AND h."outcome" = 'up')::int AS up7,
         count(*)::int AS n30,
         count(*) FILTER (WHERE h."outcome" = 'up')::int AS up30,
         max(h."at") AS latest,
         min(h."at") FILTER (WHERE h."at" > ${now} - interval '7 days') AS oldest7,
         min(h."at") AS oldest30
  FROM "monitor_health_samples" h
  WHERE h."at" > ${d30} AND h."at" <= ${now}${only(`h."listingId"`)}
  GROUP BY 1
) s`,
  );
  const listings = doc(
    [
      "l.id",
      `l."publicationState"`,
      `l."featuredLevel"`,
      `l."verificationStatus"`,
      `l."healthStatus"`,
      `r."inputsHash"`,
      "array_to_json(price.prices)",
      "to_json(price.label)",
      "price.decimals",
      `quote."amount"`,
      "quote.decimals",
      `(extract(epoch FROM quote."quotedAt") * 1000)::float8`,
      `(extract(epoch FROM r."rankDueAt") * 1000)::float8`,
    ],
    `"listings" l
LEFT JOIN "listing_ranks" r ON r."listingId" = l.id${only(`r."listingId"`)}
LEFT JOIN (
  SELECT e."listingId" AS lid,
         -- The payable prices as written; the lowest numeric one is taken in memory (advertisedPrice).
         array_agg(e."priceUsd") FILTER (WHERE e."priceUsd" IS NOT NULL) AS prices,
         -- "first by position" as the least [position, value]: no per-listing sort.
         (min(ARRAY[lpad((e."position"::bigint + 2147483648)::text, 10, '0'), e."priceLabel"] COLLATE "C")
            FILTER (WHERE btrim(COALESCE(e."priceLabel", '')) <> ''))[2] AS label,
         (min(ARRAY[e."position", e."priceDecimals"]) FILTER (WHERE e."priceDecimals" IS NOT NULL))[2] AS decimals
  FROM "endpoints" e
  WHERE e."payable"${only(`e."listingId"`)}
  GROUP BY 1
) price ON price.lid = l.id
LEFT JOIN (
  -- The latest fresh quote (of two at the same instant, the greater id), with its endpoint's decimals.
  SELECT DISTINCT ON (q."listingId") q."listingId" AS lid, q."quotedAt", q."amount", qe."priceDecimals" AS decimals
    FROM "price_quotes" q LEFT JOIN "endpoints" qe ON qe.id = q."endpointId"
   WHERE q."quotedAt" <= ${now} AND q."quotedAt" > ${d30}${only(`q."listingId"`)}
   ORDER BY q."listingId", q."quotedAt" DESC, q.id DESC
) quote ON quote.lid = l.id
WHERE true${only("l.id")}`,
  );
  return { payments, health, listings };
}

/**
 * The statement that returns one text document for the rows of `from`: a line per row, its fields
 * tab-separated, in `fields` order; a NULL is the empty field. Numbers print as PostgreSQL's shortest
 * exact text, which Number() reads back to the same double; free text and arrays go as JSON, so no
 * field holds a tab or a line break. Null when `from` has no rows.
 */
function factsDocument(fields: readonly string[], from: string): string {
  return `SELECT string_agg(concat_ws(E'\\t', ${fields.map((f) => `COALESCE((${f})::text, '')`).join(", ")}), E'\\n') AS doc FROM ${from}`;
}

/** The lines of a facts document as arrays of fields, each line checked for its field count. */
function parseDocument(doc: string | null, width: number, what: string): string[][] {
  if (doc === null) return [];
  const lines = doc.split("\n");
  const rows: string[][] = new Array(lines.length);
  for (let i = 0; i < lines.length; i++) {
    const f = lines[i].split("\t");
    if (f.length !== width) throw new Error(`rank facts: a ${what} line has ${f.length} fields, not ${width} (listing ${JSON.stringify(f[0])})`);
    rows[i] = f;
  }
  return rows;
}

const num = (f: string): number | null => (f === "" ? null : Number(f));
/** Epoch milliseconds of a timestamp(3), exact as float8; rounded against any representation slack. */
const epochMs = (f: string): number | null => (f === "" ? null : Math.round(Number(f)));
const json = <T,>(f: string): T | null => (f === "" ? null : (JSON.parse(f) as T));

/**
 * Fields per line: payments [id, attempting, payers, settled, settled amounts, last settlement (epoch
 * ms), "failed since,failing buyers since" (empty when none), oldest in the window (epoch ms)].
 */
const PAYMENT_FIELDS = 8;
/** Health [id, samples 7 d, up 7 d, samples 30 d, up 30 d, latest confidence, oldest in 7 d, oldest in 30 d]. */
const HEALTH_FIELDS = 8;
/**
 * Listing [id, publicationState, featuredLevel, verificationStatus, healthStatus, stored hash, payable
 * prices, label, decimals, quote amount, the quote's endpoint decimals, quotedAt (epoch ms), stored
 * rankDueAt (epoch ms)].
 */
const LISTING_FIELDS = 13;

/** `now` as the UTC wall-clock timestamp the columns hold, e.g. "2026-12-02 12:00:00.000". */
export function utcTimestamp(now: Date): string {
  return now.toISOString().replace("T", " ").replace("Z", "");
}

/**
 * Session settings for the aggregate statements on a server: no JIT (compiling these plans cost more
 * than running them), no parallel workers (the three statements already run side by side), memory
 * for the listing side's joins and quote sort to stay in memory, and for
 * payments and samples neither hash aggregates nor sorts, so each is the ordered index-only pass the
 * statement is written for (the planner, misjudging how many groups there are, otherwise hashes a
 * million rows: 2.7 s against 0.6 s on bench:rank).
 */
const SERVER_SETTINGS = ["SET jit = off", "SET max_parallel_workers_per_gather = 0", "SET work_mem = '64MB'"];
const STREAMING_SETTINGS = ["SET enable_hashagg = off", "SET enable_sort = off", "SET enable_incremental_sort = off"];
const SERVER_RESET = "RESET jit; RESET max_parallel_workers_per_gather; RESET work_mem; RESET enable_hashagg; RESET enable_sort; RESET enable_incremental_sort";
const STREAMING: SessionSettings = { set: [...SERVER_SETTINGS, ...STREAMING_SETTINGS], reset: SERVER_RESET };
const LISTING: SessionSettings = { set: SERVER_SETTINGS, reset: SERVER_RESET };

/**
 * The ledger, monitor and price facts of every listing in scope: in id order for a list of ids, in
 * no particular order for an id range (the sweep does not need one). On `client` when given (a
 * transaction: readiness reads inside its completion), else the process's database (lib/sql
 * clientOr). On a server handle each statement runs on its own pooled connection with the settings
 * above (lib/sql session); on one connection (PGlite, a transaction) they run there, settings left
 * out: they change plans, never answers.
 */
export async function ledgerFacts(scope: FactsScope, now: Date, client?: Client): Promise<LedgerFactsRow[]> {
  if (!Number.isFinite(now.getTime())) throw new RangeError("ledgerFacts needs a valid date");
  if ("ids" in scope && scope.ids.length === 0) return [];
  const c = await clientOr(client);
  const sql = factsSql(scope);
  const params: unknown[] = "ids" in scope ? [utcTimestamp(now), [...new Set(scope.ids)]] : [utcTimestamp(now), scope.from, scope.below];
  const run = (text: string, settings: SessionSettings) => session(c, async (conn) => (await rows<{ doc: string | null }>(conn, text, ...params))[0].doc, settings);
  const [payDoc, healthDoc, listingDoc] = await Promise.all([run(sql.payments, STREAMING), run(sql.health, STREAMING), run(sql.listings, LISTING)]);
  const pay = new Map<string, string[]>();
  for (const p of parseDocument(payDoc, PAYMENT_FIELDS, "payments")) pay.set(p[0], p);
  const hea = new Map<string, string[]>();
  for (const h of parseDocument(healthDoc, HEALTH_FIELDS, "health")) hea.set(h[0], h);
  const listings = parseDocument(listingDoc, LISTING_FIELDS, "listing");
  if ("ids" in scope) listings.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const out: LedgerFactsRow[] = new Array(listings.length);
  for (let i = 0; i < listings.length; i++) {
    const l = listings[i];
    const id = l[0];
    const p = pay.get(id);
    const h = hea.get(id);
    // Digits only (router_payments_amounts_atomic), so the list splits on its commas.
    const median = p && p[4] !== "" ? medianOfAmounts(p[4].split(",")) : null;
    const decimals = num(l[8]);
    const quoteAmount = l[9] === "" ? null : l[9];
    const failures = p && p[6] !== "" ? p[6] : null;
    out[i] = {
      id,
      publicationState: l[1],
      featuredLevel: Number(l[2]),
      verificationStatus: l[3] as VerificationStatus,
      listingHealthStatus: l[4] as HealthStatus,
      rankInputsHash: l[5] === "" ? null : l[5],
      advertisedPrice: lowestPrice(json<(string | null)[]>(l[6])),
      priceLabel: json<string>(l[7]),
      distinctPayers30d: p ? Number(p[2]) : 0,
      distinctAttemptingBuyers30d: p ? Number(p[1]) : 0,
      settled30d: p ? Number(p[3]) : 0,
      // Atomic units to whole units with the listing's decimals (its first payable endpoint's, else 6).
      medianSettledPrice30d: median === null ? null : median / powerOf10(decimals ?? DEFAULT_ASSET_DECIMALS),
      settleDecimals: decimals ?? DEFAULT_ASSET_DECIMALS,
      lastSettledAtMs: p ? epochMs(p[5]) : null,
      failedSinceLastSettle: failures ? Number(failures.slice(0, failures.indexOf(","))) : 0,
      failingBuyersSinceLastSettle: failures ? Number(failures.slice(failures.indexOf(",") + 1)) : 0,
      samples7d: h ? Number(h[1]) : 0,
      up7d: h ? Number(h[2]) : 0,
      samples30d: h ? Number(h[3]) : 0,
      up30d: h ? Number(h[4]) : 0,
      latestConfidence: h ? num(h[5]) : null,
      quotePrice: quoteAmount === null ? null : atomicToUnits(quoteAmount, num(l[10]) ?? DEFAULT_ASSET_DECIMALS),
      quotedAtMs: epochMs(l[11]),
      oldestPayment30dMs: p ? epochMs(p[7]) : null,
      oldestSample7dMs: h ? epochMs(h[6]) : null,
      oldestSample30dMs: h ? epochMs(h[7]) : null,
      storedDueAtMs: epochMs(l[12]),
    };
  }
  return out;
}

/**
 * The catalog cut into id ranges of about `size` listings each, in id order (one range when it is
 * smaller): the sweep reads one range while it scores the one before.
 */
export async function listingIdRanges(size: number, client?: Client): Promise<IdRange[]> {
  if (!Number.isSafeInteger(size) || size < 1) throw new RangeError("listingIdRanges needs a positive size");
  const cuts = await rows<{ id: string }>(
    await clientOr(client),
    // The column's own collation, as the range conditions compare: the ranges then partition the
    // listings exactly, and each is an index range.
    `SELECT id FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM "listings") x
      WHERE n > 1 AND n % $1::int = 1 ORDER BY id`,
    size,
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
 * The median of a listing's settled amounts, in atomic units: PostgreSQL's percentile_cont(0.5) over
 * tollgate_atomic_to_units(amount, 0), to the bit. Malformed amounts are left out (that function's
 * NULL); an even count interpolates as percentile_cont does, lo + 0.5 × (hi − lo). Null when none.
 */
export function medianOfAmounts(amounts: readonly (string | null)[] | null): number | null {
  if (!amounts || amounts.length === 0) return null;
  const xs: number[] = [];
  for (const a of amounts) if (a !== null && ATOMIC_AMOUNT.test(a)) xs.push(Number(a));
  const n = xs.length;
  if (n === 0) return null;
  xs.sort((a, b) => a - b);
  const pos = 0.5 * (n - 1);
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return lo === hi ? xs[lo] : xs[lo] + (pos - lo) * (xs[hi] - xs[lo]);
}

/**
 * The lowest numeric price among a listing's payable endpoints (min(tollgate_decimal_or_null(priceUsd))
 * as float8): malformed prices are left out; null when none is numeric. A decimal string converts to
 * the double nearest its exact value, as numeric → float8 does, so the minimum agrees.
 */
export function lowestPrice(prices: readonly (string | null)[] | null): number | null {
  if (!prices) return null;
  let low: number | null = null;
  for (const p of prices) {
    if (p === null || !USD_DECIMAL.test(p)) continue;
    const x = Number(p);
    if (low === null || x < low) low = x;
  }
  return low;
}

/**
 * An atomic amount in whole units, as tollgate_atomic_to_units(amount, decimals) gives it: null unless
 * the amount is 1–38 digits and decimals 0–36; else the double nearest amount × 10^−decimals (the
 * exact decimal, parsed once, so no second rounding).
 */
export function atomicToUnits(amount: string, decimals: number): number | null {
  if (!ATOMIC_AMOUNT.test(amount) || !Number.isInteger(decimals) || decimals < 0 || decimals > 36) return null;
  return Number(`${amount}e-${decimals}`);
}

const POWERS = new Map<number, number>();
/** 10^d exactly as PostgreSQL's power(10::float8, d) gives it (correctly rounded; exact up to 10^22). */
function powerOf10(d: number): number {
  let p = POWERS.get(d);
  if (p === undefined) POWERS.set(d, (p = Number(`1e${d}`)));
  return p;
}

/**
 * The first instant (epoch ms) at which the passing of time alone changes this listing's facts: a
 * payment leaves the 30-day window a millisecond after it is 30 days old (the window is inclusive at
 * its old end), a sample leaves the 7- or 30-day window and the quote stops being fresh when it is
 * exactly that old (both exclusive). The oldest row of each window leaves first; whatever follows is
 * the next due time, taken when the listing is ranked again. Null when no window holds anything.
 * (A row written with a time still in the future enters its window at that time; the sweep's periodic
 * full read takes it then, runRankSweep "due".)
 */
export function factsDueAtMs(row: Pick<LedgerFactsRow, "oldestPayment30dMs" | "oldestSample7dMs" | "oldestSample30dMs" | "quotedAtMs">): number | null {
  let due: number | null = null;
  const at = (t: number | null, after: number) => {
    if (t !== null && (due === null || t + after < due)) due = t + after;
  };
  at(row.oldestPayment30dMs, 30 * DAY_MS + 1);
  at(row.oldestSample7dMs, 7 * DAY_MS);
  at(row.oldestSample30dMs, 30 * DAY_MS);
  at(row.quotedAtMs, 30 * DAY_MS);
  return due;
}

/**
 * The facts both scores read from one aggregate row. Rank: settleFactsOf and monitorFactsOf
 * (lib/rank/inputs rankInputsFromRow; computeRank derives settlementUnproven from the ledger counts).
 * Readiness: settleFactsOf and livenessFactsOf (ledgerFactsForScoring; H2, H3 and knownUnpayable).
 * The formulas are signals.ts's; nothing here is a second reading of the rows.
 */
export function settleFactsOf(row: LedgerFactsRow): SettleFacts {
  return {
    lastSettledAt: row.lastSettledAtMs === null ? null : new Date(row.lastSettledAtMs).toISOString(),
    failedAttemptsSinceLastSettle: row.failedSinceLastSettle,
    distinctFailingBuyersSinceLastSettle: row.failingBuyersSinceLastSettle,
  };
}

/** Uptime (null below MIN_UPTIME_SAMPLES) and the latest reading's status and confidence; without a reading, the stored status, uncapped. */
export function monitorFactsOf(row: LedgerFactsRow): MonitorFacts {
  const reading = row.latestConfidence;
  return {
    uptime7d: uptimePercent(row.up7d, row.samples7d),
    uptime30d: uptimePercent(row.up30d, row.samples30d),
    healthStatus: reading === null ? row.listingHealthStatus : healthStatusFor(reading),
    healthConfidence: reading === null ? NO_READING_CONFIDENCE : reading,
  };
}

/** monitorFactsOf with settlementUnproven from the 30-day ledger counts, exactly as computeRank derives it. */
export function livenessFactsOf(row: LedgerFactsRow): LivenessFacts {
  return { ...monitorFactsOf(row), settlementUnproven: settlementUnproven(row.distinctAttemptingBuyers30d, row.settled30d) };
}

/**
 * Readiness's ledger facts for one listing (lib/analyses/store-result: H2 liveness, H3 settleability
 * and the knownUnpayable cap): ledgerFacts({ ids: [listingId] }) on the completion's own transaction,
 * mapped by settleFactsOf and livenessFactsOf. The same statements and mapping as the rank sweep, so
 * H2 and H3 come out of the same facts as rank's liveness and gate.
 */
export async function ledgerFactsForScoring(client: Client, listingId: string, now: Date): Promise<{ settle: SettleFacts; liveness: LivenessFacts }> {
  const [row] = await ledgerFacts({ ids: [listingId] }, now, client);
  if (!row) throw new Error(`ledger facts: no listing ${JSON.stringify(listingId)}`);
  return { settle: settleFactsOf(row), liveness: livenessFactsOf(row) };
}
