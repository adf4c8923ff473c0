import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { createTestListing } from "@/test/ledger";
import { searchHits } from "./search";

// Search reads "listing_search", a trigger-kept copy of the searchable columns of "listings"
// (migration 20261202151000_listing_search); every kind of listing write must reach it.
let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => {
  await t?.close();
});

const found = async (query: string) => (await searchHits({ query, limit: 10 })).hits.map((h) => h.listingId);
const copy = async (id: string) => (await t.query<{ title: string; category: string | null }>(`SELECT "title", "category" FROM "listing_search" WHERE "id" = $1`, [id]))[0];

describe("listing_search follows listings", () => {
  it("an insert, a title or category edit, a new endpoint, unpublishing and a delete all reach search", async () => {
    const id = await createTestListing(t.prisma, { title: "Alpha widget", category: "tools" });
    expect(await found("widget")).toEqual([id]);

    await t.prisma.listing.update({ where: { id }, data: { title: "Beta gadget", category: "toys" } });
    expect(await found("widget")).toEqual([]);
    expect(await found("gadget")).toEqual([id]);
    expect(await copy(id)).toEqual({ title: "Beta gadget", category: "toys" });
    expect((await searchHits({ query: "gadget", limit: 10, filters: { category: "toys" } })).hits.map((h) => h.listingId)).toEqual([id]);

    // An endpoint's description feeds the listing's vector through the endpoints trigger.
    await t.prisma.endpoint.create({ data: { listingId: id, position: 1, method: "GET", path: "/beam", description: "Teleport a parcel" } });
    expect(await found("teleport")).toEqual([id]);

    await t.prisma.listing.update({ where: { id }, data: { publicationState: "draft" } });
    expect(await found("gadget")).toEqual([]);
    await t.prisma.listing.update({ where: { id }, data: { publicationState: "published" } });
    expect(await found("gadget")).toEqual([id]);

    await t.prisma.listing.delete({ where: { id } });
    expect(await copy(id)).toBeUndefined();
    expect(await found("gadget")).toEqual([]);
  });

  it("a rank write, and a listing edit that changes no searchable column, leave the copy alone", async () => {
    const id = await createTestListing(t.prisma, { title: "Gamma sprocket" });
    const before = await t.query<{ xmin: string }>(`SELECT xmin::text FROM "listing_search" WHERE "id" = $1`, [id]);
    await t.prisma.listingRank.update({ where: { listingId: id }, data: { rankScore: 0.5, qualityScore: 0.5, gate: "settleable" } });
    await t.prisma.listing.update({ where: { id }, data: { tier: 2, sortWeight: 3, featuredLevel: 1 } });
    expect(await t.query(`SELECT xmin::text FROM "listing_search" WHERE "id" = $1`, [id])).toEqual(before);
  });
});
