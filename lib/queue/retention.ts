/**
 * Retention (docs/QUEUE.md "Retention"): finished analyses (succeeded or failed) older than
 * TOLLGATE_QUEUE_RETENTION_DAYS move, with their attempt-log rows, to the append-only archive tables
 * `catalog_scoring_analyses_archive` and `catalog_scoring_attempts_archive` (each row as it was, as
 * jsonb). A move, never a delete: in one transaction the rows are copied, then deleted, and the
 * triggers of migration 20261203167000_queue_hardening let a live log row or analysis go only when
 * the archive already holds exactly it. Results (`catalog_scoring_results`) are never touched.
 * Dead analyses stay live until a moderator requeues them.
 */
import { queueConfig } from "./config";
import { NOW_UTC, clientOr, rows, transaction, type Client } from "@/lib/sql";

export interface ArchiveOutcome {
  analyses: number;
  attempts: number;
}

/** Archive one batch of finished analyses that finished before `before` (default: now − retentionDays). */
export async function archiveFinishedAnalyses(opts: { before?: Date; limit?: number; client?: Client } = {}): Promise<ArchiveOutcome> {
  const days = queueConfig().retentionDays;
  if (!opts.before && days === null) return { analyses: 0, attempts: 0 };
  const before = opts.before ?? new Date(Date.now() - (days as number) * 86_400_000);
  const c = await clientOr(opts.client);
  return transaction(c, async (tx) => {
    const picked = await rows<{ id: string }>(
      tx,
      `SELECT "id" FROM "catalog_scoring_analyses"
       WHERE "state" IN ('succeeded', 'failed') AND "finishedAt" < ($1::timestamptz AT TIME ZONE 'UTC')
       ORDER BY "finishedAt" LIMIT $2::int
       FOR UPDATE SKIP LOCKED`,
      before.toISOString(),
      opts.limit ?? 1000,
    );
    if (picked.length === 0) return { analyses: 0, attempts: 0 };
    const ids = picked.map((p) => p.id);
    await rows(
      tx,
      `INSERT INTO "catalog_scoring_analyses_archive" ("id", "finishedAt", "archivedAt", "row")
       SELECT a."id", a."finishedAt", ${NOW_UTC}, to_jsonb(a) FROM "catalog_scoring_analyses" a WHERE a."id" = ANY ($1::text[])`,
      ids,
    );
    const logged = await rows<{ n: number }>(
      tx,
      `WITH copied AS (
         INSERT INTO "catalog_scoring_attempts_archive" ("analysisId", "id", "archivedAt", "row")
         SELECT t."analysisId", t."id", ${NOW_UTC}, to_jsonb(t) FROM "catalog_scoring_attempts" t WHERE t."analysisId" = ANY ($1::text[])
         RETURNING 1
       ) SELECT count(*)::int AS "n" FROM copied`,
      ids,
    );
    // The copies are in; the triggers now let exactly these rows leave (and nothing else).
    await rows(tx, `DELETE FROM "catalog_scoring_attempts" WHERE "analysisId" = ANY ($1::text[])`, ids);
    await rows(tx, `DELETE FROM "catalog_scoring_analyses" WHERE "id" = ANY ($1::text[])`, ids);
    return { analyses: ids.length, attempts: logged[0].n };
  });
}

/** The retention tick: batches of 1,000 until none is left (at most 50 per run). */
export async function runRetention(client?: Client): Promise<ArchiveOutcome> {
  const total = { analyses: 0, attempts: 0 };
  for (let i = 0; i < 50; i++) {
    const got = await archiveFinishedAnalyses({ client, limit: 1000 });
    total.analyses += got.analyses;
    total.attempts += got.attempts;
    if (got.analyses < 1000) break;
  }
  return total;
}
