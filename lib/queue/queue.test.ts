/**
 * The queue on one process, on PGlite and (with TEST_DATABASE_URL) server Postgres: triggers,
 * fencing, backoff, the attempts cap, rubric releases, immutability and the 409 on double submission.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { exec, rows } from "@/lib/sql";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { AppError } from "@/lib/errors";
import { configureQueue, backoffCeilingMs, DEFAULT_QUEUE_CONFIG } from "./config";
import { onListingPublished, onRubricRelease, releaseKind, requestAnalysis, staleSweep, PRIORITY_RUBRIC_MISMATCH, checkRubricRelease } from "./enqueue-analysis";
import { claimLeases, failLease, heartbeatLease, reapExpiredLeases } from "./lease";
import { acknowledgeRubricNotice, completeLease, RUBRIC_NOTICE_TEXT } from "@/lib/analyses/store-result";
import { fixtureEvidence } from "@/lib/catalog-monitor/probes";
import { MONITOR_RUBRIC_VERSIONS } from "@/lib/probe/capabilities";
import { getAnalysisForActor, reanalyseForActor } from "@/lib/analyses/progress";
import { submitAnalysisForActor } from "@/lib/intake/api-door";
import { opsClaim, opsMetricsText } from "@/lib/ops/handlers";
import { ledgerFactsForScoring } from "@/lib/facts/aggregate";
import { seedListing, seedListings, seedOwner } from "@/test/analyses";
import { fullListing } from "@/test/readiness";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { CURRENT_RUBRIC, rubricVersionString } from "@/lib/scoring/readiness";

/** The rubric this build serves (readiness/1.2.0). */
const SERVED = rubricVersionString(CURRENT_RUBRIC);

let t: TestDatabase;
let prisma: PrismaClient;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  t = await createTestDatabase();
  prisma = t.prisma;
});
afterAll(async () => {
  await t?.close();
});
beforeEach(() => {
  configureQueue({ ...DEFAULT_QUEUE_CONFIG });
});

async function expectAppError(p: Promise<unknown>, code: string): Promise<AppError> {
  const e = await p.then(
    () => null,
    (err) => err,
  );
  expect(e, `expected AppError ${code}`).toBeInstanceOf(AppError);
  expect((e as AppError).code).toBe(code);
  return e as AppError;
}

/** Claim exactly the analysis `id` (other queued rows are pushed into the future first). */
async function claimOne(id: string, leaseMs = 60_000, workerId = "w1") {
  await reapExpiredLeases();
  await exec(prisma, `UPDATE "catalog_scoring_analyses" SET "runAfter" = "runAfter" + interval '1 day' WHERE "state" = 'queued' AND "id" <> $1`, id);
  const [job] = await claimLeases({ workerId, limit: 1, leaseMs, skipReap: true, rubricVersions: MONITOR_RUBRIC_VERSIONS });
  await exec(prisma, `UPDATE "catalog_scoring_analyses" SET "runAfter" = "runAfter" - interval '1 day' WHERE "state" = 'queued' AND "id" <> $1`, id);
  expect(job?.id).toBe(id);
  return job;
}

