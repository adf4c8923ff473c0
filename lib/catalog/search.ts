/**
 * Catalog search (catalog `?search=`, `/ard/search`, MCP `search_catalog`, and the candidates of
 * `/router/select`): ordered by relevance ONLY, never blended with quality or rank (seed 004
 * "Search"; SCORING-NOTES). Lexical relevance is PostgreSQL full-text search over the trigger-kept
 * listings."searchVector" (websearch_to_tsquery, ts_rank_cd), plus pg_trgm word similarity on the
 * title so a typo still finds its listing.
 *
 * Relevance is in 0–1, because selectShortlist requires it:
 *   lexical   = ts_rank_cd(vector, query, 32)     -- normalisation 32: rank ÷ (rank + 1), in [0, 1)
 *   fuzzy     = word_similarity(query, title)     -- in [0, 1]
 *   relevance = 0.8·lexical + 0.2·fuzzy           -- full text leads; the trigram side lifts exact
 *                                                    title words a little and lets a typo match at all
 * A title matches by trigram when word_similarity ≥ FUZZY_THRESHOLD (set per statement, since the
 * GUC's default 0.6 misses one-letter typos such as "wether"). A query using websearch operators
 * (quotes, `-word`, `or`) asks for precision, so it matches by full text only. Ties break by id,
 * never by rank.
 *
 * Semantic relevance needs an embedding provider, which the embedded default does not have; it sits
 * behind SemanticProvider, and without one every result says `match: "keyword"` and the response
 * says `matching: "keyword"`.
 */
import { db } from "@/lib/db";
import { AppError } from "@/lib/errors";
import type { PublicListing } from "@/lib/catalog/public-view";
import { filterSql, publicListingsByIds, type BrowseFilters } from "@/lib/catalog/browse";

export interface SemanticProvider {
  /** Listings nearest in meaning to the query, similarity 0–1. */
  search(query: string, limit: number): Promise<{ listingId: string; similarity: number }[]>;
}

/** The embedded default has no embedding model, so no semantic provider. */
export const defaultSemanticProvider: SemanticProvider | null = null;

export type MatchKind = "keyword" | "semantic";

export interface SearchHit {
  listingId: string;
  relevance: number;
  match: MatchKind;
}

/** Restricts matches to listings with a payable endpoint fitting all of these (router selection). */
export interface EndpointFilter {
  method?: string;
  network?: string;
  /** USD per call; a dynamic price counts at its maximum. */
  maxPrice?: string;
}

export interface SearchOptions {
  query: string;
  limit: number;
  filters?: BrowseFilters;
  endpoint?: EndpointFilter;
  semantic?: SemanticProvider | null;
}

export const SEARCH_MAX_LIMIT = 100;
export const LEXICAL_WEIGHT = 0.8;
export const FUZZY_WEIGHT = 0.2;
/** word_similarity floor for a title to match by trigram ("wether" → "Weather forecast API" is 0.5). */
export const FUZZY_THRESHOLD = 0.45;
export const QUERY_MAX_LENGTH = 500;

/** What the caller should be told about how the results were matched. */
export type Matching = "keyword" | "hybrid";

export function validateQuery(raw: unknown, pointer: string): string {
  if (typeof raw !== "string") throw new AppError("bad_request", `${pointer} must be a string`, [{ pointer, message: "must be a string" }]);
  const q = raw.trim();
  if (q.length < 1 || q.length > QUERY_MAX_LENGTH) {
    throw new AppError("bad_request", `${pointer} must be 1–${QUERY_MAX_LENGTH} characters`, [{ pointer, message: `must be 1–${QUERY_MAX_LENGTH} characters` }]);
  }
  return q;
}

