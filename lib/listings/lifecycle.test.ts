import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { seedListing, seedOwner } from "@/test/analyses";
import { deleteListing, unpublishListing } from "./lifecycle";

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

  it("delete archives a scored listing: its results are immutable and stay", async () => {
    const { org, user } = await seedOwner(t.prisma);
    const id = await seedListing(t.prisma, org.id);
    const r = await withResult(id);
    expect(await deleteListing(user.id, id)).toEqual({ listingId: id, outcome: "archived", results: 1 });
    expect((await t.prisma.listing.findUniqueOrThrow({ where: { id } })).publicationState).toBe("archived");
    expect(await t.prisma.readinessResult.findUnique({ where: { id: r.id } })).not.toBeNull();
  });

  it("delete archives a draft a moderator acted on: the moderation audit is append-only and keeps naming it", async () => {
    const { org, user } = await seedOwner(t.prisma);
    const moderator = await seedOwner(t.prisma, "moderator");
    const id = await seedListing(t.prisma, org.id);
    await t.prisma.listing.update({ where: { id }, data: { publicationState: "draft", publishedAt: null } });
    const audit = await t.prisma.moderationAudit.create({ data: { actorId: moderator.user.id, listingId: id, action: "featured.set", after: { featuredLevel: 1 }, reason: "test" } });
    expect(await deleteListing(user.id, id)).toEqual({ listingId: id, outcome: "archived", results: 0 });
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
