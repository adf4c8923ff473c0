import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { createTestListing } from "@/test/ledger";
import { exec, rows } from "@/lib/sql";
import { idf, readTerms, retrievalTerms, type Term } from "./sentence";
import { REVERSED_FACTOR } from "./direction";
import { searchCatalog } from "./search";
import { parseSelectRequest, selectServices } from "./select";
import { rankInputsDocument } from "@/lib/rank/sweep-ranks";
import type { RankInputs } from "@/lib/rank/score";

// A catalog shaped like the demo market's: sellers of a dozen capabilities, near neighbours that share
// words, and fillers so that "api", "data" and "text" are common (docs/SELECTION.md).
const CATALOG = {
  geocodr: { title: "Geocodr", shortDescription: "Forward and reverse geocoding for street addresses", category: "geo", description: "Turn a street address into latitude and longitude coordinates, or coordinates back into an address. JSON API.", rankScore: 0.4 },
  places: { title: "Placefinder", shortDescription: "Points of interest near a location", category: "geo", description: "Search cafes, shops and stations around a point. Data API.", rankScore: 0.7 },
  mailcheck: { title: "Mailcheck", shortDescription: "Verify an email address is deliverable", category: "email", description: "Checks the address's domain and mailbox. API for agents.", rankScore: 0.9 },
  weatherly: { title: "Weatherly weather forecast", shortDescription: "Hourly and 7-day weather forecasts for any city", category: "weather", description: "Forecast data API by city name or coordinates.", rankScore: 0.3 },
  skyline: { title: "Skyline climate history", shortDescription: "Historical climate data by station", category: "weather", description: "Monthly temperature and rainfall records. Data API.", rankScore: 0.8 },
  lingo: { title: "Lingo", shortDescription: "Machine translation between 40 languages", category: "language", description: "Send text and a target language, get the translated text back.", rankScore: 0.3 },
  babel: { title: "Babel", shortDescription: "Localize app strings into other languages", category: "language", description: "String files in, localised strings out. API.", rankScore: 0.9 },
  digestly: { title: "Digestly summariser", shortDescription: "Summaries of short texts, one call at a time.", category: "text", description: "Up to 2,000 characters of text in, one sentence out.", rankScore: 0.9 },
  quillsum: { title: "Quillsum one-line summaries", shortDescription: "One-sentence summaries of short texts for agents.", category: "text", description: "Up to 2,000 characters of text in, one sentence out.", rankScore: 0.5 },
  serpwire: { title: "Serpwire web search", shortDescription: "Search the web and get ranked results", category: "search", description: "Organic results with titles and links. API.", rankScore: 0.6 },
  tickr: { title: "Tickr stock quotes", shortDescription: "Real-time stock prices and quotes", category: "finance", description: "Quotes for US equities. Data API.", rankScore: 0.6 },
  scribe: { title: "Scribe", shortDescription: "Transcribe audio recordings to text", category: "audio", description: "MP3 or WAV in, a transcript out.", rankScore: 0.6 },
  moodmeter: { title: "Moodmeter", shortDescription: "Sentiment analysis of text", category: "text", description: "Positive, negative or neutral, with a score. API.", rankScore: 0.6 },
} as const;
type Key = keyof typeof CATALOG;

let t: TestDatabase;
const ids = {} as Record<Key | "stuffer", string>;
const keyOf = (id: string) => (Object.keys(ids) as (Key | "stuffer")[]).find((k) => ids[k] === id) ?? id;
const NOW = Date.parse("2026-12-05T12:00:00Z");

