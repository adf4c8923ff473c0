/**
 * The seller's canary notice: the verification status in words, and a failing paid test call (broken
 * before degraded) with each judge code said as a seller would understand it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { seedListing, seedOwner } from "@/test/analyses";
import { canaryNotice, readSellerCanary, sampleReasonWords } from "./seller-canary";

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
}, 60_000);
afterAll(async () => {
  await t?.close();
});

const run = (over: Partial<{ outcome: "verified" | "degraded" | "unverified" | null; reason: string | null; finishedAt: string | null }> = {}) => ({ outcome: "degraded" as const, reason: "sampled", finishedAt: "2026-12-05T09:30:00.000Z", ...over });

describe("canaryNotice", () => {
  it("puts a failing paid call first, broken ahead of degraded, in words", () => {
    const n = canaryNotice("degraded", run(), [
      { method: "POST", path: "/a", outcome: "degraded", reason: "invalid_output", httpStatus: 200, completedAt: null },
      { method: "POST", path: "/b", outcome: "pass", reason: "pass", httpStatus: 200, completedAt: null },
      { method: "GET", path: "/c", outcome: "broken", reason: "charged_without_delivery,http_500", httpStatus: 500, completedAt: null },
    ]);
    expect(n.failing.map((f) => f.path)).toEqual(["/c", "/a"]);
    expect(n.failing[0].words).toBe("the payment settled but your endpoint did not answer with a 2xx; your endpoint answered HTTP 500 to the paid call");
    expect(n.failing[1].words).toBe("the paid answer did not match your response schema");
    expect(n.status).toContain("Failing: the catalog's last paid test call found a problem (2026-12-05 09:30 UTC)");
  });

  it("says verified, never run, and why a run could verify nothing", () => {
    expect(canaryNotice("verified", run({ outcome: "verified" }), []).status).toMatch(/^Verified:/);
    expect(canaryNotice("unverified", null, []).status).toBe("Not verified yet: the catalog has not made a paid test call of this listing.");
    expect(canaryNotice("unverified", run({ outcome: "unverified", reason: "protocol_not_supported: mpp (the canary pays over x402)" }), []).status).toContain("pay over x402 only");
    expect(canaryNotice("unverified", run({ outcome: "unverified", reason: "no_house_wallet" }), []).failing).toEqual([]);
  });

  it("keeps an unknown code as it is, and says the catalog's own refusal is not the seller's fault", () => {
    expect(sampleReasonWords("brand_new_code")).toBe("brand_new_code");
    expect(sampleReasonWords("house_payer_insufficient_funds")).toContain("not your fault");
    expect(sampleReasonWords(null)).toBe("no reason recorded");
  });
});

describe("readSellerCanary", () => {
  it("reads the latest finished run and its failing samples; a listing never run reads not verified yet", async () => {
    const { org } = await seedOwner(t.prisma);
    const listingId = await seedListing(t.prisma, org.id);
    expect((await readSellerCanary(t.prisma, listingId, "unverified")).status).toMatch(/^Not verified yet/);

    const ep = await t.prisma.endpoint.findFirstOrThrow({ where: { listingId }, orderBy: { position: "asc" } });
    const older = await t.prisma.canaryRun.create({ data: { listingId, trigger: "schedule", requestedBy: "test" } });
    await t.prisma.canaryRun.update({ where: { id: older.id }, data: { state: "done", outcome: "verified", reason: "sampled", finishedAt: new Date(Date.now() - 3_600_000) } });
    const run = await t.prisma.canaryRun.create({ data: { listingId, trigger: "schedule", requestedBy: "test" } });
    await t.prisma.canarySample.create({ data: { runId: run.id, listingId, endpointId: ep.id, method: ep.method, path: ep.path, state: "completed", completedAt: new Date(), httpStatus: 500, outcome: "broken", reason: "http_500" } });
    await t.prisma.canaryRun.update({ where: { id: run.id }, data: { state: "done", outcome: "degraded", reason: "sampled", finishedAt: new Date() } });

    const n = await readSellerCanary(t.prisma, listingId, "degraded");
    expect(n.status).toMatch(/^Failing:/);
    expect(n.failing).toEqual([{ method: ep.method, path: ep.path, outcome: "broken", words: "your endpoint answered HTTP 500 to the paid call", httpStatus: 500, at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) }]);
  });
});
