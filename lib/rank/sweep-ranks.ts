/**
 * The rank sweep (docs/spec/scoring-system.md "Two scores at a glance": rank is computed "every tick; immediately on a Featured edit", over a
 * rolling 30-day window). Each tick reads every listing's facts in one set-based pass per source
 * table (./aggregate.ts), hashes each listing's inputs and recomputes only those whose hash moved.
 * It stores, in the narrow `listing_ranks` row (never the wide listings row), the unrounded
 * qualityScore and rankScore, the gate, each component's value, the inputs (facts) the score came
 * from, their hash and rankedAt. Inputs are all read relative to the tick's `now` (windows, quote
 * freshness), so the passing of time changes the hash exactly when it changes a fact.
 *
 * Two modes. A full sweep reads every listing (the catalog in id ranges). A due sweep (the 30-second
 * tick) reads only the listings whose inputs may have moved: those marked in rank_dirty by the
 * triggers on every rank input (migration 20261202200000_rank_dirty), those whose rankDueAt has come
 * (a row leaving a rolling window: aggregate.ts factsDueAtMs) and those never ranked. A due sweep
 * reads everything anyway when the last full sweep of this process is FULL_SWEEP_INTERVAL_MS old, or
 * when more than DUE_FULL_SHARE of the catalog is due: the full read is the backstop for what no mark
 * or due time can foresee (a row written with a time still in the future enters its window later).
 *
 * One leader at a time: a session-level `pg_try_advisory_lock` on one dedicated connection
 * (lib/sql.ts session). The leader records its sweep in rank_sweep_runs (holder, start and end on the
 * database's clock, written on the lock's connection while the lock is held), so leadership across
 * processes can be read back; lib/jobs/scale-out.test.ts checks no two runs ever overlap. PGlite is a single connection, where that lock is re-entrant, so a
 * process-local flag also keeps two sweeps of one process from overlapping.
 *
 * Every statement goes through lib/sql.ts (rows, session) on the process's database (clientOr).
 */
import { hash } from "node:crypto";
import { hostname } from "node:os";
import { clientOr, rows, session, type Client } from "@/lib/sql";
import { computeRank, type RankInputs, type RankResult } from "@/lib/rank/score";
import { factsDueAtMs, ledgerFacts, listingIdRanges, utcTimestamp, type LedgerFactsRow } from "@/lib/facts/aggregate";
import { rankInputsFromRow, type ListingRank } from "./inputs";
import { applyWash, newWashCache } from "./wash";

/** Who holds the lock, as rank_sweep_runs records it: this host and process. */
const SWEEP_HOLDER = `${hostname()}:${process.pid}`;
/** Arbitrary and fixed: "tollgate rank sweep" (lib/migrate.ts uses 724_021_402). */
export const RANK_SWEEP_LOCK_KEY = 724_021_406;
/** Part of every hash: bump it when the formula or the aggregate's readings change, and every listing is re-ranked once. */
export const RANK_INPUTS_VERSION = "rank-inputs/2";
/** Listings scored and written per statement. */
export const DEFAULT_RANK_BATCH = 10_000;
/**
 * Listings whose facts are read per id range; the next range is read while this one is scored.
 * Ranges bound the sweep's memory on a large catalog. Since the facts stream off index ranges (no
 * hash table over the whole table), a range costs its share of one pass: on bench:rank, 25,000 gave
 * 6.6–7.5 s against 7.6–8.1 s for one range of 100,000, interleaved on the same data.
 */
const READ_RANGE = 25_000;
/**
 * Batch writes in flight at once. A 10,000-row write took about twice as long as scoring the next
 * batch, so with one in flight the sweep waited on writes; with two, the server writes on two
 * connections while the next batch is scored. (PGlite has one connection: they simply queue.)
 */
