/** The x402 Bazaar's discovery API (resources, search, merchant) served from our evidence (docs/DISCOVERY.md). */
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
  endpointId: string | null;
  /** The MCP `proxy_tool_call` name. */
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
  trustPath: string;
  resource: string;
  x402Version: number;
  accepts: Array<Record<string, unknown>>;
  extensions: Record<string, unknown> | null;
  description: string | null;
  mimeType: string | null;
  lastUpdated: string;
  endpointId: string | null;
  endpointDescription: string | null;
  slug: string;
  title: string;
  category: string | null;
  verification: DiscoveryTollgate["verification"];
  readinessScore: number | null;
  readinessBand: string | null;
}

/** Resource, listing, its current endpoint (null: served as last probed), the result's band. */
const FROM = `"discovery_resources" d
  JOIN "listings" l ON l."id" = d."listingId"
  LEFT JOIN "endpoints" e ON e."listingId" = d."listingId" AND e."method"::text = d."method" AND e."path" = d."path"
  LEFT JOIN "catalog_scoring_results" r ON r."id" = l."currentResultId"`;

const COLUMNS = `d."listingId", d."method", d."path", d."resource", d."x402Version", d."accepts", d."extensions", d."description", d."mimeType",
  ${isoOf(`d."probedAt"`)} AS "lastUpdated", e."id" AS "endpointId", coalesce(e."trustPath", d."path") AS "trustPath", e."description" AS "endpointDescription", l."slug", l."title", l."category",
  l."verificationStatus"::text AS "verification", r."total" AS "readinessScore", r."band" AS "readinessBand"`;

/** Joint: one accepts entry matches every payment filter. */
export function resourceFilterSql(f: DiscoveryFilters, params: unknown[]): string {
  const p = (v: unknown) => `$${params.push(v)}`;
  const clauses = ["true"];
  if (f.type !== undefined && f.type !== "http") clauses.push("false");
  const entry: Record<string, string> = {};
  for (const k of ["scheme", "network", "asset", "payTo"] as const) if (f[k] !== undefined) entry[k] = f[k]!;
  if (Object.keys(entry).length) clauses.push(`d."match" @> ${p(JSON.stringify([entry]))}::jsonb`);
  if (f.extensions !== undefined) clauses.push(`d."extensionKeys" @> ARRAY[${p(f.extensions)}]::text[]`);
  return clauses.join(" AND ");
}

/** Published only (`d."published"`, trigger-kept). */
export function discoveryWhere(f: DiscoveryFilters, params: unknown[]): string {
  return `d."published" AND ${resourceFilterSql(f, params)}`;
}

async function resourcePage(client: Client, f: DiscoveryFilters, limit: number, offset: number): Promise<{ rows: ResourceRow[]; total: number }> {
  const params: unknown[] = [];
  const where = discoveryWhere(f, params);
  const n = params.length;
  const [page, count] = await Promise.all([
    rows<ResourceRow>(
      client,
      `SELECT ${COLUMNS} FROM (SELECT d.* FROM "discovery_resources" d WHERE ${where} ORDER BY d."listingId" COLLATE "C", d."position" LIMIT $${n + 1} OFFSET $${n + 2}) d
         JOIN "listings" l ON l."id" = d."listingId"
         LEFT JOIN "endpoints" e ON e."listingId" = d."listingId" AND e."method"::text = d."method" AND e."path" = d."path"
         LEFT JOIN "catalog_scoring_results" r ON r."id" = l."currentResultId"
        ORDER BY d."listingId" COLLATE "C", d."position"`,
      ...params,
      limit,
      offset,
    ),
    rows<{ n: number }>(client, `SELECT count(*)::int AS n FROM "discovery_resources" d WHERE ${where}`, ...params),
  ]);
  return { rows: page, total: count[0]?.n ?? 0 };
}

export async function listDiscoveryResources(p: ListParams, client?: Client) {
  const c = await clientOr(client);
  const { rows: page, total } = await resourcePage(c, p.filters, p.limit, p.offset);
  return { x402Version: DISCOVERY_X402_VERSION, items: await toItems(c, page), pagination: { limit: p.limit, offset: p.offset, total }, unappliedFilters: p.unappliedFilters };
}

export async function merchantResources(payTo: string, p: ListParams, client?: Client) {
  const c = await clientOr(client);
  const { rows: page, total } = await resourcePage(c, { ...p.filters, payTo }, p.limit, p.offset);
  return { x402Version: DISCOVERY_X402_VERSION, payTo, resources: await toItems(c, page), pagination: { limit: p.limit, offset: p.offset, total }, unappliedFilters: p.unappliedFilters };
}

/** Per side, before ranking; past it the answer is partial. */
export const SEARCH_SCAN_CAP = 2000;

type Hit = { listingId: string; position: number; relevance: number };