describe("triggers", () => {
  it("refuses targets with credentials, a query or a fragment before any row is written", async () => {
    const before = await prisma.analysis.count();
    for (const [url, code] of [
      ["https://user:pw@api.example.com/", "credentials_in_url"],
      ["https://api.example.com/?key=1", "query_not_allowed"],
      ["https://api.example.com/#x", "fragment_not_allowed"],
    ] as const) {
      const e = await expectAppError(requestAnalysis({ submitter: "u-refuse", targetUrl: url, trigger: "submit" }), "refused_target");
      expect(e.extra.refusal).toBe(code);
    }
    expect(await prisma.analysis.count()).toBe(before);
  });

  it("a second submission by the same submitter is a 409 naming the active analysis", async () => {
    const { org, user } = await seedOwner(prisma);
    const listingId = await seedListing(prisma, org.id);
    const first = await reanalyseForActor(user.id, listingId);
    const e = await expectAppError(reanalyseForActor(user.id, listingId), "conflict");
    expect(e.status).toBe(409);
    expect(e.extra.activeAnalysisId).toBe(first.id);
  });

  it("20 concurrent submissions: exactly one row, nineteen 409s naming it", async () => {
    const { org, user } = await seedOwner(prisma);
    const listingId = await seedListing(prisma, org.id);
    const settled = await Promise.allSettled(Array.from({ length: 20 }, () => submitAnalysisForActor(user.id, { listingId })));
    const ok = settled.filter((s) => s.status === "fulfilled") as PromiseFulfilledResult<{ id: string }>[];
    const refused = settled.filter((s) => s.status === "rejected") as PromiseRejectedResult[];
    expect(ok).toHaveLength(1);
    expect(refused).toHaveLength(19);
    for (const r of refused) {
      expect((r.reason as AppError).code).toBe("conflict");
      expect((r.reason as AppError).extra.activeAnalysisId).toBe(ok[0].value.id);
    }
    expect(await prisma.analysis.count({ where: { submitter: user.id } })).toBe(1);
  });

  it("publish is keyed per listing, so an owner publishing two listings is not refused", async () => {
    const { org, user } = await seedOwner(prisma);
    const a = await onListingPublished(await seedListing(prisma, org.id), user.id);
    const b = await onListingPublished(await seedListing(prisma, org.id), user.id);
    expect(a.id).not.toBe(b.id);
    // Publishing again while it is active returns the active one instead of failing.
    const again = await onListingPublished(a.listingId!, user.id);
    expect(again.id).toBe(a.id);
  });

  it("an owner cannot re-analyse another organization's listing", async () => {
    const mine = await seedOwner(prisma);
    const theirs = await seedOwner(prisma);
    const listingId = await seedListing(prisma, theirs.org.id);
    await expectAppError(reanalyseForActor(mine.user.id, listingId), "not_found");
    await expectAppError(reanalyseForActor(null, listingId), "unauthorized");
  });
});

