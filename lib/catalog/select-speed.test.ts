/**
 * Select's speed work changes no answer (docs/SELECTION.md "Speed"): on a seeded catalog (test/select-catalog.ts,
 * 1,200 listings with stored grades, canary runs and ungraded endpoints with observations), every answer
 * of 200 sentence tasks (and with `include`) equals the one recorded before the change
 * (__fixtures__/select-answers.json, written with UPDATE_SELECT_FIXTURE=1, again whenever synonyms change); the
 * statements per select stay few and do not grow with the pool; a listing write is seen by the next select.
 */
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { CATALOG_NOW, loadListings, sentenceTasks } from "@/test/select-catalog";
import { countStatements } from "@/bench/statements";
import { parseSelectRequest, selectServices, type SelectResponse } from "./select";

const FIXTURE = path.join(__dirname, "__fixtures__", "select-answers.json");
let t: TestDatabase;

beforeAll(async () => {
  t = await createTestDatabase();
  await t.asOwner((o) => loadListings(o, 1, 1200));
  vi.spyOn(Date, "now").mockReturnValue(CATALOG_NOW);
}, 120_000);
afterAll(async () => {
  vi.restoreAllMocks();
  await t?.close();
});

function requests() {
  const tasks = sentenceTasks().map((x) => ({ ...x, limit: 10 }));
  const included = tasks.slice(0, 20).map((x, i) => ({ ...x, include: i % 2 ? ["canary_failed", "trust_avoid"] : ["trust_avoid"], limit: 50 }));
  return [...tasks, ...included];
}

const digest = (a: SelectResponse) => ({
  items: a.items.map((i) => `${i.slug} ${i.relevance} ${i.trust?.verdict ?? "-"} ${i.excludedByDefault.join(",")}`),
  excluded: a.excluded.map((e) => `${e.slug} ${e.reasons.join(",")}`),
  sha256: createHash("sha256").update(JSON.stringify(a)).digest("hex"),
});

describe("select answers at speed", () => {
  it("every answer equals the one recorded before the speed work", async () => {
    const answers = [];
    for (const r of requests()) answers.push(digest(await selectServices(parseSelectRequest(r), { apiVersion: "1.55", now: CATALOG_NOW })));
    // The catalog exercises every evidence path: stored avoid and caution, failed canaries, live-scored endpoints.
    const all = JSON.stringify(answers);
    for (const s of [" avoid ", " caution ", "canary_failed", "trust_avoid", " insufficient_evidence "]) expect(all).toContain(s);
    if (process.env.UPDATE_SELECT_FIXTURE) writeFileSync(FIXTURE, JSON.stringify(answers, null, 1) + "\n");
    const recorded = JSON.parse(readFileSync(FIXTURE, "utf8")) as typeof answers;
    expect(answers.length).toBe(recorded.length);
    for (let i = 0; i < answers.length; i++) expect({ i, ...answers[i] }).toEqual({ i, ...recorded[i] });
  }, 900_000);

  it("a select sends a handful of statements, whatever the pool's size; a listing write is seen by the next select", async () => {
    const counter = await countStatements();
    const run = async (task: string, extra: object = {}) => {
      counter.reset();
      const a = await selectServices(parseSelectRequest({ task, limit: 10, ...extra }), { apiVersion: "1.55", now: CATALOG_NOW });
      return { a, n: counter.total() };
    };
    await run("weather forecast for a city"); // stems and frequencies counted once
    const warm = await run("weather forecast for a city");
    const wide = await run("I need an API to weather forecast for a city", { limit: 50 });
    expect(warm.a.items.length).toBe(10);
    // Stems+stats; ranking (BEGIN, SET, the statement, COMMIT), twice when the first window of 400 holds
    // fewer than the pool (lib/catalog/search.ts ranked); candidates with their grades. The pool adds none.
    expect(warm.n).toBeGreaterThanOrEqual(1);
    expect(warm.n).toBeLessThanOrEqual(10);
    expect(wide.n).toBeLessThanOrEqual(warm.n + 4);
    // A new public listing with a word no listing held: the cached frequencies give way at once.
    expect((await run("zorblatt forecasts")).a.items.map((i) => i.title)).not.toContain("Zorblatt Weather");
    await t.asOwner((o) => o.exec(`INSERT INTO "listings" ("id", "slug", "organizationId", "title", "shortDescription", "category", "baseUrl", "protocols", "networks", "publicationState", "publishedAt", "updatedAt")
      VALUES ('lzorb', 'zorblatt', 'org-bench', 'Zorblatt Weather', 'Weather forecasts', 'weather', 'https://zorb.example.com', ARRAY['x402'], ARRAY['eip155:8453'], 'published', now(), now());
      INSERT INTO "endpoints" ("id", "listingId", "position", "method", "path", "payable", "priceUsd", "priceMode") VALUES ('ezorb', 'lzorb', 0, 'POST', '/run', true, '0.001', 'fixed')`));
    expect((await run("zorblatt forecasts")).a.items[0]?.title).toBe("Zorblatt Weather");
  }, 120_000);
});
