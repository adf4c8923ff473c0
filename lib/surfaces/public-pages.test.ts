/**
 * The public pages' cache (PGlite, or server PostgreSQL with TEST_DATABASE_URL): a page's read model
 * costs a handful of statements, one while nothing it shows has changed, and a change committed by
 * another connection (on the server: another pool, as a sweep in another process would be) shows on
 * the very next request. PGlite is one process: there the writer is the same handle.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { countStatements, type StatementCounter } from "@/bench/statements";
import { signerFor } from "@/lib/badges/keys";
import { openDatabase, type DatabaseHandle } from "@/lib/db";
import { exec, rows } from "@/lib/sql";
import { gradeListing } from "@/lib/attest/sweep";
import { CATALOG_REFRESH_MS, PAGE_TTL_MS, pageCache, readTagVersions } from "@/lib/catalog/page-cache";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { fixedKeyring } from "@/test/badges";
import { daysBefore, GRADE_NOW, gradedListing, observe } from "@/test/attest";
import { aiCatalogFeed, ardSearch } from "@/lib/catalog/feeds";
import { searchCatalog } from "@/lib/catalog/search";
import { readTrustGlances } from "@/lib/catalog/trust";
import { publicCatalogPage, publicEndpointPage, publicListingPage, publicPageStats } from "./public-pages";

let t: TestDatabase;
/** The writer: another pool on the server (another process's connections), the same handle on PGlite. */
let w: DatabaseHandle;
let c: StatementCounter;
let listing: { id: string; slug: string; endpointId: string };

const signer = signerFor(fixedKeyring());
const hours = (h: number) => new Date(GRADE_NOW.getTime() + h * 3_600_000);

beforeAll(async () => {
  t = await createTestDatabase();
  w = t.url ? await openDatabase({ url: t.url, schema: t.schema!, poolSize: 2 }) : t;
  const { id, endpointId } = await gradedListing(t.prisma, 4);
  await gradeListing(t.prisma, id, { now: GRADE_NOW, signer });
  const [{ slug }] = await rows<{ slug: string }>(t.prisma, `SELECT "slug" FROM "listings" WHERE "id" = $1`, id);
  listing = { id, slug, endpointId };
  c = await countStatements();
}, 120_000);
afterAll(async () => {
  if (w && w !== t) await w.close();
  await t?.close();
});

/** What `f` sends, counted. */
async function counted<T>(f: () => Promise<T>): Promise<{ value: T; statements: number; sent: string[] }> {
  c.reset();
  const value = await f();
  return { value, statements: c.total(), sent: [...c.snapshot().keys()] };
}