describe("leases", () => {
  it("claim → heartbeat → complete stores evidence and an immutable result and moves the pointer in one go", async () => {
    const { org, user } = await seedOwner(prisma);
    const listingId = await seedListing(prisma, org.id);
    const { id } = await reanalyseForActor(user.id, listingId);
    const job = await claimOne(id);
    expect(job.attempt).toBe(1);
    const hb = await heartbeatLease(id, { leaseToken: job.leaseToken, step: "probing", leaseMs: 30_000 });
    expect(hb.step).toBe("probing");
    const progress = await getAnalysisForActor(user.id, id);
    expect(progress).toMatchObject({ state: "running", step: "probing", attempts: 1 });

    const done = await completeLease(id, { leaseToken: job.leaseToken, evidence: fixtureEvidence(fullListing()), probeMs: 12 });
    expect(done.alreadyCompleted).toBe(false);
    const row = await prisma.analysis.findUniqueOrThrow({ where: { id } });
    expect(row).toMatchObject({ state: "succeeded", step: "done", resultId: done.resultId, rubricVersion: SERVED });
    const listing = await prisma.listing.findUniqueOrThrow({ where: { id: listingId } });
    expect(listing.currentResultId).toBe(done.resultId);
    const result = await prisma.readinessResult.findUniqueOrThrow({ where: { id: done.resultId! } });
    expect(result).toMatchObject({ provisional: false, rubricVersion: SERVED, evidenceId: done.evidenceId, analysisId: id });
    expect(result.total).toBeGreaterThan(0);
    const log = await prisma.analysisAttempt.findMany({ where: { analysisId: id }, orderBy: { id: "asc" } });
    expect(log.map((l) => l.event)).toEqual(["claimed", "succeeded"]);

    // A retried completion of the same lease (its first answer lost) is recognised, not re-applied.
    const replay = await completeLease(id, { leaseToken: job.leaseToken, evidence: fixtureEvidence(fullListing()) });
    expect(replay).toMatchObject({ alreadyCompleted: true, resultId: done.resultId });
    expect(await prisma.readinessResult.count({ where: { analysisId: id } })).toBe(1);

    // Results are never rewritten: the trigger refuses UPDATE and DELETE (PGlite's adapter drops the
    // message, so the proof is the refusal plus the row unchanged).
    const total = result.total;
    await expect(exec(prisma, `UPDATE "catalog_scoring_results" SET "total" = $2 WHERE "id" = $1`, done.resultId, total === 1 ? 2 : 1)).rejects.toThrow();
    await expect(exec(prisma, `DELETE FROM "catalog_scoring_results" WHERE "id" = $1`, done.resultId)).rejects.toThrow();
    await expect(prisma.readinessResult.update({ where: { id: done.resultId! }, data: { total: 1 } })).rejects.toThrow();
    await expect(exec(prisma, `DELETE FROM "catalog_scoring_attempts" WHERE "analysisId" = $1`, id)).rejects.toThrow();
    // The log has no foreign key (migration 20261202152000_queue_lean); what keeps it from naming a
    // vanished analysis is that an analysis with a log cannot be deleted, directly or by cascade.
    await expect(exec(prisma, `DELETE FROM "catalog_scoring_analyses" WHERE "id" = $1`, id)).rejects.toThrow();
    expect((await prisma.readinessResult.findUniqueOrThrow({ where: { id: done.resultId! } })).total).toBe(total);
    expect(await prisma.analysisAttempt.count({ where: { analysisId: id } })).toBe(2);
    expect(await prisma.analysis.count({ where: { id } })).toBe(1);
  });

  it("a stale worker's completion is rejected with lease_lost and changes nothing", async () => {
    const { org, user } = await seedOwner(prisma);
    const listingId = await seedListing(prisma, org.id);
    const { id } = await reanalyseForActor(user.id, listingId);
    configureQueue({ backoffJitter: false, backoffBaseMs: 1 });
    const stale = await claimOne(id, 250, "stale");
    await sleep(400);
    expect((await reapExpiredLeases()).requeued).toBeGreaterThanOrEqual(1);
    await sleep(5);
    const fresh = await claimOne(id, 60_000, "fresh");
    expect(fresh.attempt).toBe(2);
    const snapshot = async () => ({
      a: await prisma.analysis.findUniqueOrThrow({ where: { id } }),
      results: await prisma.readinessResult.count({ where: { listingId } }),
      evidence: await prisma.probeEvidence.count({ where: { listingId } }),
      log: await prisma.analysisAttempt.count({ where: { analysisId: id } }),
      pointer: (await prisma.listing.findUniqueOrThrow({ where: { id: listingId } })).currentResultId,
    });
    const before = await snapshot();
    for (const call of [
      () => completeLease(id, { leaseToken: stale.leaseToken, evidence: fixtureEvidence(fullListing()) }),
      () => heartbeatLease(id, { leaseToken: stale.leaseToken }),
      () => failLease(id, { leaseToken: stale.leaseToken, reason: "stale" }),
      () => completeLease(id, { leaseToken: "0000-not-a-token-0000", evidence: fixtureEvidence(fullListing()) }),
    ]) {
      const e = await expectAppError(call(), "lease_lost");
      expect(e.status).toBe(409);
    }
    expect(await snapshot()).toEqual(before);
    const ok = await completeLease(id, { leaseToken: fresh.leaseToken, evidence: fixtureEvidence(fullListing()) });
    expect(ok.resultId).toBeTruthy();
  });

  it("an expired lease cannot complete even before the reaper runs", async () => {
    const { org, user } = await seedOwner(prisma);
    const { id } = await reanalyseForActor(user.id, await seedListing(prisma, org.id));
    const job = await claimOne(id, 250);
    await sleep(350);
    await expectAppError(completeLease(id, { leaseToken: job.leaseToken, evidence: fixtureEvidence(fullListing()) }), "lease_lost");
    expect((await prisma.analysis.findUniqueOrThrow({ where: { id } })).state).toBe("running");
  });

  it("backoff grows and is capped (no jitter), and stays under the ceiling with full jitter", async () => {
    configureQueue({ backoffJitter: false, backoffBaseMs: 1_000, backoffCapMs: 8_000, maxAttempts: 8 });
    expect([1, 2, 3, 4, 5, 6].map((n) => backoffCeilingMs(n))).toEqual([1000, 2000, 4000, 8000, 8000, 8000]);
    const { org, user } = await seedOwner(prisma);
    const { id } = await reanalyseForActor(user.id, await seedListing(prisma, org.id));
    const waits: number[] = [];
    for (let attempt = 1; attempt <= 6; attempt++) {
      // Bring the retry forward so the test need not wait the backoff out.
      await exec(prisma, `UPDATE "catalog_scoring_analyses" SET "runAfter" = (now() AT TIME ZONE 'UTC') - interval '1 second' WHERE "id" = $1`, id);
      const job = await claimOne(id);
      const out = await failLease(id, { leaseToken: job.leaseToken, reason: `boom ${attempt}` });
      expect(out.state).toBe("queued");
      const [{ ms }] = (await rows(prisma,
        `SELECT (extract(epoch from ("runAfter" - "updatedAt")) * 1000)::int AS ms FROM "catalog_scoring_analyses" WHERE "id" = $1`,
        id,
      )) as Array<{ ms: number }>;
      waits.push(ms);
    }
    expect(waits).toEqual([1000, 2000, 4000, 8000, 8000, 8000]);

    configureQueue({ backoffJitter: true });
    await exec(prisma, `UPDATE "catalog_scoring_analyses" SET "runAfter" = (now() AT TIME ZONE 'UTC') - interval '1 second' WHERE "id" = $1`, id);
    const job = await claimOne(id);
    await failLease(id, { leaseToken: job.leaseToken, reason: "jittered" });
    const [{ ms }] = (await rows(prisma, `SELECT (extract(epoch from ("runAfter" - "updatedAt")) * 1000)::int AS ms FROM "catalog_scoring_analyses" WHERE "id" = $1`, id)) as Array<{ ms: number }>;
    expect(ms).toBeGreaterThanOrEqual(0);
    expect(ms).toBeLessThanOrEqual(8000);
  });

  it("the attempts cap ends in the dead letter with the reason (expired leases)", async () => {
    configureQueue({ backoffJitter: false, backoffBaseMs: 1, backoffCapMs: 5, maxAttempts: 2 });
    const { org, user } = await seedOwner(prisma);
    const { id } = await reanalyseForActor(user.id, await seedListing(prisma, org.id));
    for (let i = 1; i <= 2; i++) {
      await sleep(10);
      await claimOne(id, 250, `dying-${i}`);
      await sleep(300);
      await reapExpiredLeases();
    }
    const a = await prisma.analysis.findUniqueOrThrow({ where: { id } });
    expect(a).toMatchObject({ state: "dead", step: "done", attempts: 2 });
    expect(a.error).toMatch(/lease expired: worker dying-2 stopped renewing it during attempt 2 of 2/);
    expect(a.finishedAt).not.toBeNull();
    const events = (await prisma.analysisAttempt.findMany({ where: { analysisId: id }, orderBy: { id: "asc" } })).map((l) => l.event);
    expect(events).toEqual(["claimed", "expired_requeued", "claimed", "expired_dead"]);
    // The dead letter's only way out is back to queued (a moderator's requeue): the trigger refuses the rest.
    for (const to of ["running", "succeeded", "failed", "deferred"]) {
      await expect(exec(prisma, `UPDATE "catalog_scoring_analyses" SET "state" = $2::"AnalysisState" WHERE "id" = $1`, id, to)).rejects.toThrow();
    }
    expect((await prisma.analysis.findUniqueOrThrow({ where: { id } })).state).toBe("dead");
  });

  it("a claim takes the highest priority first, then the earliest runAfter, skips future rows, and returns them in that order", async () => {
    const db2 = await createTestDatabase({ register: false });
    try {
      const p = db2.prisma;
      // [id, priority, runAfter offset in minutes]: a future row is not due; ties go to the earlier runAfter.
      const rows: Array<[string, number, number]> = [["low-old", 0, -30], ["high-new", 5, -1], ["mid", 2, -10], ["high-old", 5, -20], ["future", 9, 60], ["low-new", 0, -5]];
      for (const [id, priority, minutes] of rows) {
        await exec(p,
          `INSERT INTO "catalog_scoring_analyses" ("id", "submitter", "trigger", "targetUrl", "priority", "runAfter")
           VALUES ($1, $1, 'submit', 'https://' || $1 || '.example.com', $2, (now() AT TIME ZONE 'UTC') + make_interval(mins => $3))`,
          id,
          priority,
          minutes,
        );
      }
      const first = await claimLeases({ workerId: "w", limit: 3, client: p, skipReap: true, rubricVersions: MONITOR_RUBRIC_VERSIONS });
      expect(first.map((c) => c.id)).toEqual(["high-old", "high-new", "mid"]);
      const rest = await claimLeases({ workerId: "w", limit: 10, client: p, skipReap: true, rubricVersions: MONITOR_RUBRIC_VERSIONS });
      expect(rest.map((c) => c.id)).toEqual(["low-old", "low-new"]);
      expect(await claimLeases({ workerId: "w", limit: 10, client: p, skipReap: true, rubricVersions: MONITOR_RUBRIC_VERSIONS })).toEqual([]);
      const log = await p.analysisAttempt.findMany({ orderBy: { id: "asc" } });
      const byId = (x: string[], y: string[]) => x[0].localeCompare(y[0]);
      expect(log.map((l) => [l.analysisId, l.event, String(l.attempt), l.workerId ?? ""]).sort(byId)).toEqual(
        [...first, ...rest].map((c) => [c.id, "claimed", "1", "w"]).sort(byId),
      );
      expect(log.map((l) => l.leaseToken).sort()).toEqual([...first, ...rest].map((c) => c.leaseToken).sort());
    } finally {
      await db2.close();
    }
  });

  it("a non-retryable worker failure (refused target) fails at once with its reason", async () => {
    const { org, user } = await seedOwner(prisma);
    const { id } = await reanalyseForActor(user.id, await seedListing(prisma, org.id));
    const job = await claimOne(id);
    const out = await failLease(id, { leaseToken: job.leaseToken, reason: "refused_target: address_forbidden: 10.0.0.1", retryable: false });
    expect(out.state).toBe("failed");
    expect((await prisma.analysis.findUniqueOrThrow({ where: { id } })).error).toBe("refused_target: address_forbidden: 10.0.0.1");
    // failed is terminal: the state machine trigger refuses to revive it.
    await expect(exec(prisma, `UPDATE "catalog_scoring_analyses" SET "state" = 'queued' WHERE "id" = $1`, id)).rejects.toThrow();
    expect((await prisma.analysis.findUniqueOrThrow({ where: { id } })).state).toBe("failed");
  });

  it("claims carry the listing document and allowHosts; bad evidence is a 400 naming the field", async () => {
    const { org, user } = await seedOwner(prisma);
    const listingId = await seedListing(prisma, org.id, { title: "Document carried in the claim" });
    const { id } = await reanalyseForActor(user.id, listingId);
    await exec(prisma, `UPDATE "catalog_scoring_analyses" SET "runAfter" = "runAfter" + interval '1 day' WHERE "state" = 'queued' AND "id" <> $1`, id);
    const { jobs } = await opsClaim({ workerId: "w", limit: 5, rubricVersions: MONITOR_RUBRIC_VERSIONS });
    await exec(prisma, `UPDATE "catalog_scoring_analyses" SET "runAfter" = "runAfter" - interval '1 day' WHERE "state" = 'queued'`);
    expect(jobs).toHaveLength(1);
    expect(jobs[0].document?.title).toBe("Document carried in the claim");
    expect(Array.isArray(jobs[0].allowHosts)).toBe(true);
    const e = await expectAppError(completeLease(id, { leaseToken: jobs[0].leaseToken, evidence: { version: 2, endpoints: "nope" } as never }), "bad_request");
    expect(e.details[0].pointer).toBe("/evidence/endpoints");
    // The evidence format carries its version; one this build does not read is refused by name, before anything else is read.
    const v = await expectAppError(completeLease(id, { leaseToken: jobs[0].leaseToken, evidence: { ...fixtureEvidence(fullListing()), version: 3 } as never }), "bad_request");
    expect(v.details).toEqual([{ pointer: "/evidence/version", message: "unknown probe evidence format version 3; this build reads versions 1, 2" }]);
    expect(v.message).toBe("evidence is invalid at /evidence/version: unknown probe evidence format version 3; this build reads versions 1, 2");
    expect((await prisma.analysis.findUniqueOrThrow({ where: { id } })).state).toBe("running");
  });

  it("a URL submission becomes a draft listing of the submitter's organization on completion", async () => {
    const { org, user } = await seedOwner(prisma);
    const q = await submitAnalysisForActor(user.id, { url: "https://api.drafted.example.com/v1/forecast" });
    expect(q.listingId).toBeNull();
    const job = await claimOne(q.id);
    const draft = fullListing({ title: "Drafted from a URL", baseUrl: "https://api.drafted.example.com" });
    const done = await completeLease(q.id, { leaseToken: job.leaseToken, evidence: fixtureEvidence(draft), document: draft });
    const listing = await prisma.listing.findUniqueOrThrow({ where: { id: done.listingId } });
    expect(listing).toMatchObject({ organizationId: org.id, title: "Drafted from a URL", publicationState: "draft", currentResultId: done.resultId });
    expect((await getAnalysisForActor(user.id, q.id)).listingId).toBe(done.listingId);
  });
});

