/**
 * The x402 Bazaar's discovery API served from our evidence (docs/DISCOVERY.md): `/discovery/resources`,
 * `/discovery/search` and `/discovery/merchant`. An item is one x402 endpoint of a published listing,
 * its accepts as the probe read its 402 (discovery_resources, trigger-kept), with a `quality` block
 * from the confirmed ledger (house rows excluded) and a `tollgate` block (grade, readiness, verification).
 */
import { isValidServiceName, sanitizeTags } from "@x402/extensions/bazaar";
import { readLatestGrades, type StoredGrade } from "@/lib/attest/read";
import { clientOr, isoOf, rows, type Client } from "@/lib/sql";
import { publicSql } from "@/lib/listings/visibility";
import { env } from "@/lib/env";
import { routerCallUrl } from "@/lib/catalog/select";
import { encodeSearchCursor, SEARCH_DEPTH, type DiscoveryFilters, type ListParams, type SearchParams } from "@/lib/catalog/discovery-params";

export const DISCOVERY_X402_VERSION = 2;

export interface DiscoveryQuality {
  l30DaysTotalCalls: number;
  l30DaysUniquePayers: number;
  lastCalledAt: string | null;
}

export interface DiscoveryTollgate {
  listing: { slug: string; url: string };
  endpointId: string;
  /** The Bazaar MCP's `proxy_tool_call` name of this resource (docs/DISCOVERY.md "MCP tools"). */
  toolName: string;
  callUrl: string;
  grade: { grade: string | null; score: number | null; band: StoredGrade["band"]; verdict: StoredGrade["verdict"]; scoredAt: string } | null;
  readiness: { score: number; band: string } | null;
  verification: "verified" | "degraded" | "unverified";
  lastPaidProof: { transaction: string; network: string; blockNumber: string | null; paidAt: string; confirmedAt: string | null; house: boolean } | null;
}

export interface DiscoveryItem {
  resource: string;
  type: "http";
  x402Version: number;
  accepts: Array<Record<string, unknown>>;
  lastUpdated: string;
  description?: string;
  mimeType?: string;
  serviceName?: string;
  tags?: string[];
  extensions?: Record<string, unknown>;
  quality: DiscoveryQuality;
  tollgate: DiscoveryTollgate;
}

interface ResourceRow {
  listingId: string;
  method: string;
  path: string;
  resource: string;
  x402Version: number;
  accepts: Array<Record<string, unknown>>;
  extensions: Record<string, unknown> | null;
  description: string | null;
  mimeType: string | null;
  lastUpdated: string;
  endpointId: string;
  endpointDescription: string | null;
  slug: string;
  title: string;
  category: string | null;
  verification: DiscoveryTollgate["verification"];
  readinessScore: number | null;
  readinessBand: string | null;
}

/** The resource rows' join: published listings, their current endpoints, the current result's band. */
const FROM = `"discovery_resources" d
  JOIN "listings" l ON l."id" = d."listingId"
  JOIN "endpoints" e ON e."listingId" = d."listingId" AND e."method"::text = d."method" AND e."path" = d."path"
  LEFT JOIN "catalog_scoring_results" r ON r."id" = l."currentResultId"`;

const COLUMNS = `d."listingId", d."method", d."path", d."resource", d."x402Version", d."accepts", d."extensions", d."description", d."mimeType",
  ${isoOf(`d."probedAt"`)} AS "lastUpdated", e."id" AS "endpointId", e."description" AS "endpointDescription", l."slug", l."title", l."category",
  l."verificationStatus"::text AS "verification", r."total" AS "readinessScore", r."band" AS "readinessBand"`;

