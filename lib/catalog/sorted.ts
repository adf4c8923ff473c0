/** The catalog's buyer-chosen sorts (price, readiness, newest; public facts only) as keyset pages, and the result count. */
import { AppError } from "@/lib/errors";
import { database } from "@/lib/db";
import { rows } from "@/lib/sql";
import { publicSql } from "@/lib/listings/visibility";
import { FROM_PRICE_SQL, filterSql, publicListingsByIds, type BrowseFilters, type BrowsePage } from "@/lib/catalog/browse";

export const SORTS = ["recommended", "price-asc", "price-desc", "readiness", "newest"] as const;
export type CatalogSort = (typeof SORTS)[number];

export const SORT_LABELS: Record<CatalogSort, string> = {
  recommended: "Recommended",
  "price-asc": "Price: lowest first",
  "price-desc": "Price: highest first",
  readiness: "Readiness: highest first",
  newest: "Newest first",
};

/** Where a listing without the fact sorts. */
const LAST = 1e300;

const KEYS: Record<Exclude<CatalogSort, "recommended">, string> = {
  "price-asc": `COALESCE(${FROM_PRICE_SQL}::float8, ${LAST})`,
  "price-desc": `COALESCE(-(${FROM_PRICE_SQL}::float8), ${LAST})`,
  readiness: `COALESCE(-(SELECT r."total" FROM "catalog_scoring_results" r WHERE r.id = l."currentResultId" AND NOT r."provisional")::float8, ${LAST})`,
  newest: `COALESCE(-extract(epoch FROM l."publishedAt")::float8, ${LAST})`,
};

export function isSort(v: unknown): v is CatalogSort {
  return typeof v === "string" && (SORTS as readonly string[]).includes(v);
}

function encode(s: CatalogSort, k: number, id: string): string {
  return Buffer.from(JSON.stringify({ s, k, id })).toString("base64url");
}

function decode(raw: string, sort: CatalogSort): { k: number; id: string } {
  const bad = (message: string) => new AppError("bad_request", `cursor is invalid: ${message}`, [{ pointer: "/cursor", message }]);
  let v: unknown;
  try {
    v = JSON.parse(Buffer.from(raw, "base64url").toString("utf8"));
  } catch {
    throw bad("not a cursor this catalog gave");
  }
  const c = v as { s?: unknown; k?: unknown; id?: unknown };
  if (!c || typeof c !== "object" || typeof c.k !== "number" || !Number.isFinite(c.k) || typeof c.id !== "string" || c.id.length === 0 || c.id.length > 200) throw bad("not a cursor this catalog gave");
  if (c.s !== sort) throw bad(`it belongs to another sort (${JSON.stringify(c.s)}), not ${sort}`);
  return { k: c.k, id: c.id };
}

export async function sortedCatalog(opts: { sort: Exclude<CatalogSort, "recommended">; cursor?: string | null; limit: number; filters?: BrowseFilters }): Promise<BrowsePage> {
  const params: unknown[] = [];
  const key = KEYS[opts.sort];
  const filters = filterSql(opts.filters ?? {}, params);
  let keyset = "";
  if (opts.cursor) {
    const c = decode(opts.cursor, opts.sort);
    keyset = ` AND (${key}, l.id COLLATE "C") > ($${params.push(c.k)}::float8, $${params.push(c.id)}::text COLLATE "C")`;
  }
  const sql = `SELECT l.id, ${key} AS k FROM "listings" l
    WHERE ${publicSql("l")}${filters}${keyset}
    ORDER BY 2 ASC, l.id COLLATE "C" ASC LIMIT ${opts.limit + 1}`;
  const found = await rows<{ id: string; k: number }>(await database(), sql, ...params);
  const page = found.slice(0, opts.limit);
  const last = page[page.length - 1];
  return {
    items: await publicListingsByIds(page.map((r) => r.id)),
    nextCursor: found.length > opts.limit && last ? encode(opts.sort, Number(last.k), last.id) : null,
  };
}

export async function countCatalog(filters: BrowseFilters = {}): Promise<number> {
  const params: unknown[] = [];
  const where = filterSql(filters, params);
  const [{ n }] = await rows<{ n: number }>(await database(), `SELECT count(*)::int AS n FROM "listings" l WHERE ${publicSql("l")}${where}`, ...params);
  return Number(n);
}