const WRITES_IN_FLIGHT = 2;
/** A due sweep reads every listing when the last full sweep (of this process) is this old. */
export const FULL_SWEEP_INTERVAL_MS = 5 * 60_000;
/** A due sweep reads every listing when more than this share of the catalog is due (one pass is then cheaper than lookups by id). */
export const DUE_FULL_SHARE = 0.25;
/** Listings read per lookup by id in a due sweep. */
const DUE_READ_BATCH = 5_000;

/**
 * The inputs document: every fact of the inputs except `now` (every time-relative fact is already
 * resolved against it), as one flat JSON array in a fixed order, led by RANK_INPUTS_VERSION. It is
 * what listing_ranks.facts stores and what the change check hashes; inputsFromDocument reads it back.
 * Positional rather than keyed to keep the sweep's writes small (about 150 bytes a listing, not 540).
 * A new RankInputs field goes at the end, with a version bump.
 */
export function rankInputsDocument(inputs: RankInputs): string {
  const { settle: s, ledger: l, monitor: m, price: p } = inputs;
  return JSON.stringify([
    RANK_INPUTS_VERSION,
    s.lastSettledAt,
    s.failedAttemptsSinceLastSettle,
    s.distinctFailingBuyersSinceLastSettle,
    l.distinctPayers30d,
    l.distinctAttemptingBuyers30d,
    l.settled30d,
    l.medianSettledPrice30d,
    m.uptime7d,
    m.uptime30d,
    m.healthStatus,
    m.healthConfidence,
    p.advertisedPrice,
    p.priceLabel,
    p.quote ? p.quote.price : null,
    p.quote ? p.quote.quotedAt : null,
    inputs.featuredLevel,
    inputs.verification,
  ]);
}

/** The inputs a stored document was made from, at `now` (rankedAt); null for a document of another version. */
export function inputsFromDocument(doc: unknown, now: Date): RankInputs | null {
  if (!Array.isArray(doc) || doc[0] !== RANK_INPUTS_VERSION || doc.length !== 18) return null;
  const [, lastSettledAt, failed, failing, payers, attempting, settled, median, up7, up30, healthStatus, confidence, advertised, label, quotePrice, quotedAt, featuredLevel, verification] = doc;
  return {
    now,
    settle: { lastSettledAt, failedAttemptsSinceLastSettle: failed, distinctFailingBuyersSinceLastSettle: failing },
    ledger: { distinctPayers30d: payers, distinctAttemptingBuyers30d: attempting, settled30d: settled, medianSettledPrice30d: median },
    monitor: { uptime7d: up7, uptime30d: up30, healthStatus, healthConfidence: confidence },
    price: { advertisedPrice: advertised, priceLabel: label, quote: quotePrice === null && quotedAt === null ? null : { price: quotePrice, quotedAt } },
    featuredLevel,
    verification,
  };
}

/** sha256 of rankInputsDocument. */
export function rankInputsHash(inputs: RankInputs): string {
  return hashDocument(rankInputsDocument(inputs));
}

function hashDocument(doc: string): string {
  return hash("sha256", doc, "hex");
}

export type RankSweepMode = "full" | "due";

export interface RankSweepResult {
  /** False when another sweep held the lock; nothing was read or written. */
  leader: boolean;
  /** What was read: every listing ("full"), or the marked and due ones ("due"). */
  mode: RankSweepMode;
  /** Of a due sweep: listings marked by the triggers, and due by time or never ranked (before de-duplication). */
  marked: number;
  due: number;
  scanned: number;
  updated: number;
  /** Listings whose inputs had not changed since they were last ranked. */
  unchanged: number;
  /** Of the unchanged, those whose due time moved (only rankDueAt written). */
  rescheduled: number;
  /** Listings whose hash moved under the sweep (a concurrent Featured edit); the next tick takes them. */
  lost: number;
  batches: number;
  /** Of ms, the time spent waiting for facts (the aggregate statements; later ranges are read while earlier ones are scored). */
  factsMs: number;
  /** Of ms, the time spent hashing, scoring and serialising in this process. */
  scoreMs: number;
  /** Of ms, the time spent waiting for writes (one runs while the next batch is scored). */
  writeWaitMs: number;
  ms: number;
}

