/**
 * The canary's budget is shared fairly (docs/CANARY.md "Fair shares"), on the suite's database
 * (PGlite, or server PostgreSQL with TEST_DATABASE_URL): one organisation with ten listings cannot
 * take another's share under concurrency, runs are claimed round-robin across organisations (oldest
 * due first within each), a deferred listing is queued again in the next UTC day rather than 24 hours
 * later, one payTo has its own share for each organisation that quotes it, and the desk shows each organisation's share.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { createTestListing, createTestOrganization } from "@/test/ledger";
import { adminCanaryDesk } from "@/lib/surfaces/admin-canary";
import { budgetLeft, organizationShares, reserve, reservePayTo } from "./budget";
import { claimRun } from "./lease";
import { queueDueRuns } from "./runs";

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase({ poolSize: 12 });
});
afterAll(async () => {
  await t?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function listingsOf(org: string, n: number): Promise<string[]> {
  return Promise.all(Array.from({ length: n }, () => createTestListing(t.prisma, { organizationId: org })));
}

describe("round-robin claims", () => {
  it("alternate between organisations, oldest due first within each, however many runs one has queued", async () => {
    const [big, small] = [await createTestOrganization(t.prisma, "Big seller"), await createTestOrganization(t.prisma, "Small seller")];
    const bigListings = await listingsOf(big, 5);
    const smallListings = await listingsOf(small, 2);
    const due = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000);
    // The big seller's runs are all older than the small seller's.
    const runOf = new Map<string, string>();
    for (const [i, id] of bigListings.entries()) runOf.set((await t.prisma.canaryRun.create({ data: { listingId: id, trigger: "schedule", requestedBy: "t", runAfter: due(60 - i) } })).id, `big${i}`);
    for (const [i, id] of smallListings.entries()) runOf.set((await t.prisma.canaryRun.create({ data: { listingId: id, trigger: "schedule", requestedBy: "t", runAfter: due(10 - i) } })).id, `small${i}`);
    const order: string[] = [];
    for (;;) {
      const lease = await claimRun();
      if (!lease) break;
      order.push(runOf.get(lease.runId) ?? "other");
      await sleep(3);
    }
    // FIFO by runAfter would have been big0…big4, small0, small1.
    expect(order).toEqual(["big0", "small0", "big1", "small1", "big2", "big3", "big4"]);
  });
});

describe("shares of the day's budget", () => {
  it("two organisations racing: the one with ten listings takes at most its share, the other gets its runs", async () => {
    const [many, few] = [await createTestOrganization(t.prisma, "Ten listings"), await createTestOrganization(t.prisma, "Two listings")];
    const at = new Date("2027-01-05T10:00:00Z");
    const caps = { day: 600n, organization: 400n, listing: 200n, payTo: 600n };
    const runs = async (org: string, n: number) =>
      Promise.all((await listingsOf(org, n)).map(async (listingId) => ({ org, listingId, runId: (await t.prisma.canaryRun.create({ data: { listingId, trigger: "schedule", requestedBy: "t" } })).id })));
    const all = [...(await runs(many, 10)), ...(await runs(few, 2))];
    // Interleave so the big seller's runs are not simply first; all at once.
    const got = await Promise.all(all.map((r) => reserve({ runId: r.runId, listingId: r.listingId, amount: 100n, caps, at }).then((g) => ({ ...r, g }))));
    const took = (org: string) => got.filter((x) => x.org === org && x.g.ok).length;
    expect(took(many)).toBe(4);
    expect(took(few)).toBe(2);
    // A refusal names the first share it met: the organisation's, or the day's once the other seller's runs filled it.
    for (const x of got.filter((x) => x.org === many && !x.g.ok)) expect(x.g).toMatchObject({ ok: false, scope: expect.stringMatching(/^(organization|day)$/), left: 0n });
    const left = await budgetLeft(all.find((r) => r.org === few)!.listingId, { caps, at });
    expect(left).toMatchObject({ spentDay: 600n, spentOrganization: 200n });
    const shares = await organizationShares({ caps, at });
    expect(shares.find((s) => s.organizationId === many)).toMatchObject({ spent: 400n, cap: 400n, listings: 10 });
    expect(shares.find((s) => s.organizationId === few)).toMatchObject({ spent: 200n, cap: 400n, listings: 2 });
  });

  it("without the organisation's share the same race lets the big seller starve the other (the old behaviour, for contrast)", async () => {
    const [many, few] = [await createTestOrganization(t.prisma, "Ten again"), await createTestOrganization(t.prisma, "Two again")];
    const at = new Date("2027-01-06T10:00:00Z");
    const caps = { day: 600n, organization: 600n, listing: 200n };
    const mk = async (org: string) => {
      const [listingId] = await listingsOf(org, 1);
      return { org, listingId, runId: (await t.prisma.canaryRun.create({ data: { listingId, trigger: "schedule", requestedBy: "t" } })).id };
    };
    const bigRuns = await Promise.all(Array.from({ length: 10 }, () => mk(many)));
    for (const r of bigRuns) await reserve({ ...r, amount: 100n, caps, at });
    const late = await mk(few);
    expect(await reserve({ ...late, amount: 100n, caps, at })).toMatchObject({ ok: false, scope: "day" });
  });

  it("one payTo has its own share for each organisation that quotes it", async () => {
    const at = new Date("2027-01-07T10:00:00Z");
    const caps = { day: 10_000n, listing: 10_000n, organization: 10_000n, payTo: 250n };
    const payTo = "0x00000000000000000000000000000000000000AA";
    const [own, other] = [await createTestListing(t.prisma, { organizationId: await createTestOrganization(t.prisma, "Payee's seller") }), await createTestListing(t.prisma, { organizationId: await createTestOrganization(t.prisma, "Another seller") })];
    const got = await Promise.all(Array.from({ length: 5 }, () => reservePayTo({ network: "eip155:31337", payTo, listingId: other, amount: 100n, caps, at })));
    expect(got.filter((g) => g.ok)).toHaveLength(2);
    expect(got.find((g) => !g.ok)).toEqual({ ok: false, left: 50n });
    // Another organisation's quotes of the payee took its own share, not the payee's seller's.
    expect(await reservePayTo({ network: "eip155:31337", payTo: payTo.toLowerCase(), listingId: own, amount: 200n, caps, at })).toEqual({ ok: true });
    // Another recipient, or another network, is another share.
    expect(await reservePayTo({ network: "eip155:31337", payTo: "0x00000000000000000000000000000000000000bb", listingId: other, amount: 100n, caps, at })).toEqual({ ok: true });
    expect(await reservePayTo({ network: "eip155:8453", payTo, listingId: other, amount: 100n, caps, at })).toEqual({ ok: true });
  });

  it("the canary desk shows each organisation's share, spent of its limit", async () => {
    const mod = (await t.prisma.user.create({ data: { name: "Mod", role: "moderator" } })).id;
    const org = await createTestOrganization(t.prisma, "Shown seller");
    const [listingId] = await listingsOf(org, 1);
    const runId = (await t.prisma.canaryRun.create({ data: { listingId, trigger: "schedule", requestedBy: "t" } })).id;
    await reserve({ runId, listingId, amount: 1234n });
    const desk = await adminCanaryDesk(mod);
    expect(desk.shares.find((s) => s.organizationId === org)).toEqual({ organizationId: org, name: "Shown seller", listings: 1, spent: "1234", limit: "1000000" });
  });
});

describe("a deferred listing", () => {
  it("is queued again in the next UTC day (the budget's next window), not 24 hours after its deferral", async () => {
    const listingId = await createTestListing(t.prisma);
    const created = new Date("2027-02-01T20:00:00Z");
    const run = await t.prisma.canaryRun.create({ data: { listingId, trigger: "schedule", requestedBy: "t", createdAt: created } });
    await t.prisma.canaryRun.update({ where: { id: run.id }, data: { state: "running", leaseToken: "x", startedAt: created } });
    await t.prisma.canaryRun.update({ where: { id: run.id }, data: { state: "deferred", reason: "budget: the organization cap has 0 left", finishedAt: new Date("2027-02-01T20:01:00Z"), leaseToken: null } });
    const runsOf = () => t.prisma.canaryRun.count({ where: { listingId } });
    await queueDueRuns(new Date("2027-02-01T23:59:00Z"));
    expect(await runsOf()).toBe(1);
    await queueDueRuns(new Date("2027-02-02T00:01:00Z"));
    expect(await runsOf()).toBe(2);
    expect(await t.prisma.canaryRun.findFirst({ where: { listingId, state: "queued" } })).toMatchObject({ trigger: "schedule" });
  });

  it("a listing done (not deferred) that day waits its 24 hours", async () => {
    const listingId = await createTestListing(t.prisma);
    const created = new Date("2027-02-03T20:00:00Z");
    const run = await t.prisma.canaryRun.create({ data: { listingId, trigger: "schedule", requestedBy: "t", createdAt: created } });
    await t.prisma.canaryRun.update({ where: { id: run.id }, data: { state: "running", leaseToken: "x", startedAt: created } });
    await t.prisma.canaryRun.update({ where: { id: run.id }, data: { state: "done", outcome: "verified", reason: "ok", finishedAt: new Date("2027-02-03T20:01:00Z"), leaseToken: null } });
    await queueDueRuns(new Date("2027-02-04T00:01:00Z"));
    expect(await t.prisma.canaryRun.count({ where: { listingId } })).toBe(1);
    await queueDueRuns(new Date("2027-02-04T20:01:00Z"));
    expect(await t.prisma.canaryRun.count({ where: { listingId } })).toBe(2);
  });
});
