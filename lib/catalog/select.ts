/**
 * Router selection (docs/SELECTION.md): relevant payable matches, evidence gates unless `include`d,
 * verdict tiers, then relevance × (1 + 0.25·q). The pool ignores `limit`, so shortlists are prefixes.
 */
import { z } from "zod";
import { USD_DECIMAL } from "@/lib/amounts";
import { db } from "@/lib/db";
import { isoOf, NOW_UTC, rows } from "@/lib/sql";
import { publicSql } from "@/lib/listings/visibility";
import { env } from "@/lib/env";
import { AppError, type ErrorDetail } from "@/lib/errors";
import { rankScoresForApiVersion, selectShortlist, CATALOG_API_VERSION_HEADER } from "@/lib/rank/score";
import { readPickReadings } from "@/lib/catalog/trust";
import type { TrustReading, Verification } from "@/lib/catalog/trust-words";
import { relistedGradeSql, type GradeDetail, type StoredGrade } from "@/lib/attest/read";
import { endpointClauses, searchHits, QUERY_MAX_LENGTH, type EndpointFilter, type MatchKind, type Matching, type SearchHit, type SemanticProvider } from "@/lib/catalog/search";
import { isUsdToken } from "@/lib/x402/assets";
import { endpointUrl } from "@/lib/listing-document/endpoint-url";
import { inputsFromDocument } from "@/lib/rank/sweep-ranks";
import { askedAboveStated } from "@/lib/amounts";
import { categoryOutliers, EXCLUSION_REASONS, evidenceTier, exclusionReasons, exclusionWhy, lowUptime, NEAR_RELEVANCE, priceOutliers, tooFewPriced, whyLine, type CandidateEvidence, type ExclusionReason } from "@/lib/catalog/select-evidence";

export const ROUTER_POOL = 100;
export const SELECT_MAX_LIMIT = 50;
export const SELECT_DEFAULT_LIMIT = 10;

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

const usd = z.union([z.string(), z.number()]).transform((v, ctx) => {
  const s = typeof v === "number" ? (Number.isFinite(v) && v >= 0 ? String(v) : "") : v.trim();
  if (!USD_DECIMAL.test(s)) {
    ctx.addIssue({ code: "custom", message: `must be a USD amount such as "0.05" or 0.05, got ${JSON.stringify(v)}` });
    return z.NEVER;
  }
  return s;
});

export const selectRequestSchema = z.strictObject({
  task: z.string({ error: "is required and must be a string" }).trim().min(1, { error: "must not be empty" }).max(QUERY_MAX_LENGTH, { error: `must be at most ${QUERY_MAX_LENGTH} characters` }),
  filters: z
    .strictObject({
      network: z.string().trim().min(1, { error: "must not be empty" }).max(200).optional(),
      maxPrice: usd.optional(),
      method: z
        .string()
        .transform((m) => m.toUpperCase())
        .pipe(z.enum(METHODS, { error: `must be one of ${METHODS.join(", ")}` }))
        .optional(),
      /** Compatibility: `avoid` is left out by default; `false` means `include: ["trust_avoid"]`. */
      excludeAvoid: z.boolean({ error: "must be true or false" }).optional(),
    })
    .optional(),
  /** Bring back left-out listings, marked with the reason. */
  include: z
    .array(z.enum(EXCLUSION_REASONS, { error: `must be one of ${EXCLUSION_REASONS.join(", ")}` }), { error: `must be an array of ${EXCLUSION_REASONS.join(", ")}` })
    .max(EXCLUSION_REASONS.length, { error: `must name each of ${EXCLUSION_REASONS.join(", ")} at most once` })
    .optional(),
  limit: z.number({ error: "must be an integer 1–50" }).int({ error: "must be an integer 1–50" }).min(1, { error: "must be an integer 1–50" }).max(SELECT_MAX_LIMIT, { error: "must be an integer 1–50" }).optional(),
});

export type SelectRequest = z.output<typeof selectRequestSchema>;

