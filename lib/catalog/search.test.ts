import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/lib/testing/db";
import { createTestListing } from "@/lib/ledger/testing";
import { searchCatalog, searchHits, type SemanticProvider } from "./search";

let t: TestDatabase;
const ids: Record<string, string> = {};

beforeAll(async () => {
  t = await createTestDatabase();
  ids.forecast = await createTestListing(t.prisma, { title: "Weather forecast API", shortDescription: "Hourly weather forecast for any city", rankScore: 0.05 });
  ids.alerts = await createTestListing(t.prisma, { title: "Severe weather alerts", shortDescription: "Storm warnings pushed per region", rankScore: 1.4 });
  ids.stocks = await createTestListing(t.prisma, { title: "Stock quotes", shortDescription: "Delayed equity prices", rankScore: 0.9 });
  ids.draft = await createTestListing(t.prisma, { title: "Weather forecast draft", publicationState: "draft" });
});
afterAll(async () => {
  await t?.close();
});

describe("search", () => {
  it("orders by relevance only: a better-ranked, less relevant listing stays behind", async () => {
    const { items, matching } = await searchCatalog({ query: "weather", limit: 10 });
    expect(matching).toBe("keyword");
    expect(items.map((i) => i.id)).toEqual([ids.forecast, ids.alerts]);
    expect(items.every((i) => i.match === "keyword" && i.relevance > 0 && i.relevance <= 1)).toBe(true);
    expect(items[0].relevance).toBeGreaterThan(items[1].relevance);
    expect(JSON.stringify(items)).not.toMatch(/rankScore|qualityScore|featuredLevel/);
  });

  it("rankScore changes move nothing: same order, same relevance", async () => {
    const before = (await searchHits({ query: "weather", limit: 10 })).hits;
    await t.prisma.listingRank.update({ where: { listingId: ids.forecast }, data: { rankScore: 5 } });
    await t.prisma.listingRank.update({ where: { listingId: ids.alerts }, data: { rankScore: 0 } });
    expect((await searchHits({ query: "weather", limit: 10 })).hits).toEqual(before);
  });

  it("finds a title through a typo (trigram word similarity)", async () => {
    const { hits } = await searchHits({ query: "wether", limit: 10 });
    expect(hits.map((h) => h.listingId)).toContain(ids.forecast);
    expect(hits.every((h) => h.relevance >= 0 && h.relevance <= 1)).toBe(true);
  });

  it("matches descriptions too, and never drafts", async () => {
    const { hits } = await searchHits({ query: "storm warnings", limit: 10 });
    expect(hits.map((h) => h.listingId)).toEqual([ids.alerts]);
    expect((await searchHits({ query: "draft", limit: 10 })).hits.map((h) => h.listingId)).not.toContain(ids.draft);
  });

  it("websearch syntax is accepted and a query of stop words finds nothing rather than failing", async () => {
    expect((await searchHits({ query: '"weather forecast" -alerts', limit: 10 })).hits.map((h) => h.listingId)).toEqual([ids.forecast]);
    expect((await searchHits({ query: "the and of", limit: 10 })).hits).toEqual([]);
  });

  it("a semantic provider's hits are marked semantic, kept to published listings, and relevance stays 0–1", async () => {
    const provider: SemanticProvider = { search: async () => [{ listingId: ids.stocks, similarity: 0.99 }, { listingId: ids.draft, similarity: 0.98 }, { listingId: ids.alerts, similarity: 1.7 }] };
    const { hits, matching } = await searchHits({ query: "weather", limit: 10, semantic: provider });
    expect(matching).toBe("hybrid");
    expect(hits.find((h) => h.listingId === ids.stocks)).toMatchObject({ match: "semantic", relevance: 0.99 });
    expect(hits.find((h) => h.listingId === ids.alerts)).toMatchObject({ match: "semantic", relevance: 1 });
    expect(hits.find((h) => h.listingId === ids.forecast)).toMatchObject({ match: "keyword" });
    expect(hits.map((h) => h.listingId)).not.toContain(ids.draft);
  });
});
