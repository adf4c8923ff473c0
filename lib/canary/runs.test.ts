/**
 * The canary's schedule: a run on publish (a published listing never run), every 24 hours after the
 * last, never for a suspended or unpublished listing, and never a second active run for a listing;
 * an expired lease goes back to the queue until its attempts are used; the queue's lease terms:
 * heartbeat, retry after the backoff, dead letter.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configureQueue, type QueueConfig } from "@/lib/queue/config";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { createTestListing } from "@/test/ledger";
import { CANARY_MAX_ATTEMPTS, claimRun, failAttempt, heartbeatRun, reapExpiredRuns } from "./lease";
import { CANARY_EVERY_MS, queueDueRuns, requestRun } from "./runs";

let t: TestDatabase;
let savedQueue: QueueConfig;

beforeAll(async () => {
  // A retry is due at once here, but in the backoff's own test below.
  savedQueue = configureQueue({ backoffBaseMs: 0, backoffJitter: false });
  t = await createTestDatabase();
});
afterAll(async () => {
  configureQueue(savedQueue);
  await t.close();
});

const runsOf = (listingId: string) => t.prisma.canaryRun.findMany({ where: { listingId }, orderBy: { createdAt: "asc" } });

describe("the canary schedule", () => {
  it("queues a publish run for a listing never run, a schedule run 24 h after the last, and nothing for suspended or draft listings", async () => {
    const fresh = await createTestListing(t.prisma);
    const suspended = await createTestListing(t.prisma);
    await t.prisma.listing.update({ where: { id: suspended }, data: { canarySuspendedAt: new Date() } });
    const draft = await createTestListing(t.prisma, { publicationState: "draft" });
    const now = new Date();
    expect(await queueDueRuns(now)).toBe(1);
    expect((await runsOf(fresh)).map((r) => [r.trigger, r.state])).toEqual([["publish", "queued"]]);
    expect(await runsOf(suspended)).toEqual([]);
    expect(await runsOf(draft)).toEqual([]);
    // Active: nothing more is queued for it.
    expect(await queueDueRuns(now)).toBe(0);
    const [run] = await runsOf(fresh);
    await t.prisma.canaryRun.update({ where: { id: run.id }, data: { state: "done", outcome: "verified", reason: "test", finishedAt: now } });
    expect(await queueDueRuns(new Date(now.getTime() + CANARY_EVERY_MS - 60_000))).toBe(0);
    expect(await queueDueRuns(new Date(now.getTime() + CANARY_EVERY_MS + 60_000))).toBe(1);
    expect((await runsOf(fresh)).map((r) => r.trigger)).toEqual(["publish", "schedule"]);
  });

  it("a moderator's request answers the active run; a suspended listing's is refused", async () => {
    const id = await createTestListing(t.prisma);
    const a = await requestRun({ listingId: id, trigger: "moderator", requestedBy: "u" });
    expect(await requestRun({ listingId: id, trigger: "moderator", requestedBy: "u" })).toEqual({ runId: a.runId, created: false });
    const s = await createTestListing(t.prisma);
    await t.prisma.listing.update({ where: { id: s }, data: { canarySuspendedAt: new Date() } });
    await expect(requestRun({ listingId: s, trigger: "moderator", requestedBy: "u" })).rejects.toMatchObject({ code: "conflict" });
  });

  it("an expired lease is requeued until its attempts are used, then the run is finished unverified", async () => {
    const id = await createTestListing(t.prisma);
    const { runId } = await requestRun({ listingId: id, trigger: "moderator", requestedBy: "u" });
    for (let i = 1; i <= CANARY_MAX_ATTEMPTS; i++) {
      const lease = await claimRun({ runId, leaseMs: 1 });
      expect(lease?.runId).toBe(runId);
      // A second claim finds nothing: the run is leased.
      expect(await claimRun({ runId })).toBeNull();
      await new Promise((r) => setTimeout(r, 5));
      expect(await reapExpiredRuns()).toEqual(i < CANARY_MAX_ATTEMPTS ? { requeued: 1, given_up: 0 } : { requeued: 0, given_up: 1 });
    }
    expect(await t.prisma.canaryRun.findUniqueOrThrow({ where: { id: runId } })).toMatchObject({ state: "done", outcome: "unverified", reason: "attempts_exhausted: lease_expired", attempts: CANARY_MAX_ATTEMPTS });
  });

  it("a heartbeat keeps a lease its token holds, and nothing else: an expired or re-claimed lease stays lost", async () => {
    const id = await createTestListing(t.prisma);
    const { runId } = await requestRun({ listingId: id, trigger: "moderator", requestedBy: "u" });
    const lease = (await claimRun({ runId, leaseMs: 300 }))!;
    expect(await heartbeatRun(runId, "not-the-token", 60_000)).toBe(false);
    expect(await heartbeatRun(runId, lease.leaseToken, 60_000)).toBe(true);
    await new Promise((r) => setTimeout(r, 350));
    // Renewed: not reaped, still running.
    expect(await reapExpiredRuns()).toEqual({ requeued: 0, given_up: 0 });
    expect(await heartbeatRun(runId, lease.leaseToken, 1)).toBe(true);
    await new Promise((r) => setTimeout(r, 5));
    expect(await heartbeatRun(runId, lease.leaseToken, 60_000)).toBe(false);
    expect(await reapExpiredRuns()).toEqual({ requeued: 1, given_up: 0 });
    const next = (await claimRun({ runId }))!;
    expect(await heartbeatRun(runId, lease.leaseToken)).toBe(false);
    expect(await heartbeatRun(runId, next.leaseToken)).toBe(true);
  });

  it("a failed attempt waits the queue's backoff (doubling), and its last is dead-lettered with why", async () => {
    configureQueue({ backoffBaseMs: 60_000, backoffCapMs: 600_000, backoffJitter: false });
    try {
      const id = await createTestListing(t.prisma);
      const { runId } = await requestRun({ listingId: id, trigger: "moderator", requestedBy: "u" });
      const waits: number[] = [];
      for (let i = 1; i <= CANARY_MAX_ATTEMPTS; i++) {
        const lease = (await claimRun({ runId }))!;
        expect(lease.runId).toBe(runId);
        const before = Date.now();
        expect(await failAttempt(runId, lease.leaseToken, "seller_unreachable")).toBe(i < CANARY_MAX_ATTEMPTS ? "requeued" : "given_up");
        // A stale token moves nothing.
        expect(await failAttempt(runId, lease.leaseToken, "again")).toBeNull();
        const run = await t.prisma.canaryRun.findUniqueOrThrow({ where: { id: runId } });
        if (i < CANARY_MAX_ATTEMPTS) {
          waits.push(Math.round((run.runAfter.getTime() - before) / 1000));
          // Not due before its backoff: nothing to claim.
          expect(await claimRun({ runId })).toBeNull();
          await t.prisma.canaryRun.update({ where: { id: runId }, data: { runAfter: new Date(Date.now() - 1000) } });
        } else {
          expect(run).toMatchObject({ state: "done", outcome: "unverified", reason: "attempts_exhausted: seller_unreachable" });
        }
      }
      expect(waits).toEqual([60, 120]);
    } finally {
      configureQueue({ backoffBaseMs: 0, backoffJitter: false });
    }
  });
});
