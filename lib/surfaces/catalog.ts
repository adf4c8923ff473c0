/**
 * The public catalog page's read model: browse (keyset pages) or relevance-only search, in the public shape only
 * (lib/catalog/public-view.ts).
 */
import { unstorableText } from "@/lib/listing-document/unstorable";
import { BROWSE_DEFAULT_LIMIT, browseCatalog, catalogFacets, type BrowseFilters, type CatalogFacets } from "@/lib/catalog/browse";
import type { PublicListing } from "@/lib/catalog/public-view";
import { QUERY_MAX_LENGTH, searchCatalog, type Matching } from "@/lib/catalog/search";
import { countCatalog, isSort, sortedCatalog, SORTS, type CatalogSort } from "@/lib/catalog/sorted";
import { isAppError } from "@/lib/errors";
import { callSnippets, type CallSnippets } from "@/lib/catalog/call-snippets";
import { endpointKey, listingPageFacts, type ListingPageFacts } from "@/lib/catalog/listing-page";
import { getPublishedListing } from "@/lib/catalog/queries";

export type CatalogQuery = {
  search?: string;
  category?: string;
  network?: string;
  protocol?: string;
  minPrice?: string;
  maxPrice?: string;
  /** One of SORTS; absent is "recommended". */
  sort?: string;
  cursor?: string;
};

export interface CatalogView {
  mode: "browse" | "search";
  query: CatalogQuery;
  /** On a search each carries `match`. */
  items: Array<{ listing: PublicListing; match: "keyword" | "semantic" | null }>;
  nextCursor: string | null;
  matching: Matching | null;
  facets: CatalogFacets;
  /** In words, with its field. */
  problem: { field: string; message: string } | null;
  sort: CatalogSort;
  /** All pages, or on a search the matches shown. */
  total: number;
}

const first = (v: string | string[] | undefined): string | undefined => {
  const s = Array.isArray(v) ? v[0] : v;
  const t = s?.trim();
  return t ? t : undefined;
};

export function parseCatalogQuery(sp: Record<string, string | string[] | undefined>): CatalogQuery {
  return {
    search: first(sp.search)?.slice(0, QUERY_MAX_LENGTH),
    category: first(sp.category),
    network: first(sp.network),
    protocol: first(sp.protocol),
    minPrice: first(sp.minPrice),
    maxPrice: first(sp.maxPrice),
    sort: first(sp.sort),
    cursor: first(sp.cursor),
  };
}

function filtersOf(q: CatalogQuery): BrowseFilters {
  return {
    ...(q.category ? { category: q.category } : {}),
    ...(q.network ? { network: q.network } : {}),
    ...(q.protocol ? { protocol: q.protocol as BrowseFilters["protocol"] } : {}),
    ...(q.minPrice ? { minPrice: q.minPrice } : {}),
    ...(q.maxPrice ? { maxPrice: q.maxPrice } : {}),
  };
}

/** Said as a problem rather than an empty list. */
export function priceRangeProblem(q: Pick<CatalogQuery, "minPrice" | "maxPrice">): { field: string; message: string } | null {
  if (!q.minPrice || !q.maxPrice) return null;
  const min = Number(q.minPrice);
  const max = Number(q.maxPrice);
  if (!Number.isFinite(min) || !Number.isFinite(max) || min <= max) return null;
  return { field: "minPrice", message: `is above the "To" price ($${q.minPrice} > $${q.maxPrice}), so no listing could match; swap them or lower it` };
}

/** `readFacets`: the public pages pass their cached reading (lib/surfaces/public-pages.ts). */
export async function catalogView(q: CatalogQuery, now = new Date(), readFacets: () => Promise<CatalogFacets> = catalogFacets): Promise<CatalogView> {
  const facets = await readFacets();
  const sort: CatalogSort = q.sort === undefined ? "recommended" : isSort(q.sort) ? q.sort : "recommended";
  const base = { query: q, facets, problem: null, sort } as const;
  const empty: Omit<CatalogView, "problem"> = { ...base, mode: q.search ? "search" : "browse", items: [], nextCursor: null, matching: null, total: 0 };
  if (q.sort !== undefined && !isSort(q.sort)) {
    return { ...empty, problem: { field: "sort", message: `must be one of ${SORTS.join(", ")}` } };
  }
  const unstorable = q.search === undefined ? null : unstorableText(q.search);
  if (unstorable) return { ...empty, problem: { field: "search", message: unstorable } };
  const range = priceRangeProblem(q);
  if (range) return { ...empty, problem: range };
  try {
    if (q.search) {
      const { items, matching } = await searchCatalog({ query: q.search, limit: 48, filters: filtersOf(q) });
      // Relevance orders but is not shown.
      return { ...base, mode: "search", items: items.map(({ relevance: _r, match, ...listing }) => ({ listing, match })), nextCursor: null, matching, total: items.length };
    }
    const filters = filtersOf(q);
    const [page, total] = await Promise.all([
      sort === "recommended"
        ? browseCatalog({ cursor: q.cursor ?? null, limit: BROWSE_DEFAULT_LIMIT, filters, now })
        : sortedCatalog({ sort, cursor: q.cursor ?? null, limit: BROWSE_DEFAULT_LIMIT, filters }),
      countCatalog(filters),
    ]);
    return { ...base, mode: "browse", items: page.items.map((listing) => ({ listing, match: null })), nextCursor: page.nextCursor, matching: null, total };
  } catch (e) {
    if (!isAppError(e) || e.code !== "bad_request") throw e;
    const pointer = e.details[0]?.pointer ?? "";
    const field = pointer.split("/").pop() || "query";
    return { ...empty, problem: { field, message: e.details[0]?.message ?? e.message } };
  }
}

/** The GET form's own encoding. */
export function catalogHref(q: CatalogQuery, over: Partial<CatalogQuery> = {}): string {
  const merged = { ...q, ...over };
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(merged)) if (v) params.set(k, v);
  const s = params.toString();
  return s ? `/catalog?${s}` : "/catalog";
}

export interface ListingPageView {
  listing: PublicListing;
  facts: ListingPageFacts;
  calls: Array<{ key: string; method: string; path: string; snippets: CallSnippets }>;
}

export async function listingPageView(slug: string, now = new Date()): Promise<ListingPageView | null> {
  const listing = await getPublishedListing(slug);
  return listing ? listingPageViewOf(listing, await listingPageFacts(listing.id, now)) : null;
}

export function listingPageViewOf(listing: PublicListing, facts: ListingPageFacts): ListingPageView {
  const calls = listing.endpoints
    .filter((e) => e.payable)
    .map((e) => ({ key: endpointKey(e.method, e.path), method: e.method, path: e.path, snippets: callSnippets(listing, e, e.priceNetwork) }));
  return { listing, facts, calls };
}
