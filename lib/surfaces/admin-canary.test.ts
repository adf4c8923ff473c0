/**
 * The moderators' canary desk's read model (lib/surfaces/admin-canary.ts): every run across listings,
 * newest first, filtered by state or outcome, each with its listing, reason, every call's evidence
 * and transaction, and today's budget left (the day's and the run's listing's).
 *
 * Runs are made by the canary's own queue (requestRun, claimRun, executeRun): a listing whose endpoint
 * has no request example finishes unverified naming it, one whose run does not fit the budget is
 * deferred; the paid runs' evidence (a verified and a degraded run) is written as the run writes it,
 * a pending sample completed once, since paying needs the chain (lib/canary/canary.test.ts does that).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reserve } from "@/lib/canary/budget";
import { executeRun } from "@/lib/canary/run";
import { claimRun } from "@/lib/canary/lease";
import { requestRun } from "@/lib/canary/runs";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { createTestListing } from "@/test/ledger";
import { adminCanaryDesk, CANARY_FILTERS } from "./admin-canary";
import { adminListing } from "./admin";

let t: TestDatabase;
let moderator: string;
const ids: Record<string, string> = {};
const runs: Record<string, string> = {};
const KEY = `0x${"11".repeat(32)}` as const;
const TX = `0x${"ab".repeat(32)}`;
const tick = () => new Promise((r) => setTimeout(r, 5));

/** A run finished with one paid sample, as lib/canary/run.ts writes it: pending with its quote, then completed once. */
async function paidRun(listingId: string, outcome: "verified" | "degraded", sample: { outcome: "pass" | "broken"; reason: string; paymentStatus: string }) {
  const { runId } = await requestRun({ listingId, trigger: "schedule", requestedBy: "system:canary.schedule" });
  await claimRun({ runId });
  // The run reserves its worst case before it signs (the listed price).
  await reserve({ runId, listingId, amount: 10_000n });
  const endpoint = await t.prisma.endpoint.findFirstOrThrow({ where: { listingId } });
  const s = await t.prisma.canarySample.create({
    data: { runId, listingId, endpointId: endpoint.id, method: endpoint.method, path: endpoint.path, listedAmount: "10000", quotedAmount: "10000", quotedPayTo: "0x00000000000000000000000000000000000000aa", payer: "0x00000000000000000000000000000000000000bb" },
  });
  await t.prisma.canarySample.update({
    where: { id: s.id },
    data: {
      state: "completed", completedAt: new Date(), outcome: sample.outcome, reason: sample.reason, paymentStatus: sample.paymentStatus, transactionId: TX, blockNumber: 42n,
      chainAmount: sample.paymentStatus === "settled" ? "10000" : null, chainTo: sample.paymentStatus === "settled" ? "0x00000000000000000000000000000000000000aa" : null, chainNetwork: "eip155:8453",
      httpStatus: 200, ttlbMs: 35, responseBytes: 120, contentType: "application/json", outputSha256: "f".repeat(64), schemaValid: true, replay: "refused", replayStatus: 402,
    },
  });
  await t.prisma.canaryRun.update({ where: { id: runId }, data: { state: "done", outcome, reason: `${endpoint.method} ${endpoint.path}: ${sample.outcome}`, finishedAt: new Date(), leaseToken: null, leaseExpiresAt: null } });
  return runId;
}

