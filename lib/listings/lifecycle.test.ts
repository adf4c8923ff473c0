import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { seedListing, seedOwner } from "@/test/analyses";
import { deleteListing, unpublishListing } from "./lifecycle";
import { publishListing } from "./publish";
import { requireListingAccess } from "./access";
import { recordHealthSample, recordPayment } from "@/lib/ledger/record";
import { listOwnListings } from "@/lib/surfaces/seller-listings";
import { requireActor } from "@/lib/auth/roles";

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(() => t.close());

async function withResult(listingId: string) {
  return t.prisma.readinessResult.create({
    data: { listingId, rubricVersion: "readiness/1.0.0", total: 70, rawTotal: 70, band: "Good", provisional: false, caps: [], dimensions: [], rules: [], improvements: [], document: {} },
  });
}

describe("unpublish and delete a seller's listing", () => {
  it("unpublish takes a published listing back to draft and keeps its results", async () => {
    const { org, user } = await seedOwner(t.prisma);
    const id = await seedListing(t.prisma, org.id);
    const r = await withResult(id);
    expect(await unpublishListing(user.id, id)).toEqual({ listingId: id, publicationState: "draft" });
    expect((await t.prisma.listing.findUniqueOrThrow({ where: { id } })).publicationState).toBe("draft");
    expect(await t.prisma.readinessResult.findUniqueOrThrow({ where: { id: r.id } })).toMatchObject({ total: 70 });
    await expect(unpublishListing(user.id, id)).rejects.toMatchObject({ code: "conflict" });
  });

  it("delete removes a never-published, unscored draft with its endpoints", async () => {
    const { org, user } = await seedOwner(t.prisma);
    const id = await seedListing(t.prisma, org.id);
    await t.prisma.listing.update({ where: { id }, data: { publicationState: "draft", publishedAt: null } });
    expect(await deleteListing(user.id, id)).toEqual({ listingId: id, outcome: "deleted" });
    expect(await t.prisma.listing.findUnique({ where: { id } })).toBeNull();
    expect(await t.prisma.endpoint.count({ where: { listingId: id } })).toBe(0);
  });

  it("delete leaves a tombstone of a scored listing: its results are immutable and stay", async () => {
    const { org, user } = await seedOwner(t.prisma);
    const id = await seedListing(t.prisma, org.id);
    const r = await withResult(id);
    expect(await deleteListing(user.id, id)).toEqual({ listingId: id, outcome: "tombstone", results: 1 });
    const row = await t.prisma.listing.findUniqueOrThrow({ where: { id } });
    expect(row.publicationState).toBe("archived");
    expect(row.deletedAt).toBeInstanceOf(Date);
    expect(await t.prisma.readinessResult.findUnique({ where: { id: r.id } })).not.toBeNull();
  });

  it("delete leaves a tombstone of a draft with ledger rows and health samples: they stay, naming it, and the listing is gone from every door", async () => {
    const { org, user } = await seedOwner(t.prisma);
    const moderator = await seedOwner(t.prisma, "moderator");
    const id = await seedListing(t.prisma, org.id);
    await t.prisma.listing.update({ where: { id }, data: { publicationState: "draft", publishedAt: null } });
    const paid = await recordPayment({ listingId: id, payer: "0x00000000000000000000000000000000000000a1", status: "settled", advertisedAmount: "1000", settledAmount: "1000", asset: "USDC", network: "eip155:8453" });
    await recordHealthSample({ listingId: id, outcome: "up", confidence: 1, vantage: "test" });
    // The database refuses the hard delete itself, naming the history.
    await expect(t.prisma.listing.delete({ where: { id } })).rejects.toThrow(/listing \S+ keeps history in router_payments: DELETE refused/);
    expect(await deleteListing(user.id, id)).toEqual({ listingId: id, outcome: "tombstone", results: 0 });
    expect(await t.prisma.routerPayment.findUniqueOrThrow({ where: { id: paid.id } })).toMatchObject({ listingId: id, status: "settled" });
    expect(await t.prisma.healthSample.count({ where: { listingId: id } })).toBe(1);
    // Not the owner's nor a moderator's to see or act on any more: 404 as for no such listing.
    expect((await listOwnListings(await requireActor(user.id))).map((l) => l.id)).not.toContain(id);
    await expect(requireListingAccess(user.id, id)).rejects.toMatchObject({ code: "not_found" });
    await expect(requireListingAccess(moderator.user.id, id, { moderators: true })).rejects.toMatchObject({ code: "not_found" });
    await expect(publishListing(user.id, id)).rejects.toMatchObject({ code: "not_found" });
    await expect(deleteListing(user.id, id)).rejects.toMatchObject({ code: "not_found" });
    // Nor can anything write it back: the tombstone is for good.
    await expect(t.prisma.listing.update({ where: { id }, data: { publicationState: "published" } })).rejects.toThrow(/was deleted \(a tombstone\): it cannot be restored or republished/);
    await expect(t.prisma.listing.update({ where: { id }, data: { deletedAt: null } })).rejects.toThrow(/was deleted \(a tombstone\)/);
    expect(await t.prisma.listing.findUniqueOrThrow({ where: { id }, select: { publicationState: true } })).toEqual({ publicationState: "archived" });
  });

  it("delete leaves a tombstone of a draft a moderator acted on: the moderation audit is append-only and keeps naming it", async () => {
    const { org, user } = await seedOwner(t.prisma);
    const moderator = await seedOwner(t.prisma, "moderator");
    const id = await seedListing(t.prisma, org.id);
    await t.prisma.listing.update({ where: { id }, data: { publicationState: "draft", publishedAt: null } });
    const audit = await t.prisma.moderationAudit.create({ data: { actorId: moderator.user.id, listingId: id, action: "featured.set", after: { featuredLevel: 1 }, reason: "test" } });
    expect(await deleteListing(user.id, id)).toEqual({ listingId: id, outcome: "tombstone", results: 0 });
    expect((await t.prisma.moderationAudit.findUniqueOrThrow({ where: { id: audit.id } })).listingId).toBe(id);
  });

  it("another seller is told the listing does not exist, and nothing changes", async () => {
    const { org } = await seedOwner(t.prisma);
    const stranger = await seedOwner(t.prisma);
    const id = await seedListing(t.prisma, org.id);
    await expect(deleteListing(stranger.user.id, id)).rejects.toMatchObject({ code: "not_found" });
    await expect(unpublishListing(stranger.user.id, id)).rejects.toMatchObject({ code: "not_found" });
    expect((await t.prisma.listing.findUniqueOrThrow({ where: { id } })).publicationState).toBe("published");
  });
});
