/** The catalog browse view in rank order: keyset pages over listing_ranks_browse_idx, the same cost at any depth (docs/RANK.md "Catalog browse"). */
import { USD_DECIMAL } from "@/lib/amounts";
import { database, db } from "@/lib/db";
import { AppError } from "@/lib/errors";
import { unstorableText } from "@/lib/listing-document/unstorable";
import { rows } from "@/lib/sql";
import { publicSql } from "@/lib/listings/visibility";
import { type PublicListing } from "@/lib/catalog/public-view";
import { publicListingsByIdsOneStatement } from "@/lib/catalog/public-rows";
import { browseSeed, decodeCursor, encodeCursor, type BrowseCursor } from "@/lib/rank/score";

export const BROWSE_MAX_LIMIT = 100;
export const BROWSE_DEFAULT_LIMIT = 24;

export interface BrowseFilters {
  category?: string;
  /** CAIP-2, e.g. "eip155:8453". */
  network?: string;
  protocol?: "x402" | "mpp";
  /** USD per call, against the listing's lowest payable price. */
  minPrice?: string;
  maxPrice?: string;
}

export interface BrowseOptions {
  cursor?: string | null;
  limit: number;
  filters?: BrowseFilters;
  now?: Date;
}

export interface BrowsePage {
  items: PublicListing[];
  nextCursor: string | null;
}

interface BrowseKeyRow {
  id: string;
  tier: number;
  sortWeight: number;
  rankScore: number | null;
}


/** As toPublicListing computes it (priceUsd, else dynamicMin). */
export const FROM_PRICE_SQL = `(SELECT min(COALESCE(tollgate_decimal_or_null(e."priceUsd"), tollgate_decimal_or_null(e."dynamicMin")))
   FROM "endpoints" e WHERE e."listingId" = l.id AND e."payable")`;

export function filterSql(filters: BrowseFilters, params: unknown[]): string {
  const f = validateFilters(filters);
  const clauses: string[] = [];
  const p = (v: unknown) => `$${params.push(v)}`;
  if (f.category !== undefined) clauses.push(`l."category" = ${p(f.category)}`);
  if (f.network !== undefined) clauses.push(`${p(f.network)} = ANY(l."networks")`);
  if (f.protocol !== undefined) clauses.push(`${p(f.protocol)} = ANY(l."protocols")`);
  if (f.minPrice !== undefined) clauses.push(`${FROM_PRICE_SQL} >= ${p(f.minPrice)}::numeric`);
  if (f.maxPrice !== undefined) clauses.push(`${FROM_PRICE_SQL} <= ${p(f.maxPrice)}::numeric`);
  return clauses.map((c) => ` AND ${c}`).join("");
}

function validateFilters(filters: BrowseFilters): BrowseFilters {
  const bad = (field: string, message: string) => new AppError("bad_request", `${field} ${message}`, [{ pointer: `/filters/${field}`, message }]);
  const str = (field: keyof BrowseFilters) => {
    const v = filters[field];
    if (v === undefined) return;
    if (typeof v !== "string" || v.length === 0 || v.length > 200) throw bad(field, "must be a non-empty string of at most 200 characters");
    const unstorable = unstorableText(v);
    if (unstorable) throw bad(field, unstorable);
  };
  str("category");
  str("network");
  if (filters.protocol !== undefined && filters.protocol !== "x402" && filters.protocol !== "mpp") throw bad("protocol", "must be x402 or mpp");
  for (const field of ["minPrice", "maxPrice"] as const) {
    const v = filters[field];
    if (v !== undefined && (typeof v !== "string" || !USD_DECIMAL.test(v))) throw bad(field, "must be a USD decimal such as 0.05");
  }
  return filters;
}

/** In the ids' order; ONE statement shaped as publicListingSelect (public-rows.ts), not Prisma's four. */
export function publicListingsByIds(ids: readonly string[]): Promise<PublicListing[]> {
  return publicListingsByIdsOneStatement(ids);
}