describe("the listing page", () => {
  it("costs a handful of statements when read, one while nothing it shows has changed", async () => {
    await publicListingPage(listing.slug);
    await exec(w, `UPDATE "listings" SET "title" = 'Renamed once' WHERE "id" = $1`, listing.id);
    const read = await counted(() => publicListingPage(listing.slug));
    expect(read.value!.view.listing.title).toBe("Renamed once");
    // The version check, the listing, its facts, the ledger's activity (the one facts reader's three
    // sources), the endpoints' prices, paid samples, stored grades and the category's peers (from their
    // stored grades, nothing scored): against about 25 before.
    expect(read.statements, read.sent.join("\n")).toBeLessThanOrEqual(10);
    const again = await counted(() => publicListingPage(listing.slug));
    expect(again.statements).toBe(1);
    expect(again.value).toBe(read.value);
  });

  it("shows a new stored grade on the next request after the grade commits", async () => {
    const before = (await publicListingPage(listing.slug))!;
    expect(before.trust[0].probes).toBe(4);
    await observe(t.prisma, listing.id, daysBefore(-0.5));
    await gradeListing(w === t ? t.prisma : w.prisma, listing.id, { now: hours(13), signer });
    const after = (await publicListingPage(listing.slug))!;
    expect(after.trust[0].probes).toBe(5);
    const page = (await publicEndpointPage(listing.slug, listing.endpointId))!;
    expect(page.trust.probes).toBe(5);
  });

  it("shows a new readiness result (the pointer moved) and a health sample on the next request", async () => {
    expect((await publicListingPage(listing.slug))!.view.listing.readiness).toBeNull();
    const [r] = await rows<{ id: string }>(
      w,
      `INSERT INTO "catalog_scoring_results" ("id", "listingId", "rubricVersion", "total", "rawTotal", "band", "provisional", "caps", "dimensions", "rules", "improvements", "document")
       VALUES ('res_pages_' || md5(random()::text), $1, 'readiness/1.0.0', 81, 81, 'Ready', false, '[]', '[]', '[]', '[]', '{}') RETURNING "id"`,
      listing.id,
    );
    await exec(w, `UPDATE "listings" SET "currentResultId" = $2 WHERE "id" = $1`, listing.id, r.id);
    expect((await publicListingPage(listing.slug))!.view.listing.readiness?.score).toBe(81);

    const samples = (await publicListingPage(listing.slug))!.view.facts.health.samples;
    await exec(w, `INSERT INTO "monitor_health_samples" ("id", "listingId", "at", "outcome", "confidence", "vantage") VALUES (md5(random()::text), $1, now() AT TIME ZONE 'UTC', 'up', 1, 'test')`, listing.id);
    expect((await publicListingPage(listing.slug))!.view.facts.health.samples).toBe(samples + 1);
  });

  it("a rolled-back write changes nothing: the page is still served from the cache", async () => {
    const kept = await publicListingPage(listing.slug);
    await expect(
      w.session(async (s) => {
        await s.exec("BEGIN");
        try {
          await s.query(`UPDATE "listings" SET "title" = 'Never seen' WHERE "id" = $1`, [listing.id]);
          throw new Error("abandoned");
        } finally {
          await s.exec("ROLLBACK");
        }
      }),
    ).rejects.toThrow("abandoned");
    const again = await counted(() => publicListingPage(listing.slug));
    expect(again.statements).toBe(1);
    expect(again.value).toBe(kept);
  });

  it("a listing taken down answers no page on the next request, and a slug nobody has is never kept", async () => {
    const { id } = await gradedListing(t.prisma, 1);
    const [{ slug }] = await rows<{ slug: string }>(t.prisma, `SELECT "slug" FROM "listings" WHERE "id" = $1`, id);
    expect(await publicListingPage(slug)).not.toBeNull();
    await exec(w, `UPDATE "listings" SET "publicationState" = 'unlisted' WHERE "id" = $1`, id);
    expect(await publicListingPage(slug)).toBeNull();
    expect(await publicListingPage("no-such-listing")).toBeNull();
    await exec(w, `UPDATE "listings" SET "publicationState" = 'published' WHERE "id" = $1`, id);
    expect(await publicListingPage(slug)).not.toBeNull();
  });
});

