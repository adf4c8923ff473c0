/** The keyless feeds (docs/FEEDS.md): entries built field by field from the public listing, no readiness or rank numbers. */
import type { PublicListing } from "@/lib/catalog/public-view";
import { browseCatalog, BROWSE_MAX_LIMIT } from "@/lib/catalog/browse";
import { searchCatalog, validateQuery, type Matching, type MatchKind } from "@/lib/catalog/search";
import { AppError, toResponse } from "@/lib/errors";
import { env } from "@/lib/env";
import { endpointUrl } from "@/lib/listing-document/endpoint-url";
import { CATALOG_REFRESH_MS, CATALOG_TAG, pageCache, readTagVersions } from "@/lib/catalog/page-cache";
import { database } from "@/lib/db";

export const FEED_DEFAULT_LIMIT = 100;
export const FEED_VERSION = "1.0";

export interface FeedEndpoint {
  method: string;
  path: string;
  url: string;
  description: string | null;
  payable: boolean;
  price: {
    usd: string | null;
    label: string | null;
    mode: string | null;
    /** Atomic units of `asset` on `network` (CAIP-2). */
    amount: string | null;
    asset: string | null;
    network: string | null;
    decimals: number | null;
    dynamic: { min: string | null; max: string | null; unit: string | null } | null;
  };
  requestSchema: unknown;
  responseSchema: unknown;
  requestExample: unknown;
}

export interface FeedEntry {
  id: string;
  slug: string;
  title: string;
  summary: string | null;
  description: string | null;
  category: string | null;
  seller: string;
  url: string;
  homepageUrl: string | null;
  docsUrl: string | null;
  discoveryUrl: string | null;
  logoUrl: string | null;
  baseUrl: string;
  protocols: string[];
  networks: string[];
  fromPriceUsd: string | null;
  demo: boolean;
  endpoints: FeedEndpoint[];
}

export function feedEntry(l: PublicListing, origin: string): FeedEntry {
  return {
    id: l.id,
    slug: l.slug,
    title: l.title,
    summary: l.shortDescription,
    description: l.description,
    category: l.category,
    seller: l.seller,
    url: `${origin}/listings/${encodeURIComponent(l.slug)}`,
    homepageUrl: l.homepageUrl,
    docsUrl: l.docsUrl,
    discoveryUrl: l.discoveryUrl,
    logoUrl: l.logoUrl,
    baseUrl: l.baseUrl,
    protocols: l.protocols,
    networks: l.networks,
    fromPriceUsd: l.fromPriceUsd,
    demo: l.demo,
    endpoints: l.endpoints.map((e) => ({
      method: e.method,
      path: e.path,
      url: endpointUrl(l.baseUrl, e.path),
      description: e.description,
      payable: e.payable,
      price: {
        usd: e.priceUsd,
        label: e.priceLabel,
        mode: e.priceMode,
        amount: e.priceAmount,
        asset: e.priceAsset,
        network: e.priceNetwork,
        decimals: e.priceDecimals,
        dynamic: e.dynamicMin !== null || e.dynamicMax !== null || e.dynamicUnit !== null ? { min: e.dynamicMin, max: e.dynamicMax, unit: e.dynamicUnit } : null,
      },
      requestSchema: e.requestSchema ?? (e.noParameters ? { type: "object", additionalProperties: false } : null),
      responseSchema: e.responseSchema ?? null,
      requestExample: e.requestExample ?? null,
    })),
  };
}

export interface FeedPageOptions {
  origin: string;
  cursor?: string | null;
  limit?: number | null;
  now?: Date;
}

/** An integer 1–100, default 100; else a 400 naming `limit`. */
export function parseFeedLimit(raw: string | null): number {
  if (raw === null) return FEED_DEFAULT_LIMIT;
  const n = Number(raw);
  if (!/^\d{1,3}$/.test(raw) || n < 1 || n > BROWSE_MAX_LIMIT) {
    throw new AppError("bad_request", `limit must be an integer 1–${BROWSE_MAX_LIMIT}`, [{ pointer: "/limit", message: `must be an integer 1–${BROWSE_MAX_LIMIT}` }]);
  }
  return n;
}

