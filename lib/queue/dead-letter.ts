/**
 * The dead letter (docs/QUEUE.md "Dead letter"): a moderator's requeue (`dead → queued`) gives a fresh budget of
 * attempts and logs `requeued` naming who asked. Authorisation is the caller's.
 */
import { AppError } from "@/lib/errors";
import { queueConfig } from "./config";
import { ACTIVE_SUBJECT_INDEX } from "./enqueue-analysis";
import { NOW_UTC, clientOr, isUniqueViolation, isoOf, rows, type Client } from "@/lib/sql";

export interface RequeuedAnalysis {
  id: string;
  state: "queued";
  attempts: number;
  maxAttempts: number;
  runAfter: string;
}

export async function requeueDeadAnalysis(id: string, byUserId: string, client?: Client): Promise<RequeuedAnalysis> {
  const c = await clientOr(client);
  let out: RequeuedAnalysis[];
  try {
    out = await rows<RequeuedAnalysis>(
      c,
      `WITH moved AS (
         UPDATE "catalog_scoring_analyses" a SET "state" = 'queued', "step" = 'queued',
           "maxAttempts" = a."attempts" + $2::int, "runAfter" = ${NOW_UTC}, "finishedAt" = NULL, "deadlineAt" = NULL,
           "fairTag" = tollgate_analysis_fair_tag(a."fairKey", a."priority"), "updatedAt" = ${NOW_UTC}
         WHERE a."id" = $1 AND a."state" = 'dead'
         RETURNING a."id", a."attempts", a."maxAttempts", a."runAfter"
       ), logged AS (
         INSERT INTO "catalog_scoring_attempts" ("analysisId", "attempt", "workerId", "leaseToken", "event", "detail", "at")
         SELECT "id", "attempts", NULL, NULL, 'requeued', 'requeued from the dead letter by ' || $3::text, ${NOW_UTC} FROM moved
       )
       SELECT "id", 'queued' AS "state", "attempts", "maxAttempts", ${isoOf(`"runAfter"`)} AS "runAfter" FROM moved`,
      id,
      queueConfig().maxAttempts,
      byUserId,
    );
  } catch (e) {
    if (isUniqueViolation(e, ACTIVE_SUBJECT_INDEX)) {
      const active = await rows<{ id: string }>(
        c,
        `SELECT b."id" FROM "catalog_scoring_analyses" a JOIN "catalog_scoring_analyses" b ON b."submitter" = a."submitter"
         WHERE a."id" = $1 AND b."state" IN ('deferred', 'queued', 'running')`,
        id,
      );
      throw new AppError("conflict", `analysis ${id} cannot be requeued: its submitter already has an active analysis`, [], {
        activeAnalysisId: active[0]?.id ?? null,
      });
    }
    throw e;
  }
  if (out.length === 1) return out[0];
  const found = await rows<{ state: string }>(c, `SELECT "state"::text AS "state" FROM "catalog_scoring_analyses" WHERE "id" = $1`, id);
  if (found.length === 0) throw new AppError("not_found", `analysis ${id} does not exist`);
  throw new AppError("conflict", `analysis ${id} is ${found[0].state}; only a dead analysis can be requeued`, [], { state: found[0].state });
}