let running = false;
/** When this process last completed a full sweep (its `now`, epoch ms). */
let lastFullSweepAt: number | null = null;

export async function runRankSweep(
  opts: { now?: Date; batchSize?: number; readRange?: number; mode?: RankSweepMode } = {},
): Promise<RankSweepResult> {
  const started = Date.now();
  const mode = opts.mode ?? "full";
  const idle: RankSweepResult = { leader: false, mode, marked: 0, due: 0, scanned: 0, updated: 0, unchanged: 0, rescheduled: 0, lost: 0, batches: 0, factsMs: 0, scoreMs: 0, writeWaitMs: 0, ms: 0 };
  if (running) return idle;
  running = true;
  try {
    const client = await clientOr();
    return await session(client, async (conn) => {
      // Keyed by schema as well: advisory locks are database-wide, and deployments (or test runs)
      // that share a database in separate schemas each need their own leader.
      const [{ got }] = await rows<{ got: boolean }>(conn, "SELECT pg_try_advisory_lock($1, hashtext(current_schema())) AS got", RANK_SWEEP_LOCK_KEY);
      if (!got) return { ...idle, ms: Date.now() - started };
      try {
        // The leadership's record (rank_sweep_runs), opened and closed on the lock's own connection
        // while the lock is held, on the database's clock: leaders of several processes read back in
        // one time line. A run that throws is closed with its error.
        const [{ id: runId }] = await rows<{ id: string }>(
          conn,
          `WITH old AS (DELETE FROM "rank_sweep_runs" WHERE "startedAt" < clock_timestamp() - interval '7 days')
           INSERT INTO "rank_sweep_runs" ("holder", "mode") VALUES ($1, $2) RETURNING "id"::text AS "id"`,
          SWEEP_HOLDER,
          mode,
        );
        let result: SweepTotals;
        try {
          result = await sweep(client, opts.now ?? new Date(), mode, opts.batchSize ?? DEFAULT_RANK_BATCH, opts.readRange ?? READ_RANGE);
        } catch (err) {
          await rows(conn, `UPDATE "rank_sweep_runs" SET "finishedAt" = clock_timestamp(), "error" = $2 WHERE "id" = $1::bigint`, runId, String((err as Error)?.message ?? err).slice(0, 500)).catch(() => {});
          throw err;
        }
        await rows(conn, `UPDATE "rank_sweep_runs" SET "finishedAt" = clock_timestamp(), "scanned" = $2, "updated" = $3 WHERE "id" = $1::bigint`, runId, result.scanned, result.updated);
        return { ...result, leader: true, ms: Date.now() - started };
      } finally {
        await rows(conn, "SELECT pg_advisory_unlock($1, hashtext(current_schema()))", RANK_SWEEP_LOCK_KEY);
      }
    });
  } finally {
    running = false;
  }
}

type SweepTotals = Omit<RankSweepResult, "leader" | "ms">;