/** A paged feed route's GET: `cursor`, `limit`, JSON under the public origin, cacheable for a minute. */
export function feedRoute(feed: (opts: FeedPageOptions) => Promise<object>): (req: Request) => Promise<Response> {
  return async (req) => {
    try {
      const q = new URL(req.url).searchParams;
      const body = await feed({ origin: env().publicOrigin, cursor: q.get("cursor"), limit: parseFeedLimit(q.get("limit")) });
      return Response.json(body, { headers: { "cache-control": "public, max-age=60" } });
    } catch (e) {
      return toResponse(e);
    }
  };
}

async function readPage(opts: FeedPageOptions, path: string) {
  const limit = opts.limit ?? FEED_DEFAULT_LIMIT;
  const { items, nextCursor } = await browseCatalog({ cursor: opts.cursor, limit, now: opts.now });
  const next = nextCursor ? `${opts.origin}${path}?cursor=${encodeURIComponent(nextCursor)}&limit=${limit}` : null;
  return { entries: items.map((l) => feedEntry(l, opts.origin)), next };
}

/** The catalog's rules (docs/SURFACES.md "Cached public pages"): the `catalog` tag, the sweeps' results by age. */
const feedPages = pageCache<Awaited<ReturnType<typeof readPage>>>({ refreshMs: CATALOG_REFRESH_MS });
const searchPages = pageCache<Awaited<ReturnType<typeof searchCatalog>>>({ refreshMs: CATALOG_REFRESH_MS });

/** `load` with the `catalog` tag's version read before it. */
const underCatalogTag = <T>(load: () => Promise<T>) => async () => {
  const versions = await readTagVersions(await database(), [CATALOG_TAG]);
  return { value: await load(), versions };
};

/** A feed page, from the page cache unless the caller fixes the time (tests). */
async function page(opts: FeedPageOptions, path: string) {
  if (opts.now) return readPage(opts, path);
  const key = JSON.stringify([path, opts.origin, opts.cursor ?? null, opts.limit ?? null]);
  return (await feedPages.get(key, underCatalogTag(() => readPage(opts, path))))!;
}

/** `/ai-catalog.json`: the catalog for AI agents, in browse order, one page at a time. */
export async function aiCatalogFeed(opts: FeedPageOptions) {
  const { entries, next } = await page(opts, "/ai-catalog.json");
  return {
    version: FEED_VERSION,
    name: "Tollgate",
    description: "Pay-per-call HTTP 402 APIs (x402 and MPP).",
    url: `${opts.origin}/catalog`,
    generatedAt: (opts.now ?? new Date()).toISOString(),
    order: "catalog" as const,
    orderNote: "Entries are in the catalog's browse order; no score or rank is published in this feed.",
    search: `${opts.origin}/ard/search?q={query}`,
    items: entries,
    next,
  };
}

export async function ardFeed(opts: FeedPageOptions) {
  const { entries, next } = await page(opts, "/ard");
  return {
    ard: FEED_VERSION,
    directory: { name: "Tollgate", url: `${opts.origin}/catalog`, search: `${opts.origin}/ard/search?q={query}`, mcp: `${opts.origin}/mcp` },
    generatedAt: (opts.now ?? new Date()).toISOString(),
    order: "catalog" as const,
    services: entries,
    next,
  };
}

export type ArdSearchEntry = FeedEntry & { relevance: number; match: MatchKind };

/** Relevance only, never rank. */
export async function ardSearch(opts: { origin: string; q: string | null; limit?: number | null }) {
  const query = validateQuery(opts.q, "/q");
  const limit = opts.limit ?? 20;
  const { items, matching } = (await searchPages.get(JSON.stringify([query, limit]), underCatalogTag(() => searchCatalog({ query, limit }))))!;
  const services: ArdSearchEntry[] = items.map((i) => ({ ...feedEntry(i, opts.origin), relevance: i.relevance, match: i.match }));
  return {
    ard: FEED_VERSION,
    query,
    order: "relevance" as const,
    matching: matching satisfies Matching,
    matchingNote: matching === "keyword" ? "Keyword matches (full-text and title similarity); no semantic search is configured." : "Semantic and keyword matches.",
    services,
  };
}
