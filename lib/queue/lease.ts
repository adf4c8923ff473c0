/**
 * Leases: compare-and-set on (id, state, leaseToken), illegal moves refused by a trigger (docs/QUEUE.md "Leases,
 * heartbeats and fencing").
 */
import { AppError } from "@/lib/errors";
import { clampLeaseMs, queueConfig } from "./config";
import { analysisMetrics } from "./metrics";
import { declareMonitor } from "./monitors";
import { NOW_UTC, clientOr, isoOf, preparedRows, rows, type Client } from "@/lib/sql";
import type { LeaseFields } from "@/lib/ops-wire";

const T = `"catalog_scoring_analyses"`;
const LOG = `"catalog_scoring_attempts"`;

/** least(cap, base × 2^(attempts−1)) × random() over row `a`; parameters $b, $c, $j. */
function backoffSql(b: number, c: number, j: number): string {
  return `make_interval(secs => least($${c}::float8, $${b}::float8 * power(2, greatest(a."attempts" - 1, 0))) * (CASE WHEN $${j}::boolean THEN random() ELSE 1 END) / 1000.0)`;
}

export interface LeasedRow extends LeaseFields {
  submitter: string;
}

export interface ClaimOptions {
  workerId: string;
  limit: number;
  leaseMs?: number;
  client?: Client;
  skipReap?: boolean;
  rubricVersions: readonly string[];
}

/** The reaper tick runs every 5 s too. */
export const CLAIM_REAP_EVERY_MS = 500;
let lastClaimReapAt = 0;

/** tollgate_claim_analyses, SKIP LOCKED in claim order (docs/QUEUE.md "Throughput"). */
export async function claimLeases(opts: ClaimOptions): Promise<LeasedRow[]> {
  const client = await clientOr(opts.client);
  if (!opts.skipReap && Date.now() - lastClaimReapAt >= CLAIM_REAP_EVERY_MS) {
    lastClaimReapAt = Date.now();
    await reapExpiredLeases({ client });
  }
  if (!(await declareMonitor(client, opts.workerId, opts.rubricVersions)).supported) return [];
  const limit = Math.max(1, Math.min(queueConfig().maxBatch, Math.floor(opts.limit)));
  const leaseMs = clampLeaseMs(opts.leaseMs);
  const claimed = await preparedRows<LeasedRow & { claimOrder: number; deadlineAt: string }>(
    client,
    "claim_analyses_v2",
    `SELECT "id", "listingId", "submitter", "trigger", "targetUrl", "attempt", "maxAttempts", "leaseToken", "leaseExpiresAt", "deadlineAt", "claimOrder"
     FROM tollgate_claim_analyses($1::int, $2::float8, $3::text, $4::float8)`,
    limit,
    leaseMs,
    opts.workerId,
    queueConfig().jobTimeoutMs,
  );
  // The function returns primary-key order.
  claimed.sort((x, y) => x.claimOrder - y.claimOrder);
  analysisMetrics().claims.inc(claimed.length);
  return claimed.map(({ claimOrder: _claimOrder, deadlineAt: _deadlineAt, ...row }) => row);
}

export interface HeartbeatInput {
  leaseToken: string;
  leaseMs?: number;
  step?: "probing";
  progress?: { done: number; total: number };
}

/** Never past claim + jobTimeoutMs. */
export async function heartbeatLease(id: string, input: HeartbeatInput, client?: Client): Promise<{ leaseExpiresAt: string; step: string }> {
  const c = await clientOr(client);
  const out = await preparedRows<{ leaseExpiresAt: string; step: string }>(
    c,
    "heartbeat_lease_progress",
    `UPDATE ${T} SET "leaseExpiresAt" = least(${NOW_UTC} + make_interval(secs => $3::float8 / 1000.0), coalesce("deadlineAt", 'infinity')),
       "step" = coalesce($4::text, "step"), "updatedAt" = ${NOW_UTC},
       "progressDone" = coalesce($5::int, "progressDone"), "progressTotal" = coalesce($6::int, "progressTotal")
     WHERE "id" = $1 AND "state" = 'running' AND "leaseToken" = $2 AND "leaseExpiresAt" > ${NOW_UTC}
     RETURNING ${isoOf(`"leaseExpiresAt"`)} AS "leaseExpiresAt", "step"`,
    id,
    input.leaseToken,
    clampLeaseMs(input.leaseMs),
    input.step ?? null,
    input.progress?.done ?? null,
    input.progress?.total ?? null,
  );
  if (out.length === 0) throw await leaseLost(c, id);
  return out[0];
}

