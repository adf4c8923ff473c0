/**
 * The SQL side of the browse order (docs/RANK.md "Browse order in SQL") must agree with compareBrowse
 * row for row. PGlite is real PostgreSQL, so this checks md5(), the text comparison and the keyset
 * predicate exactly as the catalog query will run them. The module under test stays pure.
 */
import { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browseSeed, encodeCursor, decodeCursor, orderForBrowse, type BrowseKey } from "./browse";

// Kept verbatim in docs/RANK.md.
const ORDER_BY = `ORDER BY tier ASC, sort_weight DESC, rank_score DESC NULLS LAST,
  md5($1::text || ':' || id) COLLATE "C" ASC, id COLLATE "C" ASC`;
const AFTER = `(tier, -sort_weight, -COALESCE(rank_score, -1), md5($1::text || ':' || id) COLLATE "C", id COLLATE "C")
  > ($2, -$3::float8, -COALESCE($4::float8, -1), $5 COLLATE "C", $6 COLLATE "C")`;

const rows: BrowseKey[] = [];
for (let i = 0; i < 40; i++) {
  rows.push({
    id: `lst_${i.toString(36)}_${(i * 7919) % 113}`,
    tier: i % 3,
    sortWeight: i % 5 === 0 ? 1 : 0,
    // Many ties, some unscored, a few over 1.
    rankScore: i % 4 === 0 ? null : [0.31, 0.92, 0.92, 1.2][i % 4],
  });
}

let db: PGlite;
beforeAll(async () => {
  db = new PGlite();
  await db.exec("CREATE TABLE listing (id text PRIMARY KEY, tier int NOT NULL, sort_weight float8 NOT NULL, rank_score float8)");
  for (const r of rows) {
    await db.query("INSERT INTO listing VALUES ($1, $2, $3, $4)", [r.id, r.tier, r.sortWeight, r.rankScore]);
  }
});
afterAll(async () => {
  await db?.close();
});

describe("browse order in SQL", () => {
  it.each([0, 1, 82934, 82935])("ORDER BY matches compareBrowse for seed %i", async (seed) => {
    const sql = await db.query<{ id: string; sk: string }>(`SELECT id, md5($1::text || ':' || id) AS sk FROM listing ${ORDER_BY}`, [seed]);
    const ts = orderForBrowse(rows, seed);
    expect(sql.rows.map((r) => r.id)).toEqual(ts.map((r) => r.id));
    expect(sql.rows.map((r) => r.sk)).toEqual(ts.map((r) => r.shuffleKey));
  });

  it("keyset pages in SQL reproduce the full order", async () => {
    const seed = browseSeed(new Date("2026-10-07T12:00:00Z"));
    const expected = orderForBrowse(rows, seed).map((r) => r.id);
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 20; page++) {
      let res;
      if (!cursor) {
        res = await db.query<BrowseKey & { sort_weight: number; rank_score: number | null }>(`SELECT * FROM listing ${ORDER_BY} LIMIT 7`, [seed]);
      } else {
        const d = decodeCursor(cursor);
        if (!d.ok) throw new Error(d.message);
        const c = d.cursor;
        res = await db.query<BrowseKey & { sort_weight: number; rank_score: number | null }>(
          `SELECT * FROM listing WHERE ${AFTER} ${ORDER_BY} LIMIT 7`,
          [c.seed, c.tier, c.sortWeight, c.rankScore, c.shuffleKey, c.id],
        );
      }
      if (res.rows.length === 0) break;
      seen.push(...res.rows.map((r) => r.id));
      const last = res.rows[res.rows.length - 1];
      cursor = encodeCursor({ seed, id: last.id, tier: last.tier, sortWeight: last.sort_weight, rankScore: last.rank_score });
    }
    expect(seen).toEqual(expected);
  });
});