beforeAll(async () => {
  t = await createTestDatabase();
  for (const [key, l] of Object.entries(CATALOG)) {
    ids[key as Key] = await createTestListing(t.prisma, { ...l, endpoints: [{ ...(key === "geocodr" ? { priceUsd: "0.002", priceAmount: "2000" } : { priceUsd: "0.01" }), description: `${l.shortDescription}.` }] });
  }
  // A keyword stuffer: every capability word in its description, and the catalog's best rank score.
  ids.stuffer = await createTestListing(t.prisma, {
    title: "Everything Hub",
    description: "geocode street address coordinates summarise summary texts translate translation weather forecast city stock price ticker transcribe recording sentiment mood search web localise",
    rankScore: 2,
  });
  for (let i = 0; i < 9; i++) await createTestListing(t.prisma, { title: `Data API ${i}`, shortDescription: "A simple data API for agents", description: "Text and data over an API.", rankScore: 0.5 });
  // The canary paid Digestly and it failed: charged, then answered 500.
  await t.prisma.canaryRun.create({
    data: { listingId: ids.digestly, trigger: "schedule", requestedBy: "test", state: "done", outcome: "degraded", reason: "charged_without_delivery", startedAt: new Date(NOW - 3 * 3_600_000), finishedAt: new Date(NOW - 3 * 3_600_000) },
  });
  await t.prisma.listing.update({ where: { id: ids.digestly }, data: { verificationStatus: "degraded" } });
  await t.prisma.canaryRun.create({
    data: { listingId: ids.geocodr, trigger: "schedule", requestedBy: "test", state: "done", outcome: "verified", startedAt: new Date(NOW - 2 * 3_600_000), finishedAt: new Date(NOW - 2 * 3_600_000) },
  });
  await t.prisma.listing.update({ where: { id: ids.geocodr }, data: { verificationStatus: "verified" } });
});
afterAll(async () => {
  await t?.close();
});

const pick = async (task: string, extra: Record<string, unknown> = {}) => selectServices(parseSelectRequest({ task, ...extra }), { now: NOW });
const picks = async (task: string) => (await pick(task)).items.map((i) => keyOf(i.id));

describe("sentence tasks → top picks (OR semantics, weights, stemming, synonyms, typos)", () => {
  it.each<[string, Key[], Key[]]>([
    // [task, the picks that must lead, in order; listings that must not be picked]
    ["geocode a street address to coordinates", ["geocodr"], ["babel", "tickr", "digestly"]],
    ["Geocoding: addresses to lat/long", ["geocodr"], []],
    ["summarise this article in one sentence", ["quillsum"], ["digestly", "geocodr"]],
    ["summarize a long text", ["quillsum"], ["digestly"]],
    ["translate a paragraph into French", ["lingo"], ["digestly", "weatherly"]],
    ["translation from english to german", ["lingo"], []],
    ["localise my app into Spanish", ["babel"], []],
    ["weather forecast for a city", ["weatherly"], ["geocodr", "babel"]],
    ["wether forcast", ["weatherly"], []],
    ["geocde an adress", ["geocodr"], []],
    ["real-time stock price for a ticker", ["tickr"], []],
    ["transcribe a recording of a meeting", ["scribe"], []],
    ["what is the mood of this review (sentiment)", ["moodmeter"], []],
    ["give me the gist of this report", ["quillsum"], ["digestly"]],
    ["what is good morning in Italian", ["lingo"], ["weatherly", "geocodr"]],
    ["look up sourdough recipes online and return links", ["serpwire"], ["geocodr"]],
  ])("%s", async (task, lead, never) => {
    const got = await picks(task);
    expect(got.slice(0, lead.length)).toEqual(lead);
    for (const k of never) expect(got).not.toContain(k);
  });

  it("a keyword stuffer with the best rank score leads no task: the words it stuffs weigh as description words", async () => {
    for (const task of ["geocode a street address to coordinates", "weather forecast for a city", "translate a menu", "transcribe a recording", "real-time stock price for a ticker"]) {
      const got = await picks(task);
      expect(got[0]).not.toBe("stuffer");
    }
  });

  it("a hostile task (tsquery syntax, quotes, backslashes, lone punctuation) is read as words, never as syntax", async () => {
    expect((await pick("geocode' | 'a':* & !(street) \\ address <-> coordinates")).items[0].title).toBe("Geocodr");
    expect((await pick("'); DROP TABLE listings; --")).items).toEqual([]);
    expect((await pick("!!! ??? ... :* & |")).items).toEqual([]);
    expect((await pick(Array.from({ length: 60 }, (_, i) => `word${i}`).join(" ") + " geocode")).items).toEqual([]);
    expect((await pick("géocoder une adresse — 住所")).items).toBeInstanceOf(Array);
  });

  it("translate and translation both find Lingo first, Babel by synonym after it", async () => {
    for (const task of ["translate a menu", "a translation of a menu"]) {
      const r = await pick(task);
      expect(r.items.map((i) => keyOf(i.id)).slice(0, 2)).toEqual(["lingo", "babel"]);
      expect(r.items[1].why).toMatch(/^Matches '(translate|translation)' \(synonym\)/);
    }
  });

  it("stop words and common words never make everything match", async () => {
    expect((await pick("the a to for of")).items).toEqual([]);
    // "api" and "data" are in more than 40% of the catalog: they add to a match but never make one.
    // (The stuffer does say "geocode"; it comes after.)
    expect(await picks("geocode with an api for data")).toEqual(["geocodr", "stuffer"]);
    // A listing matching only a minor word of the task is under the minimum relevance.
    expect(await picks("geocode a street address to coordinates")).not.toContain("mailcheck");
  });

  it("a word no listing has counts as often as the titles it is a near spelling of, not as the rarest word", async () => {
    const terms = await readTerms(t.prisma, "wether forcast");
    const wether = terms.find((x) => x.word === "wether")!;
    // Only Weatherly's title is near "wether": as rare as "weather" in titles, not rarer than any word.
    expect(wether.df).toBe(1);
    const [{ n }] = await rows<{ n: number }>(t.prisma, `SELECT "publicListings" AS n FROM "listing_search_stats" WHERE "id" = 1`);
    expect(wether.idf).toBe(idf(1, Number(n)));
    expect(wether.idf).toBeLessThan(idf(0, Number(n)));
  });

  it("a task's numbers are its inputs, never terms: a coordinate pair does not match a count in another listing", async () => {
    const task = "find the address at latitude longitude 52.236, 13.40";
    // "40" would be a term as rare as Lingo's "40 languages": weighed against every geocoding word, it
    // left no listing above the minimum relevance.
    expect((await readTerms(t.prisma, task)).map((x) => x.word)).toEqual(["address", "latitude", "longitude"]);
    expect((await picks(task))[0]).toBe("geocodr");
    expect(await picks("translate the phrase 40 apples into German")).toContain("lingo");
    // A word with letters and digits is a word.
    expect((await readTerms(t.prisma, "MP3 to text")).map((x) => x.word)).toContain("mp3");
  });

  it("a sentence that AND semantics finds nothing for finds its listing (the issue's example)", async () => {
    const task = "geocode a street address to coordinates for my delivery app";
    // Browse search keeps AND semantics (docs/SELECTION.md "Browse search"): no listing has every word.
    expect((await searchCatalog({ query: task, limit: 10 })).items).toEqual([]);
    expect((await pick(task)).items.map((i) => i.title)).toEqual(["Geocodr", "Everything Hub"]);
  });
});

