/**
 * Rubric governance on the queue (docs/spec/scoring-system.md "Governance"): the readiness/1.2.0
 * release re-scores every listing, version mismatches first, with the builder's notice; the monitor
 * declares the rubric versions it supports when it claims, and the API neither hands out nor stores
 * an analysis under a version the monitor does not support (it waits in the queue).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { AppError } from "@/lib/errors";
import { checkRubricRelease, PRIORITY_RUBRIC_MISMATCH } from "./enqueue-analysis";
import { claimLeases } from "./lease";
import { servedRubricVersion } from "./monitors";
import { completeLease, RUBRIC_NOTICE_TEXT } from "@/lib/analyses/store-result";
import { ClaimBody, opsClaim } from "@/lib/ops/handlers";
import { fixtureEvidence } from "@/lib/catalog-monitor/probes";
import { MONITOR_RUBRIC_VERSIONS } from "@/lib/probe/capabilities";
import { seedListings, seedOwner } from "@/test/analyses";
import { fullListing } from "@/test/readiness";

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase({ register: false });
});
afterAll(async () => {
  await t?.close();
});

describe("readiness/1.2.0 release on a catalog scored under 1.1.0", () => {
  it("re-queues every listing, the 1.1.0 ones first, and each re-score carries the builder's notice", async () => {
    const p = t.prisma;
    expect(servedRubricVersion()).toBe("readiness/1.2.0");
    await p.rubricRelease.createMany({ data: [{ version: "1.0.0", kind: "initial" }, { version: "1.1.0", kind: "minor" }] });
    const { org } = await seedOwner(p);
    const ids = await seedListings(p, org.id, 4);
    // Two listings scored under 1.1.0, one already under 1.2.0, one never scored.
    for (const [i, version] of ["readiness/1.1.0", "readiness/1.1.0", "readiness/1.2.0"].entries()) {
      const r = await p.readinessResult.create({ data: { listingId: ids[i], rubricVersion: version, total: 50, rawTotal: 50, band: "x", provisional: false, caps: [], dimensions: [], rules: [], improvements: [], document: {} } });
      await p.listing.update({ where: { id: ids[i] }, data: { currentResultId: r.id } });
    }
    const release = await checkRubricRelease(p);
    expect(release).toMatchObject({ version: "readiness/1.2.0", kind: "minor", recorded: true, queued: 4, mismatched: 3 });
    const queued = await p.analysis.findMany({ orderBy: { priority: "desc" } });
    expect(queued.filter((a) => a.priority === PRIORITY_RUBRIC_MISMATCH).map((a) => a.listingId).sort()).toEqual([ids[0], ids[1], ids[3]].sort());

    // A monitor that supports only 1.0.0 and 1.1.0 takes nothing: the analyses wait in the queue.
    const old = await opsClaim({ workerId: "monitor-old", limit: 10, rubricVersions: ["readiness/1.0.0", "readiness/1.1.0"] }, p);
    expect(old.jobs).toEqual([]);
    expect(old.waiting).toEqual({
      rubricVersion: "readiness/1.2.0",
      reason: "monitor monitor-old supports readiness/1.0.0, readiness/1.1.0, but the API serves readiness/1.2.0: analyses wait in the queue until a monitor that supports it claims them",
    });
    expect(await p.analysis.count({ where: { state: "queued" } })).toBe(4);

    // The current monitor takes them, mismatches first, and each stored result carries the notice.
    const first = await claimLeases({ workerId: "monitor-new", limit: 3, client: p, skipReap: true, rubricVersions: MONITOR_RUBRIC_VERSIONS });
    expect(new Set(first.map((j) => j.listingId))).toEqual(new Set([ids[0], ids[1], ids[3]]));
    const j = first.find((x) => x.listingId === ids[0])!;
    await completeLease(j.id, { leaseToken: j.leaseToken, evidence: fixtureEvidence(fullListing()) }, { client: p });
    const listing = await p.listing.findUniqueOrThrow({ where: { id: ids[0] }, include: { currentResult: true } });
    expect(listing.rubricNoticeVersion).toBe("readiness/1.2.0");
    expect(listing.currentResult?.rubricVersion).toBe("readiness/1.2.0");
    expect(RUBRIC_NOTICE_TEXT).toBe("Scoring criteria updated… this reflects the rubric, not your service.");
  });
});

describe("the monitor's declared versions", () => {
  it("a result is not stored when the lease's monitor no longer declares the served version", async () => {
    const p = t.prisma;
    const { org } = await seedOwner(p);
    const [listingId] = await seedListings(p, org.id, 1, () => "https://solo.example.com");
    const a = await p.analysis.create({ data: { submitter: `system:rubric:${listingId}`, listingId, trigger: "rubric", targetUrl: "https://solo.example.com", priority: 1000 } });
    const [job] = await claimLeases({ workerId: "monitor-flip", limit: 1, client: p, skipReap: true, rubricVersions: MONITOR_RUBRIC_VERSIONS });
    expect(job.id).toBe(a.id);
    // The same monitor re-declares without 1.2.0 (a downgraded probe) before it completes.
    expect(await claimLeases({ workerId: "monitor-flip", limit: 1, client: p, skipReap: true, rubricVersions: ["readiness/1.1.0"] })).toEqual([]);
    const err = await completeLease(a.id, { leaseToken: job.leaseToken, evidence: fixtureEvidence(fullListing()) }, { client: p }).catch((e) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: "conflict", extra: { code: "rubric_unsupported" } });
    expect(err.message).toBe(`analysis ${a.id}: the monitor holding its lease (monitor-flip) declared readiness/1.1.0, not readiness/1.2.0; no result is stored under a rubric version the monitor does not support`);
    expect(await p.readinessResult.count({ where: { analysisId: a.id } })).toBe(0);
    expect((await p.analysis.findUniqueOrThrow({ where: { id: a.id } })).state).toBe("running");
  });

  it("the ops API requires the declaration and names a malformed version", () => {
    const missing = ClaimBody.safeParse({ workerId: "w", limit: 1 });
    expect(missing.success).toBe(false);
    expect(missing.error!.issues[0].path).toEqual(["rubricVersions"]);
    const bad = ClaimBody.safeParse({ workerId: "w", limit: 1, rubricVersions: ["1.2.0"] });
    expect(bad.error!.issues[0]).toMatchObject({ path: ["rubricVersions", 0], message: 'must be a rubric version such as "readiness/1.2.0"' });
    expect(ClaimBody.safeParse({ workerId: "w", limit: 1, rubricVersions: MONITOR_RUBRIC_VERSIONS }).success).toBe(true);
  });
});
