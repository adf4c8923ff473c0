/**
 * Rank and readiness inputs aggregated set-based in SQL, one set of statements and one row→facts mapping
 * (docs/RANK.md "Storage and the sweep").
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

/** Dates as epoch ms. */
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
  oldestPayment30dMs: number | null;
  oldestSample7dMs: number | null;
  oldestSample30dMs: number | null;
  storedDueAtMs: number | null;
}

/** Ids or an id range (both null: every listing): the same statements with a condition on the id. */
export type FactsScope = { ids: readonly string[] } | IdRange;
export interface IdRange {
  from: string | null;
  below: string | null;
}

/** `$1` is now as UTC wall-clock time; `$2`, `$3` the scope. */
export function factsSql(scope: FactsScope): { payments: string; health: string; listings: string } {
  const only = (col: string) =>
    "ids" in scope ? ` AND ${col} = ANY($2::text[])` : ` AND ($2::text IS NULL OR ${col} >= $2::text) AND ($3::text IS NULL OR ${col} < $3::text)`;
  const now = `$1::timestamp`;
  const d30 = `${now} - interval '30 days'`;
  const uncorrected = (alias: string) => ` AND ${alias}."id" NOT IN (SELECT c."correctsId" FROM "router_payments" c WHERE c."correctsId" IS NOT NULL)`;
  const failures = (what: string) => `SELECT ${what} FROM "router_payments" x
      WHERE x."listingId" = b.lid AND x."status" = 'failed'
        AND x."createdAt" > COALESCE(b.last_settled, '-infinity'::timestamp) AND x."createdAt" <= ${now}${uncorrected("x")}`;
  const paid = `p."status" = 'settled' AND p."createdAt" >= ${d30} AND NOT p."house"`;
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
      // One probe for both counts, only when the last failure follows the last settlement.
      `CASE WHEN ${since} THEN (${failures(`count(*)::int || ',' || count(DISTINCT x."payer")::int`)}) END`,
      "(extract(epoch FROM b.oldest) * 1000)::float8",
    ],
    `(
  SELECT p."listingId" AS lid,
         -- One group per listing (grouping per payer first cost more): a payer counts once if any of its rows qualifies.
         count(DISTINCT p."payer") FILTER (WHERE p."createdAt" >= ${d30} AND NOT p."house" AND p."status" NOT IN ('rejected', 'unmeasured'))::int AS attempting,
         count(DISTINCT p."payer") FILTER (WHERE ${paid})::int AS payers,
         count(*) FILTER (WHERE ${paid})::int AS settled,
         max(p."createdAt") FILTER (WHERE p."status" = 'settled') AS last_settled,
         max(p."createdAt") FILTER (WHERE p."status" = 'failed') AS last_failed,
         string_agg(p."settledAmount", ',') FILTER (WHERE ${paid}) AS amounts,
         min(p."createdAt") FILTER (WHERE p."createdAt" >= ${d30}) AS oldest
  FROM "router_payments" p
  WHERE p."createdAt" <= ${now}${only(`p."listingId"`)}${uncorrected("p")}
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
      // The index is not in confidence order, so max rather than ORDER BY … LIMIT 1.
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
  LEFT JOIN (SELECT "id", "monitoredSince" FROM "listings" WHERE "monitoredSince" IS NOT NULL) ml ON ml."id" = h."listingId"
  WHERE h."at" > ${d30} AND h."at" <= ${now}${only(`h."listingId"`)} AND (ml."monitoredSince" IS NULL OR h."at" > ml."monitoredSince")
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

/** A line per row, tab-separated, NULL as empty; text and arrays as JSON so no field holds a tab or line break. */
function factsDocument(fields: readonly string[], from: string): string {
  return `SELECT string_agg(concat_ws(E'\\t', ${fields.map((f) => `COALESCE((${f})::text, '')`).join(", ")}), E'\\n') AS doc FROM ${from}`;
}

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
const epochMs = (f: string): number | null => (f === "" ? null : Math.round(Number(f)));
const json = <T,>(f: string): T | null => (f === "" ? null : (JSON.parse(f) as T));

const PAYMENT_FIELDS = 8;
const HEALTH_FIELDS = 8;
const LISTING_FIELDS = 13;

export function utcTimestamp(now: Date): string {
  return now.toISOString().replace("T", " ").replace("Z", "");
}

/** bench:rank: 2.7 s against 0.6 s with the planner's hashes and sorts. */
const SERVER_SETTINGS = ["SET jit = off", "SET max_parallel_workers_per_gather = 0", "SET work_mem = '64MB'"];
const STREAMING_SETTINGS = ["SET enable_hashagg = off", "SET enable_sort = off", "SET enable_incremental_sort = off"];
const SERVER_RESET = "RESET jit; RESET max_parallel_workers_per_gather; RESET work_mem; RESET enable_hashagg; RESET enable_sort; RESET enable_incremental_sort";
const STREAMING: SessionSettings = { set: [...SERVER_SETTINGS, ...STREAMING_SETTINGS], reset: SERVER_RESET };
/** The server settings alone, for the sweep's other set-based reads too (lib/rank/wash-ring.ts). */
export const SERVER_SESSION: SessionSettings = { set: SERVER_SETTINGS, reset: SERVER_RESET };

/** On one connection (PGlite, a transaction) SERVER_SETTINGS are left out: they change plans, never answers. */
export async function ledgerFacts(scope: FactsScope, now: Date, client?: Client): Promise<LedgerFactsRow[]> {
  if (!Number.isFinite(now.getTime())) throw new RangeError("ledgerFacts needs a valid date");
  if ("ids" in scope && scope.ids.length === 0) return [];
  const c = await clientOr(client);
  const sql = factsSql(scope);
  const params: unknown[] = "ids" in scope ? [utcTimestamp(now), [...new Set(scope.ids)]] : [utcTimestamp(now), scope.from, scope.below];
  const run = (text: string, settings: SessionSettings) => session(c, async (conn) => (await rows<{ doc: string | null }>(conn, text, ...params))[0].doc, settings);
  const [payDoc, healthDoc, listingDoc] = await Promise.all([run(sql.payments, STREAMING), run(sql.health, STREAMING), run(sql.listings, SERVER_SESSION)]);
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

export async function listingIdRanges(size: number, client?: Client): Promise<IdRange[]> {
  if (!Number.isSafeInteger(size) || size < 1) throw new RangeError("listingIdRanges needs a positive size");
  const cuts = await rows<{ id: string }>(
    await clientOr(client),
    // The column's own collation, so the ranges partition the listings exactly.
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

/** As percentile_cont(0.5) over tollgate_atomic_to_units(amount, 0), to the bit. */
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

/** As min(tollgate_decimal_or_null(priceUsd))::float8. */
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

/** As tollgate_atomic_to_units(amount, decimals). */
export function atomicToUnits(amount: string, decimals: number): number | null {
  if (!ATOMIC_AMOUNT.test(amount) || !Number.isInteger(decimals) || decimals < 0 || decimals > 36) return null;
  return Number(`${amount}e-${decimals}`);
}

const POWERS = new Map<number, number>();
/** As power(10::float8, d). */
function powerOf10(d: number): number {
  let p = POWERS.get(d);
  if (p === undefined) POWERS.set(d, (p = Number(`1e${d}`)));
  return p;
}

/** docs/RANK.md "The tick: marks and due times". */
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

export function settleFactsOf(row: LedgerFactsRow): SettleFacts {
  return {
    lastSettledAt: row.lastSettledAtMs === null ? null : new Date(row.lastSettledAtMs).toISOString(),
    failedAttemptsSinceLastSettle: row.failedSinceLastSettle,
    distinctFailingBuyersSinceLastSettle: row.failingBuyersSinceLastSettle,
  };
}

export function monitorFactsOf(row: LedgerFactsRow): MonitorFacts {
  const reading = row.latestConfidence;
  return {
    uptime7d: uptimePercent(row.up7d, row.samples7d),
    uptime30d: uptimePercent(row.up30d, row.samples30d),
    healthStatus: reading === null ? row.listingHealthStatus : healthStatusFor(reading),
    healthConfidence: reading === null ? NO_READING_CONFIDENCE : reading,
  };
}

export function livenessFactsOf(row: LedgerFactsRow): LivenessFacts {
  return { ...monitorFactsOf(row), settlementUnproven: settlementUnproven(row.distinctAttemptingBuyers30d, row.settled30d) };
}

/** Readiness's H2, H3 and knownUnpayable through the rank sweep's statements. */
export async function ledgerFactsForScoring(client: Client, listingId: string, now: Date): Promise<{ settle: SettleFacts; liveness: LivenessFacts }> {
  const [row] = await ledgerFacts({ ids: [listingId] }, now, client);
  if (!row) throw new Error(`ledger facts: no listing ${JSON.stringify(listingId)}`);
  return { settle: settleFactsOf(row), liveness: livenessFactsOf(row) };
}
