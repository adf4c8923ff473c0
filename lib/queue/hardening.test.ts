/**
 * What pg-boss and graphile-worker have and the queue lacked (issue #20 item 8; docs/QUEUE.md): a hard
 * job timeout heartbeats cannot extend, the dead letter with a moderator's requeue, fair claims
 * across sellers, and retention into the append-only archive. PGlite by default; server Postgres
 * with TEST_DATABASE_URL. Each describe block has its own database, and each test leaves nothing
 * queued behind it, so claims see only the test's own rows.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { exec, rows } from "@/lib/sql";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { AppError } from "@/lib/errors";
import { parseEnv } from "@/lib/env";
import { configureQueue, DEFAULT_QUEUE_CONFIG } from "./config";
import { requestAnalysis, PRIORITY_SWEEP } from "./enqueue-analysis";
import { claimLeases, failLease, finishLease, heartbeatLease, reapExpiredLeases } from "./lease";
import { archiveFinishedAnalyses } from "./retention";
import { analysisTicks } from "./ticks";
import { MONITOR_RUBRIC_VERSIONS } from "@/lib/probe/capabilities";
import { completeLease } from "@/lib/analyses/store-result";
import { fixtureEvidence } from "@/lib/catalog-monitor/probes";
import { reanalyseForActor } from "@/lib/analyses/progress";
import { adminDesk, requeueDeadForModerator } from "@/lib/surfaces/admin";
import { seedListing, seedListings, seedOwner } from "@/test/analyses";
import { fullListing } from "@/test/readiness";
import type { PrismaClient } from "@/lib/generated/prisma/client";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let t: TestDatabase;
let prisma: PrismaClient;

beforeEach(() => {
  configureQueue({ ...DEFAULT_QUEUE_CONFIG });
});

/** A fresh database for the describe block around it. */
function ownDatabase() {
  beforeAll(async () => {
    t = await createTestDatabase();
    prisma = t.prisma;
  });
  afterAll(async () => {
    await t?.close();
  });
}

async function appError(p: Promise<unknown>): Promise<AppError> {
  const e = await p.then(
    () => null,
    (err) => err,
  );
  expect(e).toBeInstanceOf(AppError);
  return e as AppError;
}

const events = async (id: string) => (await prisma.analysisAttempt.findMany({ where: { analysisId: id }, orderBy: { id: "asc" } })).map((l) => l.event);

describe("hard timeout", () => {
  ownDatabase();

  it("heartbeats cannot carry a lease past claim + jobTimeoutMs; the late finish is refused and the reaper names the timeout", async () => {
    configureQueue({ jobTimeoutMs: 1_200, backoffJitter: false, backoffBaseMs: 1 });
    const { org, user } = await seedOwner(prisma);
    const { id } = await reanalyseForActor(user.id, await seedListing(prisma, org.id));
    const claimedAt = Date.now();
    const [job] = await claimLeases({ rubricVersions: MONITOR_RUBRIC_VERSIONS, workerId: "slow", limit: 1, leaseMs: 60_000, skipReap: true });
    expect(job.id).toBe(id);
    const { deadlineAt } = await prisma.analysis.findUniqueOrThrow({ where: { id } });
    expect(deadlineAt!.getTime() - claimedAt).toBeLessThanOrEqual(1_200 + 500);
    // The claim's lease already stops at the deadline, not 60 s out.
    expect(Date.parse(job.leaseExpiresAt)).toBe(deadlineAt!.getTime());
    // A heartbeat asking for another minute gets the deadline, no more — twice.
    for (let i = 0; i < 2; i++) {
      await sleep(300);
      const hb = await heartbeatLease(id, { leaseToken: job.leaseToken, leaseMs: 60_000, step: "probing" });
      expect(Date.parse(hb.leaseExpiresAt)).toBe(deadlineAt!.getTime());
    }
    await sleep(Math.max(0, deadlineAt!.getTime() - Date.now()) + 300);
    // The fences refuse the late finish and the late heartbeat, saying why; nothing is written.
    const late = await appError(completeLease(id, { leaseToken: job.leaseToken, evidence: fixtureEvidence(fullListing()) }));
    expect(late.code).toBe("lease_lost");
    expect(late.message).toMatch(/hard timeout/);
    expect((await appError(heartbeatLease(id, { leaseToken: job.leaseToken }))).code).toBe("lease_lost");
    expect(await prisma.readinessResult.count({ where: { analysisId: id } })).toBe(0);
    const reaped = await reapExpiredLeases();
    expect(reaped).toMatchObject({ requeued: 1, dead: 0, timedOut: 1 });
    const row = await prisma.analysis.findUniqueOrThrow({ where: { id } });
    expect(row.state).toBe("queued");
    expect(row.error).toMatch(/^timed out: attempt 1 of 5 on worker slow reached its hard timeout/);
    expect(await events(id)).toEqual(["claimed", "timed_out_requeued"]);
  });

  it("the timeout comes from TOLLGATE_ANALYSIS_TIMEOUT_S and is checked", () => {
    expect(parseEnv({ NODE_ENV: "test" }).TOLLGATE_ANALYSIS_TIMEOUT_S).toBe(900);
    expect(parseEnv({ NODE_ENV: "test", TOLLGATE_ANALYSIS_TIMEOUT_S: "30" }).TOLLGATE_ANALYSIS_TIMEOUT_S).toBe(30);
    expect(() => parseEnv({ NODE_ENV: "test", TOLLGATE_ANALYSIS_TIMEOUT_S: "0" })).toThrow(/TOLLGATE_ANALYSIS_TIMEOUT_S/);
  });
});

