/**
 * The house budget is enforced in the database: concurrent reservations never pass a cap together,
 * a refused one reserves nothing, a run reserves once, and release gives back what was not signed.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { budgetLeft, release, reserve } from "./budget";

let t: TestDatabase;
let org: string;
beforeAll(async () => {
  t = await createTestDatabase({ poolSize: 12 });
  org = (await t.prisma.organization.create({ data: { slug: "o-budget", name: "Org" } })).id;
});
afterAll(async () => {
  await t.close();
});

async function listingWithRun(slug: string) {
  const listing = await t.prisma.listing.create({ data: { slug, title: slug, baseUrl: "https://api.example.com", organizationId: org } });
  const run = await t.prisma.canaryRun.create({ data: { listingId: listing.id, trigger: "moderator", requestedBy: "u" } });
  return { listingId: listing.id, runId: run.id };
}

const at = new Date("2026-12-04T10:00:00Z");

describe("the canary budget", () => {
  it("ten runs racing for a day cap that fits three: exactly three reserve, and the total never passes the cap", async () => {
    const runs = await Promise.all(Array.from({ length: 10 }, (_, i) => listingWithRun(`race-${i}`)));
    const caps = { day: 1000n, listing: 500n };
    const got = await Promise.all(runs.map((r) => reserve({ ...r, amount: 300n, caps, at })));
    expect(got.filter((g) => g.ok)).toHaveLength(3);
    for (const g of got.filter((g) => !g.ok)) expect(g).toMatchObject({ ok: false, scope: "day", left: 100n });
    expect((await budgetLeft(null, { caps, at })).spentDay).toBe(900n);
    // A refused run reserved nothing: its listing's row stayed at 0 and the run records no reservation.
    const refused = runs[got.findIndex((g) => !g.ok)];
    expect((await budgetLeft(refused.listingId, { caps, at })).spentListing).toBe(0n);
    expect((await t.prisma.canaryRun.findUniqueOrThrow({ where: { id: refused.runId } })).reserved).toBeNull();
  });

  it("the per-listing cap holds across runs of one listing, and one run reserves once however often it asks", async () => {
    const a = await listingWithRun("per-listing");
    const caps = { day: 1_000_000n, listing: 500n };
    const day2 = new Date("2026-12-05T10:00:00Z");
    expect(await reserve({ ...a, amount: 400n, caps, at: day2 })).toMatchObject({ ok: true, already: false });
    expect(await reserve({ ...a, amount: 400n, caps, at: day2 })).toMatchObject({ ok: true, already: true, amount: 400n });
    await t.prisma.canaryRun.update({ where: { id: a.runId }, data: { state: "deferred", reason: "test", finishedAt: new Date() } });
    const b = await t.prisma.canaryRun.create({ data: { listingId: a.listingId, trigger: "schedule", requestedBy: "system:test" } });
    expect(await reserve({ runId: b.id, listingId: a.listingId, amount: 200n, caps, at: day2 })).toEqual({ ok: false, scope: "listing", day: "2026-12-05", left: 100n });
    // The day's total rolled back with the listing's refusal.
    expect((await budgetLeft(a.listingId, { caps, at: day2 })).spentDay).toBe(400n);
    await release(t.prisma, { listingId: a.listingId, budgetDay: "2026-12-05", amount: 300n });
    expect(await budgetLeft(a.listingId, { caps, at: day2 })).toMatchObject({ spentDay: 100n, spentListing: 100n, listing: 400n });
    expect(await reserve({ runId: b.id, listingId: a.listingId, amount: 200n, caps, at: day2 })).toMatchObject({ ok: true });
  });

  it("a negative amount is refused by name", async () => {
    const a = await listingWithRun("negative");
    await expect(reserve({ ...a, amount: -1n, at })).rejects.toMatchObject({ details: [{ pointer: "/amount" }] });
  });
});