/** For the worker's log, not for control flow. */
export async function leaseLost(client: Client, id: string): Promise<AppError> {
  const found = await rows<{ state: string; expired: boolean; timedOut: boolean }>(
    client,
    `SELECT "state"::text AS "state", coalesce("leaseExpiresAt" <= ${NOW_UTC}, false) AS "expired",
            coalesce("deadlineAt" <= ${NOW_UTC}, false) AS "timedOut" FROM ${T} WHERE "id" = $1`,
    id,
  );
  if (found.length === 0) return new AppError("not_found", `analysis ${id} does not exist`);
  const why =
    found[0].state !== "running"
      ? `the analysis is ${found[0].state}`
      : found[0].timedOut
        ? "the attempt reached its hard timeout"
        : found[0].expired
          ? "the lease expired"
          : "the lease belongs to another worker";
  return new AppError("lease_lost", `Lease lost on analysis ${id}: ${why}.`, [], { state: found[0].state });
}

export interface FailInput {
  leaseToken: string;
  reason: string;
  retryable?: boolean;
}

export interface FailOutcome {
  state: "queued" | "failed" | "dead";
  attempts: number;
  maxAttempts: number;
  runAfter: string;
}

export async function failLease(id: string, input: FailInput, client?: Client): Promise<FailOutcome> {
  const c = await clientOr(client);
  const cfg = queueConfig();
  const out = await rows<FailOutcome>(
    c,
    `WITH cur AS (
       SELECT "id", "leaseToken", "leasedBy" FROM ${T}
       WHERE "id" = $1 AND "state" = 'running' AND "leaseToken" = $2 AND "leaseExpiresAt" > ${NOW_UTC}
       FOR UPDATE
     ), moved AS (
       UPDATE ${T} a SET
         "state" = (CASE WHEN NOT $4::boolean THEN 'failed' WHEN a."attempts" >= a."maxAttempts" THEN 'dead' ELSE 'queued' END)::"AnalysisState",
         "step" = CASE WHEN NOT $4::boolean OR a."attempts" >= a."maxAttempts" THEN 'done' ELSE 'queued' END,
         "progressDone" = NULL, "progressTotal" = NULL,
         "error" = $3,
         "runAfter" = CASE WHEN NOT $4::boolean OR a."attempts" >= a."maxAttempts" THEN a."runAfter" ELSE ${NOW_UTC} + ${backoffSql(5, 6, 7)} END,
         "finishedAt" = CASE WHEN NOT $4::boolean OR a."attempts" >= a."maxAttempts" THEN ${NOW_UTC} ELSE NULL END,
         "leaseToken" = NULL, "leaseExpiresAt" = NULL, "leasedBy" = NULL, "updatedAt" = ${NOW_UTC}
       FROM cur WHERE a."id" = $1 AND a."id" = cur."id"
       RETURNING a."id", a."state", a."attempts", a."maxAttempts", a."runAfter", cur."leaseToken" AS "oldToken", cur."leasedBy" AS "oldWorker"
     ), logged AS (
       INSERT INTO ${LOG} ("analysisId", "attempt", "workerId", "leaseToken", "event", "detail", "at")
       SELECT "id", "attempts", "oldWorker", "oldToken", CASE "state" WHEN 'failed' THEN 'failed' WHEN 'dead' THEN 'dead' ELSE 'retry_scheduled' END, $3, ${NOW_UTC} FROM moved
     )
     SELECT "state"::text AS "state", "attempts", "maxAttempts", ${isoOf(`"runAfter"`)} AS "runAfter" FROM moved`,
    id,
    input.leaseToken,
    input.reason.slice(0, 2000),
    input.retryable !== false,
    cfg.backoffBaseMs,
    cfg.backoffCapMs,
    cfg.backoffJitter,
  );
  if (out.length === 0) throw await leaseLost(c, id);
  const m = analysisMetrics();
  if (out[0].state === "queued") m.retries.inc({ cause: "worker_failure" });
  else m.completions.inc({ outcome: out[0].state });
  return out[0];
}