describe("the catalog pages", () => {
  it("show a changed rank order within CATALOG_REFRESH_MS, served meanwhile in one statement, reloaded once in the background", async () => {
    const { id: other } = await gradedListing(t.prisma, 1);
    const setRanks = async (a: number, b: number) => {
      await exec(w, `UPDATE "listing_ranks" SET "rankScore" = $2 WHERE "listingId" = $1`, listing.id, a);
      await exec(w, `UPDATE "listing_ranks" SET "rankScore" = $2 WHERE "listingId" = $1`, other, b);
    };
    // Whole milliseconds: from a fractional start, (c + TTL + REFRESH) - (c + TTL) can round to just
    // under REFRESH, and the age check would then (rightly) not reload.
    let clock = Math.ceil(performance.now());
    const now = vi.spyOn(performance, "now").mockImplementation(() => clock);
    try {
      const order = async () => (await publicCatalogPage({}))!.view.items.map((i) => i.listing.id).filter((id) => id === listing.id || id === other);
      await setRanks(0.9, 0.1);
      clock += PAGE_TTL_MS; // past anything kept by an earlier test: a fresh load
      expect(await order()).toEqual([listing.id, other]);
      await setRanks(0.1, 0.9);
      const kept = await counted(() => order());
      expect(kept.value).toEqual([listing.id, other]);
      expect(kept.statements).toBe(1);
      const loads = publicPageStats().catalog.loads;
      clock += CATALOG_REFRESH_MS;
      expect(await order()).toEqual([listing.id, other]); // served as kept; the reload starts
      for (let i = 0; i < 600 && (await order())[0] !== other; i++) await new Promise((r) => setTimeout(r, 50)); // the reload, under load
      expect(await order()).toEqual([other, listing.id]);
      expect(publicPageStats().catalog.loads).toBe(loads + 1);
      // The rank sweep's bookkeeping alone (rankedAt) is not a change a page shows.
      await exec(w, `UPDATE "listing_ranks" SET "rankedAt" = now() WHERE "listingId" = $1`, other);
      expect((await counted(() => publicCatalogPage({}))).statements).toBe(1);
    } finally {
      now.mockRestore();
    }
  });

  it("a lever a moderator sets (sort weight) shows on the next request", async () => {
    const ids = async () => (await publicCatalogPage({}))!.view.items.map((i) => i.listing.id);
    const before = await ids();
    const last = before[before.length - 1];
    const [was] = await rows<{ tier: number; sortWeight: number }>(t, `SELECT "tier", "sortWeight" FROM "listing_ranks" WHERE "listingId" = $1`, last);
    await exec(w, `UPDATE "listing_ranks" SET "tier" = (SELECT min("tier") FROM "listing_ranks"), "sortWeight" = (SELECT max("sortWeight") + 1 FROM "listing_ranks") WHERE "listingId" = $1`, last);
    expect((await ids())[0]).toBe(last);
    await exec(w, `UPDATE "listing_ranks" SET "tier" = $2, "sortWeight" = $3 WHERE "listingId" = $1`, last, was.tier, was.sortWeight);
  });

  it("a new stored grade moves the listing's tag, not the catalog's", async () => {
    const tags = ["catalog", `listing:${listing.id}`];
    const before = await readTagVersions(t, tags);
    await observe(t.prisma, listing.id, daysBefore(-1));
    const mid = await readTagVersions(t, tags);
    await gradeListing(w === t ? t.prisma : w.prisma, listing.id, { now: hours(30), signer });
    const after = await readTagVersions(t, tags);
    expect(after.catalog).toBe(before.catalog);
    expect(BigInt(after[tags[1]])).toBeGreaterThan(BigInt(mid[tags[1]]));
  });

  it("a category page shows a listing that moves into the category on the next request", async () => {
    const q = { category: "zz-pages-test" };
    expect((await publicCatalogPage(q))!.view.items).toHaveLength(0);
    await exec(w, `UPDATE "listings" SET "category" = 'zz-pages-test' WHERE "id" = $1`, listing.id);
    expect((await publicCatalogPage(q))!.view.items.map((i) => i.listing.id)).toEqual([listing.id]);
  });
  it("read the facets once for every page while the catalog is unchanged, and count a moved category on the next request", async () => {
    const facetStatement = (sent: string[]) => sent.some((k) => k.startsWith("SELECT f.v AS value, count(*)"));
    await publicCatalogPage({ search: "zz facets one" });
    const another = await counted(() => publicCatalogPage({ search: "zz facets two" }));
    expect(another.value!.view.mode).toBe("search");
    expect(facetStatement(another.sent)).toBe(false);
    await exec(w, `UPDATE "listings" SET "category" = 'zz-facets-test' WHERE "id" = $1`, listing.id);
    const moved = await counted(() => publicCatalogPage({ search: "zz facets three" }));
    expect(facetStatement(moved.sent)).toBe(true);
    expect(moved.value!.view.facets.categories).toContainEqual({ value: "zz-facets-test", count: 1 });
    expect(moved.value!.view.facets.categories.map((f) => f.value)).not.toContain("zz-pages-test");
  });
});

describe("the catalog's trust tiles", () => {
  it("are read in the same few statements however many listings a page shows, and read as each listing alone", async () => {
    const graded: string[] = [];
    for (let i = 0; i < 4; i++) {
      const { id } = await gradedListing(t.prisma, 3);
      await gradeListing(t.prisma, id, { now: GRADE_NOW, signer });
      graded.push(id);
    }
    const ungraded = (await gradedListing(t.prisma, 3)).id;
    const fewer = await counted(() => readTrustGlances(t, graded.slice(0, 1)));
    const more = await counted(() => readTrustGlances(t, graded));
    // One statement per tile before (the endpoints of each listing in turn): 1 + 1 and 1 + 4.
    expect(more.statements).toBe(fewer.statements);
    expect(more.statements).toBe(2);
    // An ungraded listing adds its live reading, not a statement per listing.
    const at = { now: hours(1), stored: true };
    const mixed = await counted(() => readTrustGlances(t, [...graded, ungraded], at));
    const alone = await counted(() => readTrustGlances(t, [ungraded], at));
    expect(mixed.statements).toBe(alone.statements);
    // The same readings as each listing read by itself.
    const together = mixed.value;
    for (const id of [...graded, ungraded]) {
      const one = await readTrustGlances(t, [id], at);
      expect(together.listings.get(id)).toEqual(one.listings.get(id));
      for (const [endpointId, reading] of one.endpoints) expect(together.endpoints.get(endpointId)).toEqual(reading);
    }
    expect(together.listings.size).toBe(5);
  });
});

