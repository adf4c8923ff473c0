import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { createTestListing } from "@/test/ledger";
import { seedDemo } from "@/demo/seed-demo";
import { publicListingSelect, toPublicListing } from "./public-view";
import { publicListingsByIdsOneStatement, publicRowsByIds } from "./public-rows";
import { publicListingsByIds } from "./browse";

let t: TestDatabase;
const ids: string[] = [];

beforeAll(async () => {
  t = await createTestDatabase();
  // A full listing: a published result with rules, endpoints with JSON schemas, a dynamic price and a
  // free endpoint, in positions out of insertion order.
  const full = await createTestListing(t.prisma, {
    title: "Weather forecast API",
    shortDescription: "Hourly forecasts",
    description: "Long text",
    category: "weather",
    networks: ["eip155:8453", "eip155:1"],
    protocols: ["x402", "mpp"],
    endpoints: [{ method: "GET", priceUsd: "0.01", priceNetwork: "eip155:8453" }, { payable: false }],
  });
  await t.prisma.endpoint.update({
    where: { listingId_method_path: { listingId: full, method: "GET", path: "/run" } },
    data: { position: 5, description: "Forecast", requestSchema: { type: "object", properties: { city: { type: "string" } } }, requestExample: { city: "Oslo" }, responseSchema: { type: "array" } },
  });
  await t.prisma.endpoint.create({ data: { listingId: full, position: 2, method: "PUT", path: "/dyn", priceMode: "dynamic", dynamicMin: "0.001", dynamicMax: "0.5", dynamicUnit: "token", noParameters: true } });
  const r = await t.prisma.readinessResult.create({
    data: { listingId: full, rubricVersion: "readiness/1.0.0", total: 77, rawTotal: 77, band: "Ready", provisional: false, caps: [], dimensions: [], rules: [{ id: "M4", status: "pass" }], improvements: [], document: {}, createdAt: new Date("2026-11-30T10:11:12.345Z") },
  });
  await t.prisma.listing.update({ where: { id: full }, data: { currentResultId: r.id, logoUrl: "https://api.example.com/logo.png", homepageUrl: "https://example.com", demo: true } });
  ids.push(full);
  ids.push(await createTestListing(t.prisma, { title: "Bare listing", endpoints: [] }));
  ids.push(await createTestListing(t.prisma, { title: "Draft listing", publicationState: "draft" }));
});
afterAll(async () => {
  await t?.close();
});

describe("public rows in one statement", () => {
  it("equal Prisma's findMany with publicListingSelect, field for field", async () => {
    const prisma = await t.prisma.listing.findMany({ where: { id: { in: ids }, publicationState: "published" }, select: publicListingSelect, orderBy: { id: "asc" } });
    const raw = (await publicRowsByIds(ids)).sort((a, b) => (a.id < b.id ? -1 : 1));
    expect(raw).toEqual(prisma);
    expect(raw.map((r) => r.id)).not.toContain(ids[2]);
    expect(raw.find((r) => r.id === ids[0])!.endpoints.map((e) => e.path)).toEqual(["/run1", "/dyn", "/run"]);
    expect(raw.find((r) => r.id === ids[0])!.currentResult!.createdAt).toEqual(new Date("2026-11-30T10:11:12.345Z"));
  });

  it("keep the ids' order and the public shape", async () => {
    const items = await publicListingsByIdsOneStatement([ids[1], ids[2], ids[0]]);
    expect(items.map((i) => i.id)).toEqual([ids[1], ids[0]]);
    const prisma = await t.prisma.listing.findMany({ where: { id: { in: [ids[1], ids[0]] } }, select: publicListingSelect });
    expect(items).toEqual([ids[1], ids[0]].map((id) => toPublicListing(prisma.find((p) => p.id === id)!)));
    expect(JSON.stringify(items)).not.toMatch(/rankScore|qualityScore|featuredLevel/);
    expect(await publicRowsByIds([])).toEqual([]);
  });
});

describe("browse's publicListingsByIds over the demo catalog", () => {
  beforeAll(async () => {
    await seedDemo(t.prisma, { sellersOrigin: "http://127.0.0.1:4020" });
    await createTestListing(t.prisma, {
      endpoints: [
        { method: "GET", path: "/b", requestSchema: { type: "object", properties: { q: { type: "string", maxLength: 1e3 } } }, requestExample: { q: "ünïcode ✓" } },
        { method: "POST", path: "/a", payable: false, priceUsd: null, priceLabel: null, priceMode: "dynamic", dynamicMin: "0.001", dynamicMax: "0.5", dynamicUnit: "token", noParameters: true },
      ],
    });
  });

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