async function sweep(client: Client, now: Date, mode: RankSweepMode, batchSize: number, readRange: number): Promise<SweepTotals> {
  const totals: SweepTotals = { mode: "full", marked: 0, due: 0, scanned: 0, updated: 0, unchanged: 0, rescheduled: 0, lost: 0, batches: 0, factsMs: 0, scoreMs: 0, writeWaitMs: 0 };
  const t = now.getTime();
  const fullIsRecent = lastFullSweepAt !== null && t >= lastFullSweepAt && t - lastFullSweepAt < FULL_SWEEP_INTERVAL_MS;
  // The marks are claimed before any facts are read: a mark whose write was still uncommitted held
  // its row lock, so the claim waited for that commit and the read below sees the write. A mark made
  // after the claim stays for the next sweep. Should this sweep fail, its claimed marks are put back.
  // The wash check (./wash.ts) runs on each read's rows, its chain reads shared by the whole sweep.
  const cache = newWashCache();
  const washed = (read: Promise<LedgerFactsRow[]>) => read.then(async (r) => (await applyWash(r, now, client, cache)).rows);
  const rangeReads = async () => (await listingIdRanges(readRange, client)).map((range) => () => washed(ledgerFacts(range, now, client)));
  const [claimed, fullReads] = await Promise.all([claimMarks(client), mode === "due" && fullIsRecent ? null : rangeReads()]);
  try {
    let reads: (() => Promise<LedgerFactsRow[]>)[];
    if (fullReads) {
      reads = fullReads;
    } else {
      const due = await rows<{ id: string }>(
        client,
        `SELECT "listingId" AS id FROM "listing_ranks" WHERE "rankDueAt" <= $1::timestamp OR "inputsHash" IS NULL`,
        utcTimestamp(now),
      );
      totals.mode = "due";
      totals.marked = claimed.length;
      totals.due = due.length;
      const ids = [...new Set([...claimed, ...due.map((d) => d.id)])];
      const [{ n }] = ids.length ? await rows<{ n: number }>(client, `SELECT count(*)::int AS n FROM "listing_ranks"`) : [{ n: 0 }];
      if (ids.length > n * DUE_FULL_SHARE) {
        totals.mode = "full";
        reads = await rangeReads();
      } else {
        reads = [];
        for (let at = 0; at < ids.length; at += DUE_READ_BATCH) {
          const chunk = ids.slice(at, at + DUE_READ_BATCH);
          reads.push(() => washed(ledgerFacts({ ids: chunk }, now, client)));
        }
      }
    }
    await rankAll(client, reads, now, batchSize, totals);
  } catch (err) {
    await restoreMarks(client, claimed).catch(() => {});
    throw err;
  }
  if (totals.mode === "full") lastFullSweepAt = t;
  return totals;
}

/** Takes every mark (DELETE … RETURNING): the listing ids whose inputs were written since the last claim. */
async function claimMarks(client: Client): Promise<string[]> {
  return (await rows<{ id: string }>(client, `DELETE FROM "rank_dirty" RETURNING "listingId" AS id`)).map((r) => r.id);
}

async function restoreMarks(client: Client, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await rows(client, `INSERT INTO "rank_dirty" ("listingId") SELECT unnest($1::text[]) ON CONFLICT DO NOTHING`, ids);
}

/**
 * Reads, scores and writes: each read's facts are fetched while the one before is scored, and each
 * read is scored batch by batch, earlier batches' writes running while the next batch is scored
 * (disjoint rows, at most WRITES_IN_FLIGHT at once, each on its own connection).
 */
async function rankAll(client: Client, reads: readonly (() => Promise<LedgerFactsRow[]>)[], now: Date, batchSize: number, totals: SweepTotals): Promise<void> {
  if (reads.length === 0) return;
  const read = (i: number) => {
    const p = reads[i]();
    p.catch(() => {}); // awaited below; this only stops an early exit from leaving it unhandled
    return p;
  };
  const writing: Promise<void>[] = [];

  const scoreBatch = async (batch: readonly LedgerFactsRow[]) => {
    totals.batches++;
    totals.scanned += batch.length;
    // Each changed listing becomes its entry of the batch's write at once, so nothing of its
    // scoring outlives the loop (less for the garbage collector to carry).
    const changed: string[] = [];
    const rescheduled: string[] = [];
    const scoring = Date.now();
    for (const row of batch) {
      // The hash first: an unchanged listing is not scored at all.
      const hashed = hashInputs(row, now);
      const due = factsDueAtMs(row);
      if (hashed.hash === row.rankInputsHash) {
        totals.unchanged++;
        // Same facts, but the next instant time changes them has moved (a row left a window
        // without changing any fact): only that is written.
        if (due !== row.storedDueAtMs) rescheduled.push(`${row.id}\t${due ?? ""}\t${hashed.hash}`);
      } else changed.push(writeEntry(scored(row, hashed, false), due));
    }
    const waiting = Date.now();
    totals.scoreMs += waiting - scoring;
    if (writing.length >= WRITES_IN_FLIGHT) await writing.shift();
    totals.writeWaitMs += Date.now() - waiting;
    const write = Promise.all([writeRanks(client, changed, now), writeDueTimes(client, rescheduled)]).then(([written, moved]) => {
      totals.updated += written;
      totals.lost += changed.length - written;
      totals.rescheduled += moved;
    });
    write.catch(() => {}); // awaited on a later turn or below
    writing.push(write);
  };

  try {
    let reading = read(0);
    for (let r = 0; r < reads.length; r++) {
      const waiting = Date.now();
      const rows = await reading;
      totals.factsMs += Date.now() - waiting;
      if (r + 1 < reads.length) reading = read(r + 1);
      for (let at = 0; at < rows.length; at += batchSize) await scoreBatch(rows.slice(at, at + batchSize));
    }
  } finally {
    const waiting = Date.now();
    await Promise.all(writing);
    totals.writeWaitMs += Date.now() - waiting;
  }
}