describe("dead letter", () => {
  ownDatabase();

  it("exhausted retries end dead (not failed), show on the moderators' desk, and a moderator's requeue gives fresh attempts", async () => {
    configureQueue({ maxAttempts: 2, backoffJitter: false, backoffBaseMs: 1, backoffCapMs: 1 });
    const { org, user } = await seedOwner(prisma);
    const mod = await seedOwner(prisma, "moderator");
    const { id } = await reanalyseForActor(user.id, await seedListing(prisma, org.id));
    for (const expected of ["queued", "dead"]) {
      await sleep(5);
      const [job] = await claimLeases({ rubricVersions: MONITOR_RUBRIC_VERSIONS, workerId: "w", limit: 1, skipReap: true });
      expect(job.id).toBe(id);
      expect((await failLease(id, { leaseToken: job.leaseToken, reason: "upstream 503" })).state).toBe(expected);
    }
    expect(await prisma.analysis.findUniqueOrThrow({ where: { id } })).toMatchObject({ state: "dead", attempts: 2, error: "upstream 503" });
    expect(await events(id)).toEqual(["claimed", "retry_scheduled", "claimed", "dead"]);
    // Nothing claims a dead analysis.
    expect(await claimLeases({ rubricVersions: MONITOR_RUBRIC_VERSIONS, workerId: "w", limit: 5, skipReap: true })).toEqual([]);

    // Visible where the queue is shown.
    const desk = await adminDesk(mod.user.id, { state: "dead" });
    expect(desk.state).toBe("dead");
    expect(desk.counts.dead).toBe(1);
    expect(desk.analyses.map((a) => [a.id, a.state])).toEqual([[id, "dead"]]);

    // Only moderators requeue; only dead analyses are requeued.
    expect((await appError(requeueDeadForModerator(user.id, id))).code).toBe("forbidden");
    expect((await appError(requeueDeadForModerator(null, id))).code).toBe("unauthorized");
    const back = await requeueDeadForModerator(mod.user.id, id);
    expect(back).toMatchObject({ id, state: "queued", attempts: 2, maxAttempts: 4 });
    expect((await appError(requeueDeadForModerator(mod.user.id, id))).code).toBe("conflict");
    expect((await appError(requeueDeadForModerator(mod.user.id, "no-such-analysis"))).code).toBe("not_found");
    const log = await prisma.analysisAttempt.findMany({ where: { analysisId: id }, orderBy: { id: "asc" } });
    expect(log.at(-1)).toMatchObject({ event: "requeued", attempt: 2, detail: `requeued from the dead letter by ${mod.user.id}` });

    // It runs again as attempt 3 and can succeed.
    const [again] = await claimLeases({ rubricVersions: MONITOR_RUBRIC_VERSIONS, workerId: "w", limit: 1, skipReap: true });
    expect(again).toMatchObject({ id, attempt: 3, maxAttempts: 4 });
    const done = await completeLease(id, { leaseToken: again.leaseToken, evidence: fixtureEvidence(fullListing()) });
    expect(done.resultId).toBeTruthy();
  });

  it("a requeue that would make a second active analysis for the submitter is a 409 naming the active one", async () => {
    configureQueue({ maxAttempts: 1 });
    const { org, user } = await seedOwner(prisma);
    const mod = await seedOwner(prisma, "moderator");
    const listingId = await seedListing(prisma, org.id);
    const { id } = await reanalyseForActor(user.id, listingId);
    const [job] = await claimLeases({ rubricVersions: MONITOR_RUBRIC_VERSIONS, workerId: "w", limit: 1, skipReap: true });
    expect((await failLease(id, { leaseToken: job.leaseToken, reason: "x" })).state).toBe("dead");
    const second = await reanalyseForActor(user.id, listingId);
    const e = await appError(requeueDeadForModerator(mod.user.id, id));
    expect(e.code).toBe("conflict");
    expect(e.extra.activeAnalysisId).toBe(second.id);
    expect((await prisma.analysis.findUniqueOrThrow({ where: { id } })).state).toBe("dead");
  });
});