/** The filters over `d` (and `l` published), appended to `params`; joint: one accepts entry matches every payment filter. */
export function discoveryWhere(f: DiscoveryFilters, params: unknown[]): string {
  const p = (v: unknown) => `$${params.push(v)}`;
  const clauses = [publicSql("l")];
  if (f.type !== undefined && f.type !== "http") clauses.push("false");
  const entry: Record<string, string> = {};
  for (const k of ["scheme", "network", "asset", "payTo"] as const) if (f[k] !== undefined) entry[k] = f[k]!;
  if (Object.keys(entry).length) clauses.push(`d."match" @> ${p(JSON.stringify([entry]))}::jsonb`);
  if (f.extensions !== undefined) clauses.push(`d."extensionKeys" @> ARRAY[${p(f.extensions)}]::text[]`);
  return clauses.join(" AND ");
}

async function resourcePage(client: Client, f: DiscoveryFilters, limit: number, offset: number): Promise<{ rows: ResourceRow[]; total: number }> {
  const params: unknown[] = [];
  const where = discoveryWhere(f, params);
  const n = params.length;
  const [page, count] = await Promise.all([
    rows<ResourceRow>(client, `SELECT ${COLUMNS} FROM ${FROM} WHERE ${where} ORDER BY d."listingId" COLLATE "C", d."position" LIMIT $${n + 1} OFFSET $${n + 2}`, ...params, limit, offset),
    rows<{ n: number }>(client, `SELECT count(*)::int AS n FROM ${FROM} WHERE ${where}`, ...params),
  ]);
  return { rows: page, total: count[0]?.n ?? 0 };
}

/** `GET /discovery/resources`: the spec's list shape, `unappliedFilters` naming what was not applied. */
export async function listDiscoveryResources(p: ListParams, client?: Client) {
  const c = await clientOr(client);
  const { rows: page, total } = await resourcePage(c, p.filters, p.limit, p.offset);
  return { x402Version: DISCOVERY_X402_VERSION, items: await toItems(c, page), pagination: { limit: p.limit, offset: p.offset, total }, unappliedFilters: p.unappliedFilters };
}

/** `GET /discovery/merchant?payTo=`: every published resource paying this address (CDP's merchant lookup). */
export async function merchantResources(payTo: string, p: ListParams, client?: Client) {
  const c = await clientOr(client);
  const { rows: page, total } = await resourcePage(c, { ...p.filters, payTo }, p.limit, p.offset);
  return { x402Version: DISCOVERY_X402_VERSION, payTo, resources: await toItems(c, page), pagination: { limit: p.limit, offset: p.offset, total }, unappliedFilters: p.unappliedFilters };
}

/**
 * Listings matching the query, best first, that have a resource passing the filters: every one
 * holding all its words (0.5 + 0.5·rank) ahead of those holding some (0.5·rank), the second side
 * read only when the first found fewer than `window`. Ties by id.
 */
async function searchListings(client: Client, query: string, f: DiscoveryFilters, window: number): Promise<Array<{ id: string; relevance: number }>> {
  const side = async (kind: "all" | "some", take: number, not: string[]) => {
    const params: unknown[] = [query];
    const exists = discoveryWhere(f, params);
    const tsq = kind === "all" ? `plainto_tsquery('english', $1)` : `replace(plainto_tsquery('english', $1)::text, ' & ', ' | ')::tsquery`;
    const rel = kind === "all" ? `0.5 + 0.5 * ts_rank(s."searchVector", q.tsq, 32)` : `0.5 * ts_rank(s."searchVector", q.tsq, 32)`;
    const excluded = not.length ? ` AND s."id" <> ALL($${params.push(not)}::text[])` : "";
    return rows<{ id: string; relevance: number }>(
      client,
      `WITH q AS (SELECT ${tsq} AS tsq)
       SELECT s."id", (${rel})::float8 AS relevance FROM "listing_search" s, q
        WHERE s."searchVector" @@ q.tsq AND ${publicSql("s")}${excluded}
          AND EXISTS (SELECT 1 FROM "discovery_resources" d JOIN "listings" l ON l."id" = d."listingId"
                       JOIN "endpoints" e ON e."listingId" = d."listingId" AND e."method"::text = d."method" AND e."path" = d."path"
                      WHERE d."listingId" = s."id" AND ${exists})
        ORDER BY relevance DESC, s."id" COLLATE "C" LIMIT ${take}`,
      ...params,
    );
  };
  const all = await side("all", window, []);
  if (all.length >= window) return all;
  return [...all, ...(await side("some", window - all.length, all.map((r) => r.id)))];
}

