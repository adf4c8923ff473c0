import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { createTestListing } from "@/test/ledger";
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

describe("search: full-text hits and typo-only hits", () => {
  let u: TestDatabase;
  const k: Record<string, string> = {};
  beforeAll(async () => {
    u = await createTestDatabase();
    k.tides = await createTestListing(u.prisma, { title: "Tide tables", description: "Daily forecast of tides for harbours", category: "marine" });
    k.typo = await createTestListing(u.prisma, { title: "Forcast hub", category: "weather" });
    k.typo2 = await createTestListing(u.prisma, { title: "Forecas board", category: "marine" });
  });
  afterAll(async () => {
    await u?.close();
  });

  // Under the earlier 0.8·ts_rank_cd + 0.2·word_similarity, "Forecas board" (similarity 0.78, 0.156)
  // passed the listing whose description says "forecast" (0.8 × 0.167 = 0.133).
  it("a listing holding every query word ranks ahead of one found only by title similarity", async () => {
    const { hits } = await searchHits({ query: "forecast", limit: 10 });
    expect(hits[0]).toMatchObject({ listingId: k.tides, match: "keyword" });
    expect(hits.slice(1).map((h) => h.listingId)).toEqual([k.typo2, k.typo]);
    // Full-text hits score above FUZZY_WEIGHT, typo-only hits at most FUZZY_WEIGHT (× word similarity).
    expect(hits[0].relevance).toBeGreaterThan(0.2);
    expect(hits.slice(1).every((h) => h.relevance > 0 && h.relevance <= 0.2)).toBe(true);
  });

  it("typo hits only fill what full text leaves, so a shorter list is a prefix of a longer one", async () => {
    const all = (await searchHits({ query: "forecast", limit: 10 })).hits;
    expect((await searchHits({ query: "forecast", limit: 1 })).hits).toEqual(all.slice(0, 1));
    expect((await searchHits({ query: "forecast", limit: 2 })).hits).toEqual(all.slice(0, 2));
  });

  it("endpoint filters that reject the best ranked matches still find the first one passing", async () => {
    // Five title matches (ranked first) with POST endpoints, one description match with GET: the
    // first try ranks 4 × limit and finds no GET among them, so the side is ranked in full.
    for (let i = 0; i < 5; i++) await createTestListing(u.prisma, { title: `Widget maker ${i}` });
    const get = await createTestListing(u.prisma, { title: "Parts shop", description: "Sells a widget or two", endpoints: [{ method: "GET" }] });
    expect((await searchHits({ query: "widget", limit: 1, endpoint: { method: "GET" } })).hits.map((h) => h.listingId)).toEqual([get]);
    expect((await searchHits({ query: "widgte", limit: 1, endpoint: { method: "GET" } })).hits).toEqual([]);
    const all = (await searchHits({ query: "widget", limit: 10 })).hits.map((h) => h.listingId);
    expect(all).toHaveLength(6);
    expect(all[5]).toBe(get);
  });

  it("a typo alone still finds its listing, and filters hold on the typo side", async () => {
    expect((await searchHits({ query: "forcast", limit: 10 })).hits.map((h) => h.listingId)).toContain(k.typo);
    const marine = (await searchHits({ query: "forecast", limit: 10, filters: { category: "marine" } })).hits.map((h) => h.listingId);
    expect(marine).toEqual([k.tides, k.typo2]);
  });
});