describe("fairness", () => {
  ownDatabase();

  it("one seller's 200-job backlog does not starve another seller's single job, and claims round-robin across sellers", async () => {
    const a = await seedOwner(prisma);
    const b = await seedOwner(prisma);
    const c = await seedOwner(prisma);
    const enqueue = async (listingIds: string[]) => {
      const ids: string[] = [];
      for (const listingId of listingIds) {
        const row = await requestAnalysis({ submitter: `system:staleness:${listingId}`, listingId, targetUrl: `https://fair-${listingId}.example.com/`, trigger: "staleness", priority: PRIORITY_SWEEP });
        ids.push(row.id);
      }
      return ids;
    };
    const backlog = await enqueue(await seedListings(prisma, a.org.id, 200));
    await sleep(5);
    const [single] = await enqueue(await seedListings(prisma, b.org.id, 1));
    await sleep(5);
    const three = await enqueue(await seedListings(prisma, c.org.id, 3));
    const orgOf = new Map<string, string>([...backlog.map((id) => [id, "A"] as const), [single, "B"], ...three.map((id) => [id, "C"] as const)]);

    const order: string[] = [];
    for (let i = 0; i < 8; i++) {
      const [job] = await claimLeases({ rubricVersions: MONITOR_RUBRIC_VERSIONS, workerId: "w", limit: 1, skipReap: true });
      order.push(orgOf.get(job.id)!);
    }
    // B's single job is the second claim (A's oldest went first), then the lines alternate.
    expect(order.indexOf("B")).toBeLessThan(3);
    expect(order).toEqual(["A", "B", "C", "A", "C", "A", "C", "A"]);
    // A batch claim keeps the same order: what is left is A's backlog, oldest first.
    const rest = await claimLeases({ rubricVersions: MONITOR_RUBRIC_VERSIONS, workerId: "w", limit: 100, skipReap: true });
    expect(rest.map((j) => orgOf.get(j.id))).toEqual(Array(100).fill("A"));
    expect(rest.map((j) => j.id)).toEqual(backlog.slice(4, 104));
    const tags = await prisma.analysis.findMany({ where: { id: { in: [single, ...three] } }, select: { id: true, fairKey: true, fairTag: true } });
    expect(new Map(tags.map((r) => [r.id, [r.fairKey, r.fairTag]])).get(single)).toEqual([b.org.id, 0]);
    expect((await claimLeases({ rubricVersions: MONITOR_RUBRIC_VERSIONS, workerId: "w", limit: 100, skipReap: true })).map((j) => j.id)).toEqual(backlog.slice(104));
  });

  it("a seller arriving after others' lines have moved on starts level with their heads, not ahead of everything", async () => {
    const a = await seedOwner(prisma);
    const b = await seedOwner(prisma);
    const enqueue = async (orgId: string, n: number) => {
      const ids: string[] = [];
      for (const listingId of await seedListings(prisma, orgId, n)) {
        ids.push((await requestAnalysis({ submitter: `system:staleness:${listingId}`, listingId, targetUrl: `https://l-${listingId}.example.com/`, trigger: "staleness", priority: PRIORITY_SWEEP })).id);
      }
      return ids;
    };
    const aIds = await enqueue(a.org.id, 10);
    await claimLeases({ rubricVersions: MONITOR_RUBRIC_VERSIONS, workerId: "w", limit: 6, skipReap: true }); // A's tags 0–5 go; 6–9 wait
    await sleep(5);
    const bIds = await enqueue(b.org.id, 4);
    const tagOf = async (id: string) => (await prisma.analysis.findUniqueOrThrow({ where: { id } })).fairTag;
    expect(await tagOf(bIds[0])).toBe(6);
    const next = await claimLeases({ rubricVersions: MONITOR_RUBRIC_VERSIONS, workerId: "w", limit: 8, skipReap: true });
    const who = (id: string) => (aIds.includes(id) ? "A" : "B");
    expect(next.map((j) => who(j.id))).toEqual(["A", "B", "A", "B", "A", "B", "A", "B"]);
  });
});