/** Published listings matching the query, best first, with relevance in 0–1. */
export async function searchHits(opts: SearchOptions): Promise<{ hits: SearchHit[]; matching: Matching }> {
  if (!Number.isSafeInteger(opts.limit) || opts.limit < 1 || opts.limit > SEARCH_MAX_LIMIT) {
    throw new AppError("bad_request", `limit must be an integer 1–${SEARCH_MAX_LIMIT}`, [{ pointer: "/limit", message: `must be an integer 1–${SEARCH_MAX_LIMIT}` }]);
  }
  const query = opts.query;
  const params: unknown[] = [query];
  const where = filterSql(opts.filters ?? {}, params) + endpointFilterSql(opts.endpoint, params);
  const precise = /(^|\s)-\S|"|(^|\s)or(\s|$)/i.test(query);
  const prisma = await db();
  // One transaction, so the threshold set for this statement stays on its connection and ends with it.
  const [, keyword] = await prisma.$transaction([
    prisma.$queryRawUnsafe(`SELECT set_config('pg_trgm.word_similarity_threshold', '${FUZZY_THRESHOLD}', true)`),
    prisma.$queryRawUnsafe<{ id: string; relevance: number }[]>(
      `WITH q AS (SELECT websearch_to_tsquery('english', $1) AS tsq)
       SELECT m.id, (${LEXICAL_WEIGHT} * m.lexical + ${FUZZY_WEIGHT} * m.fuzzy)::float8 AS relevance
         FROM (SELECT l.id,
                      ts_rank_cd(COALESCE(l."searchVector", ''::tsvector), q.tsq, 32)::float8 AS lexical,
                      word_similarity($1, l."title")::float8 AS fuzzy
                 FROM "listings" l, q
                WHERE l."publicationState" = 'published'
                  AND (l."searchVector" @@ q.tsq${precise ? "" : ` OR $1 <% l."title"`})${where}) m
        ORDER BY relevance DESC, m.id COLLATE "C" ASC
        LIMIT ${opts.limit}`,
      ...params,
    ),
  ]);
  const provider = opts.semantic === undefined ? defaultSemanticProvider : opts.semantic;
  if (!provider) return { hits: keyword.map((k) => ({ listingId: k.id, relevance: k.relevance, match: "keyword" })), matching: "keyword" };

  // Hybrid: the provider's hits (kept to published listings passing the same filters), then the
  // keyword hits it did not find. A listing found both ways is a semantic match.
  const semantic = (await provider.search(query, opts.limit)).filter((s) => Number.isFinite(s.similarity));
  const allowed = new Set(await filterIds(semantic.map((s) => s.listingId), opts));
  const hits: SearchHit[] = semantic
    .filter((s) => allowed.has(s.listingId))
    .map((s) => ({ listingId: s.listingId, relevance: Math.min(1, Math.max(0, s.similarity)), match: "semantic" as const }));
  const seen = new Set(hits.map((h) => h.listingId));
  for (const k of keyword) if (!seen.has(k.id)) hits.push({ listingId: k.id, relevance: k.relevance, match: "keyword" });
  hits.sort((a, b) => b.relevance - a.relevance || (a.listingId < b.listingId ? -1 : 1));
  return { hits: hits.slice(0, opts.limit), matching: "hybrid" };
}

export type SearchResultItem = PublicListing & { relevance: number; match: MatchKind };

/** Search with the public listing shape per hit. */
export async function searchCatalog(opts: SearchOptions): Promise<{ items: SearchResultItem[]; matching: Matching }> {
  const { hits, matching } = await searchHits(opts);
  const listings = await publicListingsByIds(hits.map((h) => h.listingId));
  const byId = new Map(listings.map((l) => [l.id, l]));
  const items = hits.flatMap((h) => {
    const l = byId.get(h.listingId);
    return l ? [{ ...l, relevance: h.relevance, match: h.match }] : [];
  });
  return { items, matching };
}

/**
 * An EXISTS over the listing's payable endpoints fitting `f`, appended to `params`. Given any filter
 * object (even an empty one) it requires a payable endpoint: router selection only wants listings a
 * buyer can pay.
 */
export function endpointFilterSql(f: EndpointFilter | undefined, params: unknown[]): string {
  if (!f) return "";
  return ` AND EXISTS (SELECT 1 FROM "endpoints" e WHERE ${endpointClauses(f, params).join(" AND ")})`;
}

/** The conditions on `e` (an endpoints row of listing `l`), for EXISTS here and the endpoint choice in select.ts. */
export function endpointClauses(f: EndpointFilter, params: unknown[]): string[] {
  const p = (v: unknown) => `$${params.push(v)}`;
  const clauses = [`e."listingId" = l.id`, `e."payable"`];
  if (f.method !== undefined) clauses.push(`e."method"::text = ${p(f.method)}`);
  if (f.network !== undefined) {
    const n = p(f.network);
    clauses.push(`(e."priceNetwork" = ${n} OR (e."priceNetwork" IS NULL AND ${n} = ANY(l."networks")))`);
  }
  if (f.maxPrice !== undefined) {
    clauses.push(`COALESCE(tollgate_decimal_or_null(e."priceUsd"), tollgate_decimal_or_null(e."dynamicMax")) <= ${p(f.maxPrice)}::numeric`);
  }
  return clauses;
}

async function filterIds(ids: string[], opts: SearchOptions): Promise<string[]> {
  if (ids.length === 0) return [];
  const params: unknown[] = [ids];
  const where = filterSql(opts.filters ?? {}, params) + endpointFilterSql(opts.endpoint, params);
  const prisma = await db();
  const rows = await prisma.$queryRawUnsafe<{ id: string }[]>(
    `SELECT l.id FROM "listings" l WHERE l.id = ANY($1::text[]) AND l."publicationState" = 'published'${where}`,
    ...params,
  );
  return rows.map((r) => r.id);
}