describe("sweeps and rubric releases", () => {
  it("compares semver: major, minor, patch, initial; a downgrade is refused", () => {
    expect(releaseKind("2.0.0", "1.4.2")).toBe("major");
    expect(releaseKind("1.5.0", "1.4.2")).toBe("minor");
    expect(releaseKind("readiness/1.4.3", "1.4.2")).toBe("patch");
    expect(releaseKind("1.0.0", null)).toBe("initial");
    expect(() => releaseKind("1.3.0", "1.4.0")).toThrow(/older/);
  });

  it("a MINOR bump re-queues every listing, those scored under another version first; a PATCH queues none", async () => {
    const db2 = await createTestDatabase({ register: false });
    try {
      const p = db2.prisma;
      const { org } = await seedOwner(p);
      const ids = await seedListings(p, org.id, 6);
      // Three listings scored under the previous 1.1.0, three under the released 1.2.0 (made by hand).
      for (const [i, listingId] of ids.entries()) {
        const version = i < 3 ? "readiness/1.1.0" : "readiness/1.2.0";
        const r = await p.readinessResult.create({
          data: { listingId, rubricVersion: version, total: 50, rawTotal: 50, band: "x", provisional: false, caps: [], dimensions: [], rules: [], improvements: [], document: {} },
        });
        await p.listing.update({ where: { id: listingId }, data: { currentResultId: r.id } });
      }
      const patch = await onRubricRelease("1.2.1", "1.2.0", p);
      expect(patch).toMatchObject({ kind: "patch", recorded: true, queued: 0 });
      expect(await p.analysis.count()).toBe(0);

      const minor = await onRubricRelease("1.2.0", "1.1.0", p);
      expect(minor).toMatchObject({ kind: "minor", recorded: true, queued: 6, mismatched: 3 });
      const rows = await p.analysis.findMany({ orderBy: { priority: "desc" } });
      expect(rows.every((r) => r.trigger === "rubric" && r.submitter === `system:rubric:${r.listingId}`)).toBe(true);
      const claimed = await claimLeases({ workerId: "w", limit: 3, client: p, rubricVersions: MONITOR_RUBRIC_VERSIONS });
      expect(new Set(claimed.map((c) => c.listingId))).toEqual(new Set(ids.slice(0, 3)));
      expect(rows.filter((r) => r.priority === PRIORITY_RUBRIC_MISMATCH).map((r) => r.listingId).sort()).toEqual(ids.slice(0, 3).sort());

      // Handling the same release again queues nothing more.
      expect(await onRubricRelease("1.2.0", "1.1.0", p)).toMatchObject({ recorded: false, queued: 0 });
      expect(await p.rubricRelease.count()).toBe(2);
    } finally {
      await db2.close();
    }
  });

  it("the rubric release check records the served version once", async () => {
    const db2 = await createTestDatabase({ register: false });
    try {
      const first = await checkRubricRelease(db2.prisma);
      expect(first).toMatchObject({ version: SERVED, kind: "initial", queued: 0 });
      expect(await checkRubricRelease(db2.prisma)).toBeNull();
    } finally {
      await db2.close();
    }
  });

  it("a rubric re-score replacing another minor version sets the seller's notice until acknowledged", async () => {
    const { org, user } = await seedOwner(prisma);
    const listingId = await seedListing(prisma, org.id);
    const old = await prisma.readinessResult.create({
      data: { listingId, rubricVersion: "readiness/0.9.0", total: 40, rawTotal: 40, band: "x", provisional: false, caps: [], dimensions: [], rules: [], improvements: [], document: {} },
    });
    await prisma.listing.update({ where: { id: listingId }, data: { currentResultId: old.id } });
    const a = await prisma.analysis.create({ data: { submitter: `system:rubric:${listingId}`, listingId, trigger: "rubric", targetUrl: "https://api.weatherly.dev" } });
    const job = await claimOne(a.id);
    await completeLease(a.id, { leaseToken: job.leaseToken, evidence: fixtureEvidence(fullListing()) });
    expect((await prisma.listing.findUniqueOrThrow({ where: { id: listingId } })).rubricNoticeVersion).toBe(SERVED);
    expect(RUBRIC_NOTICE_TEXT).toBe("Scoring criteria updated… this reflects the rubric, not your service.");
    const other = await seedOwner(prisma);
    await expectAppError(acknowledgeRubricNotice(listingId, other.user.id), "not_found");
    expect(await acknowledgeRubricNotice(listingId, user.id)).toEqual({ acknowledged: SERVED });
    expect((await prisma.listing.findUniqueOrThrow({ where: { id: listingId } })).rubricNoticeVersion).toBeNull();
  });

  it("the staleness sweep re-queues results older than 7 days, one row per listing, and never twice", async () => {
    const db2 = await createTestDatabase({ register: false });
    try {
      const p = db2.prisma;
      const { org } = await seedOwner(p);
      const [oldL, freshL, unscored] = await seedListings(p, org.id, 3);
      for (const [listingId, days] of [[oldL, 8], [freshL, 2]] as const) {
        const r = await p.readinessResult.create({
          data: { listingId, rubricVersion: "readiness/1.0.0", total: 50, rawTotal: 50, band: "x", provisional: false, caps: [], dimensions: [], rules: [], improvements: [], document: {}, createdAt: new Date(Date.now() - days * 86_400_000) },
        });
        await p.listing.update({ where: { id: listingId }, data: { currentResultId: r.id } });
      }
      expect(await staleSweep(new Date(), p)).toEqual({ queued: 1, refused: 0 });
      const rows = await p.analysis.findMany();
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ listingId: oldL, submitter: `system:staleness:${oldL}`, trigger: "staleness", state: "queued" });
      expect(await staleSweep(new Date(), p)).toEqual({ queued: 0, refused: 0 });
      void unscored;
    } finally {
      await db2.close();
    }
  });
});