export interface ReapOutcome {
  requeued: number;
  dead: number;
  timedOut: number;
}

/** SKIP LOCKED: a completion and a reap never both win. */
export async function reapExpiredLeases(opts: { client?: Client; limit?: number } = {}): Promise<ReapOutcome> {
  const c = await clientOr(opts.client);
  const cfg = queueConfig();
  const out = await rows<{ state: string; timedOut: boolean }>(
    c,
    `WITH expired AS (
       SELECT "id", "leaseToken", "leasedBy", "deadlineAt", coalesce("leaseExpiresAt" >= "deadlineAt", false) AS "timedOut" FROM ${T}
       WHERE "state" = 'running' AND "leaseExpiresAt" <= ${NOW_UTC}
       ORDER BY "leaseExpiresAt" LIMIT $1::int
       FOR UPDATE SKIP LOCKED
     ), moved AS (
       UPDATE ${T} a SET
         "state" = (CASE WHEN a."attempts" >= a."maxAttempts" THEN 'dead' ELSE 'queued' END)::"AnalysisState",
         "step" = CASE WHEN a."attempts" >= a."maxAttempts" THEN 'done' ELSE 'queued' END,
         "progressDone" = NULL, "progressTotal" = NULL,
         "error" = CASE WHEN e."timedOut"
           THEN 'timed out: attempt ' || a."attempts" || ' of ' || a."maxAttempts" || ' on worker ' || coalesce(e."leasedBy", '?') || ' reached its hard timeout (' || to_char(e."deadlineAt", 'YYYY-MM-DD"T"HH24:MI:SS"Z"') || ', fixed at its claim)'
           ELSE 'lease expired: worker ' || coalesce(e."leasedBy", '?') || ' stopped renewing it during attempt ' || a."attempts" || ' of ' || a."maxAttempts" END,
         "runAfter" = CASE WHEN a."attempts" >= a."maxAttempts" THEN a."runAfter" ELSE ${NOW_UTC} + ${backoffSql(2, 3, 4)} END,
         "finishedAt" = CASE WHEN a."attempts" >= a."maxAttempts" THEN ${NOW_UTC} ELSE NULL END,
         "leaseToken" = NULL, "leaseExpiresAt" = NULL, "leasedBy" = NULL, "updatedAt" = ${NOW_UTC}
       FROM expired e WHERE a."id" = ANY (ARRAY(SELECT "id" FROM expired)) AND a."id" = e."id"
       RETURNING a."id", a."state", a."attempts", a."error", e."leaseToken" AS "oldToken", e."leasedBy" AS "oldWorker", e."timedOut"
     ), logged AS (
       INSERT INTO ${LOG} ("analysisId", "attempt", "workerId", "leaseToken", "event", "detail", "at")
       SELECT "id", "attempts", "oldWorker", "oldToken",
              (CASE WHEN "timedOut" THEN 'timed_out' ELSE 'expired' END) || (CASE WHEN "state" = 'dead' THEN '_dead' ELSE '_requeued' END), "error", ${NOW_UTC} FROM moved
     )
     SELECT "state"::text AS "state", "timedOut" FROM moved`,
    opts.limit ?? 500,
    cfg.backoffBaseMs,
    cfg.backoffCapMs,
    cfg.backoffJitter,
  );
  const dead = out.filter((r) => r.state === "dead").length;
  const timedOut = out.filter((r) => r.timedOut).length;
  const requeued = out.length - dead;
  const m = analysisMetrics();
  if (out.length) m.leaseExpiries.inc(out.length);
  if (requeued) m.retries.inc({ cause: "lease_expired" }, requeued);
  if (dead) m.completions.inc({ outcome: "dead" }, dead);
  return { requeued, dead, timedOut };
}

export interface LockedLease {
  id: string;
  listingId: string | null;
  submitter: string;
  trigger: string;
  targetUrl: string;
  attempts: number;
  previousRubricVersion: string | null;
}

