import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { setCanarySuspended, setFeaturedLevel, setTierAndSortWeight, startCanaryRun } from "./set-levers";
import { createTestListing } from "@/test/ledger";

let t: TestDatabase;
let seller: string, moderator: string, listing: string;

beforeAll(async () => {
  t = await createTestDatabase();
  seller = (await t.prisma.user.create({ data: { name: "Seller", role: "seller" } })).id;
  moderator = (await t.prisma.user.create({ data: { name: "Mod", role: "moderator" } })).id;
  listing = await createTestListing(t.prisma);
});
afterAll(async () => {
  await t?.close();
});

const snapshot = async () => ({
  listing: await t.prisma.listing.findUniqueOrThrow({ where: { id: listing }, select: { featuredLevel: true, verificationStatus: true, tier: true, sortWeight: true } }),
  rank: await t.prisma.listingRank.findUniqueOrThrow({ where: { listingId: listing } }),
  audits: await t.prisma.moderationAudit.count(),
  runs: await t.prisma.canaryRun.count(),
});

describe("moderation levers", () => {
  it.each([
    ["setFeaturedLevel", () => setFeaturedLevel({ listingId: listing, level: 3, reason: "promo", actorId: seller })],
    ["startCanaryRun", () => startCanaryRun({ listingId: listing, reason: "canary", actorId: seller })],
    ["setCanarySuspended", () => setCanarySuspended({ listingId: listing, suspended: true, reason: "canary", actorId: seller })],
    ["setTierAndSortWeight", () => setTierAndSortWeight({ listingId: listing, tier: 0, sortWeight: 10, reason: "curation", actorId: seller })],
  ])("%s refuses a seller (403) and changes nothing", async (_name, call) => {
    const before = await snapshot();
    await expect(call()).rejects.toMatchObject({ code: "forbidden", status: 403 });
    expect(await snapshot()).toEqual(before);
  });

  it("refuses an unknown actor (401)", async () => {
    await expect(setFeaturedLevel({ listingId: listing, level: 1, reason: "x", actorId: null })).rejects.toMatchObject({ status: 401 });
  });

  it("reads the role fresh: a demoted moderator is refused at once", async () => {
    const former = (await t.prisma.user.create({ data: { name: "Former", role: "moderator" } })).id;
    await t.prisma.user.update({ where: { id: former }, data: { role: "seller" } });
    await expect(setFeaturedLevel({ listingId: listing, level: 1, reason: "x", actorId: former })).rejects.toMatchObject({ status: 403 });
  });

  it.each([[6], [-1], [2.5], ["3"], [null]])("rejects featured level %j with a 400 naming /level", async (level) => {
    const before = await snapshot();
    await expect(setFeaturedLevel({ listingId: listing, level, reason: "x", actorId: moderator })).rejects.toMatchObject({ status: 400, details: [{ pointer: "/level" }] });
    expect(await snapshot()).toEqual(before);
  });

  it("rejects an empty reason with a 400 naming /reason", async () => {
    await expect(setFeaturedLevel({ listingId: listing, level: 1, reason: "  ", actorId: moderator })).rejects.toMatchObject({ status: 400, details: [{ pointer: "/reason" }] });
  });

  it("a moderator's Featured edit is audited and re-ranks the listing at once", async () => {
    const r0 = await setFeaturedLevel({ listingId: listing, level: 0, reason: "baseline", actorId: moderator });
    const r = await setFeaturedLevel({ listingId: listing, level: 3, reason: "launch week", actorId: moderator });
    expect(r.before).toEqual({ featuredLevel: 0 });
    expect(r.after).toEqual({ featuredLevel: 3 });
    const audit = await t.prisma.moderationAudit.findUniqueOrThrow({ where: { id: r.auditId } });
    expect(audit).toMatchObject({ actorId: moderator, listingId: listing, action: "featured.set", before: { featuredLevel: 0 }, after: { featuredLevel: 3 }, reason: "launch week" });
    expect(audit.createdAt).toBeInstanceOf(Date);
    const row = await t.prisma.listing.findUniqueOrThrow({ where: { id: listing } });
    expect(row.featuredLevel).toBe(3);
    const stored = await t.prisma.listingRank.findUniqueOrThrow({ where: { listingId: listing } });
    expect(stored.rankScore).toBeCloseTo(r0.rank!.rank * 1.3, 12);
  });

  it("verification is the canary's: a moderator starts a run or suspends the canary, each audited", async () => {
    const started = await startCanaryRun({ listingId: listing, reason: "seller says it is fixed", actorId: moderator });
    expect(started.created).toBe(true);
    expect(await t.prisma.canaryRun.findUniqueOrThrow({ where: { id: started.runId } })).toMatchObject({ listingId: listing, trigger: "moderator", requestedBy: moderator, state: "queued" });
    // One active run per listing: asking again answers the same run.
    const again = await startCanaryRun({ listingId: listing, reason: "again", actorId: moderator });
    expect(again).toMatchObject({ runId: started.runId, created: false });
    expect(await t.prisma.moderationAudit.findUniqueOrThrow({ where: { id: started.auditId } })).toMatchObject({ action: "canary.run", after: { runId: started.runId, queued: true }, reason: "seller says it is fixed" });
    await expect(startCanaryRun({ listingId: listing, reason: " ", actorId: moderator })).rejects.toMatchObject({ details: [{ pointer: "/reason" }] });

    await t.prisma.listing.update({ where: { id: listing }, data: { verificationStatus: "verified" } });
    const s = await setCanarySuspended({ listingId: listing, suspended: true, reason: "the seller asked us to stop paying its batch endpoint", actorId: moderator });
    expect(s.before).toEqual({ canarySuspended: false, verificationStatus: "verified" });
    expect(s.after).toEqual({ canarySuspended: true, verificationStatus: "unverified" });
    expect(s.rank!.components.verification.value).toBe(0.85);
    expect((await t.prisma.moderationAudit.findUniqueOrThrow({ where: { id: s.auditId } })).action).toBe("canary.suspend");
    await expect(startCanaryRun({ listingId: listing, reason: "x", actorId: moderator })).rejects.toMatchObject({ code: "conflict" });
    await expect(setCanarySuspended({ listingId: listing, suspended: "yes", reason: "x", actorId: moderator })).rejects.toMatchObject({ details: [{ pointer: "/suspended" }] });
    const r = await setCanarySuspended({ listingId: listing, suspended: false, reason: "resumed", actorId: moderator });
    expect(r.after).toEqual({ canarySuspended: false, verificationStatus: "unverified" });
    expect((await t.prisma.listing.findUniqueOrThrow({ where: { id: listing } })).canarySuspendedAt).toBeNull();
  });

  it("curation levers write and audit too; a missing listing is 404", async () => {
    const c = await setTierAndSortWeight({ listingId: listing, tier: 1, sortWeight: 7, reason: "editor's pick", actorId: moderator });
    expect(c.before).toEqual({ tier: 2, sortWeight: 0 });
    await expect(setTierAndSortWeight({ listingId: listing, tier: 1.5, sortWeight: 0, reason: "x", actorId: moderator })).rejects.toMatchObject({ details: [{ pointer: "/tier" }] });
    await expect(setFeaturedLevel({ listingId: "nope", level: 1, reason: "x", actorId: moderator })).rejects.toMatchObject({ status: 404 });
  });
});