describe("ledger facts, progress and metrics", () => {
  it("ledger facts: unpayable needs 3 failures from 2 buyers since the last settlement; uptime from samples (none below 12)", async () => {
    const { org } = await seedOwner(prisma);
    const listingId = await seedListing(prisma, org.id);
    const now = new Date();
    const ago = (h: number) => new Date(now.getTime() - h * 3_600_000);
    const pay = (payer: string, status: "settled" | "failed", at: Date) =>
      prisma.routerPayment.create({ data: { payer, listingId, advertisedAmount: "1000", settledAmount: status === "settled" ? "1000" : null, asset: "usdc", network: "eip155:8453", status, createdAt: at } });
    await pay("0xa", "settled", ago(100));
    await pay("0xa", "failed", ago(50));
    await pay("0xb", "failed", ago(40));
    await pay("0xb", "failed", ago(30));
    for (let i = 0; i < 10; i++) {
      await prisma.healthSample.create({ data: { listingId, at: ago(i * 10 + 1), outcome: i < 9 ? "up" : "down", confidence: 0.6, vantage: "t" } });
    }
    const f = await ledgerFactsForScoring(prisma, listingId, now);
    expect(f.settle).toEqual({ lastSettledAt: ago(100).toISOString(), failedAttemptsSinceLastSettle: 3, distinctFailingBuyersSinceLastSettle: 2 });
    // Rank's rule, which readiness now shares (lib/facts/aggregate.ts): 10 samples are below
    // MIN_UPTIME_SAMPLES (12), so no uptime yet; the health status is the latest reading's (0.6 is
    // degraded), not the listing column's.
    expect(f.liveness).toMatchObject({ uptime7d: null, uptime30d: null, healthStatus: "degraded", healthConfidence: 0.6, settlementUnproven: false });
    // Two more samples make 12: the uptime counts.
    for (const h of [0.5, 0.25]) await prisma.healthSample.create({ data: { listingId, at: ago(h), outcome: "up", confidence: 0.6, vantage: "t" } });
    const g = await ledgerFactsForScoring(prisma, listingId, now);
    expect(g.liveness).toMatchObject({ uptime7d: (100 * 11) / 12, uptime30d: (100 * 11) / 12, healthStatus: "degraded", healthConfidence: 0.6 });
  });

  it("progress is visible to the owner and moderators only", async () => {
    const { org, user } = await seedOwner(prisma);
    const mod = await seedOwner(prisma, "moderator");
    const stranger = await seedOwner(prisma);
    const { id } = await reanalyseForActor(user.id, await seedListing(prisma, org.id));
    const p = await getAnalysisForActor(user.id, id);
    expect(Object.keys(p).sort()).toEqual(["attempts", "createdAt", "error", "finishedAt", "id", "listingId", "maxAttempts", "progress", "resultId", "startedAt", "state", "step"]);
    expect(p).toMatchObject({ state: "queued", step: "queued", attempts: 0 });
    expect((await getAnalysisForActor(mod.user.id, id)).id).toBe(id);
    await expectAppError(getAnalysisForActor(stranger.user.id, id), "not_found");
  });

  it("metrics: Prometheus text with queue depth by state and the counters", async () => {
    const { body, contentType } = await opsMetricsText();
    expect(contentType).toMatch(/text\/plain/);
    expect(body).toMatch(/tollgate_analysis_queue_depth\{state="succeeded"\} [1-9]/);
    expect(body).toMatch(/tollgate_analysis_claims_total [1-9]/);
    expect(body).toMatch(/tollgate_probe_outcomes_total\{kind="x402-v2"\} [1-9]/);
    expect(body).toMatch(/tollgate_probe_outcomes_total\{kind="refused"\} 0/);
    expect(body).toContain("tollgate_analysis_lease_expiries_total");
    expect(body).toContain("tollgate_scoring_duration_seconds_bucket");
    expect(body).toContain("tollgate_probe_duration_seconds_count");
  });
});
