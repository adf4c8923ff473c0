import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { createTestListing } from "@/test/ledger";
import { fixedKeyring } from "@/test/badges";
import { runRankSweep } from "@/lib/rank/sweep-ranks";
import { rows } from "@/lib/sql";
import { browseCatalog, catalogFacets } from "@/lib/catalog/browse";
import { countCatalog, sortedCatalog } from "@/lib/catalog/sorted";
import { searchCatalog } from "@/lib/catalog/search";
import { aiCatalogFeed, ardFeed, ardSearch } from "@/lib/catalog/feeds";
import { getPublishedListing } from "@/lib/catalog/queries";
import { parseSelectRequest, selectServices } from "@/lib/catalog/select";
import { badgeForListing, setBadgeKeyring } from "@/lib/badges/server";
import sitemap from "@/app/sitemap";
import { POST as mcp } from "@/app/mcp/route";
import { isListed, isPublic, isUnseen, LISTED_LISTING, listedSql, PUBLIC_LISTING, publicSql } from "./visibility";

// One listing per state, all matching the same words and category, each with a published result:
// only their visibility tells them apart.
const STATES = ["published", "draft", "unlisted", "archived", "tombstoned"] as const;
type State = (typeof STATES)[number];
const HIDDEN: State[] = ["draft", "unlisted", "archived", "tombstoned"];
const WORD = "quokkaspeak";
const ORIGIN = "https://tollgate.example";

let t: TestDatabase;
const ids = {} as Record<State, string>;
const slugs = {} as Record<State, string>;

beforeAll(async () => {
  t = await createTestDatabase();
  setBadgeKeyring(fixedKeyring());
  for (const state of STATES) {
    const publicationState = state === "tombstoned" ? "published" : state;
    const id = await createTestListing(t.prisma, { title: `${WORD} translator ${state}`, shortDescription: `Translates ${WORD}`, category: "quokka-visibility", publicationState });
    const r = await t.prisma.readinessResult.create({
      data: { listingId: id, rubricVersion: "readiness/1.0.0", total: 80, rawTotal: 80, band: "Ready", provisional: false, caps: [], dimensions: [], rules: [], improvements: [], document: {} },
    });
    await t.prisma.listing.update({ where: { id }, data: { currentResultId: r.id } });
    // A tombstone as lib/listings/lifecycle.ts deletes a listing with history: archived, deletedAt set.
    if (state === "tombstoned") await t.prisma.listing.update({ where: { id }, data: { publicationState: "archived", deletedAt: new Date() } });
    ids[state] = id;
    slugs[state] = (await t.prisma.listing.findUniqueOrThrow({ where: { id }, select: { slug: true } })).slug;
  }
  await runRankSweep();
});
afterAll(async () => {
  setBadgeKeyring(undefined);
  await t?.close();
});

async function mcpSearch(query: string): Promise<string[]> {
  const res = await mcp(
    new Request("http://localhost/mcp", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "search_catalog", arguments: { query } } }),
    }),
  );
  const body = await res.json();
  return body.result.structuredContent.services.map((s: { id: string }) => s.id);
}