interface Ranked {
  id: string;
  previousHash: string | null;
  hash: string;
  document: string;
  inputs: RankInputs;
  result: RankResult;
}

type Hashed = Pick<Ranked, "inputs" | "document" | "hash">;

/** A listing's inputs, their document and its hash: what the change check needs, before any scoring. */
function hashInputs(row: LedgerFactsRow, now: Date): Hashed {
  const inputs = rankInputsFromRow(row, now);
  const document = rankInputsDocument(inputs);
  return { inputs, document, hash: hashDocument(document) };
}

/**
 * Scored. The sweep asks for no reasons (explain false): it stores values and facts only, and
 * explainStoredRank gives the reasons back from the facts.
 */
function scored(row: LedgerFactsRow, h: Hashed, explain: boolean): Ranked {
  return { id: row.id, previousHash: row.rankInputsHash, hash: h.hash, document: h.document, inputs: h.inputs, result: computeRank(h.inputs, { explain }) };
}

/** One listing, with its reasons (a Featured edit shows them). */
function rank(row: LedgerFactsRow, now: Date): Ranked {
  return scored(row, hashInputs(row, now), true);
}

/**
 * Each component's value, compact: the reasons and facts come back from computeRank over the stored
 * facts (explainStoredRank). Numbers as String(x), the shortest form that reads back to the same double.
 */
function componentsDocument(r: RankResult): string {
  const c = r.components;
  return `{"gate":"${c.gate.gate}","gateFactor":${c.gate.value},"liveness":${c.liveness.value},"traction":${c.traction.value},"priceIntegrity":${c.priceIntegrity.value},"featured":${c.featured.value},"verification":${c.verification.value}}`;
}

/**
 * One listing's line of a batch write, its fields tab-separated: id, quality, rank, gate, components,
 * facts, hash, previous hash (empty for none), due time (epoch ms; empty for none). The batch goes as ONE text parameter, split on the
 * server (string_to_table, string_to_array): the documents are JSON, in which a tab or a line break
 * is always escaped, and scores print as the shortest text that reads back to the same double. (As
 * one jsonb array it cost the server 0.16 s of parsing per 10,000 listings; as text, 0.05 s.)
 */
function writeEntry(it: Ranked, dueAtMs: number | null): string {
  if (!Number.isFinite(it.result.quality) || !Number.isFinite(it.result.rank)) throw new RangeError(`listing ${it.id}: non-finite score`);
  if (/[\t\n]/.test(it.id)) throw new RangeError(`listing ${JSON.stringify(it.id)}: an id with a tab or a line break cannot be ranked`);
  return `${it.id}\t${it.result.quality}\t${it.result.rank}\t${it.result.components.gate.gate}\t${componentsDocument(it.result)}\t${it.document}\t${it.hash}\t${it.previousHash ?? ""}\t${dueAtMs ?? ""}`;
}

/**
 * A batch parameter ($1) as rows `a`, each the array of one line's tab-separated fields. OFFSET 0
 * keeps the split as its own step: flattened, each a[i] split the line again.
 */
