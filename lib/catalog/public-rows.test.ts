/**
 * publicListingsByIds reads a page's public rows in one SQL statement; it must give exactly what the
 * Prisma select it replaced gives (publicListingSelect through toPublicListing), field for field.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/lib/testing/db";
import { seedDemo } from "@/lib/seed/demo";
import { createTestListing } from "@/lib/ledger/testing";
import { publicListingSelect, toPublicListing } from "./public-view";
import { publicListingsByIds } from "./browse";

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
  await seedDemo(t.prisma, { sellersOrigin: "http://127.0.0.1:4020" });
  await createTestListing(t.prisma, {
    endpoints: [
      { method: "GET", path: "/b", requestSchema: { type: "object", properties: { q: { type: "string", maxLength: 1e3 } } }, requestExample: { q: "ünïcode ✓" } },
      { method: "POST", path: "/a", payable: false, priceUsd: null, priceLabel: null, priceMode: "dynamic", dynamicMin: "0.001", dynamicMax: "0.5", dynamicUnit: "token", noParameters: true },
    ],
  });
});
afterAll(() => t.close());

describe("publicListingsByIds", () => {
  it("gives what the Prisma select gives, for every published listing, in the ids' order", async () => {
    const published = await t.prisma.listing.findMany({ where: { publicationState: "published" }, select: publicListingSelect, orderBy: { id: "desc" } });
    expect(published.length).toBeGreaterThan(3);
    expect(published.some((l) => l.currentResult)).toBe(true);
    const ids = published.map((l) => l.id);
    expect(await publicListingsByIds(ids)).toEqual(published.map(toPublicListing));
    // Unknown and unpublished ids are left out.
    const draft = await createTestListing(t.prisma, { publicationState: "draft" });
    expect((await publicListingsByIds([draft, "missing", ids[0]])).map((l) => l.id)).toEqual([ids[0]]);
  });
});
