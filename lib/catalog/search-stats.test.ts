/**
 * listing_search_stats (migrations 20261207090000, 20261208030000), PGlite or server PostgreSQL with
 * TEST_DATABASE_URL: the public count and generation move at the writer's commit, once, and never
 * for a rolled-back write or one that changes nothing; two edits of different listings do not queue.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type DatabaseHandle } from "@/lib/db";
import { exec, rows } from "@/lib/sql";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { createTestListing } from "@/test/ledger";

let t: TestDatabase;
let w: DatabaseHandle;
beforeAll(async () => {
  t = await createTestDatabase();
  w = t.url ? await openDatabase({ url: t.url, schema: t.schema!, poolSize: 2 }) : t;
}, 120_000);
afterAll(async () => {
  if (w && w !== t) await w.close();
  await t?.close();
});

const stats = async () => {
  const [s] = await rows<{ n: number; g: string }>(t, `SELECT "publicListings" AS "n", "generation"::text AS "g" FROM "listing_search_stats" WHERE "id" = 1`);
  const [c] = await rows<{ n: number }>(t, `SELECT count(*)::int AS "n" FROM "listing_search" WHERE "publicationState" = 'published'`);
  expect(s.n).toBe(c.n); // the count is always the table's
  return { n: s.n, g: BigInt(s.g) };
};

describe("listing_search_stats", () => {
  it("counts publishing and unpublishing, one generation per committed transaction", async () => {
    const s0 = await stats();
    const id = await createTestListing(t.prisma);
    const s1 = await stats();
    expect(s1.n).toBe(s0.n + 1);
    expect(s1.g).toBeGreaterThan(s0.g);
    await w.session(async (s) => {
      await s.exec("BEGIN");
      await s.query(`UPDATE "listings" SET "publicationState" = 'unlisted' WHERE "id" = $1`, [id]);
      await s.query(`UPDATE "listings" SET "title" = 'Unlisted, renamed' WHERE "id" = $1`, [id]);
      await s.exec("COMMIT");
    });
    const s2 = await stats();
    expect(s2).toEqual({ n: s0.n, g: s1.g + 1n });
  });

  it("a rolled-back write and a write that changes no searchable column move nothing", async () => {
    const id = await createTestListing(t.prisma);
    const s0 = await stats();
    await w.session(async (s) => {
      await s.exec("BEGIN");
      await s.query(`UPDATE "listings" SET "publicationState" = 'unlisted' WHERE "id" = $1`, [id]);
      await s.exec("ROLLBACK");
    });
    await exec(w, `UPDATE "listings" SET "title" = "title" WHERE "id" = $1`, id);
    expect(await stats()).toEqual(s0);
  });

  it("is seen by another connection only at commit", async () => {
    if (w === t) return; // one connection: nothing else can look while a transaction is open
    const s0 = await stats();
    await w.session(async (s) => {
      await s.exec("BEGIN");
      await s.query(`INSERT INTO "listings" ("id", "slug", "organizationId", "title", "baseUrl", "publicationState", "updatedAt")
                     SELECT 'lst_stats_' || md5(random()::text), 'stats-' || md5(random()::text), "organizationId", 'Stats', 'https://api.example.com', 'published', now() FROM "listings" LIMIT 1`);
      expect(await stats()).toEqual(s0);
      await s.exec("COMMIT");
    });
    expect((await stats()).n).toBe(s0.n + 1);
  });

  it("an edit of one listing does not wait for another listing's open edit", async () => {
    if (w === t) return;
    const a = await createTestListing(t.prisma);
    const b = await createTestListing(t.prisma);
    const s0 = await stats();
    await w.session(async (s) => {
      await s.exec("BEGIN");
      await s.query(`UPDATE "listings" SET "title" = 'Held open' WHERE "id" = $1`, [a]);
      // Before: this waited for the open transaction on the stats row (lock_timeout turns a wait into an error).
      await t.session(async (o) => {
        await o.exec("BEGIN");
        await o.exec("SET LOCAL lock_timeout = '2s'");
        await o.query(`UPDATE "listings" SET "publicationState" = 'unlisted' WHERE "id" = $1`, [b]);
        await o.exec("COMMIT");
      });
      await s.exec("COMMIT");
    });
    const s1 = await stats();
    expect(s1.n).toBe(s0.n - 1);
    expect(s1.g).toBe(s0.g + 2n);
  });
});
