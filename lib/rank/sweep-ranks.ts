/** The rank sweep: re-ranks listings whose facts hash moved, full or due, one leader at a time (docs/RANK.md "Storage and the sweep"). */
import { hash } from "node:crypto";
import { hostname } from "node:os";
import { clientOr, rows, session, type Client } from "@/lib/sql";
import { computeRank, type RankInputs, type RankResult } from "@/lib/rank/score";
import { factsDueAtMs, ledgerFacts, listingIdRanges, utcTimestamp, type LedgerFactsRow } from "@/lib/facts/aggregate";
import { rankInputsFromRow, type ListingRank } from "./inputs";
import { applyWash, newWashCache, type WashCache } from "./wash";

const SWEEP_HOLDER = `${hostname()}:${process.pid}`;
/** Arbitrary and fixed (lib/migrate.ts uses 724_021_402). */
export const RANK_SWEEP_LOCK_KEY = 724_021_406;
/** Part of every hash: bump it when the formula or the readings change, and every listing re-ranks once. */
export const RANK_INPUTS_VERSION = "rank-inputs/2";
export const DEFAULT_RANK_BATCH = 10_000;
/** Per id range, bounding memory (docs/RANK.md). */
const READ_RANGE = 25_000;
/** Two writes on two connections while the next batch is scored. */
const WRITES_IN_FLIGHT = 2;
/** A due sweep reads everything when this process's last full sweep is this old... */
export const FULL_SWEEP_INTERVAL_MS = 5 * 60_000;
/** ...or when more than this share is due (one pass is then cheaper than lookups by id). */
export const DUE_FULL_SHARE = 0.25;
const DUE_READ_BATCH = 5_000;

/** Every fact but `now` as a positional JSON array led by RANK_INPUTS_VERSION (stored and hashed); new fields go last, with a version bump. */
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

export function rankInputsHash(inputs: RankInputs): string {
  return hashDocument(rankInputsDocument(inputs));
}

function hashDocument(doc: string): string {
  return hash("sha256", doc, "hex");
}

export type RankSweepMode = "full" | "due";

export interface RankSweepResult {
  leader: boolean;
  mode: RankSweepMode;
  marked: number;
  due: number;
  scanned: number;
  updated: number;
  unchanged: number;
  rescheduled: number;
  /** The hash moved under the sweep (a concurrent Featured edit); the next tick takes them. */
  lost: number;
  batches: number;
  factsMs: number;
  scoreMs: number;
  writeWaitMs: number;
  ms: number;
}

let running = false;
let lastFullSweepAt: number | null = null;
/** The last full sweep's reading of the ledger's payment rings: the due sweeps until the next full one reuse it (docs/RANK.md "Payment rings"). */
let lastFullRings: WashCache["rings"];

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
      // Keyed by schema too: advisory locks are database-wide, and schemas sharing a database each need a leader.
      const [{ got }] = await rows<{ got: boolean }>(conn, "SELECT pg_try_advisory_lock($1, hashtext(current_schema())) AS got", RANK_SWEEP_LOCK_KEY);
      if (!got) return { ...idle, ms: Date.now() - started };
      try {
        // The run record, on the lock's connection while held; a throw closes it with its error.
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
  // Marks are claimed before facts are read: the claim waits for an uncommitted mark's row lock, so
  // the read sees that write. Later marks stay for the next sweep; a failed sweep puts its marks back.
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
        cache.rings = lastFullRings;
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
  if (totals.mode === "full") {
    lastFullSweepAt = t;
    lastFullRings = cache.rings;
  }
  return totals;
}

async function claimMarks(client: Client): Promise<string[]> {
  return (await rows<{ id: string }>(client, `DELETE FROM "rank_dirty" RETURNING "listingId" AS id`)).map((r) => r.id);
}

async function restoreMarks(client: Client, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await rows(client, `INSERT INTO "rank_dirty" ("listingId") SELECT unnest($1::text[]) ON CONFLICT DO NOTHING`, ids);
}

