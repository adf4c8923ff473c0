/**
 * The canary's schedule: a run on publish (a published listing never run), every 24 hours after the
 * last, never for a suspended or unpublished listing, and never a second active run for a listing;
 * an expired lease goes back to the queue until its attempts are used.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { createTestListing } from "@/test/ledger";
import { CANARY_EVERY_MS, CANARY_MAX_ATTEMPTS, claimRun, queueDueRuns, reapExpiredRuns, requestRun } from "./runs";

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => {
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
    expect(await t.prisma.canaryRun.findUniqueOrThrow({ where: { id: runId } })).toMatchObject({ state: "done", outcome: "unverified", reason: "attempts_exhausted", attempts: CANARY_MAX_ATTEMPTS });
  });
});