beforeAll(async () => {
  t = await createTestDatabase();
  moderator = (await t.prisma.user.create({ data: { name: "Mod", role: "moderator" } })).id;
  const priced = { priceAmount: "10000", priceAsset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", priceNetwork: "eip155:8453" };
  ids.thin = await createTestListing(t.prisma, { title: "Thin", endpoints: [{ method: "GET", path: "/price", requestExample: undefined, ...priced }] });
  ids.verified = await createTestListing(t.prisma, { title: "Verified", endpoints: [{ method: "GET", path: "/v1/geocode", requestExample: { q: "Berlin" }, ...priced }] });
  ids.broken = await createTestListing(t.prisma, { title: "Broken", endpoints: [{ method: "GET", path: "/v1/search", requestExample: { q: "x" }, ...priced }] });
  ids.broke = await createTestListing(t.prisma, { title: "Over budget", endpoints: [{ method: "GET", path: "/v1/a", requestExample: { q: "x" }, ...priced }] });
  ids.waiting = await createTestListing(t.prisma, { title: "Waiting" });

  // Oldest first: a verified run, an unverified one (no request example), a degraded one, a deferred one (budget), a queued one.
  runs.verified = await paidRun(ids.verified, "verified", { outcome: "pass", reason: "pass", paymentStatus: "settled" });
  await tick();
  const thin = await requestRun({ listingId: ids.thin, trigger: "publish", requestedBy: "system:canary.schedule" });
  const lease = (await claimRun({ runId: thin.runId }))!;
  await executeRun(lease.runId, lease.leaseToken, { key: KEY });
  runs.unverified = thin.runId;
  await tick();
  runs.degraded = await paidRun(ids.broken, "degraded", { outcome: "broken", reason: "unproven", paymentStatus: "failed" });
  await tick();
  const over = await requestRun({ listingId: ids.broke, trigger: "moderator", requestedBy: moderator });
  const overLease = (await claimRun({ runId: over.runId }))!;
  await executeRun(overLease.runId, overLease.leaseToken, { key: KEY, caps: { day: 100n, listing: 100n } });
  runs.deferred = over.runId;
  await tick();
  runs.queued = (await requestRun({ listingId: ids.waiting, trigger: "moderator", requestedBy: moderator })).runId;
});
afterAll(async () => {
  await t?.close();
});

describe("every run across listings", () => {
  it("newest first, each with its listing, reason, and each call's evidence and transaction", async () => {
    const d = await adminCanaryDesk(moderator);
    expect(d.filter).toBeNull();
    expect(d.runs.map((r) => r.id)).toEqual([runs.queued, runs.deferred, runs.degraded, runs.unverified, runs.verified]);
    expect(d.runs.map((r) => r.listing.title)).toEqual(["Waiting", "Over budget", "Broken", "Thin", "Verified"]);
    const thin = d.runs.find((r) => r.id === runs.unverified)!;
    expect(thin).toMatchObject({ state: "done", outcome: "unverified", reason: "GET /price: no verdict (no_request_example)", trigger: "publish" });
    expect(thin.samples).toMatchObject([{ method: "GET", path: "/price", state: "completed", outcome: null, reason: "no_request_example", transactionId: null }]);
    const deferred = d.runs.find((r) => r.id === runs.deferred)!;
    expect(deferred).toMatchObject({ state: "deferred", outcome: null, samples: [] });
    expect(deferred.reason).toBe("budget: the day cap has 0 left"); // 20000 already spent today against a cap of 100
    const verified = d.runs.find((r) => r.id === runs.verified)!;
    expect(verified).toMatchObject({ state: "done", outcome: "verified", reserved: "10000" });
    expect(verified.samples[0]).toMatchObject({
      outcome: "pass", transactionId: TX, paymentStatus: "settled", blockNumber: "42", chainAmount: "10000", chainNetwork: "eip155:8453", quotedAmount: "10000", listedAmount: "10000",
      httpStatus: 200, ttlbMs: 35, responseBytes: 120, schemaValid: true, replay: "refused", replayStatus: 402, outputSha256: "f".repeat(64),
    });
    expect(d.runs.find((r) => r.id === runs.degraded)!.samples[0]).toMatchObject({ outcome: "broken", reason: "unproven", paymentStatus: "failed", chainAmount: null });
    expect(d.nextCursor).toBeNull();
  });

  it("today's budget left: the day's (all listings) and each run's listing's", async () => {
    const d = await adminCanaryDesk(moderator);
    // The two paid runs reserved 10000 each (signed, so never given back); the deferred one reserved nothing.
    expect(d.budget).toEqual({ day: new Date().toISOString().slice(0, 10), dayCap: "5000000", listingCap: "500000", spentToday: "20000", leftToday: "4980000" });
    const left = Object.fromEntries(d.runs.map((r) => [r.listing.title, r.budgetLeftForListing]));
    expect(left).toEqual({ Verified: "490000", Thin: "500000", Broken: "490000", "Over budget": "500000", Waiting: "500000" });
  });

  it("filters by state and by a done run's outcome, with a count for each", async () => {
    const d = await adminCanaryDesk(moderator);
    expect(d.counts).toEqual({ all: 5, queued: 1, running: 0, deferred: 1, verified: 1, degraded: 1, unverified: 1 });
    const expected: Record<string, string[]> = { queued: [runs.queued], running: [], deferred: [runs.deferred], verified: [runs.verified], degraded: [runs.degraded], unverified: [runs.unverified] };
    for (const f of CANARY_FILTERS) {
      const shown = await adminCanaryDesk(moderator, { show: f });
      expect(shown.filter).toBe(f);
      expect(shown.runs.map((r) => r.id)).toEqual(expected[f]);
    }
  });

  it("pages with a cursor, newest first", async () => {
    const first = await adminCanaryDesk(moderator, { take: 2 });
    expect(first.runs.map((r) => r.id)).toEqual([runs.queued, runs.deferred]);
    const second = await adminCanaryDesk(moderator, { take: 2, cursor: first.nextCursor });
    expect(second.runs.map((r) => r.id)).toEqual([runs.degraded, runs.unverified]);
    const third = await adminCanaryDesk(moderator, { take: 2, cursor: second.nextCursor });
    expect(third.runs.map((r) => r.id)).toEqual([runs.verified]);
    expect(third.nextCursor).toBeNull();
  });

  it("an unknown filter is refused naming it", async () => {
    await expect(adminCanaryDesk(moderator, { show: "passed" })).rejects.toMatchObject({ code: "bad_request", details: [{ pointer: "/show" }] });
  });

  it("the listing page shows the same runs, in the same shape", async () => {
    const page = await adminListing(moderator, ids.verified);
    const desk = await adminCanaryDesk(moderator, { show: "verified" });
    const { listing: _listing, budgetLeftForListing: _left, ...run } = desk.runs[0];
    expect(page.canaryRuns).toEqual([run]);
  });
});

describe("who may read the canary desk", () => {
  it("refuses a seller and no user; serves a moderator and an admin", async () => {
    const seller = await t.prisma.user.create({ data: { name: "S", role: "seller" } });
    const admin = await t.prisma.user.create({ data: { name: "A", role: "admin" } });
    await expect(adminCanaryDesk(seller.id)).rejects.toMatchObject({ code: "forbidden" });
    await expect(adminCanaryDesk(null)).rejects.toMatchObject({ code: "unauthorized" });
    expect((await adminCanaryDesk(admin.id)).runs).toHaveLength(5);
  });
});
