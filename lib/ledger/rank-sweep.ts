/**
 * The rank sweep (seed 004: rank is computed "every tick; immediately on a Featured edit", over a
 * rolling 30-day window). Each tick walks every listing in id order, one aggregate statement per
 * batch (./aggregate.ts), hashes each listing's inputs and recomputes only those whose hash moved.
 * It stores the unrounded qualityScore and rankScore, the components with their facts, the hash and
 * rankedAt. Inputs are all read relative to the tick's `now` (windows, quote freshness), so the
 * passing of time changes the hash exactly when it changes a fact.
 *
 * One leader at a time: a session-level `pg_try_advisory_lock` on one dedicated connection
 * (lib/db.ts handle.session). PGlite is a single connection, where that lock is re-entrant, so a
 * process-local flag also keeps two sweeps of one process from overlapping.
 */
import { createHash } from "node:crypto";
import { database, db } from "@/lib/db";
import { computeRank, type RankInputs, type RankResult } from "@/lib/scoring/rank";
import { ledgerFactsBatch, type LedgerFactsRow } from "./aggregate";
import { rankInputsFromRow, type ListingRank } from "./rank-inputs";

/** Arbitrary and fixed: "tollgate rank sweep" (lib/migrate.ts uses 724_021_402). */
export const RANK_SWEEP_LOCK_KEY = 724_021_406;
/** Part of every hash: bump it when the formula or the aggregate's readings change, and every listing is re-ranked once. */
export const RANK_INPUTS_VERSION = "rank-inputs/1";
export const DEFAULT_RANK_BATCH = 2_000;

/** sha256 over the inputs without `now` (every time-relative fact is already resolved against it). */
export function rankInputsHash(inputs: RankInputs): string {
  const { now: _now, ...facts } = inputs;
  return createHash("sha256").update(JSON.stringify({ v: RANK_INPUTS_VERSION, ...facts })).digest("hex");
}

export interface RankSweepResult {
  /** False when another sweep held the lock; nothing was read or written. */
  leader: boolean;
  scanned: number;
  updated: number;
  /** Listings whose inputs had not changed since they were last ranked. */
  unchanged: number;
  /** Listings whose hash moved under the sweep (a concurrent Featured edit); the next tick takes them. */
  lost: number;
  batches: number;
  ms: number;
}

let running = false;

export async function runRankSweep(opts: { now?: Date; batchSize?: number } = {}): Promise<RankSweepResult> {
  const started = Date.now();
  const idle: RankSweepResult = { leader: false, scanned: 0, updated: 0, unchanged: 0, lost: 0, batches: 0, ms: 0 };
  if (running) return idle;
  running = true;
  try {
    const handle = await database();
    return await handle.session(async (conn) => {
      // Keyed by schema as well: advisory locks are database-wide, and deployments (or test runs)
      // that share a database in separate schemas each need their own leader.
      const [{ got }] = await conn.query<{ got: boolean }>("SELECT pg_try_advisory_lock($1, hashtext(current_schema())) AS got", [RANK_SWEEP_LOCK_KEY]);
      if (!got) return { ...idle, ms: Date.now() - started };
      try {
        const result = await sweep(opts.now ?? new Date(), opts.batchSize ?? DEFAULT_RANK_BATCH);
        return { ...result, leader: true, ms: Date.now() - started };
      } finally {
        await conn.query("SELECT pg_advisory_unlock($1, hashtext(current_schema()))", [RANK_SWEEP_LOCK_KEY]);
      }
    });
  } finally {
    running = false;
  }
}

async function sweep(now: Date, batchSize: number): Promise<Omit<RankSweepResult, "leader" | "ms">> {
  const totals = { scanned: 0, updated: 0, unchanged: 0, lost: 0, batches: 0 };
  const read = (afterId: string | null) => {
    const p = ledgerFactsBatch({ afterId, limit: batchSize }, now);
    p.catch(() => {}); // awaited below; this only stops an early exit from leaving it unhandled
    return p;
  };
  // The next batch is read while this one is scored and written: on a server the two statements run
  // on two connections (two cores) at once; on PGlite they simply queue.
  // Likewise one batch's UPDATE runs while the next batch is scored (batches are disjoint id ranges,
  // so the statements never touch the same rows); at most one write is in flight.
  let next = read(null);
  let writing: Promise<void> = Promise.resolve();
  try {
    for (;;) {
      const rows = await next;
      if (rows.length === 0) break;
      totals.batches++;
      totals.scanned += rows.length;
      next = rows.length < batchSize ? Promise.resolve([]) : read(rows[rows.length - 1].id);
      const changed: Ranked[] = [];
      for (const row of rows) {
        const ranked = rank(row, now);
        if (ranked.hash === row.rankInputsHash) totals.unchanged++;
        else changed.push(ranked);
      }
      await writing;
      writing = writeRanks(changed, now).then((written) => {
        totals.updated += written;
        totals.lost += changed.length - written;
      });
      writing.catch(() => {}); // awaited on the next turn or below
    }
  } finally {
    await writing;
  }
  return totals;
}

interface Ranked {
  id: string;
  previousHash: string | null;
  hash: string;
  inputs: RankInputs;
  result: RankResult;
}

function rank(row: LedgerFactsRow, now: Date): Ranked {
  const inputs = rankInputsFromRow(row, now);
  return { id: row.id, previousHash: row.rankInputsHash, hash: rankInputsHash(inputs), inputs, result: computeRank(inputs) };
}

/**
 * One UPDATE for the batch, compare-and-set on the hash the batch read: a Featured edit that
 * re-ranked a listing meanwhile is never overwritten with facts from before it. Returns rows written.
 */
async function writeRanks(items: readonly Ranked[], now: Date, opts: { force?: boolean } = {}): Promise<number> {
  if (items.length === 0) return 0;
  const prisma = await db();
  return prisma.$executeRawUnsafe(
    `UPDATE "listings" AS l
        SET "qualityScore" = v.q::float8, "rankScore" = v.r::float8, "rankComponents" = v.c::jsonb, "rankInputsHash" = v.h,
            "rankedAt" = (to_timestamp($7::float8 / 1000) AT TIME ZONE 'UTC')
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[]) AS v(id, q, r, c, h, prev)
      WHERE l.id = v.id AND ($8::boolean OR l."rankInputsHash" IS NOT DISTINCT FROM v.prev)`,
    items.map((i) => i.id),
    // As text: String(x) is the shortest exact form, where a float array parameter lost digits on
    // one of the drivers; the scores are stored unrounded.
    items.map((i) => String(i.result.quality)),
    items.map((i) => String(i.result.rank)),
    items.map((i) => JSON.stringify(i.result.components)),
    items.map((i) => i.hash),
    items.map((i) => i.previousHash),
    now.getTime(),
    opts.force ?? false,
  );
}

/**
 * Re-rank one listing now, whatever its hash (a Featured edit, a verification change): the caller
 * has just changed an input and wants the public order to follow at once. Null when unknown.
 */
export async function recomputeListingRank(listingId: string, now: Date = new Date()): Promise<ListingRank | null> {
  const [row] = await ledgerFactsBatch({ ids: [listingId] }, now);
  if (!row) return null;
  const ranked = rank(row, now);
  await writeRanks([ranked], now, { force: true });
  return { listingId, inputs: ranked.inputs, ...ranked.result };
}
