/**
 * Catalog search: relevance ONLY, never blended with quality or rank. Full-text hits (0.2 + 0.8·ts_rank)
 * rank ahead of title typos (≤ 0.2), which are searched only for the rest (docs/FEEDS.md "Search").
 */
import { db } from "@/lib/db";
import { rows, rowsWithSettings } from "@/lib/sql";
import { publicSql } from "@/lib/listings/visibility";
import { AppError } from "@/lib/errors";
import { unstorableText } from "@/lib/listing-document/unstorable";
import type { PublicListing } from "@/lib/catalog/public-view";
import { filterSql, type BrowseFilters } from "@/lib/catalog/browse";
import { publicListingsByIdsOneStatement } from "@/lib/catalog/public-rows";
import { MIN_RELEVANCE, TYPO_THRESHOLD, readTerms, sentenceScoreSql, type MatchedWord, type Term } from "@/lib/catalog/sentence";
import { REVERSED_FACTOR, askedFor, listingDirection, readsTheOtherWay } from "@/lib/catalog/direction";

export interface SemanticProvider {
  search(query: string, limit: number): Promise<{ listingId: string; similarity: number }[]>;
}

export const defaultSemanticProvider: SemanticProvider | null = null;

export type MatchKind = "keyword" | "semantic";

export interface SearchHit {
  listingId: string;
  relevance: number;
  match: MatchKind;
  matched?: MatchedWord[];
  /** A sentence's relevance × REVERSED_FACTOR: the listing takes what the task asks for (docs/SELECTION.md "Direction"). */
  reversed?: boolean;
}

/** Only listings with a payable endpoint fitting all of these (router selection). */
export interface EndpointFilter {
  method?: string;
  network?: string;
  /** A dynamic price counts at its maximum. */
  maxPrice?: string;
}

export interface SearchOptions {
  query: string;
  limit: number;
  filters?: BrowseFilters;
  endpoint?: EndpointFilter;
  semantic?: SemanticProvider | null;
  /** Read the query as a sentence (docs/SELECTION.md). */
  sentence?: boolean;
  /** A sentence's floor; default MIN_RELEVANCE. */
  minRelevance?: number;
}

export const SEARCH_MAX_LIMIT = 100;
export const LEXICAL_WEIGHT = 0.8;
export const FUZZY_WEIGHT = 0.2;
/** Set per statement: the GUC's default 0.6 misses one-letter typos ("wether" → "Weather forecast API" is 0.5). */
export const FUZZY_THRESHOLD = 0.45;
export const QUERY_MAX_LENGTH = 500;

export type Matching = "keyword" | "hybrid";

/** A query PostgreSQL cannot hold (a NUL, a lone surrogate) is a 400 naming `pointer`. */
function refuseUnstorable(raw: string, pointer: string): void {
  const unstorable = unstorableText(raw);
  if (unstorable) throw new AppError("bad_request", `${pointer} ${unstorable}`, [{ pointer, message: unstorable }], { reason: "unstorable_text" });
}

export function validateQuery(raw: unknown, pointer: string): string {
  if (typeof raw !== "string") throw new AppError("bad_request", `${pointer} must be a string`, [{ pointer, message: "must be a string" }]);
  refuseUnstorable(raw, pointer);
  const q = raw.trim();
  if (q.length < 1 || q.length > QUERY_MAX_LENGTH) {
    throw new AppError("bad_request", `${pointer} must be 1–${QUERY_MAX_LENGTH} characters`, [{ pointer, message: `must be 1–${QUERY_MAX_LENGTH} characters` }]);
  }
  return q;
}

export async function searchHits(opts: SearchOptions): Promise<{ hits: SearchHit[]; matching: Matching }> {
  if (!Number.isSafeInteger(opts.limit) || opts.limit < 1 || opts.limit > SEARCH_MAX_LIMIT) {
    throw new AppError("bad_request", `limit must be an integer 1–${SEARCH_MAX_LIMIT}`, [{ pointer: "/limit", message: `must be an integer 1–${SEARCH_MAX_LIMIT}` }]);
  }
  const query = opts.query;
  // Every caller but the route handlers (which name their own parameter through validateQuery) reaches here too.
  refuseUnstorable(query, "/query");
  const keyword = opts.sentence ? await sentenceHits(query, opts.limit, opts.filters ?? {}, opts.endpoint, opts.minRelevance ?? MIN_RELEVANCE) : await keywordHits(query, opts.limit, opts.filters ?? {}, opts.endpoint);
  const provider = opts.semantic === undefined ? defaultSemanticProvider : opts.semantic;
  const asHit = (k: KeywordRow): SearchHit => ({ listingId: k.id, relevance: k.relevance, match: "keyword", ...(k.matched ? { matched: k.matched } : {}), ...(k.reversed ? { reversed: true } : {}) });
  if (!provider) return { hits: keyword.map(asHit), matching: "keyword" };

  // Hybrid: the provider's hits (same filters), then keyword hits it missed; found both ways is semantic.
  const semantic = (await provider.search(query, opts.limit)).filter((s) => Number.isFinite(s.similarity));
  const allowed = new Set(await filterIds(semantic.map((s) => s.listingId), opts));
  const hits: SearchHit[] = semantic
    .filter((s) => allowed.has(s.listingId))
    .map((s) => ({ listingId: s.listingId, relevance: Math.min(1, Math.max(0, s.similarity)), match: "semantic" as const }));
  const seen = new Set(hits.map((h) => h.listingId));
  for (const k of keyword) if (!seen.has(k.id)) hits.push(asHit(k));
  hits.sort((a, b) => b.relevance - a.relevance || (a.listingId < b.listingId ? -1 : 1));
  return { hits: hits.slice(0, opts.limit), matching: "hybrid" };
}

