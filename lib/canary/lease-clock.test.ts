/**
 * The canary's lease is judged by the database's clock only (lib/canary/lease.ts), as claimRun sets it and as the
 * analysis queue judges its own: a worker whose clock runs 90 s ahead neither reaps another worker's live run nor
 * loses its own lease on a heartbeat. Before, heartbeatRun and reapExpiredRuns read `new Date()`. The skew is
 * only possible against server PostgreSQL: embedded PGlite's now() is this process's own clock.
 */
import { afterAll, afterEach, beforeAll, expect, it, vi } from "vitest";
import { createTestDatabase, testDatabaseUrl, type TestDatabase } from "@/test/db";
import { createTestListing } from "@/test/ledger";
import { exec } from "@/lib/sql";
import { claimRun, heartbeatRun, reapExpiredRuns } from "./lease";
import { requestRun } from "./runs";

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(() => t.close());
afterEach(() => vi.useRealTimers());

async function leased() {
  const id = await createTestListing(t.prisma, { title: "Skew" });
  const { runId } = await requestRun({ listingId: id, trigger: "schedule", requestedBy: "test" });
  const lease = await claimRun({ runId });
  expect(lease).not.toBeNull();
  return { runId, leaseToken: lease!.leaseToken };
}

it.runIf(!!testDatabaseUrl())("a worker clock 90 s ahead reaps nothing leased by the database's clock, and the holder keeps its lease", async () => {
  const { runId, leaseToken } = await leased();
  // This process's clock now runs 90 s ahead of the database server's.
  vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 90_000 });
  expect(await reapExpiredRuns()).toEqual({ requeued: 0, given_up: 0 });
  expect(await heartbeatRun(runId, leaseToken)).toBe(true);
  expect((await t.prisma.canaryRun.findUniqueOrThrow({ where: { id: runId } })).state).toBe("running");
});

it("a lease expired by the database's clock is reaped, and its old holder's heartbeat finds it gone", async () => {
  const { runId, leaseToken } = await leased();
  expect(await reapExpiredRuns()).toEqual({ requeued: 0, given_up: 0 });
  await exec(t.prisma, `UPDATE "canary_runs" SET "leaseExpiresAt" = (now() AT TIME ZONE 'UTC') - interval '1 second' WHERE "id" = $1`, runId);
  expect(await reapExpiredRuns()).toEqual({ requeued: 1, given_up: 0 });
  expect(await heartbeatRun(runId, leaseToken)).toBe(false);
  expect((await t.prisma.canaryRun.findUniqueOrThrow({ where: { id: runId } })).state).toBe("queued");
});