/**
 * `GET /discovery/search`: relevance order, resources of a listing by their position. `partialResults`
 * says more matches exist than this response holds; `pagination.cursor` reaches them while within
 * the first SEARCH_DEPTH, else it is null.
 */
export async function searchDiscoveryResources(p: SearchParams, client?: Client) {
  const c = await clientOr(client);
  const window = p.offset + p.limit + 1;
  const listings = await searchListings(c, p.query, p.filters, window);
  let found: ResourceRow[] = [];
  if (listings.length) {
    const params: unknown[] = [listings.map((l) => l.id)];
    const where = discoveryWhere(p.filters, params);
    found = await rows<ResourceRow>(c, `SELECT ${COLUMNS}, d."position" FROM ${FROM} WHERE d."listingId" = ANY($1::text[]) AND ${where}`, ...params);
    const order = new Map(listings.map((l, i) => [l.id, i]));
    found.sort((a, b) => order.get(a.listingId)! - order.get(b.listingId)! || (a as unknown as { position: number }).position - (b as unknown as { position: number }).position);
  }
  const page = found.slice(p.offset, p.offset + p.limit);
  const more = found.length > p.offset + p.limit || listings.length >= window;
  const next = p.offset + p.limit;
  const cursor = more && next + p.limit <= SEARCH_DEPTH ? encodeSearchCursor(next, p.query, p.filters) : null;
  return {
    x402Version: DISCOVERY_X402_VERSION,
    resources: await toItems(c, page),
    partialResults: more,
    pagination: { limit: p.limit, cursor },
    searchMethod: "text" as const,
    unappliedFilters: p.unappliedFilters,
  };
}

interface QualityRow {
  endpointId: string;
  calls: number;
  payers: number;
  lastCalledAt: string | null;
}

interface ProofRow {
  endpointId: string;
  transaction: string;
  network: string;
  blockNumber: string | null;
  paidAt: string;
  confirmedAt: string | null;
  house: boolean;
}

/**
 * Per endpoint: settled (chain-confirmed) payments of the last 30 days and their distinct payers, the
 * catalog's own wallets (`house`) and corrected rows left out, as the rank facts count them; and the
 * latest settled payment of any payer, the house's included, as the proof a paid call went through.
 */
export async function readQuality(client: Client, endpointIds: string[], now = new Date()): Promise<{ quality: Map<string, DiscoveryQuality>; proofs: Map<string, ProofRow> }> {
  if (endpointIds.length === 0) return { quality: new Map(), proofs: new Map() };
  const since = new Date(now.getTime() - 30 * 86_400_000).toISOString().replace("Z", "");
  const uncorrected = `p."id" NOT IN (SELECT c."correctsId" FROM "router_payments" c WHERE c."correctsId" IS NOT NULL)`;
  const [q, proofs] = await Promise.all([
    rows<QualityRow>(
      client,
      `SELECT p."endpointId", count(*) FILTER (WHERE p."createdAt" >= $2::timestamp)::int AS calls,
              count(DISTINCT p."payer") FILTER (WHERE p."createdAt" >= $2::timestamp)::int AS payers, ${isoOf(`max(p."createdAt")`)} AS "lastCalledAt"
         FROM "router_payments" p
        WHERE p."endpointId" = ANY($1::text[]) AND p."status" = 'settled' AND NOT p."house" AND ${uncorrected}
        GROUP BY 1`,
      endpointIds,
      since,
    ),
    rows<ProofRow>(
      client,
      `SELECT DISTINCT ON (p."endpointId") p."endpointId", p."transactionId" AS "transaction", p."network", p."blockNumber"::text AS "blockNumber",
              ${isoOf(`p."createdAt"`)} AS "paidAt", ${isoOf(`p."confirmedAt"`)} AS "confirmedAt", p."house"
         FROM "router_payments" p
        WHERE p."endpointId" = ANY($1::text[]) AND p."status" = 'settled' AND p."transactionId" IS NOT NULL AND ${uncorrected}
        ORDER BY p."endpointId", p."createdAt" DESC, p."id"`,
      endpointIds,
    ),
  ]);
  return {
    quality: new Map(q.map((r) => [r.endpointId, { l30DaysTotalCalls: r.calls, l30DaysUniquePayers: r.payers, lastCalledAt: r.lastCalledAt }])),
    proofs: new Map(proofs.map((r) => [r.endpointId, r])),
  };
}