export async function browseKeys(opts: BrowseOptions): Promise<{ rows: BrowseKeyRow[]; seed: number; more: boolean }> {
  const limit = opts.limit;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > BROWSE_MAX_LIMIT) {
    throw new AppError("bad_request", `limit must be an integer 1–${BROWSE_MAX_LIMIT}`, [{ pointer: "/limit", message: `must be an integer 1–${BROWSE_MAX_LIMIT}` }]);
  }
  const cursor = opts.cursor ? parseCursor(opts.cursor) : null;
  const seed = cursor ? cursor.seed : browseSeed(opts.now ?? new Date());
  const params: unknown[] = [seed];
  let keyset = "";
  if (cursor) {
    const [t, sw, rs, sk, id] = [cursor.tier, cursor.sortWeight, cursor.rankScore, cursor.shuffleKey, cursor.id].map((v) => `$${params.push(v)}`);
    // The index range, then the exact "after the cursor" order in the tie group. Not one 5-column row
    // comparison: the planner estimates it from its first column and chose a full scan (docs/RANK.md).
    const prefix = `(r."tier", -r."sortWeight", -COALESCE(r."rankScore", -1))`;
    const at = `(${t}::int, -(${sw}::int), -COALESCE(${rs}::float8, -1))`;
    keyset = ` AND ${prefix} >= ${at}
      AND (${prefix} <> ${at}
           OR (md5($1::text || ':' || r."listingId") COLLATE "C", r."listingId" COLLATE "C") > (${sk}::text COLLATE "C", ${id}::text COLLATE "C"))`;
  }
  // listing_ranks_browse_idx covers the order, id and category; listings is joined for the other filters.
  const { category, ...others } = validateFilters(opts.filters ?? {});
  const byCategory = category === undefined ? "" : ` AND r."category" = $${params.push(category)}`;
  const filters = filterSql(others, params);
  const join = filters ? ` JOIN "listings" l ON l.id = r."listingId" AND ${publicSql("l")}` : "";
  const sql = `SELECT r."listingId" AS id, r."tier", r."sortWeight", r."rankScore" FROM "listing_ranks" r${join}
    WHERE r."published"${byCategory}${filters}${keyset}
    ORDER BY r."tier" ASC, -r."sortWeight" ASC, -COALESCE(r."rankScore", -1) ASC,
             md5($1::text || ':' || r."listingId") COLLATE "C" ASC, r."listingId" COLLATE "C" ASC
    LIMIT ${limit + 1}`;
  const found = await rows<BrowseKeyRow>(await database(), sql, ...params);
  return { rows: found.slice(0, limit), seed, more: found.length > limit };
}

export async function browseCatalog(opts: BrowseOptions): Promise<BrowsePage> {
  const { rows, seed, more } = await browseKeys(opts);
  const last = rows[rows.length - 1];
  return {
    items: await publicListingsByIds(rows.map((r) => r.id)),
    nextCursor: more && last ? encodeCursor({ seed, id: last.id, tier: last.tier, sortWeight: last.sortWeight, rankScore: last.rankScore }) : null,
  };
}

/** A 400 names `cursor` or the field inside it that is wrong. */
function parseCursor(raw: string): BrowseCursor {
  const decoded = decodeCursor(raw);
  if (!decoded.ok) {
    const where = decoded.field === "cursor" ? "" : ` (field ${decoded.field})`;
    throw new AppError("bad_request", `cursor is invalid${where}: ${decoded.message}`, [{ pointer: "/cursor", message: `${decoded.field} ${decoded.message}` }]);
  }
  // Integer columns: a fractional position is a forged cursor.
  for (const field of ["tier", "sortWeight"] as const) {
    if (!Number.isSafeInteger(decoded.cursor[field]) || Math.abs(decoded.cursor[field]) > 2 ** 31 - 1) {
      throw new AppError("bad_request", `cursor is invalid (field ${field}): must be an integer`, [{ pointer: "/cursor", message: `${field} must be an integer` }]);
    }
  }
  return decoded.cursor;
}

export interface Facet {
  value: string;
  count: number;
}

/** The categories, networks and protocols published listings have. */
export interface CatalogFacets {
  categories: Facet[];
  networks: Facet[];
  protocols: Facet[];
}

export async function catalogFacets(): Promise<CatalogFacets> {
  const prisma = await db();
  const facet = (src: string) =>
    rows<Facet>(
      prisma,
      `SELECT f.v AS value, count(*)::int AS count FROM "listings" l CROSS JOIN LATERAL ${src} AS f(v)
        WHERE ${publicSql("l")} AND f.v IS NOT NULL AND f.v <> '' GROUP BY f.v ORDER BY f.v COLLATE "C"`,
    );
  const [categories, networks, protocols] = await Promise.all([facet(`(SELECT l."category")`), facet(`unnest(l."networks")`), facet(`unnest(l."protocols")`)]);
  return { categories, networks, protocols };
}
