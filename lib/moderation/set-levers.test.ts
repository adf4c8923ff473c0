import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { setFeaturedLevel, setTierAndSortWeight, setVerificationStatus } from "./set-levers";
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
});

describe("moderation levers", () => {
  it.each([
    ["setFeaturedLevel", () => setFeaturedLevel({ listingId: listing, level: 3, reason: "promo", actorId: seller })],
    ["setVerificationStatus", () => setVerificationStatus({ listingId: listing, status: "verified", reason: "canary", actorId: seller })],
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

  it("verification and curation levers write and audit too; a missing listing is 404", async () => {
    const v = await setVerificationStatus({ listingId: listing, status: "degraded", reason: "canary failed", actorId: moderator });
    expect(v.rank!.components.verification.value).toBe(0.5);
    await expect(setVerificationStatus({ listingId: listing, status: "gold", reason: "x", actorId: moderator })).rejects.toMatchObject({ details: [{ pointer: "/status" }] });
    const c = await setTierAndSortWeight({ listingId: listing, tier: 1, sortWeight: 7, reason: "editor's pick", actorId: moderator });
    expect(c.before).toEqual({ tier: 2, sortWeight: 0 });
    await expect(setTierAndSortWeight({ listingId: listing, tier: 1.5, sortWeight: 0, reason: "x", actorId: moderator })).rejects.toMatchObject({ details: [{ pointer: "/tier" }] });
    await expect(setFeaturedLevel({ listingId: "nope", level: 1, reason: "x", actorId: moderator })).rejects.toMatchObject({ status: 404 });
  });
});