describe("text PostgreSQL cannot hold, in a public page's address (was a 500)", () => {
  it.each([
    ["search", { search: "geo\u0000code" }, "contains a NUL character (U+0000) at index 3, which cannot be stored"],
    ["search", { search: "\ud800" }, "contains a lone surrogate (U+D800) at index 0, which is not valid Unicode"],
    ["category", { category: "\u0000" }, "contains a NUL character (U+0000) at index 0, which cannot be stored"],
    ["network", { network: "eip155:\u0000" }, "contains a NUL character (U+0000) at index 7, which cannot be stored"],
    ["category", { search: "weather", category: "\u0000" }, "contains a NUL character (U+0000) at index 0, which cannot be stored"],
  ] as const)("the catalog names the %s and shows no result", async (field, q, message) => {
    const { view } = (await publicCatalogPage(q))!;
    expect(view.problem).toEqual({ field, message });
    expect(view.items).toEqual([]);
  });

  it("a listing or endpoint slug holding one is no page, not an error", async () => {
    expect(await publicListingPage("a\u0000b")).toBeNull();
    expect(await publicEndpointPage("a\u0000b", listing.endpointId)).toBeNull();
    expect(await publicListingPage(listing.slug)).not.toBeNull();
  });

  it("the search every other caller reaches refuses it with a pointer", async () => {
    await expect(searchCatalog({ query: "a\u0000", limit: 5 })).rejects.toMatchObject({ code: "bad_request", details: [{ pointer: "/query" }] });
  });
});

describe("the feeds and keyless search", () => {
  it("are one statement while the catalog is unchanged, and drop a listing taken down on the next request", async () => {
    const { id } = await gradedListing(t.prisma, 1);
    const word = `zzfeed${Math.random().toString(36).slice(2, 8)}`;
    await exec(w, `UPDATE "listings" SET "title" = $2 WHERE "id" = $1`, id, `Feed ${word} API`);
    const feedIds = async () => (await aiCatalogFeed({ origin: "https://tollgate.test", limit: 100 })).items.map((e) => e.id);
    const searchIds = async () => (await ardSearch({ origin: "https://tollgate.test", q: word })).services.map((e) => e.id);
    expect(await feedIds()).toContain(id);
    expect(await searchIds()).toEqual([id]);
    expect((await counted(feedIds)).statements).toBe(1);
    expect((await counted(searchIds)).statements).toBe(1);
    await exec(w, `UPDATE "listings" SET "publicationState" = 'unlisted' WHERE "id" = $1`, id);
    expect(await feedIds()).not.toContain(id);
    expect(await searchIds()).toEqual([]);
  });
});

describe("the versions", () => {
  it("move at commit, once per tag, and only then are seen by another connection", async () => {
    const tag = `listing:${listing.id}`;
    const v0 = (await readTagVersions(t, [tag]))[tag];
    if (w === t) return; // one connection: nothing else can look while a transaction is open
    await w.session(async (s) => {
      await s.exec("BEGIN");
      for (let i = 0; i < 3; i++) await s.query(`INSERT INTO "monitor_health_samples" ("id", "listingId", "at", "outcome", "confidence", "vantage") VALUES (md5(random()::text), $1, now() AT TIME ZONE 'UTC', 'up', 1, 'test')`, [listing.id]);
      expect((await readTagVersions(t, [tag]))[tag]).toBe(v0);
      await s.exec("COMMIT");
    });
    const v1 = (await readTagVersions(t, [tag]))[tag];
    expect(BigInt(v1)).toBeGreaterThan(BigInt(v0));
  });

  it("two writers marking the same tags in opposite orders both commit (the version rows are locked only at commit, in tag order)", async () => {
    if (w === t) return;
    const { id: x } = await gradedListing(t.prisma, 1);
    const { id: y } = await gradedListing(t.prisma, 1);
    const v = await openDatabase({ url: t.url!, schema: t.schema!, poolSize: 1 });
    const tags = ["catalog", `listing:${x}`];
    const before = await readTagVersions(t, tags);
    try {
      await w.session(async (a) =>
        v.session(async (b) => {
          await a.exec("BEGIN");
          await b.exec("BEGIN");
          // a: listing:x, then catalog; b: catalog, then listing:x.
          await a.query(`INSERT INTO "monitor_health_samples" ("id", "listingId", "at", "outcome", "confidence", "vantage") VALUES (md5(random()::text), $1, now() AT TIME ZONE 'UTC', 'up', 1, 'test')`, [x]);
          await b.query(`UPDATE "listing_ranks" SET "sortWeight" = "sortWeight" + 1 WHERE "listingId" = $1`, [y]);
          await b.query(
            `INSERT INTO "trust_observations" ("id", "listingId", "endpointId", "method", "path", "check", "kind", "outcome", "value", "observedAt", "vantage", "revision", "receipt", "source", "sourceId")
             SELECT md5(random()::text), "listingId", "endpointId", "method", "path", "check", "kind", "outcome", "value", "observedAt", "vantage", "revision", "receipt", "source", md5(random()::text)
               FROM "trust_observations" WHERE "listingId" = $1 LIMIT 1`,
            [x],
          );
          await a.query(`UPDATE "listing_ranks" SET "sortWeight" = "sortWeight" + 1 WHERE "listingId" = $1`, [listing.id]);
          await Promise.all([a.exec("COMMIT"), b.exec("COMMIT")]);
        }),
      );
    } finally {
      await v.close();
    }
    const after = await readTagVersions(t, tags);
    for (const tag of tags) expect(BigInt(after[tag])).toBeGreaterThan(BigInt(before[tag]));
  });

  it("a version never moves back or goes away (a page kept before a change would be served as current)", async () => {
    const tag = `listing:${listing.id}`;
    const v = (await readTagVersions(t, [tag]))[tag];
    await expect(w.query(`UPDATE "page_versions" SET "version" = "version" - 1 WHERE "tag" = $1`, [tag])).rejects.toThrow(/only move forward/);
    await expect(w.query(`DELETE FROM "page_versions" WHERE "tag" = $1`, [tag])).rejects.toThrow(/only move forward/);
    expect((await readTagVersions(t, [tag]))[tag]).toBe(v);
  });

  it("an entry older than the TTL is read again even with its versions unchanged", async () => {
    const cache = pageCache<{ n: number }>(1_000);
    let n = 0;
    const load = async () => ({ value: { n: ++n }, versions: await readTagVersions(t, ["catalog"]) });
    expect((await cache.get("k", load, 0))!.n).toBe(1);
    expect((await cache.get("k", load, 999))!.n).toBe(1);
    expect((await cache.get("k", load, 1_000))!.n).toBe(2);
    expect(cache.stats()).toMatchObject({ hits: 1, loads: 2 });
  });
});

