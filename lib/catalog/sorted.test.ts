import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { addResult, setCurrent } from "@/test/badges-db";
import { createTestListing } from "@/test/ledger";
import { countCatalog, sortedCatalog } from "./sorted";

let t: TestDatabase;
const category = `sort-test-${process.pid}`;
const ids: Record<string, string> = {};

beforeAll(async () => {
  t = await createTestDatabase();
  // Five listings in one category: prices 0.05, 0.01, 0.02 (dynamic from), none (a label only) and 0.01 again.
  const mk = async (name: string, endpoints: NonNullable<Parameters<typeof createTestListing>[1]>["endpoints"], publishedAt: string, score: number | null) => {
    const id = await createTestListing(t.prisma, { title: name, category, endpoints });
    await t.prisma.listing.update({ where: { id }, data: { publishedAt: new Date(publishedAt) } });
    if (score !== null) await setCurrent(t.prisma, id, await addResult(t.prisma, id, { total: score }));
    ids[name] = id;
  };
  await mk("five", [{ priceUsd: "0.05" }], "2026-11-05T00:00:00Z", 70);
  await mk("one", [{ priceUsd: "0.01" }], "2026-11-01T00:00:00Z", 95);
  await mk("two", [{ priceUsd: null, priceMode: "dynamic", dynamicMin: "0.02" }], "2026-11-03T00:00:00Z", null);
  await mk("none", [{ priceUsd: null, priceLabel: "ask us" }], "2026-11-04T00:00:00Z", 40);
  await mk("one-b", [{ priceUsd: "0.01" }, { path: "/x", priceUsd: "0.9" }], "2026-11-02T00:00:00Z", 88);
  // Not in the catalog: a draft.
  await createTestListing(t.prisma, { title: "draft", category, publicationState: "draft" });
});
afterAll(async () => {
  await t?.close();
});

const names = (items: { id: string }[]) => items.map((i) => Object.entries(ids).find(([, id]) => id === i.id)![0]);
const filters = { category };

async function all(sort: Parameters<typeof sortedCatalog>[0]["sort"], limit: number) {
  const out: { id: string }[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const page = await sortedCatalog({ sort, cursor, limit, filters });
    out.push(...page.items);
    cursor = page.nextCursor;
    pages++;
  } while (cursor && pages < 10);
  return { out, pages };
}

describe("sortedCatalog", () => {
  it("orders by the lowest listed price either way, a listing without a price last; ties by id", async () => {
    const asc = names((await all("price-asc", 10)).out);
    expect(asc.slice(0, 2).sort()).toEqual(["one", "one-b"]);
    expect(asc.slice(2)).toEqual(["two", "five", "none"]);
    expect(names((await all("price-desc", 10)).out)).toEqual(["five", "two", ...asc.slice(0, 2), "none"]);
  });

  it("orders by readiness (unscored last) and by newest, and pages the same order with keyset cursors", async () => {
    expect(names((await all("readiness", 10)).out)).toEqual(["one", "one-b", "five", "none", "two"]);
    const newest = await all("newest", 2);
    expect(names(newest.out)).toEqual(["five", "none", "two", "one-b", "one"]);
    expect(newest.pages).toBe(3);
  });

  it("refuses a cursor of another sort or one it never gave, naming cursor", async () => {
    const first = await sortedCatalog({ sort: "newest", limit: 1, filters });
    await expect(sortedCatalog({ sort: "price-asc", cursor: first.nextCursor, limit: 1, filters })).rejects.toMatchObject({ code: "bad_request", details: [{ pointer: "/cursor" }] });
    await expect(sortedCatalog({ sort: "newest", cursor: "garbage!", limit: 1, filters })).rejects.toMatchObject({ code: "bad_request", details: [{ pointer: "/cursor" }] });
  });

  it("counts what the filters leave, drafts excluded", async () => {
    expect(await countCatalog(filters)).toBe(5);
    expect(await countCatalog({ ...filters, maxPrice: "0.02" })).toBe(3);
    expect(await countCatalog({ category: "no-such-category" })).toBe(0);
  });
});