async function rankAll(client: Client, reads: readonly (() => Promise<LedgerFactsRow[]>)[], now: Date, batchSize: number, totals: SweepTotals): Promise<void> {
  if (reads.length === 0) return;
  const read = (i: number) => {
    const p = reads[i]();
    p.catch(() => {});
    return p;
  };
  const writing: Promise<void>[] = [];

  const scoreBatch = async (batch: readonly LedgerFactsRow[]) => {
    totals.batches++;
    totals.scanned += batch.length;
    const changed: string[] = [];
    const rescheduled: string[] = [];
    const scoring = Date.now();
    for (const row of batch) {
      // The hash first: an unchanged listing is not scored at all.
      const hashed = hashInputs(row, now);
      const due = factsDueAtMs(row);
      if (hashed.hash === row.rankInputsHash) {
        totals.unchanged++;
        // Same facts, but the due time moved (a row left a window): only that is written.
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
    write.catch(() => {});
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

function hashInputs(row: LedgerFactsRow, now: Date): Hashed {
  const inputs = rankInputsFromRow(row, now);
  const document = rankInputsDocument(inputs);
  return { inputs, document, hash: hashDocument(document) };
}

function scored(row: LedgerFactsRow, h: Hashed, explain: boolean): Ranked {
  return { id: row.id, previousHash: row.rankInputsHash, hash: h.hash, document: h.document, inputs: h.inputs, result: computeRank(h.inputs, { explain }) };
}

function rank(row: LedgerFactsRow, now: Date): Ranked {
  return scored(row, hashInputs(row, now), true);
}

function componentsDocument(r: RankResult): string {
  const c = r.components;
  return `{"gate":"${c.gate.gate}","gateFactor":${c.gate.value},"liveness":${c.liveness.value},"traction":${c.traction.value},"priceIntegrity":${c.priceIntegrity.value},"featured":${c.featured.value},"verification":${c.verification.value}}`;
}

/** Tab-separated fields of one listing; the batch is one text parameter split on the server (docs/RANK.md). */
function writeEntry(it: Ranked, dueAtMs: number | null): string {
  if (!Number.isFinite(it.result.quality) || !Number.isFinite(it.result.rank)) throw new RangeError(`listing ${it.id}: non-finite score`);
  if (/[\t\n]/.test(it.id)) throw new RangeError(`listing ${JSON.stringify(it.id)}: an id with a tab or a line break cannot be ranked`);
  return `${it.id}\t${it.result.quality}\t${it.result.rank}\t${it.result.components.gate.gate}\t${componentsDocument(it.result)}\t${it.document}\t${it.hash}\t${it.previousHash ?? ""}\t${dueAtMs ?? ""}`;
}

const BATCH_LINES = `(SELECT string_to_array(line, E'\\t') AS a FROM string_to_table($1, E'\\n') AS line OFFSET 0) x`;

/** Compare-and-set on the hash read: a Featured edit meanwhile is never overwritten. */
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

/** Due times of unchanged listings, only while the row still holds that hash. */
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

/** Whatever its hash: the caller just changed an input. Null when unknown. */
export async function recomputeListingRank(listingId: string, now: Date = new Date()): Promise<ListingRank | null> {
  const client = await clientOr();
  const [row] = (await applyWash(await ledgerFacts({ ids: [listingId] }, now, client), now, client)).rows;
  if (!row) return null;
  const ranked = rank(row, now);
  await writeRanks(client, [writeEntry(ranked, factsDueAtMs(row))], now, { force: true });
  return { listingId, inputs: ranked.inputs, ...ranked.result };
}

/** computeRank over the stored facts at rankedAt; null when never ranked. */
export function explainStoredRank(stored: { facts: unknown; rankedAt: Date | null }): RankResult | null {
  if (!stored.facts || !stored.rankedAt) return null;
  const inputs = inputsFromDocument(stored.facts, stored.rankedAt);
  return inputs ? computeRank(inputs) : null;
}