/** Full-query-word matches ahead of partial ones; ties by listing id, then position (docs/DISCOVERY.md). */
async function searchResources(client: Client, query: string, f: DiscoveryFilters, take: number): Promise<{ hits: Hit[]; truncated: boolean }> {
  let truncated = false;
  const side = async (kind: "all" | "some", n: number): Promise<Hit[]> => {
    const params: unknown[] = [query];
    const filter = resourceFilterSql(f, params);
    const and = `plainto_tsquery('english', $1)`;
    const tsq = kind === "all" ? and : `replace(${and}::text, ' & ', ' | ')::tsquery`;
    const rel = kind === "all" ? `0.5 + 0.5 * ts_rank(d."searchVector", q.tsq, 32)` : `0.5 * ts_rank(d."searchVector", q.tsq, 32)`;
    const notAll = kind === "some" ? ` AND NOT d."searchVector" @@ ${and}` : "";
    const found = await rows<Hit & { n: number }>(
      client,
      `WITH q AS (SELECT ${tsq} AS tsq)
       SELECT d."listingId", d."position", (${rel})::float8 AS relevance, count(*) OVER ()::int AS n
         FROM (SELECT d."listingId", d."position", d."searchVector" FROM "discovery_resources" d, q
                WHERE d."published" AND d."searchVector" @@ q.tsq AND ${filter}${notAll} LIMIT ${SEARCH_SCAN_CAP}) d, q
        ORDER BY relevance DESC, d."listingId" COLLATE "C", d."position" LIMIT ${n}`,
      ...params,
    );
    if ((found[0]?.n ?? 0) >= SEARCH_SCAN_CAP) truncated = true;
    return found.map(({ listingId, position, relevance }) => ({ listingId, position, relevance }));
  };
  const all = await side("all", take);
  if (all.length >= take) return { hits: all, truncated };
  return { hits: [...all, ...(await side("some", take - all.length))], truncated };
}

export async function searchDiscoveryResources(p: SearchParams, client?: Client) {
  const c = await clientOr(client);
  const window = p.offset + p.limit + 1;
  const { hits, truncated } = await searchResources(c, p.query, p.filters, window);
  const pageHits = hits.slice(p.offset, p.offset + p.limit);
  let page: ResourceRow[] = [];
  if (pageHits.length) {
    const found = await rows<ResourceRow & { position: number }>(
      c,
      `SELECT ${COLUMNS}, d."position" FROM ${FROM} WHERE (d."listingId", d."position") IN (SELECT * FROM unnest($1::text[], $2::int[]))`,
      pageHits.map((h) => h.listingId),
      pageHits.map((h) => h.position),
    );
    const byKey = new Map(found.map((r) => [`${r.listingId} ${r.position}`, r]));
    page = pageHits.flatMap((h) => byKey.get(`${h.listingId} ${h.position}`) ?? []);
  }
  const more = hits.length >= window;
  const next = p.offset + p.limit;
  const cursor = more && next + p.limit <= SEARCH_DEPTH ? encodeSearchCursor(next, p.query, p.filters) : null;
  return {
    x402Version: DISCOVERY_X402_VERSION,
    resources: await toItems(c, page),
    partialResults: more || truncated,
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

/** 30-day settled payments and payers per endpoint as rank counts them, and the latest settled payment of anyone. */
export async function readQuality(client: Client, endpointIds: string[], now = new Date()): Promise<{ quality: Map<string, DiscoveryQuality>; proofs: Map<string, ProofRow> }> {
  if (endpointIds.length === 0) return { quality: new Map(), proofs: new Map() };
  const since = new Date(now.getTime() - 30 * 86_400_000).toISOString().replace("Z", "");
  // A corrected row counts as its correction (lib/ledger/correct.ts).
  const uncorrected = `NOT EXISTS (SELECT 1 FROM "router_payments" c WHERE c."correctsId" = p."id")`;
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

export function toolNameOf(slug: string, method: string, path: string): string {
  return `${slug}:${method} ${path}`;
}

async function toItems(client: Client, page: ResourceRow[]): Promise<DiscoveryItem[]> {
  if (page.length === 0) return [];
  const origin = env().publicOrigin;
  const [{ quality, proofs }, grades] = await Promise.all([readQuality(client, page.flatMap((r) => (r.endpointId ? [r.endpointId] : []))), readLatestGrades(client, page.map((r) => r.listingId))]);
  const gradeOf = new Map(grades.map((g) => [`${g.listingId} ${g.method} ${g.path}`, g]));
  return page.map((r) => {
    const g = gradeOf.get(`${r.listingId} ${r.method} ${r.trustPath}`);
    const proof = r.endpointId ? proofs.get(r.endpointId) : undefined;
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
      quality: (r.endpointId ? quality.get(r.endpointId) : undefined) ?? { l30DaysTotalCalls: 0, l30DaysUniquePayers: 0, lastCalledAt: null },
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

export async function resourceByToolName(toolName: string, client?: Client): Promise<(ResourceRow & { position: number }) | null> {
  const m = /^([^:\s]+):([A-Z]+) (\/.*)$/.exec(toolName);
  if (!m) return null;
  const c = await clientOr(client);
  const [row] = await rows<ResourceRow & { position: number }>(c, `SELECT ${COLUMNS}, d."position" FROM ${FROM} WHERE l."slug" = $1 AND d."method" = $2 AND d."path" = $3 AND ${publicSql("l")}`, m[1], m[2], m[3]);
  return row ?? null;
}