describe("evidence rules", () => {
  it("canary_failed: left out by default and said so; included on request, marked and last", async () => {
    const r = await pick("summarise short texts");
    expect(r.items.map((i) => keyOf(i.id))).not.toContain("digestly");
    expect(r.excluded).toEqual([{ id: ids.digestly, slug: expect.any(String), title: "Digestly summariser", relevance: expect.any(Number), reasons: ["canary_failed"], why: "canary test call failed 3 h ago (charged_without_delivery)" }]);
    // Without the gate Digestly would lead: as relevant as Quillsum, and the higher rank score.
    const asked = await pick("summarise short texts", { include: ["canary_failed"] });
    expect(asked.items.map((i) => keyOf(i.id))).toEqual(["quillsum", "digestly"]);
    expect(asked.items[1]).toMatchObject({ excludedByDefault: ["canary_failed"], verification: "degraded", rankScore: 0.9 });
    expect(asked.items[0]).toMatchObject({ rankScore: 0.5 });
    expect(asked.items[1].relevance).toBe(asked.items[0].relevance);
    expect(asked.excluded).toEqual([]);
  });

  it("charged_above_listing and charged_without_delivery: read from the latest canary run's samples, whatever the verification now says; include brings each back", async () => {
    // The canary's latest run of Moodmeter: asked 30000 against a listed 10000, settled. Of Scribe: settled, 200 outside the schema.
    let runs = 0;
    const sample = async (key: Key, over: Record<string, unknown>) => {
      const at = new Date(NOW - 3_600_000 + runs++ * 1_000);
      const run = await t.prisma.canaryRun.create({
        data: { listingId: ids[key], trigger: "schedule", requestedBy: "test", state: "done", outcome: "verified", startedAt: at, finishedAt: at },
      });
      const endpoint = await t.prisma.endpoint.findFirstOrThrow({ where: { listingId: ids[key] } });
      await t.prisma.canarySample.create({
        data: { runId: run.id, listingId: ids[key], endpointId: endpoint.id, method: "POST", path: endpoint.path, state: "completed", completedAt: at, listedAmount: "10000", quotedAmount: "10000", paymentStatus: "settled", chainAmount: "10000", httpStatus: 200, schemaValid: true, outcome: "pass", reason: "pass", ...over },
      });
    };
    await sample("moodmeter", { quotedAmount: "30000", chainAmount: "30000" });
    await sample("scribe", { schemaValid: false });
    const mood = await pick("sentiment of a review");
    expect(mood.items.map((i) => keyOf(i.id))).not.toContain("moodmeter");
    expect(mood.excluded).toMatchObject([{ id: ids.moodmeter, reasons: ["charged_above_listing"], why: "the canary was asked 30000 against a listed 10000 (atomic units) 1 h ago" }]);
    expect((await pick("sentiment of a review", { include: ["charged_above_listing"] })).items.at(-1)).toMatchObject({ id: ids.moodmeter, excludedByDefault: ["charged_above_listing"] });
    const audio = await pick("transcribe an audio recording");
    expect(audio.items.map((i) => keyOf(i.id))).not.toContain("scribe");
    expect(audio.excluded).toMatchObject([{ id: ids.scribe, reasons: ["charged_without_delivery"], why: "the canary's payment settled and the output broke the declared schema 1 h ago" }]);
    // A later run that was charged the listed price and delivered clears both.
    await sample("moodmeter", {});
    await sample("scribe", { httpStatus: 500, schemaValid: null });
    expect((await pick("sentiment of a review")).items.map((i) => keyOf(i.id))).toContain("moodmeter");
    expect((await pick("transcribe an audio recording")).excluded).toMatchObject([{ id: ids.scribe, reasons: ["charged_without_delivery"], why: "the canary's payment settled and the answer was HTTP 500 1 h ago" }]);
    // An unsettled failure (nothing charged) is not a charge without delivery.
    await sample("scribe", { httpStatus: 502, paymentStatus: "failed", chainAmount: null, schemaValid: null });
    expect((await pick("transcribe an audio recording")).items.map((i) => keyOf(i.id))).toContain("scribe");
  });

  it("asks_above_stated: a fixed price whose 402 asks more than the listing states is left out; a dynamic one, an unknown asset or a 402 at the stated price stays", async () => {
    const e = await t.prisma.endpoint.findFirstOrThrow({ where: { listingId: ids.serpwire } });
    await t.prisma.endpoint.update({ where: { id: e.id }, data: { priceUsd: "0.004", priceAmount: "12000" } });
    const r = await pick("search the web");
    expect(r.items.map((i) => keyOf(i.id))).not.toContain("serpwire");
    expect(r.excluded).toMatchObject([{ id: ids.serpwire, reasons: ["asks_above_stated"], why: "its 402 asks $0.012 a call where the listing states $0.004" }]);
    expect((await pick("search the web", { include: ["asks_above_stated"] })).items.at(-1)).toMatchObject({ id: ids.serpwire, excludedByDefault: ["asks_above_stated"] });
    for (const data of [{ priceMode: "dynamic" as const }, { priceMode: "fixed" as const, priceAsset: "0x0000000000000000000000000000000000000001" }, { priceAsset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", priceAmount: "4000" }]) {
      await t.prisma.endpoint.update({ where: { id: e.id }, data });
      expect((await pick("search the web")).items.map((i) => keyOf(i.id))).toContain("serpwire");
    }
  });

  it("wash_ring: a listing the rank's ring check flagged is left out by default with the check's why; not flagged, it stays", async () => {
    const why = "5 of its 7 payers in 30 days belong to a payment ring of 3 sellers whose payees pay one another's listings (most of its payers: its traction is the ring's own)";
    await t.prisma.listingWash.create({ data: { listingId: ids.tickr, inputKey: "", excluded: [], checkedAt: new Date(NOW), ring: { organizations: ["a", "b", "c"], ringPayers: 5, payersBefore: 7, flagged: true, why } } });
    const r = await pick("stock price quotes");
    expect(r.items.map((i) => keyOf(i.id))).not.toContain("tickr");
    expect(r.excluded).toMatchObject([{ id: ids.tickr, reasons: ["wash_ring"], why: `wash ring: ${why}` }]);
    expect((await pick("stock price quotes", { include: ["wash_ring"] })).items.at(-1)).toMatchObject({ id: ids.tickr, excludedByDefault: ["wash_ring"] });
    await t.prisma.listingWash.update({ where: { listingId: ids.tickr }, data: { ring: { organizations: ["a", "b"], ringPayers: 1, payersBefore: 5, flagged: false, why: "1 of its 5 payers" } } });
    expect((await pick("stock price quotes")).items.map((i) => keyOf(i.id))).toContain("tickr");
  });

  it("trust_avoid and verdict_tier: avoid is left out, caution ranks below ok whatever the rank score, rank orders within a tier", async () => {
    await storeGrade(ids.babel, "caution", "C");
    await storeGrade(ids.lingo, "ok", "A");
    await storeGrade(ids.serpwire, "avoid", "F");
    const r = await pick("translate a menu");
    // Babel (caution) falls below the ungraded stuffer, though it scores higher within one tier.
    expect(r.items.map((i) => keyOf(i.id))).toEqual(["lingo", "stuffer", "babel"]);
    expect(r.items[0].why).toMatch(/; grade A \(ok\); /);
    expect(r.items[2].why).toMatch(/; grade C \(caution\); /);
    // Equally relevant for "languages", Babel's rank (0.9 against 0.3) would lead; graded caution, it does not.
    expect(await picks("languages")).toEqual(["lingo", "babel"]);
    const search = await pick("search the web");
    expect(search.items.map((i) => keyOf(i.id))).not.toContain("serpwire");
    expect(search.excluded).toMatchObject([{ id: ids.serpwire, reasons: ["trust_avoid"], why: "trust verdict avoid (grade F)" }]);
    const included = await pick("search the web", { include: ["trust_avoid"] });
    expect(included.items.at(-1)).toMatchObject({ id: ids.serpwire, excludedByDefault: ["trust_avoid"] });
    // Graded ok, Babel is back in tier 0, ahead of the stuffer; within the tier the rank score orders equally relevant listings.
    await storeGrade(ids.babel, "ok", "B", 1);
    expect(await picks("translate a menu")).toEqual(["lingo", "babel", "stuffer"]);
    expect((await picks("languages"))).toEqual(["babel", "lingo"]);
  });

  it("low_uptime: a pick the monitor saw up for under 95 % of its probes orders below an equally relevant one, says so, and is not left out", async () => {
    expect(await picks("languages")).toEqual(["babel", "lingo"]);
    const monitorSaw = async (uptime7d: number | null, uptime30d: number | null) => {
      const inputs: RankInputs = {
        now: new Date(NOW),
        settle: { lastSettledAt: null, failedAttemptsSinceLastSettle: 0, distinctFailingBuyersSinceLastSettle: 0 },
        ledger: { distinctPayers30d: 0, distinctAttemptingBuyers30d: 0, settled30d: 0, medianSettledPrice30d: null },
        monitor: { uptime7d, uptime30d, healthStatus: "operational", healthConfidence: 1 },
        price: { advertisedPrice: null, priceLabel: null, quote: null },
        featuredLevel: 0,
        verification: "verified",
      };
      await t.prisma.listingRank.update({ where: { listingId: ids.babel }, data: { facts: JSON.parse(rankInputsDocument(inputs)) } });
    };
    await monitorSaw(80, 97);
    const r = await pick("languages");
    expect(r.items.map((i) => keyOf(i.id))).toEqual(["lingo", "babel"]);
    expect(r.items[1].why).toMatch(/, up for 80% of monitor probes in 7 days; /);
    expect(r.items[1].excludedByDefault).toEqual([]);
    expect(r.items[0].why).not.toMatch(/monitor probes/);
    // The 30-day figure only when there is no 7-day one; too few probes (null) is no evidence against.
    await monitorSaw(null, 90);
    expect((await pick("languages")).items[1].why).toMatch(/, up for 90% of monitor probes in 30 days; /);
    await monitorSaw(null, null);
    expect(await picks("languages")).toEqual(["babel", "lingo"]);
    await monitorSaw(99.5, 60);
    expect(await picks("languages")).toEqual(["babel", "lingo"]);
  });

  it("every pick has a one-line why that is true of it", async () => {
    const r = await pick("geocode a street address to coordinates");
    const g = r.items[0];
    expect(g.why).toBe("Matches 'geocode' (near spelling), 'street', 'address', 'coordinates'; no grade yet (insufficient evidence); canary paid and passed 2 h ago; $0.002 a call");
    expect(g).toMatchObject({ verification: "verified", endpoint: { price: { usd: "0.002" } } });
    for (const task of ["weather forecast for a city", "wether forcast", "translate a menu", "summarise this article"]) {
      for (const item of (await pick(task)).items) {
        expect(item.why.split("\n")).toHaveLength(1);
        expect(item.why).toMatch(/^Matches '[^']+'/);
        expect(item.why).toContain(item.verification === "verified" ? "canary paid and passed" : item.verification === "degraded" ? "canary test call failed" : "not verified by a paid canary call");
        expect(item.why).toMatch(new RegExp(`\\$${item.endpoint.price.usd!.replace(".", "\\.")} a call$`));
      }
    }
    expect((await pick("wether forcast")).items[0].why).toMatch(/^Matches 'wether' \(near spelling\), 'forcast' \(near spelling\);/);
  });

  it("price_outlier: a listing priced above 10× the median of the relevant ones orders below them, and says so; it is not left out", async () => {
    // Last in the file: it adds listings. A decoy of weather forecasts, every word of the task in its title, at $0.50.
    const decoy = await createTestListing(t.prisma, { title: "Weather forecast for a city Pro", shortDescription: "Weather forecast for a city", description: "weather forecast city", rankScore: 2, endpoints: [{ priceUsd: "0.50", priceAmount: "500000" }] });
    await createTestListing(t.prisma, { title: "Breeze weather forecast", shortDescription: "Weather forecasts by city", rankScore: 0.3, endpoints: [{ priceUsd: "0.008", priceAmount: "8000" }] });
    const r = await pick("weather forecast for a city");
    const order = r.items.map((i) => i.id);
    expect(order.indexOf(decoy)).toBeGreaterThan(order.indexOf(ids.weatherly));
    expect(r.items.find((i) => i.id === decoy)!.why).toMatch(/; \$0\.50 a call, 50× the median of the relevant listings \(\$0\.01\)$/);
    expect(r.excluded.map((e) => e.id)).not.toContain(decoy);
  });

  it("price_outlier among its category: a decoy alone above the minimum relevance is measured against its category's near matches, which are picked before it", async () => {
    // Also adds listings. Only the decoy has "trading" and "today"; the honest quotes match "stock" alone.
    const decoy = await createTestListing(t.prisma, { title: "Quotes Pro: how is the stock trading today", shortDescription: "How is the stock trading today, premium", category: "finance", description: "stock trading today premium", rankScore: 2, endpoints: [{ priceUsd: "0.45", priceAmount: "450000" }] });
    const alone = await pick("how is the stock ACME840 trading today");
    const honest = [ids.tickr];
    for (const [name, usd] of [["Ticker Tape stock quotes", "0.008"], ["Bourse stock prices", "0.012"]] as const) {
      honest.push(await createTestListing(t.prisma, { title: name, shortDescription: "Stock prices for listed companies", category: "finance", rankScore: 0.4, endpoints: [{ priceUsd: usd, priceAmount: String(Number(usd) * 1e6) }] }));
    }
    // A listing of another category near the task is no peer, and is not brought in.
    const other = await createTestListing(t.prisma, { title: "Stockroom inventory", shortDescription: "Warehouse stock levels", category: "logistics", rankScore: 0.9, endpoints: [{ priceUsd: "0.001", priceAmount: "1000" }] });
    const r = await pick("how is the stock ACME840 trading today");
    const order = r.items.map((i) => i.id);
    expect(order.slice(0, 3).sort()).toEqual([...honest].sort());
    expect(order[3]).toBe(decoy);
    expect(order).not.toContain(other);
    expect(r.items[3].why).toMatch(/; \$0\.45 a call, 45× the median of its category's listings near the task \(\$0\.01\)$/);
    // Before the third comparable listing there is no bar: the decoy was the pick, and nothing was brought in.
    expect(alone.items[0].id).toBe(decoy);
    expect(alone.items.every((i) => !i.why.includes("median"))).toBe(true);
    // Each honest one was below the minimum relevance on its own.
    for (const h of honest) expect(r.items.find((i) => i.id === h)!.relevance).toBeLessThan(0.25);
  });

  it("a task's input word near a brand many sellers share does not outweigh the capability's words", async () => {
    // Also adds listings: four phone lookups of one brand; the task's "harbour" is a near spelling of it.
    const brand: string[] = [];
    for (let i = 1; i <= 4; i++) brand.push(await createTestListing(t.prisma, { title: `Harbor ${i} phone number lookup`, shortDescription: "Carrier and line type for a phone number", category: "telecom", rankScore: 0.9, endpoints: [{ priceUsd: "0.01" }] }));
    const r = await pick("write a short summary of report number 868 on harbour traffic");
    expect(keyOf(r.items[0].id)).toBe("quillsum");
    expect(brand).not.toContain(r.items[0].id);
  });

  it("'number' that numbers what follows ('friend number 420', 'report number 854') is a label, not a term; a phone number is still a phone's", async () => {
    // The four phone lookups above are the only listings that say "number": counted, it outweighed "in
    // French" and a phone lookup was picked to translate.
    expect((await readTerms(t.prisma, "what is hello friend number 420 in French")).map((x) => x.word)).toEqual(["french"]);
    expect((await picks("what is hello friend number 420 in French"))[0]).toBe("lingo");
    expect((await picks("give me the gist of report number 854 on harbour traffic"))[0]).toBe("quillsum");
    // The kind of number is the word before it, and it stays.
    expect((await readTerms(t.prisma, "look up the carrier of the phone number +1 555 0142")).map((x) => x.word)).toEqual(["look", "carrier", "phone"]);
    expect((await pick("validate the phone number +1 555 0142")).items[0].title).toMatch(/^Harbor \d phone number lookup$/);
    // Not a label: "the number 42", "a phone number" with nothing after it.
    expect((await readTerms(t.prisma, "spell out the number 42")).map((x) => x.word)).toContain("number");
    expect((await readTerms(t.prisma, "who owns this phone number")).map((x) => x.word)).toContain("number");
  });

  it("direction: a geocoder that only takes addresses orders below a reverse geocoder for 'which address is at …', and the other way round, whatever their rank", async () => {
    // Also adds listings: one geocoder each way, with the same words.
    const forward = await createTestListing(t.prisma, { title: "Pinpoint geocoding", shortDescription: "Convert street addresses to latitude and longitude coordinates", category: "geo", rankScore: 0.5, endpoints: [{ priceUsd: "0.01" }] });
    const reverse = await createTestListing(t.prisma, { title: "Backtrack geocoding", shortDescription: "Turn latitude and longitude coordinates into the street address", category: "geo", rankScore: 0.5, endpoints: [{ priceUsd: "0.01" }] });
    const rank = (id: string, score: number) => exec(t.prisma, `UPDATE "listing_ranks" SET "rankScore" = $2 WHERE "listingId" = $1`, id, score);
    const order = async (task: string) => (await pick(task, { limit: 20 })).items.filter((i) => i.id === forward || i.id === reverse);
    // Each task's words match both alike; the better rank is on the one going the wrong way.
    await rank(forward, 0.99);
    const toAddress = await order("which street address is at latitude longitude 40.342, -73.98");
    expect(toAddress.map((i) => i.id)).toEqual([reverse, forward]);
    expect(toAddress[1].relevance).toBeCloseTo(toAddress[0].relevance * REVERSED_FACTOR, 12);
    expect(toAddress[1].why).toMatch(/^Matches .* but takes what the task asks for \(reads the other way\); /);
    expect(toAddress[0].why).not.toMatch(/other way/);
    await rank(forward, 0.5);
    await rank(reverse, 0.99);
    expect((await order("turn the street address 12 Main Street, Springfield into latitude longitude coordinates")).map((i) => i.id)).toEqual([forward, reverse]);
  });
});

/** A stored grade (what the attest sweep writes) for the listing's first endpoint. */
async function storeGrade(listingId: string, verdict: "ok" | "caution" | "avoid", grade: string, later = 0) {
  const e = await t.prisma.endpoint.findFirstOrThrow({ where: { listingId }, orderBy: { position: "asc" } });
  const sha = createHash("sha256").update(`${listingId}:${verdict}:${later}`).digest("hex");
  const scoredAt = new Date(NOW - 3_600_000 + later * 60_000);
  await exec(t.prisma, `INSERT INTO "trust_evidence_bundles" ("sha256", "encoding", "bytes", "size") VALUES ($1, 'identity', decode('e30=', 'base64'), 2)`, sha);
  const g = await t.prisma.trustGrade.create({
    data: {
      id: `g-${sha.slice(0, 12)}`, listingId, endpointId: e.id, method: e.method, path: e.path, score: 80, grade, bandLow: 75, bandHigh: 85, confidence: "high", verdict, flags: [],
      detail: { verdictBecause: [], outlook: "steady", watch: false, watchBecause: [], stale: false, uncappedScore: 80, bandWidth: 10, evidence: { probes: 20, probeSpanDays: 5, lastPaidAt: null }, firstProbeAt: null },
      rubricRef: "x402-endpoint/test", readingRef: "reading-2", rubricSha256: sha, readingSha256: sha, seed: 1, scoredAt, bundleSha256: sha, observations: 20,
      statement: {}, envelope: {}, keyid: "test", issuedAt: scoredAt, expiresAt: new Date(scoredAt.getTime() + 86_400_000),
    },
  });
  await t.prisma.trustGradeLatest.upsert({
    where: { listingId_method_path: { listingId, method: e.method, path: e.path } },
    create: { listingId, method: e.method, path: e.path, gradeId: g.id, scoredAt },
    update: { gradeId: g.id, scoredAt },
  });
}

describe("retrieval reads only listings that can reach the floor (docs/SELECTION.md \"Speed\")", () => {
  const term = (word: string, idfValue: number, common = false): Term => ({ word, lexeme: word, same: [word], synonyms: [], df: 1, idf: idfValue, common });
  const words = (ts: Term[]) => ts.map((t) => t.word);

  it("keeps the rarest terms until the others together cannot reach the floor", () => {
    const terms = [term("address", 1.6), term("geocode", 3), term("coordinates", 1.3)];
    // Σ 5.9; without geocode and address, coordinates alone scores at most 1.3 / 5.9 = 0.22 < 0.25.
    expect(words(retrievalTerms(terms, 0.25))).toEqual(["address", "geocode"]);
    // A higher floor needs fewer terms: without geocode the rest reach at most 2.9 / 5.9 = 0.49.
    expect(words(retrievalTerms(terms, 0.5))).toEqual(["geocode"]);
    // No floor: every uncommon term retrieves.
    expect(words(retrievalTerms(terms, 0))).toEqual(["address", "geocode", "coordinates"]);
  });

  it("a common term never retrieves, but its weight counts against the floor; all common, all retrieve", () => {
    const terms = [term("api", 0.2, true), term("weather", 2), term("forecast", 1.8)];
    expect(words(retrievalTerms(terms, 0.25))).toEqual(["weather", "forecast"]);
    expect(words(retrievalTerms([term("api", 0.2, true), term("data", 0.3, true)], 0.25))).toEqual(["api", "data"]);
  });

  it("exact: over random term sets, a listing holding none of the kept terms scores below the floor, and one holding only a kept term can reach it", () => {
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let round = 0; round < 2000; round++) {
      const terms = Array.from({ length: 1 + Math.floor(random() * 6) }, (_, i) => term(`w${i}`, 0.05 + random() * 4, random() < 0.15));
      const floor = [0.1, 0.25, 0.5][round % 3];
      const kept = new Set(retrievalTerms(terms, floor));
      const total = terms.reduce((sum, t) => sum + t.idf, 0);
      const rest = terms.filter((t) => !kept.has(t)).reduce((sum, t) => sum + t.idf, 0);
      // Every term at its best (score 1), the kept ones absent: the most such a listing can score.
      if (kept.size > 0 && kept.size < terms.filter((t) => !t.common).length) expect(rest / total).toBeLessThan(floor);
      // Nothing is pruned while the rest could still reach the floor.
      const last = [...kept].sort((a, b) => a.idf - b.idf)[0];
      if (last && kept.size < terms.length) expect((rest + last.idf) / total).toBeGreaterThanOrEqual(floor * (1 - 1e-9));
    }
  });
});
