/**
 * The canary's queue (docs/CANARY.md "Runs"): `canary_runs`, one active run per listing (a partial unique index),
 * requested on publish, daily and on demand.
 */
import { db } from "@/lib/db";
import { AppError } from "@/lib/errors";
import { exec, rows } from "@/lib/sql";
import { publicSql } from "@/lib/listings/visibility";
import { anyHouseKey } from "./house";
import { claimRun, failAttempt } from "./lease";
import { executeRun, type CanaryOptions, type RunResult } from "./run";

export const CANARY_EVERY_MS = 24 * 60 * 60_000;

export type CanaryTrigger = "publish" | "schedule" | "moderator" | "listing_change";

const ONE_ACTIVE = "canary_runs_one_active";

/** Or the run already active for it. */
export async function requestRun(input: { listingId: string; trigger: CanaryTrigger; requestedBy: string }): Promise<{ runId: string; created: boolean }> {
  const prisma = await db();
  const listing = await prisma.listing.findUnique({ where: { id: input.listingId }, select: { canarySuspendedAt: true } });
  if (!listing) throw new AppError("not_found", `listing ${input.listingId} does not exist`);
  if (listing.canarySuspendedAt) throw new AppError("conflict", `listing ${input.listingId}'s canary is suspended; resume it before starting a run`);
  try {
    const run = await prisma.canaryRun.create({ data: { listingId: input.listingId, trigger: input.trigger, requestedBy: input.requestedBy }, select: { id: true } });
    return { runId: run.id, created: true };
  } catch (e) {
    if ((e as { code?: string }).code !== "P2002" && !String((e as Error).message).includes(ONE_ACTIVE)) throw e;
    const active = await prisma.canaryRun.findFirst({ where: { listingId: input.listingId, state: { in: ["queued", "running"] } }, select: { id: true } });
    if (!active) throw e;
    return { runId: active.id, created: false };
  }
}

/** One at a time, up to `limit`; a run that throws is given back at once. */
export async function runDueRuns(options: CanaryOptions & { limit?: number } = {}): Promise<RunResult[]> {
  const out: RunResult[] = [];
  for (let i = 0; i < (options.limit ?? 5); i++) {
    const lease = await claimRun();
    if (!lease) break;
    try {
      out.push(await executeRun(lease.runId, lease.leaseToken, options));
    } catch (e) {
      const why = (e as Error).message;
      const moved = await failAttempt(lease.runId, lease.leaseToken, why).catch(() => null);
      console.error(`[canary] run ${lease.runId} interrupted (${moved ?? "lease already gone"}): ${why}`);
    }
  }
  return out;
}

/** Now (on demand, the demo, the tests); throws what interrupts it. */
export async function runCanary(listingId: string, request: { trigger?: CanaryTrigger; requestedBy?: string } = {}, options: CanaryOptions = {}): Promise<RunResult> {
  const { runId } = await requestRun({ listingId, trigger: request.trigger ?? "moderator", requestedBy: request.requestedBy ?? "system:canary" });
  const lease = await claimRun({ runId });
  if (!lease) throw new AppError("conflict", `canary run ${runId} is already running`);
  return executeRun(lease.runId, lease.leaseToken, options);
}

/**
 * Published, not suspended, no active run, and last run older than CANARY_EVERY_MS or deferred on an earlier UTC day
 * (`schedule`), or never run (`publish`).
 */
export async function queueDueRuns(now: Date = new Date()): Promise<number> {
  const prisma = await db();
  return exec(
    prisma,
    `INSERT INTO "canary_runs" ("id", "listingId", "trigger", "requestedBy", "runAfter")
     SELECT 'cr' || md5(random()::text || clock_timestamp()::text || l."id"), l."id",
            (CASE WHEN last."createdAt" IS NULL THEN 'publish' ELSE 'schedule' END)::"CanaryTrigger", 'system:canary.schedule', $1::timestamptz AT TIME ZONE 'UTC'
       FROM "listings" l
       LEFT JOIN LATERAL (SELECT r."createdAt", r."state", r."finishedAt" FROM "canary_runs" r WHERE r."listingId" = l."id" ORDER BY r."createdAt" DESC LIMIT 1) last ON true
      WHERE ${publicSql("l")} AND l."canarySuspendedAt" IS NULL
        AND (last."createdAt" IS NULL OR last."createdAt" <= ($1::timestamptz AT TIME ZONE 'UTC') - ($2::bigint * interval '1 millisecond')
             OR (last."state" = 'deferred' AND last."finishedAt" < date_trunc('day', $1::timestamptz AT TIME ZONE 'UTC')))
        AND NOT EXISTS (SELECT 1 FROM "canary_runs" a WHERE a."listingId" = l."id" AND a."state" IN ('queued', 'running'))
     ON CONFLICT ("listingId") WHERE "state" IN ('queued', 'running') DO NOTHING`,
    now.toISOString(),
    CANARY_EVERY_MS,
  );
}

/** A house key is configured. */
export function canaryConfigured(): boolean {
  return anyHouseKey();
}