describe("retention", () => {
  ownDatabase();

  it("moves finished analyses older than the configured age, with their attempt logs, into the archive; results and pointers are untouched", async () => {
    configureQueue({ retentionDays: 30, maxAttempts: 1 });
    const { org, user } = await seedOwner(prisma);
    const listingA = await seedListing(prisma, org.id);
    const other = await seedOwner(prisma);
    const { id: oldDone } = await reanalyseForActor(user.id, listingA);
    const [j1] = await claimLeases({ rubricVersions: MONITOR_RUBRIC_VERSIONS, workerId: "w", limit: 1, skipReap: true });
    const done = await completeLease(oldDone, { leaseToken: j1.leaseToken, evidence: fixtureEvidence(fullListing()) });
    // A second, recent success of the same listing, a dead one and a running one, all old by createdAt.
    const { id: recentDone } = await reanalyseForActor(user.id, listingA);
    const [j2] = await claimLeases({ rubricVersions: MONITOR_RUBRIC_VERSIONS, workerId: "w", limit: 1, skipReap: true });
    expect(await finishLease(prisma, recentDone, j2.leaseToken)).toBe(true);
    const { id: dead } = await reanalyseForActor(other.user.id, await seedListing(prisma, other.org.id));
    const [j3] = await claimLeases({ rubricVersions: MONITOR_RUBRIC_VERSIONS, workerId: "w", limit: 1, skipReap: true });
    expect((await failLease(dead, { leaseToken: j3.leaseToken, reason: "gone" })).state).toBe("dead");
    await exec(prisma, `UPDATE "catalog_scoring_analyses" SET "finishedAt" = "finishedAt" - interval '40 days' WHERE "id" IN ($1, $2)`, oldDone, dead);

    const liveRow = (await rows(prisma, `SELECT to_jsonb(a) AS "row" FROM "catalog_scoring_analyses" a WHERE "id" = $1`, oldDone)) as Array<{ row: unknown }>;
    const liveLog = (await rows(prisma, `SELECT to_jsonb(t) AS "row" FROM "catalog_scoring_attempts" t WHERE "analysisId" = $1 ORDER BY "id"`, oldDone)) as Array<{ row: unknown }>;
    const resultBefore = await prisma.readinessResult.findUniqueOrThrow({ where: { id: done.resultId! } });

    const moved = await archiveFinishedAnalyses();
    expect(moved).toEqual({ analyses: 1, attempts: 2 });
    expect(await prisma.analysis.count({ where: { id: oldDone } })).toBe(0);
    expect(await prisma.analysisAttempt.count({ where: { analysisId: oldDone } })).toBe(0);
    const archived = await prisma.analysisArchive.findUniqueOrThrow({ where: { id: oldDone } });
    expect(archived.row).toEqual(liveRow[0].row);
    expect((await prisma.analysisAttemptArchive.findMany({ where: { analysisId: oldDone }, orderBy: { id: "asc" } })).map((r) => r.row)).toEqual(liveLog.map((r) => r.row));
    // The recent success and the dead letter stay live; the result and the pointer are as they were.
    expect(await prisma.analysis.count({ where: { id: { in: [recentDone, dead] } } })).toBe(2);
    expect(await prisma.readinessResult.findUniqueOrThrow({ where: { id: done.resultId! } })).toEqual(resultBefore);
    expect((await prisma.listing.findUniqueOrThrow({ where: { id: listingA } })).currentResultId).toBe(done.resultId);
    // Idempotent: nothing more is old enough.
    expect(await archiveFinishedAnalyses()).toEqual({ analyses: 0, attempts: 0 });
    // The tick is registered like the others.
    expect(analysisTicks.map((k) => k.name)).toContain("analyses.retention");
  });

  it("the archive move is the only way rows leave: direct deletes, a forged archive copy, and changes to the archive are refused", async () => {
    configureQueue({ retentionDays: 30 });
    const { org, user } = await seedOwner(prisma);
    const { id } = await reanalyseForActor(user.id, await seedListing(prisma, org.id));
    const [job] = await claimLeases({ rubricVersions: MONITOR_RUBRIC_VERSIONS, workerId: "w", limit: 1, skipReap: true });
    expect(await finishLease(prisma, id, job.leaseToken)).toBe(true);
    const run = (sql: string, ...p: unknown[]) => exec(prisma, sql, ...p);
    // Not archived: the live log and the analysis cannot be deleted.
    await expect(run(`DELETE FROM "catalog_scoring_attempts" WHERE "analysisId" = $1`, id)).rejects.toThrow();
    await expect(run(`DELETE FROM "catalog_scoring_analyses" WHERE "id" = $1`, id)).rejects.toThrow();
    // A forged archive copy (content differs from the live row) does not open the door.
    await run(
      `INSERT INTO "catalog_scoring_attempts_archive" ("analysisId", "id", "row")
       SELECT "analysisId", "id", jsonb_set(to_jsonb(t), '{event}', '"forged"') FROM "catalog_scoring_attempts" t WHERE "analysisId" = $1`,
      id,
    );
    await expect(run(`DELETE FROM "catalog_scoring_attempts" WHERE "analysisId" = $1`, id)).rejects.toThrow();
    expect(await prisma.analysisAttempt.count({ where: { analysisId: id } })).toBe(2);
    // The archive itself is append-only: no UPDATE, DELETE or TRUNCATE.
    await expect(run(`UPDATE "catalog_scoring_attempts_archive" SET "row" = '{}' WHERE "analysisId" = $1`, id)).rejects.toThrow();
    await expect(run(`DELETE FROM "catalog_scoring_attempts_archive" WHERE "analysisId" = $1`, id)).rejects.toThrow();
    await expect(run(`TRUNCATE "catalog_scoring_attempts_archive"`)).rejects.toThrow();
    await expect(run(`TRUNCATE "catalog_scoring_analyses_archive"`)).rejects.toThrow();
    // An exact copy of a running analysis's log row still does not let it go.
    const { id: running } = await reanalyseForActor(user.id, await seedListing(prisma, org.id));
    await claimLeases({ rubricVersions: MONITOR_RUBRIC_VERSIONS, workerId: "w", limit: 1, skipReap: true });
    await run(`INSERT INTO "catalog_scoring_attempts_archive" ("analysisId", "id", "row") SELECT "analysisId", "id", to_jsonb(t) FROM "catalog_scoring_attempts" t WHERE "analysisId" = $1`, running);
    await expect(run(`DELETE FROM "catalog_scoring_attempts" WHERE "analysisId" = $1`, running)).rejects.toThrow();
    // UPDATE of the live log stays refused.
    await expect(run(`UPDATE "catalog_scoring_attempts" SET "detail" = 'x' WHERE "analysisId" = $1`, running)).rejects.toThrow();
  });

  it("TOLLGATE_QUEUE_RETENTION_DAYS is checked, and off archives nothing", async () => {
    expect(parseEnv({ NODE_ENV: "test" }).TOLLGATE_QUEUE_RETENTION_DAYS).toBe("30");
    expect(() => parseEnv({ NODE_ENV: "test", TOLLGATE_QUEUE_RETENTION_DAYS: "0" })).toThrow(/TOLLGATE_QUEUE_RETENTION_DAYS/);
    expect(() => parseEnv({ NODE_ENV: "test", TOLLGATE_QUEUE_RETENTION_DAYS: "ten" })).toThrow(/TOLLGATE_QUEUE_RETENTION_DAYS/);
    configureQueue({ retentionDays: null });
    const { org, user } = await seedOwner(prisma);
    const { id } = await reanalyseForActor(user.id, await seedListing(prisma, org.id));
    const [job] = await claimLeases({ rubricVersions: MONITOR_RUBRIC_VERSIONS, workerId: "w", limit: 1, skipReap: true });
    await finishLease(prisma, id, job.leaseToken);
    await exec(prisma, `UPDATE "catalog_scoring_analyses" SET "finishedAt" = "finishedAt" - interval '4000 days' WHERE "id" = $1`, id);
    expect(await archiveFinishedAnalyses()).toEqual({ analyses: 0, attempts: 0 });
    expect(await prisma.analysis.count({ where: { id } })).toBe(1);
  });
});
