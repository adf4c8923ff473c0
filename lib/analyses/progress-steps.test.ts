/**
 * Live progress (issue 19 item 7): the worker reports the probe's endpoints done of all on its
 * heartbeat, the owner's progress read shows it while probing, and a retry starts it afresh.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MONITOR_RUBRIC_VERSIONS } from "@/lib/probe/capabilities";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { seedListing, seedOwner } from "@/test/analyses";
import { getAnalysisForActor, reanalyseForActor } from "@/lib/analyses/progress";
import { HeartbeatBody, opsClaim, opsDirectClient, opsFail, opsHeartbeat } from "@/lib/ops/handlers";
import type { HeartbeatRequest, OpsClient } from "@/lib/ops-wire";
import { runWorker } from "@/lib/catalog-monitor/run-worker";
import { fixtureProbe, type ProbeFn } from "@/lib/catalog-monitor/probes";
import { fullListing } from "@/test/readiness";

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(() => t.close());

describe("live progress of an analysis", () => {
  it("shows 'endpoint n of m' while probing, from the heartbeat; a retry clears it", async () => {
    const { org, user } = await seedOwner(t.prisma);
    const { id } = await reanalyseForActor(user.id, await seedListing(t.prisma, org.id));
    expect((await getAnalysisForActor(user.id, id)).progress).toBeNull();

    const { jobs } = await opsClaim({ workerId: "progress-test", limit: 10, rubricVersions: MONITOR_RUBRIC_VERSIONS });
    const job = jobs.find((j) => j.id === id)!;
    await opsHeartbeat(id, { leaseToken: job.leaseToken, step: "probing" });
    expect(await getAnalysisForActor(user.id, id)).toMatchObject({ state: "running", step: "probing", progress: null });
    await opsHeartbeat(id, { leaseToken: job.leaseToken, step: "probing", progress: { done: 1, total: 3 } });
    expect((await getAnalysisForActor(user.id, id)).progress).toEqual({ done: 1, total: 3 });
    // A heartbeat without progress keeps the last report.
    await opsHeartbeat(id, { leaseToken: job.leaseToken, step: "probing" });
    expect((await getAnalysisForActor(user.id, id)).progress).toEqual({ done: 1, total: 3 });

    // The worker gives it back: queued again, and the next attempt starts from nothing.
    await opsFail(id, { leaseToken: job.leaseToken, reason: "flaky network", retryable: true });
    const after = await getAnalysisForActor(user.id, id);
    expect(after).toMatchObject({ state: "queued", progress: null });
    const row = await t.prisma.analysis.findUniqueOrThrow({ where: { id } });
    expect([row.progressDone, row.progressTotal]).toEqual([null, null]);
  });

  it("the ops API refuses progress that is not n of m; the database refuses it too", async () => {
    expect(HeartbeatBody.safeParse({ leaseToken: "x".repeat(32), progress: { done: 2, total: 4 } }).success).toBe(true);
    expect(HeartbeatBody.safeParse({ leaseToken: "x".repeat(32), progress: { done: 5, total: 4 } }).success).toBe(false);
    expect(HeartbeatBody.safeParse({ leaseToken: "x".repeat(32), progress: { done: -1, total: 4 } }).success).toBe(false);
    const { org, user } = await seedOwner(t.prisma);
    const { id } = await reanalyseForActor(user.id, await seedListing(t.prisma, org.id));
    await expect(t.prisma.analysis.update({ where: { id }, data: { progressDone: 3, progressTotal: 2 } })).rejects.toThrow();
  });

  it("the worker reports each endpoint as the probe finishes it", async () => {
    const { org, user } = await seedOwner(t.prisma);
    const three = fullListing();
    const listingId = await seedListing(t.prisma, org.id, { endpoints: [...three.endpoints, { ...three.endpoints[0]!, path: "/v1/second" }, { ...three.endpoints[0]!, path: "/v1/third" }] });
    const { id } = await reanalyseForActor(user.id, listingId);
    const total = (await t.prisma.endpoint.count({ where: { listingId } }));
    const seen: Array<HeartbeatRequest["progress"]> = [];
    const direct = opsDirectClient();
    const ops: OpsClient = { ...direct, heartbeat: async (jid, r) => (jid === id && seen.push(r.progress), direct.heartbeat(jid, r)) };
    // The fixture probe, one endpoint at a time with a pause, reporting as the real probe does.
    const slow: ProbeFn = async (job, signal, onProgress) => {
      const n = job.document?.endpoints.length ?? 0;
      for (let k = 0; k <= n; k++) {
        onProgress?.(k, n);
        await new Promise((r) => setTimeout(r, 300));
      }
      return fixtureProbe()(job, signal);
    };
    const ac = new AbortController();
    const run = runWorker({ ops, probe: slow, concurrency: 1, leaseMs: 30_000, idlePollMs: 50, signal: ac.signal });
    await expect.poll(async () => (await getAnalysisForActor(user.id, id)).state, { timeout: 20_000 }).toBe("succeeded");
    ac.abort();
    await run;
    const reported = seen.filter((p): p is { done: number; total: number } => !!p);
    expect(reported.length).toBeGreaterThanOrEqual(total);
    expect(reported.every((p) => p.total === total)).toBe(true);
    const dones = reported.map((p) => p.done);
    expect(dones).toEqual([...dones].sort((a, b) => a - b));
    expect(new Set(dones).size).toBeGreaterThanOrEqual(total);
  });
});
