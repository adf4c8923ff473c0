/**
 * The rank sweep (seed 004: rank is computed "every tick; immediately on a Featured edit", over a
 * rolling 30-day window). Each tick reads every listing's facts in one set-based pass per source
 * table (./aggregate.ts), hashes each listing's inputs and recomputes only those whose hash moved.
 * It stores, in the narrow `listing_ranks` row (never the wide listings row), the unrounded
 * qualityScore and rankScore, the gate, each component's value, the inputs (facts) the score came
 * from, their hash and rankedAt. Inputs are all read relative to the tick's `now` (windows, quote
 * freshness), so the passing of time changes the hash exactly when it changes a fact.
 *
 * One leader at a time: a session-level `pg_try_advisory_lock` on one dedicated connection
 * (lib/db.ts handle.session). PGlite is a single connection, where that lock is re-entrant, so a
 * process-local flag also keeps two sweeps of one process from overlapping.
 */
import { createHash } from "node:crypto";
import { database } from "@/lib/db";
import { computeRank, type RankInputs, type RankResult } from "@/lib/scoring/rank";
import { ledgerFacts, type LedgerFactsRow } from "./aggregate";
import { rankInputsFromRow, type ListingRank } from "./rank-inputs";

/** Arbitrary and fixed: "tollgate rank sweep" (lib/migrate.ts uses 724_021_402). */
export const RANK_SWEEP_LOCK_KEY = 724_021_406;
/** Part of every hash: bump it when the formula or the aggregate's readings change, and every listing is re-ranked once. */
export const RANK_INPUTS_VERSION = "rank-inputs/2";
/** Listings scored and written per statement. */
export const DEFAULT_RANK_BATCH = 10_000;

/**
 * The inputs document: the inputs without `now` (every time-relative fact is already resolved
 * against it), as stored in listing_ranks.facts and hashed for the change check.
 */
export function rankInputsDocument(inputs: RankInputs): string {
  const { now: _now, ...facts } = inputs;
  return JSON.stringify({ v: RANK_INPUTS_VERSION, ...facts });
}

/** sha256 of rankInputsDocument. */
export function rankInputsHash(inputs: RankInputs): string {
  return hashDocument(rankInputsDocument(inputs));
}

function hashDocument(doc: string): string {
  return createHash("sha256").update(doc).digest("hex");
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
  const rows = await ledgerFacts("all", now);
  // Scored batch by batch; one batch's write runs while the next batch is scored (disjoint rows,
  // at most one write in flight).
  let writing: Promise<void> = Promise.resolve();
  try {
    for (let at = 0; at < rows.length; at += batchSize) {
      const batch = rows.slice(at, at + batchSize);
      totals.batches++;
      totals.scanned += batch.length;
      const changed: Ranked[] = [];
      for (const row of batch) {
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
  document: string;
  inputs: RankInputs;
  result: RankResult;
}

function rank(row: LedgerFactsRow, now: Date): Ranked {
  const inputs = rankInputsFromRow(row, now);
  const document = rankInputsDocument(inputs);
  return { id: row.id, previousHash: row.rankInputsHash, hash: hashDocument(document), document, inputs, result: computeRank(inputs) };
}

/** Each component's value, compact: the reasons and facts come back from computeRank over the stored facts. */
function componentsDocument(r: RankResult): string {
  const c = r.components;
  return `{"gate":${JSON.stringify(c.gate.gate)},"gateFactor":${c.gate.value},"liveness":${c.liveness.value},"traction":${c.traction.value},"priceIntegrity":${c.priceIntegrity.value},"featured":${c.featured.value},"verification":${c.verification.value}}`;
}

/**
 * One UPDATE of listing_ranks for the batch, compare-and-set on the hash the batch read: a Featured
 * edit that re-ranked a listing meanwhile is never overwritten with facts from before it. Returns
 * rows written.
 */
async function writeRanks(items: readonly Ranked[], now: Date, opts: { force?: boolean } = {}): Promise<number> {
  if (items.length === 0) return 0;
  const handle = await database();
  const [{ n }] = await handle.query<{ n: number }>(
    `WITH written AS (
       UPDATE "listing_ranks" AS r
          SET "qualityScore" = v.q::float8, "rankScore" = v.r::float8, "gate" = v.g, "components" = v.c::jsonb,
              "facts" = v.f::jsonb, "inputsHash" = v.h, "rankedAt" = (to_timestamp($9::float8 / 1000) AT TIME ZONE 'UTC')
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[]) AS v(id, q, r, g, c, f, h, prev)
        WHERE r."listingId" = v.id AND ($10::boolean OR r."inputsHash" IS NOT DISTINCT FROM v.prev)
        RETURNING 1)
     SELECT count(*)::int AS n FROM written`,
    [
      items.map((i) => i.id),
      // As text: String(x) is the shortest exact form, where a float array parameter lost digits on
      // one of the drivers; the scores are stored unrounded.
      items.map((i) => String(i.result.quality)),
      items.map((i) => String(i.result.rank)),
      items.map((i) => i.result.components.gate.gate),
      items.map((i) => componentsDocument(i.result)),
      items.map((i) => i.document),
      items.map((i) => i.hash),
      items.map((i) => i.previousHash),
      now.getTime(),
      opts.force ?? false,
    ],
  );
  return n;
}

/**
 * Re-rank one listing now, whatever its hash (a Featured edit, a verification change): the caller
 * has just changed an input and wants the public order to follow at once. Null when unknown.
 */
export async function recomputeListingRank(listingId: string, now: Date = new Date()): Promise<ListingRank | null> {
  const [row] = await ledgerFacts({ ids: [listingId] }, now);
  if (!row) return null;
  const ranked = rank(row, now);
  await writeRanks([ranked], now, { force: true });
  return { listingId, inputs: ranked.inputs, ...ranked.result };
}

/**
 * A stored rank explained: computeRank over the stored facts at rankedAt gives back every component
 * with its value, reason and facts, exactly as the sweep computed them (computeRank is pure). Null
 * when the listing has not been ranked.
 */
export function explainStoredRank(stored: { facts: unknown; rankedAt: Date | null }): RankResult | null {
  if (!stored.facts || !stored.rankedAt) return null;
  const { v: _v, ...facts } = stored.facts as Omit<RankInputs, "now"> & { v?: string };
  return computeRank({ ...facts, now: stored.rankedAt });
}
