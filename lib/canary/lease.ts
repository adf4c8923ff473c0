/**
 * The canary's leases on the analysis queue's terms (docs/CANARY.md "Runs"): SKIP LOCKED claims round-robin across
 * organisations, heartbeats, the queue's backoff, and a dead letter (`unverified: attempts_exhausted`).
 */
import crypto from "node:crypto";
import { db } from "@/lib/db";
import { exec, NOW_UTC, rows } from "@/lib/sql";
import { backoffCeilingMs, queueConfig } from "@/lib/queue/config";
import { recomputeListingRank } from "@/lib/rank/sweep-ranks";
import { releaseUnsigned } from "./budget";

/** Renewed every third, so a killed worker's run is retried within a minute. */
export const CANARY_LEASE_MS = 60_000;
export const CANARY_MAX_ATTEMPTS = 3;

/**
 * The given run or the next due: the organisation whose latest run started longest ago first, then its oldest due
 * run. Null when none is due.
 */
export async function claimRun(opts: { runId?: string; leaseMs?: number } = {}): Promise<{ runId: string; leaseToken: string } | null> {
  const prisma = await db();
  const token = crypto.randomBytes(16).toString("hex");
  const claimed = await rows<{ id: string }>(
    prisma,
    `UPDATE "canary_runs" SET "state" = 'running', "leaseToken" = $1, "attempts" = "attempts" + 1,
            "leaseExpiresAt" = (now() AT TIME ZONE 'UTC') + ($2::int * interval '1 millisecond'),
            "startedAt" = COALESCE("startedAt", now() AT TIME ZONE 'UTC')
      WHERE "id" = (SELECT r."id" FROM "canary_runs" r JOIN "listings" l ON l."id" = r."listingId"
                     LEFT JOIN LATERAL (SELECT max(o."startedAt") AS "at" FROM "canary_runs" o JOIN "listings" ol ON ol."id" = o."listingId"
                                         WHERE ol."organizationId" = l."organizationId") served ON true
                     WHERE r."state" = 'queued' AND r."runAfter" <= (now() AT TIME ZONE 'UTC') AND ($3::text IS NULL OR r."id" = $3)
                     ORDER BY (r."runAfter" = tollgate_canary_front()) DESC, served."at" ASC NULLS FIRST, r."runAfter", r."createdAt", r."id" LIMIT 1 FOR UPDATE OF r SKIP LOCKED)
      RETURNING "id"`,
    token,
    opts.leaseMs ?? CANARY_LEASE_MS,
    opts.runId ?? null,
  );
  return claimed[0] ? { runId: claimed[0].id, leaseToken: token } : null;
}

/**
 * False when no longer this token's. Every lease time is the database's (as claimRun's and the analysis queue's):
 * a worker whose clock runs ahead would otherwise reap or expire another worker's live run.
 */
export async function heartbeatRun(runId: string, leaseToken: string, leaseMs: number = CANARY_LEASE_MS): Promise<boolean> {
  const prisma = await db();
  const n = await exec(
    prisma,
    `UPDATE "canary_runs" SET "leaseExpiresAt" = ${NOW_UTC} + ($3::int * interval '1 millisecond')
      WHERE "id" = $1 AND "state" = 'running' AND "leaseToken" = $2 AND "leaseExpiresAt" > ${NOW_UTC}`,
    runId,
    leaseToken,
    leaseMs,
  );
  return n === 1;
}

/** lost() once a heartbeat found it gone. */
export function holdLease(runId: string, leaseToken: string, leaseMs: number = CANARY_LEASE_MS): { lost(): boolean; stop(): void } {
  let lost = false;
  const beat = setInterval(() => {
    heartbeatRun(runId, leaseToken, leaseMs).then(
      (held) => (lost ||= !held),
      () => {},
    );
  }, Math.max(50, Math.floor(leaseMs / 3)));
  beat.unref();
  return { lost: () => lost, stop: () => clearInterval(beat) };
}

/** The backoff after this many attempts, in ms from the database's now. */
function retryDelayMs(attempts: number): number {
  const cfg = queueConfig();
  const ceiling = backoffCeilingMs(attempts, cfg);
  return Math.round(cfg.backoffJitter ? Math.random() * ceiling : ceiling);
}

/**
 * Fenced by its token: queued after the backoff, or dead-lettered and re-ranked. The attempt's samples stay for the
 * retry to reconcile.
 */
export async function giveBack(run: { id: string; listingId: string; attempts: number; leaseToken: string | null }, why: string, opts: { expiredOnly?: boolean } = {}): Promise<"requeued" | "given_up" | null> {
  const prisma = await db();
  // Fenced by the token, and for the reaper by the lease still being expired by the database's clock.
  const fence = `"id" = $1 AND "state" = 'running' AND "leaseToken" = $2${opts.expiredOnly ? ` AND "leaseExpiresAt" < ${NOW_UTC}` : ""}`;
  if (run.attempts >= CANARY_MAX_ATTEMPTS) {
    // One transaction: the run dead-lettered, the listing's verification, the unsigned part of its reservation back.
    const changed = await prisma.$transaction(async (tx) => {
      const n = await exec(
        tx,
        `UPDATE "canary_runs" SET "state" = 'done', "outcome" = 'unverified', "reason" = $3, "finishedAt" = ${NOW_UTC}, "leaseToken" = NULL, "leaseExpiresAt" = NULL WHERE ${fence}`,
        run.id,
        run.leaseToken,
        `attempts_exhausted: ${why}`.slice(0, 2000),
      );
      if (n !== 1) return null;
      // A run that judged nothing says nothing: a degraded listing stays degraded (a run that always throws would
      // otherwise clear it), a verified one is no longer verified.
      const moved = await tx.listing.updateMany({ where: { id: run.listingId, verificationStatus: "verified" }, data: { verificationStatus: "unverified" } });
      await releaseUnsigned(tx, run.id, run.listingId);
      return moved.count === 1;
    });
    if (changed === null) return null;
    if (changed) await recomputeListingRank(run.listingId);
    return "given_up";
  }
  const n = await exec(
    prisma,
    `UPDATE "canary_runs" SET "state" = 'queued', "leaseToken" = NULL, "leaseExpiresAt" = NULL, "runAfter" = ${NOW_UTC} + ($3::int * interval '1 millisecond') WHERE ${fence}`,
    run.id,
    run.leaseToken,
    retryDelayMs(run.attempts),
  );
  return n === 1 ? "requeued" : null;
}

/** Given back at once rather than at lease expiry. */
export async function failAttempt(runId: string, leaseToken: string, error: string): Promise<"requeued" | "given_up" | null> {
  const prisma = await db();
  const run = await prisma.canaryRun.findUnique({ where: { id: runId }, select: { id: true, listingId: true, attempts: true, leaseToken: true } });
  if (!run || run.leaseToken !== leaseToken) return null;
  return giveBack(run, error);
}

/** Runs whose lease expired by the database's clock, never the caller's. */
export async function reapExpiredRuns(): Promise<{ requeued: number; given_up: number }> {
  const prisma = await db();
  const expired = await rows<{ id: string; listingId: string; attempts: number; leaseToken: string | null }>(
    prisma,
    `SELECT "id", "listingId", "attempts", "leaseToken" FROM "canary_runs" WHERE "state" = 'running' AND "leaseExpiresAt" < ${NOW_UTC}`,
  );
  const out = { requeued: 0, given_up: 0 };
  for (const r of expired) {
    const moved = await giveBack(r, "lease_expired", { expiredOnly: true });
    if (moved) out[moved]++;
  }
  return out;
}