export async function lockLease(tx: Client, id: string, leaseToken: string): Promise<LockedLease | null> {
  const found = await rows<LockedLease>(
    tx,
    `SELECT a."id", a."listingId", a."submitter", a."trigger"::text AS "trigger", a."targetUrl", a."attempts",
            (SELECT r."rubricVersion" FROM "listings" l JOIN "catalog_scoring_results" r ON r."id" = l."currentResultId" WHERE l."id" = a."listingId") AS "previousRubricVersion"
     FROM ${T} a
     WHERE a."id" = $1 AND a."state" = 'running' AND a."leaseToken" = $2 AND a."leaseExpiresAt" > ${NOW_UTC}
     FOR UPDATE OF a`,
    id,
    leaseToken,
  );
  return found[0] ?? null;
}

export interface FinishInput {
  resultId?: string | null;
  evidenceId?: string | null;
  rubricVersion?: string | null;
  detail?: string | null;
}

/** The token stays so a retried completion is recognised. */
export async function finishLease(client: Client, id: string, leaseToken: string, input: FinishInput = {}): Promise<boolean> {
  const out = await preparedRows<{ analysisId: string }>(
    client,
    "finish_lease",
    `WITH done AS (
       UPDATE ${T} SET "state" = 'succeeded', "step" = 'done', "resultId" = $3, "evidenceId" = $4, "rubricVersion" = $5,
         "error" = NULL, "leaseExpiresAt" = NULL, "finishedAt" = ${NOW_UTC}, "updatedAt" = ${NOW_UTC}
       WHERE "id" = $1 AND "state" = 'running' AND "leaseToken" = $2 AND "leaseExpiresAt" > ${NOW_UTC}
       RETURNING "id", "attempts", "leasedBy", "leaseToken"
     )
     INSERT INTO ${LOG} ("analysisId", "attempt", "workerId", "leaseToken", "event", "detail", "at")
     SELECT "id", "attempts", "leasedBy", "leaseToken", 'succeeded', $6, ${NOW_UTC} FROM done
     RETURNING "analysisId"`,
    id,
    leaseToken,
    input.resultId ?? null,
    input.evidenceId ?? null,
    input.rubricVersion ?? null,
    input.detail ?? null,
  );
  return out.length === 1;
}

/** The benchmark's peer of pg-boss's complete(ids[]). */
export async function finishLeases(client: Client, leases: Array<{ id: string; leaseToken: string }>, detail: string | null = null): Promise<string[]> {
  if (leases.length === 0) return [];
  const out = await preparedRows<{ analysisId: string }>(
    client,
    "finish_leases",
    `WITH pairs AS (
       SELECT * FROM unnest($1::text[], $2::text[]) AS p("id", "token")
     ), done AS (
       UPDATE ${T} a SET "state" = 'succeeded', "step" = 'done', "error" = NULL, "leaseExpiresAt" = NULL, "finishedAt" = ${NOW_UTC}, "updatedAt" = ${NOW_UTC}
       FROM pairs p WHERE a."id" = ANY ($1::text[]) AND a."id" = p."id" AND a."state" = 'running' AND a."leaseToken" = p."token" AND a."leaseExpiresAt" > ${NOW_UTC}
       RETURNING a."id", a."attempts", a."leasedBy", a."leaseToken"
     )
     INSERT INTO ${LOG} ("analysisId", "attempt", "workerId", "leaseToken", "event", "detail", "at")
     SELECT "id", "attempts", "leasedBy", "leaseToken", 'succeeded', $3, ${NOW_UTC} FROM done
     RETURNING "analysisId"`,
    leases.map((l) => l.id),
    leases.map((l) => l.leaseToken),
    detail,
  );
  return out.map((r) => r.analysisId);
}

export async function completedWith(client: Client, id: string, leaseToken: string): Promise<{ resultId: string | null } | null> {
  const found = await rows<{ resultId: string | null }>(
    client,
    `SELECT "resultId" FROM ${T} WHERE "id" = $1 AND "state" = 'succeeded' AND "leaseToken" = $2`,
    id,
    leaseToken,
  );
  return found[0] ?? null;
}