interface KeywordRow {
  id: string;
  relevance: number;
  matched?: MatchedWord[];
  /** Lowered by direction (./direction.ts): the listing takes what the task asks for. */
  reversed?: boolean;
  /** Title, short description and description, read for direction only. */
  text?: string;
}

/**
 * The typo threshold; no JIT (compiling the per-listing scoring cost more than running it); index scans only
 * (the planner overestimates the OR of GIN matches and scanned the table). docs/SELECTION.md "Speed".
 */
const SENTENCE_SETTINGS = { "pg_trgm.word_similarity_threshold": String(TYPO_THRESHOLD), jit: "off", enable_seqscan: "off" };

async function sentenceHits(query: string, limit: number, filters: BrowseFilters, endpoint: EndpointFilter | undefined, floor: number): Promise<KeywordRow[]> {
  const prisma = await db();
  const terms = await readTerms(prisma, query);
  if (terms.length === 0) return [];
  const read = (n: number, texts: boolean) =>
    ranked(n, filters, endpoint, (window) =>
      rowsWithSettings<KeywordRow>(prisma, SENTENCE_SETTINGS, ...sentenceSql(terms, n, window, filters, endpoint, floor, texts)),
    );
  const asked = askedFor(query);
  if (asked.size === 0) return read(limit, false);
  // Direction lowers some rows: read past `limit` until no unread row could outrank the last kept one.
  for (let n = 2 * limit; ; n *= 4) {
    const found = await read(n, true);
    const turned = found
      .map(({ text, ...r }) => (readsTheOtherWay(asked, listingDirection(text ?? "")) ? { ...r, relevance: r.relevance * REVERSED_FACTOR, reversed: true } : r))
      .filter((r) => r.relevance >= floor)
      .sort((a, b) => b.relevance - a.relevance || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const kept = turned.slice(0, limit);
    const unread = found.length < n ? -1 : found[found.length - 1].relevance;
    if (kept.length === limit ? kept[limit - 1].relevance >= unread : unread < 0) return kept;
  }
}

function sentenceSql(terms: Term[], limit: number, window: number | null, filters: BrowseFilters, endpoint: EndpointFilter | undefined, floor: number, texts = false): [string, ...unknown[]] {
  if (!(floor >= 0 && floor <= 1)) throw new RangeError(`minRelevance must be 0–1, got ${floor}`);
  const params: unknown[] = [];
  const { minPrice, maxPrice, ...own } = filters;
  const { retrieve, lateral, matched, with: spec } = sentenceScoreSql(terms, params, floor);
  const inner = filterSql(own, params);
  const outer = filterSql({ minPrice, maxPrice }, params) + endpointFilterSql(endpoint, params);
  // The listing's words for its direction (./direction.ts), only when the task asks for something.
  const text = texts ? `, (SELECT concat_ws('. ', x."title", x."shortDescription", x."description") FROM "listings" x WHERE x.id = l.id) AS text` : "";
  // The words matched, only for the rows returned.
  const sql = `WITH ${spec}
    SELECT k.id, k.relevance, mw.matched${texts ? ", k.text" : ""}
      FROM (SELECT l.id, l.relevance${text}
              FROM (SELECT l.id, l."category", l."networks", l."protocols", s.relevance
                      FROM "listing_search" l CROSS JOIN ${lateral}
                     WHERE (${retrieve}) AND ${publicSql("l")}${inner} AND s.relevance >= ${floor}
                     ORDER BY s.relevance DESC, l.id COLLATE "C"
                    ${window === null ? "OFFSET 0" : `LIMIT ${window}`}) l
             WHERE true${outer}
             ORDER BY l.relevance DESC, l.id COLLATE "C"
             LIMIT ${limit}) k
      JOIN "listing_search" ls ON ls.id = k.id
      CROSS JOIN ${matched("ls")}
     ORDER BY k.relevance DESC, k.id COLLATE "C"`;
  return [sql, ...params];
}

/** Every full-text hit ahead of every typo-only one, so the trigram statement runs only for the rest. */
async function keywordHits(query: string, limit: number, filters: BrowseFilters, endpoint: EndpointFilter | undefined): Promise<KeywordRow[]> {
  const prisma = await db();
  const fullText = await ranked(limit, filters, endpoint, (window) => rows<KeywordRow>(prisma, ...rankedSql(query, limit, window, filters, endpoint, "fullText")));
  const precise = /(^|\s)-\S|"|(^|\s)or(\s|$)/i.test(query);
  if (precise || fullText.length >= limit) return fullText;
  const rest = limit - fullText.length;
  const typo = await ranked(rest, filters, endpoint, async (window) => {
    // Transaction-local: the threshold ends with the statement's connection use.
    return rowsWithSettings<KeywordRow>(prisma, { "pg_trgm.word_similarity_threshold": String(FUZZY_THRESHOLD) }, ...rankedSql(query, rest, window, filters, endpoint, "typo"));
  });
  return [...fullText, ...typo];
}

/** With endpoint filters, a side first ranks this many × `limit`. */
export const RANK_WINDOW_FACTOR = 4;

/** Top-`limit` sort, or with endpoint filters a bounded window first (docs/FEEDS.md). */
async function ranked(limit: number, filters: BrowseFilters, endpoint: EndpointFilter | undefined, run: (window: number | null) => Promise<KeywordRow[]>): Promise<KeywordRow[]> {
  const probing = endpoint !== undefined || filters.minPrice !== undefined || filters.maxPrice !== undefined;
  if (!probing) return run(limit);
  const first = await run(limit * RANK_WINDOW_FACTOR);
  return first.length >= limit ? first : run(null);
}

/** One side as a statement: endpoint filters apply in the outer query, per row read, not per match (docs/FEEDS.md). */
function rankedSql(query: string, limit: number, window: number | null, filters: BrowseFilters, endpoint: EndpointFilter | undefined, side: "fullText" | "typo"): [string, ...unknown[]] {
  const params: unknown[] = [query];
  const { minPrice, maxPrice, ...own } = filters;
  const inner = filterSql(own, params);
  const outer = filterSql({ minPrice, maxPrice }, params) + endpointFilterSql(endpoint, params);
  const [relevance, match] =
    side === "fullText"
      ? [`${FUZZY_WEIGHT} + ${LEXICAL_WEIGHT} * ts_rank(l."searchVector", q.tsq, 32)`, `l."searchVector" @@ q.tsq`]
      : [`${FUZZY_WEIGHT} * word_similarity($1, l."title")`, `$1 <% l."title" AND NOT COALESCE(l."searchVector" @@ q.tsq, false)`];
  const sql = `WITH q AS (SELECT websearch_to_tsquery('english', $1) AS tsq)
    SELECT l.id, l.relevance
      FROM (SELECT l.id, l."category", l."networks", l."protocols", (${relevance})::float8 AS relevance
              FROM "listing_search" l, q
             WHERE ${match} AND ${publicSql("l")}${inner}
             ORDER BY relevance DESC, l.id COLLATE "C"
            ${window === null ? "OFFSET 0" : `LIMIT ${window}`}) l
     WHERE true${outer}
     ORDER BY l.relevance DESC, l.id COLLATE "C"
     LIMIT ${limit}`;
  return [sql, ...params];
}

export type SearchResultItem = PublicListing & { relevance: number; match: MatchKind };

export async function searchCatalog(opts: SearchOptions): Promise<{ items: SearchResultItem[]; matching: Matching }> {
  const { hits, matching } = await searchHits(opts);
  const listings = await publicListingsByIdsOneStatement(hits.map((h) => h.listingId));
  const byId = new Map(listings.map((l) => [l.id, l]));
  const items = hits.flatMap((h) => {
    const l = byId.get(h.listingId);
    return l ? [{ ...l, relevance: h.relevance, match: h.match }] : [];
  });
  return { items, matching };
}

/** EXISTS a payable endpoint fitting `f` (any filter object, even empty, requires one). */
export function endpointFilterSql(f: EndpointFilter | undefined, params: unknown[]): string {
  if (!f) return "";
  return ` AND EXISTS (SELECT 1 FROM "endpoints" e WHERE ${endpointClauses(f, params).join(" AND ")})`;
}

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
  const found = await rows<{ id: string }>(prisma, `SELECT l.id FROM "listings" l WHERE l.id = ANY($1::text[]) AND ${publicSql("l")}${where}`, ...params);
  return found.map((r) => r.id);
}