const BATCH_LINES = `(SELECT string_to_array(line, E'\\t') AS a FROM string_to_table($1, E'\\n') AS line OFFSET 0) x`;

/**
 * One UPDATE of listing_ranks for the batch, compare-and-set on the hash the batch read: a Featured
 * edit that re-ranked a listing meanwhile is never overwritten with facts from before it. Returns
 * rows written.
 */
async function writeRanks(client: Client, entries: readonly string[], now: Date, opts: { force?: boolean } = {}): Promise<number> {
  if (entries.length === 0) return 0;
  const [{ n }] = await rows<{ n: number }>(
    client,
    `WITH v AS (
       SELECT a[1] AS id, a[2]::float8 AS q, a[3]::float8 AS r, a[4] AS g, a[5]::json AS c, a[6]::json AS f, a[7] AS h, NULLIF(a[8], '') AS prev,
              NULLIF(a[9], '')::float8 AS due
         FROM ${BATCH_LINES}),
     written AS (
       UPDATE "listing_ranks" AS r
          SET "qualityScore" = v.q, "rankScore" = v.r, "gate" = v.g, "components" = v.c, "facts" = v.f, "inputsHash" = v.h,
              "rankedAt" = (to_timestamp($2::float8 / 1000) AT TIME ZONE 'UTC'), "rankDueAt" = (to_timestamp(v.due / 1000) AT TIME ZONE 'UTC')
         FROM v
        WHERE r."listingId" = v.id AND ($3::boolean OR r."inputsHash" IS NOT DISTINCT FROM v.prev)
        RETURNING 1)
     SELECT count(*)::int AS n FROM written`,
    entries.join("\n"),
    now.getTime(),
    opts.force ?? false,
  );
  return n;
}

/**
 * The due times of listings whose facts did not change, each line "id, due (epoch ms; empty for
 * none), hash": written only while the row still holds that hash (a Featured edit meanwhile wrote its
 * own). Returns rows written.
 */
async function writeDueTimes(client: Client, entries: readonly string[]): Promise<number> {
  if (entries.length === 0) return 0;
  const [{ n }] = await rows<{ n: number }>(
    client,
    `WITH v AS (
       SELECT a[1] AS id, NULLIF(a[2], '')::float8 AS due, a[3] AS h
         FROM ${BATCH_LINES}),
     written AS (
       UPDATE "listing_ranks" AS r SET "rankDueAt" = (to_timestamp(v.due / 1000) AT TIME ZONE 'UTC')
         FROM v WHERE r."listingId" = v.id AND r."inputsHash" = v.h
        RETURNING 1)
     SELECT count(*)::int AS n FROM written`,
    entries.join("\n"),
  );
  return n;
}

/**
 * Re-rank one listing now, whatever its hash (a Featured edit, a verification change): the caller
 * has just changed an input and wants the public order to follow at once. Null when unknown.
 */
export async function recomputeListingRank(listingId: string, now: Date = new Date()): Promise<ListingRank | null> {
  const client = await clientOr();
  const [row] = (await applyWash(await ledgerFacts({ ids: [listingId] }, now, client), now, client)).rows;
  if (!row) return null;
  const ranked = rank(row, now);
  await writeRanks(client, [writeEntry(ranked, factsDueAtMs(row))], now, { force: true });
  return { listingId, inputs: ranked.inputs, ...ranked.result };
}

/**
 * A stored rank explained: computeRank over the stored facts at rankedAt gives back every component
 * with its value, reason and facts, exactly as the sweep computed them (computeRank is pure). Null
 * when the listing has not been ranked.
 */
export function explainStoredRank(stored: { facts: unknown; rankedAt: Date | null }): RankResult | null {
  if (!stored.facts || !stored.rankedAt) return null;
  const inputs = inputsFromDocument(stored.facts, stored.rankedAt);
  return inputs ? computeRank(inputs) : null;
}