/** Every public reader, as the set of listing ids it shows. */
const READERS: Array<[string, () => Promise<string[]>]> = [
  ["browse", async () => (await browseCatalog({ limit: 100 })).items.map((l) => l.id)],
  ["browse with a filter", async () => (await browseCatalog({ limit: 100, filters: { category: "quokka-visibility" } })).items.map((l) => l.id)],
  ["sorted browse", async () => (await sortedCatalog({ sort: "newest", limit: 100 })).items.map((l) => l.id)],
  ["search", async () => (await searchCatalog({ query: WORD, limit: 50 })).items.map((l) => l.id)],
  ["search, typo side", async () => (await searchCatalog({ query: "quokkaspaek translater", limit: 50 })).items.map((l) => l.id)],
  ["feed /ai-catalog.json", async () => (await aiCatalogFeed({ origin: ORIGIN, limit: 100 })).items.map((e) => e.id)],
  ["feed /ard", async () => (await ardFeed({ origin: ORIGIN, limit: 100 })).services.map((e) => e.id)],
  ["feed /ard/search", async () => (await ardSearch({ origin: ORIGIN, q: WORD })).services.map((e) => e.id)],
  ["sitemap", async () => (await sitemap()).flatMap((e) => STATES.filter((s) => e.url.endsWith(`/listings/${slugs[s]}`)).map((s) => ids[s]))],
  ["MCP search_catalog", () => mcpSearch(WORD)],
  ["router select", async () => (await selectServices(parseSelectRequest({ task: `${WORD} translator` }))).items.map((r) => r.id)],
  ["listing page", async () => (await Promise.all(STATES.map((s) => getPublishedListing(slugs[s])))).flatMap((l) => (l ? [l.id] : []))],
  ["badge (signed with a score)", async () => (await Promise.all(STATES.map((s) => badgeForListing(slugs[s], "flat", undefined, new Date())))).flatMap((b) => (b?.badge.signed ? [b.listing.id] : []))],
];

describe("the one public-listing filter, at every public reader", () => {
  it.each(READERS)("%s shows the published listing and hides the draft, unlisted, archived and tombstoned ones", async (_name, read) => {
    const shown = new Set(await read());
    expect(shown.has(ids.published)).toBe(true);
    expect(HIDDEN.filter((s) => shown.has(ids[s]))).toEqual([]);
  });

  it("the facets and the count know only the published listing", async () => {
    expect((await catalogFacets()).categories).toContainEqual({ value: "quokka-visibility", count: 1 });
    expect(await countCatalog({ category: "quokka-visibility" })).toBe(1);
  });

  it("a badge: a draft and a tombstone are not found; unlisted and archived get the unsigned badge", async () => {
    const badge = (s: State) => badgeForListing(slugs[s], "flat", undefined, new Date());
    expect(await badge("draft")).toBeNull();
    expect(await badge("tombstoned")).toBeNull();
    for (const s of ["unlisted", "archived"] as const) expect((await badge(s))?.badge.signed).toBe(false);
    expect((await badge("published"))?.badge.signed).toBe(true);
  });
});

describe("the definition, in Prisma, SQL and code, agrees on every state", () => {
  it("Prisma where, SQL condition and the row checks pick the same listings", async () => {
    const byPrisma = async (where: object) => (await t.prisma.listing.findMany({ where: { AND: [{ id: { in: Object.values(ids) } }, where] }, select: { id: true } })).map((r) => r.id).sort();
    const bySql = async (cond: string) => (await rows<{ id: string }>(t.prisma, `SELECT l.id FROM "listings" l WHERE l.id = ANY($1::text[]) AND ${cond}`, Object.values(ids))).map((r) => r.id).sort();
    const rowsOf = await t.prisma.listing.findMany({ where: { id: { in: Object.values(ids) } }, select: { id: true, publicationState: true, deletedAt: true } });
    const byCode = (f: (r: (typeof rowsOf)[number]) => boolean) => rowsOf.filter(f).map((r) => r.id).sort();
    const publicIds = [ids.published].sort();
    const listedIds = [ids.published, ids.unlisted].sort();
    expect(await byPrisma(PUBLIC_LISTING)).toEqual(publicIds);
    expect(await bySql(publicSql("l"))).toEqual(publicIds);
    expect(byCode(isPublic)).toEqual(publicIds);
    expect(await byPrisma(LISTED_LISTING)).toEqual(listedIds);
    expect(await bySql(listedSql("l"))).toEqual(listedIds);
    expect(byCode(isListed)).toEqual(listedIds);
    expect(byCode(isUnseen)).toEqual([ids.draft, ids.tombstoned].sort());
  });

  it("a tombstone can never be published again, so the state alone decides (CHECK and trigger)", async () => {
    await expect(t.prisma.listing.update({ where: { id: ids.tombstoned }, data: { publicationState: "published" } })).rejects.toThrow();
    await expect(t.prisma.listing.update({ where: { id: ids.unlisted }, data: { deletedAt: new Date() } })).rejects.toThrow();
  });
});
