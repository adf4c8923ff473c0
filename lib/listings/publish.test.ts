import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createListingForSeller } from "@/lib/listings/save";
import { publishListing } from "@/lib/listings/publish";
import { createTestDatabase, type TestDatabase } from "@/test/db";

const fixture = JSON.parse(fs.readFileSync(path.join(process.cwd(), "lib/scoring/readiness/fixtures/well-built-brand-new.listing.json"), "utf8"));

let t: TestDatabase;
let sellerId: string;
let otherId: string;
beforeAll(async () => {
  t = await createTestDatabase();
  const org = await t.prisma.organization.create({ data: { slug: "acme", name: "Acme" } });
  const other = await t.prisma.organization.create({ data: { slug: "other", name: "Other" } });
  sellerId = (await t.prisma.user.create({ data: { name: "S", role: "seller", organizationId: org.id } })).id;
  otherId = (await t.prisma.user.create({ data: { name: "O", role: "seller", organizationId: other.id } })).id;
});
afterAll(() => t.close());

describe("publishing a listing", () => {
  it("makes it live and queues exactly one analysis, also when published twice", async () => {
    const { id } = await createListingForSeller(sellerId, { ...fixture, slug: "pub-1" });
    const first = await publishListing(sellerId, id);
    const second = await publishListing(sellerId, id);
    expect(second.analysis.id).toBe(first.analysis.id);
    const listing = await t.prisma.listing.findUniqueOrThrow({ where: { id } });
    expect(listing.publicationState).toBe("published");
    const analyses = await t.prisma.analysis.findMany({ where: { listingId: id } });
    expect(analyses).toHaveLength(1);
    expect(analyses[0]).toMatchObject({ trigger: "publish", state: "queued", targetUrl: fixture.baseUrl });
  });

  it("refuses another seller and changes nothing", async () => {
    const { id } = await createListingForSeller(sellerId, { ...fixture, slug: "pub-2" });
    await expect(publishListing(otherId, id)).rejects.toMatchObject({ code: "not_found", status: 404 });
    expect((await t.prisma.listing.findUniqueOrThrow({ where: { id } })).publicationState).toBe("draft");
    expect(await t.prisma.analysis.count({ where: { listingId: id } })).toBe(0);
  });

  it("refuses credentials in the base URL already when the document is saved", async () => {
    const err = await createListingForSeller(sellerId, { ...fixture, slug: "pub-creds", baseUrl: "https://user:secret@api.example.com" }).catch((e) => e);
    expect(err).toMatchObject({ code: "invalid_document", status: 400 });
    expect(err.details[0].pointer).toBe("/baseUrl");
  });

  it("refuses a base URL the probe would refuse (a query string) before anything is published", async () => {
    const { id } = await createListingForSeller(sellerId, { ...fixture, slug: "pub-3" });
    // A row written before the document rules tightened, say: the publish gate checks again.
    await t.prisma.listing.update({ where: { id }, data: { baseUrl: "https://api.example.com/?key=1" } });
    await expect(publishListing(sellerId, id)).rejects.toMatchObject({ code: "refused_target" });
    expect((await t.prisma.listing.findUniqueOrThrow({ where: { id } })).publicationState).toBe("draft");
    expect(await t.prisma.analysis.count({ where: { listingId: id } })).toBe(0);
  });
});
