/**
 * The canary's tables hold their own rules (migration 20261203150000_canary): one active run per
 * listing, a run's state machine, runs never deleted, and samples written pending, completed once
 * and never changed or deleted afterwards.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/test/db";

let t: TestDatabase;
let listingId: string;
beforeAll(async () => {
  t = await createTestDatabase();
  const org = await t.prisma.organization.create({ data: { slug: "o-canary", name: "Org" } });
  listingId = (await t.prisma.listing.create({ data: { slug: "l-canary", title: "Weather oracle", baseUrl: "https://api.example.com", organizationId: org.id } })).id;
});
afterAll(async () => {
  await t.close();
});

describe("canary_runs", () => {
  it("allows one active run per listing, and a finished run is final and never deleted", async () => {
    const run = await t.prisma.canaryRun.create({ data: { listingId, trigger: "moderator", requestedBy: "u1" } });
    await expect(t.prisma.canaryRun.create({ data: { listingId, trigger: "schedule", requestedBy: "system:test" } })).rejects.toThrow(/canary_runs_one_active|Unique constraint/);
    // done needs its outcome and finishedAt.
    await expect(t.prisma.canaryRun.update({ where: { id: run.id }, data: { state: "done" } })).rejects.toThrow(/canary_runs_finished/);
    await t.prisma.canaryRun.update({ where: { id: run.id }, data: { state: "running" } });
    await t.prisma.canaryRun.update({ where: { id: run.id }, data: { state: "done", outcome: "verified", reason: "all passed", finishedAt: new Date() } });
    await expect(t.prisma.canaryRun.update({ where: { id: run.id }, data: { state: "queued", outcome: null, finishedAt: null } })).rejects.toThrow(/cannot move from done to queued/);
    await expect(t.prisma.canaryRun.update({ where: { id: run.id }, data: { reason: "rewritten" } })).rejects.toThrow(/cannot move from done to done/);
    await expect(t.prisma.canaryRun.delete({ where: { id: run.id } })).rejects.toThrow(/history and cannot be deleted/);
    // Finished: a new run may be queued.
    const next = await t.prisma.canaryRun.create({ data: { listingId, trigger: "schedule", requestedBy: "system:test" } });
    await t.prisma.canaryRun.update({ where: { id: next.id }, data: { state: "deferred", reason: "budget", finishedAt: new Date() } });
  });
});

describe("canary_samples", () => {
  it("a pending sample gets its nonce once and is completed once; then nothing changes and nothing is deleted", async () => {
    const run = await t.prisma.canaryRun.create({ data: { listingId, trigger: "moderator", requestedBy: "u1", state: "queued" } });
    const s = await t.prisma.canarySample.create({
      data: { runId: run.id, listingId, endpointId: "e1", method: "GET", path: "/weather", listedAmount: "1000", quotedAmount: "1000", quotedPayTo: "0xabc", payer: "0xdef" },
    });
    await expect(t.prisma.canarySample.create({ data: { runId: run.id, listingId, endpointId: "e1", method: "GET", path: "/weather" } })).rejects.toThrow(/Unique constraint|runId_endpointId/);
    const nonce = "0x" + "ab".repeat(32);
    await t.prisma.canarySample.update({ where: { id: s.id }, data: { authorizationNonce: nonce } });
    await expect(t.prisma.canarySample.update({ where: { id: s.id }, data: { authorizationNonce: "0x" + "cd".repeat(32) } })).rejects.toThrow(/never change/);
    await expect(t.prisma.canarySample.update({ where: { id: s.id }, data: { quotedAmount: "2000" } })).rejects.toThrow(/never change/);
    // Completed needs its reason and completedAt.
    await expect(t.prisma.canarySample.update({ where: { id: s.id }, data: { state: "completed" } })).rejects.toThrow(/canary_samples_completed/);
    await t.prisma.canarySample.update({ where: { id: s.id }, data: { state: "completed", outcome: "pass", reason: "pass", completedAt: new Date(), httpStatus: 200 } });
    await expect(t.prisma.canarySample.update({ where: { id: s.id }, data: { httpStatus: 500 } })).rejects.toThrow(/completed and immutable/);
    await expect(t.prisma.canarySample.delete({ where: { id: s.id } })).rejects.toThrow(/immutable \(DELETE refused\)/);
    await expect(t.prisma.canarySample.deleteMany({ where: { runId: run.id } })).rejects.toThrow(/DELETE refused/);
    expect((await t.prisma.canarySample.findUniqueOrThrow({ where: { id: s.id } })).httpStatus).toBe(200);
  });
});