describe("a bulk write", () => {
  it("a small write marks its own tag; past 4 KB of tags a transaction marks every page (`*`) instead of listing them", async () => {
    // A scratch table with the pages' two triggers, so the test writes as many rows as it likes.
    await t.asOwner(async (o) => {
      await exec(o, `CREATE TABLE "bulk_marks" ("lid" text)`);
      await exec(o, `CREATE TRIGGER "bulk_marks_mark" AFTER INSERT ON "bulk_marks" FOR EACH ROW EXECUTE FUNCTION tollgate_page_mark('lid', 'listing')`);
      await exec(o, `CREATE CONSTRAINT TRIGGER "bulk_marks_flush" AFTER INSERT ON "bulk_marks" DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION tollgate_page_flush()`);
      if (t.appRole) await exec(o, `GRANT INSERT ON "bulk_marks" TO "${t.appRole}"`);
    });
    const kept = await publicListingPage(listing.slug);
    expect((await counted(() => publicListingPage(listing.slug))).statements).toBe(1);
    const before = await readTagVersions(t, ["listing:small-one"]);

    await exec(w, `INSERT INTO "bulk_marks" VALUES ('small-one')`);
    const small = await readTagVersions(t, ["listing:small-one"]);
    expect(Number(small["listing:small-one"])).toBeGreaterThan(Number(before["listing:small-one"]));
    expect(small["*"]).toBe(before["*"]);
    expect((await counted(() => publicListingPage(listing.slug))).value).toBe(kept);

    const marked = await w.session(async (s) => {
      await s.exec("BEGIN");
      try {
        await s.query(`INSERT INTO "bulk_marks" SELECT 'bulk-' || g FROM generate_series(1, 5000) AS g`);
        const [{ tags }] = await s.query<{ tags: string }>(`SELECT current_setting('tollgate.page_tags', true) AS "tags"`);
        await s.exec("COMMIT");
        return tags;
      } catch (e) {
        await s.exec("ROLLBACK");
        throw e;
      }
    });
    expect(marked).toBe(",*,");
    const after = await readTagVersions(t, ["listing:bulk-1", "listing:bulk-5000"]);
    expect(after).toMatchObject({ "listing:bulk-1": "0", "listing:bulk-5000": "0" });
    expect(Number(after["*"])).toBeGreaterThan(Number(small["*"]));
    const again = await counted(() => publicListingPage(listing.slug));
    expect(again.statements).toBeGreaterThan(1);
    expect(again.value).not.toBe(kept);
    expect(again.value).toEqual(kept);
    expect((await counted(() => publicListingPage(listing.slug))).statements).toBe(1);
  });
});
