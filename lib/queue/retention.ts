/**
 * Retention (docs/QUEUE.md "Retention"): finished analyses and their attempt logs moved to the append-only archive
 * tables, a copy then a delete the triggers allow only for archived rows. Results are never touched.
 */
import { queueConfig } from "./config";
import { NOW_UTC, clientOr, rows, transaction, type Client } from "@/lib/sql";

export interface ArchiveOutcome {
  analyses: number;
  attempts: number;
}

/** Default: now − retentionDays. */
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
    // The triggers now let exactly these rows leave.
    await rows(tx, `DELETE FROM "catalog_scoring_attempts" WHERE "analysisId" = ANY ($1::text[])`, ids);
    await rows(tx, `DELETE FROM "catalog_scoring_analyses" WHERE "id" = ANY ($1::text[])`, ids);
    return { analyses: ids.length, attempts: logged[0].n };
  });
}

/** Batches of 1,000, at most 50 per run. */
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