export function parseSelectRequest(body: unknown): SelectRequest {
  const parsed = selectRequestSchema.safeParse(body);
  if (parsed.success) return parsed.data;
  const details: ErrorDetail[] = parsed.error.issues.flatMap((issue) => {
    const base = issue.path.map((p) => `/${String(p).replace(/~/g, "~0").replace(/\//g, "~1")}`).join("");
    if (issue.code === "unrecognized_keys") return issue.keys.map((k) => ({ pointer: `${base}/${k}`, message: "is not a known field" }));
    return [{ pointer: base, message: issue.message }];
  });
  const first = details[0];
  throw new AppError("bad_request", `${first.pointer || "(body)"} ${first.message}`, details);
}

export interface SelectItem {
  id: string;
  slug: string;
  title: string;
  endpoint: {
    method: string;
    path: string;
    url: string;
    price: { usd: string | null; label: string | null; amount: string | null; asset: string | null; network: string | null; decimals: number | null };
  };
  /** `ANY /router/call/<slug>/<path>` (docs/ROUTER.md): select and call in one step. */
  callUrl: string;
  relevance: number;
  /** Null below Catalog-Api-Version 1.55, and when not yet ranked. */
  rankScore: number | null;
  match: MatchKind;
  /** The endpoint's trust reading in words; never part of the order. */
  trust: { verdict: TrustReading["verdict"]; grade: string | null; provisional: boolean; summary: string } | null;
  verification: Verification;
  why: string;
  excludedByDefault: ExclusionReason[];
}