/** The proxy_tool_call name of an endpoint: the listing's slug, its method and path. */
export function toolNameOf(slug: string, method: string, path: string): string {
  return `${slug}:${method} ${path}`;
}

async function toItems(client: Client, page: ResourceRow[]): Promise<DiscoveryItem[]> {
  if (page.length === 0) return [];
  const origin = env().publicOrigin;
  const [{ quality, proofs }, grades] = await Promise.all([readQuality(client, page.map((r) => r.endpointId)), readLatestGrades(client, page.map((r) => r.listingId))]);
  const gradeOf = new Map(grades.map((g) => [`${g.listingId} ${g.method} ${g.path}`, g]));
  return page.map((r) => {
    const g = gradeOf.get(`${r.listingId} ${r.method} ${r.path}`);
    const proof = proofs.get(r.endpointId);
    const description = r.description ?? r.endpointDescription ?? undefined;
    const tags = (r.category ? sanitizeTags([r.category]) : undefined) ?? [];
    const item: DiscoveryItem = {
      resource: r.resource,
      type: "http",
      x402Version: r.x402Version,
      accepts: r.accepts,
      lastUpdated: r.lastUpdated,
      ...(description ? { description } : {}),
      ...(r.mimeType ? { mimeType: r.mimeType } : {}),
      ...(isValidServiceName(r.title) ? { serviceName: r.title } : {}),
      ...(tags.length ? { tags } : {}),
      ...(r.extensions ? { extensions: r.extensions } : {}),
      quality: quality.get(r.endpointId) ?? { l30DaysTotalCalls: 0, l30DaysUniquePayers: 0, lastCalledAt: null },
      tollgate: {
        listing: { slug: r.slug, url: `${origin}/listings/${r.slug}` },
        endpointId: r.endpointId,
        toolName: toolNameOf(r.slug, r.method, r.path),
        callUrl: routerCallUrl(r.slug, r.path),
        grade: g ? { grade: g.grade, score: g.score, band: g.band, verdict: g.verdict, scoredAt: g.scoredAt } : null,
        readiness: r.readinessScore !== null && r.readinessBand !== null ? { score: r.readinessScore, band: r.readinessBand } : null,
        verification: r.verification,
        lastPaidProof: proof ? { transaction: proof.transaction, network: proof.network, blockNumber: proof.blockNumber, paidAt: proof.paidAt, confirmedAt: proof.confirmedAt, house: proof.house } : null,
      },
    };
    return item;
  });
}

/** One resource by its proxy_tool_call name, with its route and price (the MCP proxy's lookup). */
export async function resourceByToolName(toolName: string, client?: Client): Promise<(ResourceRow & { position: number }) | null> {
  const m = /^([^:\s]+):([A-Z]+) (\/.*)$/.exec(toolName);
  if (!m) return null;
  const c = await clientOr(client);
  const [row] = await rows<ResourceRow & { position: number }>(c, `SELECT ${COLUMNS}, d."position" FROM ${FROM} WHERE l."slug" = $1 AND d."method" = $2 AND d."path" = $3 AND ${publicSql("l")}`, m[1], m[2], m[3]);
  return row ?? null;
}