export interface ExcludedItem {
  id: string;
  slug: string;
  title: string;
  relevance: number;
  reasons: ExclusionReason[];
  why: string;
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** On the router's own origin when configured, else the public origin. */
export function routerCallUrl(slug: string, path: string): string {
  const segments = path.split("/").filter(Boolean).map((p) => encodeURIComponent(safeDecode(p)));
  const e = env();
  return `${e.routerOrigin ?? e.publicOrigin}/router/call/${encodeURIComponent(slug)}/${segments.join("/")}`;
}

export interface SelectResponse {
  task: string;
  matching: Matching;
  items: SelectItem[];
  excluded: ExcludedItem[];
}

interface CandidateRow {
  id: string;
  slug: string;
  title: string;
  baseUrl: string;
  category: string | null;
  rankScore: number | null;
  gate: string | null;
  /** listing_ranks.facts: the rank's inputs as stored (rankInputsDocument). */
  rankFacts: unknown;
  endpointId: string;
  method: string;
  path: string;
  trustPath: string;
  priceUsd: string | null;
  priceLabel: string | null;
  priceAmount: string | null;
  priceAsset: string | null;
  priceNetwork: string | null;
  priceDecimals: number | null;
  priceMode: string | null;
  verification: Verification;
  canaryAt: string | null;
  canaryReason: string | null;
  chargedAbove: string | null;
  listedBelow: string | null;
  withoutDelivery: string | null;
  washRing: { flagged?: boolean; why?: string } | null;
  createdAt: string;
  gScore: number | null;
  gGrade: string | null;
  gBandLow: number | null;
  gBandHigh: number | null;
  gConfidence: StoredGrade["confidence"];
  gVerdict: StoredGrade["verdict"] | null;
  gFlags: string[] | null;
  gDetail: GradeDetail | null;
  observed: boolean | null;
}

export async function selectServices(
  req: SelectRequest,
  opts: { apiVersion?: string | null; semantic?: SemanticProvider | null; now?: number } = {},
): Promise<SelectResponse> {
  // Checked first, so a malformed header is a 400 whatever the body.
  const versionCheck = rankScoresForApiVersion([], opts.apiVersion);
  if (!versionCheck.ok) {
    throw new AppError("bad_request", versionCheck.message, [{ message: versionCheck.message }], { header: CATALOG_API_VERSION_HEADER });
  }
  const { excludeAvoid, ...filters } = req.filters ?? {};
  const include = new Set<ExclusionReason>(req.include ?? []);
  if (excludeAvoid === false) include.add("trust_avoid");
  const endpoint: EndpointFilter = { ...filters };
  const now = opts.now ?? Date.now();
  const { hits, matching } = await searchHits({ query: req.task, limit: ROUTER_POOL, endpoint, semantic: opts.semantic, sentence: true });
  const candidates = await poolOf(hits, endpoint, now);
  const leftOut = (c: Candidate) => c.reasons.some((r) => !include.has(r));
  // Excluded listings neither take a place nor set the bar of q, like unpayable ones.
  const kept = candidates.filter((c) => !leftOut(c));
  const priced = (c: Candidate) => ({ id: c.id, relevance: c.relevance, usd: c.row.priceUsd, category: c.row.category });
  const keptPriced = kept.filter((c) => c.payable).map(priced);
  const outliers = priceOutliers(keptPriced);
  for (const c of kept) if (outliers.has(c.id)) c.evidence.priceOutlier = { usd: c.row.priceUsd!, median: outliers.get(c.id)! };
  if (outliers.size === 0 && tooFewPriced(keptPriced)) {
    // Too few to set a bar: the near matches of each one's category set it (categoryOutliers).
    const seen = new Set(hits.map((h) => h.listingId));
    const near = await searchHits({ query: req.task, limit: ROUTER_POOL, endpoint, semantic: opts.semantic, sentence: true, minRelevance: NEAR_RELEVANCE });
    const nearPool = (await poolOf(near.hits.filter((h) => !seen.has(h.listingId)), endpoint, now)).filter((c) => c.payable && !leftOut(c));
    const found = categoryOutliers(keptPriced, nearPool.map(priced));
    for (const c of kept) if (found.outliers.has(c.id)) c.evidence.priceOutlier = { usd: c.row.priceUsd!, median: found.outliers.get(c.id)!, among: "category" };
    kept.push(...nearPool.filter((c) => found.joined.has(c.id)));
  }
  const excludedSet = candidates.filter((c) => c.payable && leftOut(c));
  const ordered = selectShortlist(kept, { limit: Math.max(1, kept.length) })
    .map((c, i) => ({ c, i, tier: evidenceTier(c.evidence, c.reasons) }))
    .sort((a, b) => a.tier - b.tier || a.i - b.i)
    .map((x) => x.c)
    .slice(0, req.limit ?? SELECT_DEFAULT_LIMIT);

  const items: SelectItem[] = ordered.map((c) => ({
    id: c.id,
    slug: c.row.slug,
    title: c.row.title,
    endpoint: {
      method: c.row.method,
      path: c.row.path,
      url: endpointUrl(c.row.baseUrl, c.row.path),
      price: { usd: c.row.priceUsd, label: c.row.priceLabel, amount: c.row.priceAmount, asset: c.row.priceAsset, network: c.row.priceNetwork, decimals: c.row.priceDecimals },
    },
    callUrl: routerCallUrl(c.row.slug, c.row.path),
    relevance: c.relevance,
    rankScore: c.rankScore,
    match: c.hit.match,
    trust: trustOf(c.reading),
    verification: c.row.verification,
    why: whyLine({ matched: c.hit.matched, semantic: c.semantic ? c.relevance : null, reversed: c.hit.reversed, evidence: c.evidence, price: { usd: c.row.priceUsd, label: c.row.priceLabel }, now }),
    excludedByDefault: c.reasons,
  }));
  const excluded: ExcludedItem[] = excludedSet.map((c) => ({ id: c.id, slug: c.row.slug, title: c.row.title, relevance: c.relevance, reasons: c.reasons, why: exclusionWhy(c.reasons, c.evidence, now) }));
  const gated = rankScoresForApiVersion(items, opts.apiVersion);
  return { task: req.task, matching, items: gated.ok ? gated.items : items.map((i) => ({ ...i, rankScore: null })), excluded };
}

/** The hits' candidates with their rows, readings and evidence, in the hits' order. */
async function poolOf(hits: readonly SearchHit[], endpoint: EndpointFilter, now: number) {
  const prisma = await db();
  const rows = await candidateRows(hits.map((h) => h.listingId), endpoint);
  const byId = new Map(rows.map((r) => [r.id, r]));
  // Every pool candidate's reading, from stored grades; only observed, ungraded endpoints are scored live.
  const readings = await readPickReadings(
    prisma,
    rows.map((r) => ({
      listingId: r.id,
      endpoint: { id: r.endpointId, method: r.method, path: r.path, trustPath: r.trustPath, payable: true },
      grade: r.gVerdict === null ? null : { score: r.gScore === null ? null : Number(r.gScore), grade: r.gGrade, band: r.gBandLow === null || r.gBandHigh === null ? null : { low: Number(r.gBandLow), high: Number(r.gBandHigh), width: r.gDetail!.bandWidth ?? Math.round((Number(r.gBandHigh) - Number(r.gBandLow)) * 10) / 10 }, confidence: r.gConfidence, verdict: r.gVerdict, flags: r.gFlags!, detail: r.gDetail! },
      observed: r.observed === true,
      listingCreatedAt: r.createdAt,
    })),
  );
  return hits.flatMap((h) => {
    const row = byId.get(h.listingId);
    if (!row) return [];
    const reading = readings.get(row.endpointId);
    const evidence: CandidateEvidence = {
      verdict: reading?.verdict ?? null,
      grade: reading?.grade ?? null,
      provisional: reading?.provisional ?? false,
      verification: row.verification,
      canaryAt: row.canaryAt,
      canaryReason: row.canaryReason,
      charges: { aboveListing: row.chargedAbove !== null && row.listedBelow !== null ? { charged: row.chargedAbove, listed: row.listedBelow } : null, withoutDelivery: row.withoutDelivery },
      washRing: row.washRing?.flagged === true ? { why: String(row.washRing.why ?? "") } : null,
      lowUptime: lowUptime(inputsFromDocument(row.rankFacts, new Date(now))?.monitor ?? null),
      askedAbove: askedAboveStated({ usd: row.priceUsd, amount: row.priceAmount, decimals: row.priceDecimals, mode: row.priceMode, usdToken: isUsdToken(row.priceNetwork, row.priceAsset) }),
    };
    const reasons = exclusionReasons(evidence);
    return [{ id: h.listingId, relevance: h.relevance, semantic: h.match === "semantic", rankScore: row.rankScore, payable: row.gate !== "unpayable", row, hit: h, evidence, reasons, reading }];
  });
}
type Candidate = Awaited<ReturnType<typeof poolOf>>[number];

function trustOf(r: TrustReading | undefined): SelectItem["trust"] {
  return r ? { verdict: r.verdict, grade: r.grade, provisional: r.provisional, summary: `${r.headline}. ${r.detail}` } : null;
}

/** The one place selection reads rank storage (listing_ranks `rk`). */
export const RANK_COLUMNS_SQL = `rk."rankScore" AS "rankScore", rk."gate" AS gate, rk."facts" AS "rankFacts"`;

/** Pool rows: rank, gate, latest canary run, first fitting payable endpoint and its latest stored grade (or whether observed). */
async function candidateRows(ids: string[], f: EndpointFilter): Promise<CandidateRow[]> {
  if (ids.length === 0) return [];
  const params: unknown[] = [ids];
  const clauses = endpointClauses(f, params).join(" AND ");
  const prisma = await db();
  return rows<CandidateRow>(
    prisma,
    `SELECT l.id, l.slug, l."title", l."baseUrl", l."category", l."verificationStatus"::text AS verification, ${RANK_COLUMNS_SQL},
            ${isoOf(`cr."finishedAt"`)} AS "canaryAt", cr."reason" AS "canaryReason",
            ch."chargedAbove", ch."listedBelow", ch."withoutDelivery", w."ring" AS "washRing",
            e.id AS "endpointId", e."method"::text AS method, e."path", e."trustPath", e."priceUsd", e."priceLabel", e."priceAmount", e."priceAsset", e."priceNetwork", e."priceDecimals", e."priceMode"::text AS "priceMode",
            ${isoOf(`l."createdAt"`)} AS "createdAt", g."score" AS "gScore", g."grade" AS "gGrade", g."bandLow" AS "gBandLow", g."bandHigh" AS "gBandHigh",
            g."confidence" AS "gConfidence", g."verdict" AS "gVerdict", g."flags" AS "gFlags", g."detail" AS "gDetail",
            CASE WHEN g."id" IS NULL THEN
              EXISTS (SELECT 1 FROM "trust_observations" o WHERE o."listingId" = l.id AND o."method" = e."method"::text AND o."path" = e."trustPath")
              OR EXISTS (SELECT 1 FROM "trust_endpoint_revisions" v WHERE v."listingId" = l.id AND v."method" = e."method"::text AND v."path" = e."trustPath")
            END AS observed
       FROM "listings" l
       LEFT JOIN "listing_ranks" rk ON rk."listingId" = l.id
       JOIN LATERAL (SELECT * FROM "endpoints" e WHERE ${clauses} ORDER BY e."position" LIMIT 1) e ON true
       LEFT JOIN LATERAL (SELECT r."id", r."finishedAt", r."reason" FROM "canary_runs" r WHERE r."listingId" = l.id AND r."state" = 'done'
                             -- The latest run that judged something: one that paid nothing says nothing about charges.
                             AND (r."outcome" IS DISTINCT FROM 'unverified' OR EXISTS (SELECT 1 FROM "canary_samples" s WHERE s."runId" = r."id" AND s."outcome" IS NOT NULL))
                           ORDER BY r."finishedAt" DESC LIMIT 1) cr ON true
       LEFT JOIN LATERAL (
         SELECT (array_agg(x.charged::text ORDER BY x.charged DESC) FILTER (WHERE x.charged > x.listed))[1] AS "chargedAbove",
                (array_agg(x.listed::text ORDER BY x.charged DESC) FILTER (WHERE x.charged > x.listed))[1] AS "listedBelow",
                (array_agg(CASE WHEN x."schemaValid" = false AND x."httpStatus" BETWEEN 200 AND 299 THEN 'invalid_output' ELSE x."httpStatus"::text END)
                   FILTER (WHERE x.settled AND (x."httpStatus" IS NULL OR x."httpStatus" NOT BETWEEN 200 AND 299 OR x."schemaValid" = false)))[1] AS "withoutDelivery"
           FROM (SELECT s."httpStatus", s."schemaValid", s."paymentStatus" = 'settled' AS settled,
                        CASE WHEN s."listedAmount" ~ '^[0-9]{1,60}$' THEN s."listedAmount"::numeric END AS listed,
                        GREATEST(CASE WHEN s."quotedAmount" ~ '^[0-9]{1,60}$' THEN s."quotedAmount"::numeric END,
                                 CASE WHEN s."paymentStatus" = 'settled' AND s."chainAmount" ~ '^[0-9]{1,60}$' THEN s."chainAmount"::numeric END) AS charged
                   FROM "canary_samples" s WHERE s."runId" = cr."id") x) ch ON true
       LEFT JOIN "listing_wash" w ON w."listingId" = l.id
       LEFT JOIN "trust_grade_latest" p ON p."listingId" = l.id AND p."method" = e."method"::text AND p."path" = e."trustPath"
       LEFT JOIN "trust_grades" g0 ON g0."id" = p."gradeId"
       LEFT JOIN "trust_grades" g ON g."id" = CASE WHEN g0."id" IS NULL OR g0."verdict" = 'insufficient_evidence' THEN coalesce(${relistedGradeSql("l", "e", NOW_UTC)}, g0."id") ELSE g0."id" END
      WHERE l.id = ANY($1::text[]) AND ${publicSql("l")}`,
    ...params,
  );
}
