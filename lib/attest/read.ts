/** Reading stored grades and bundles; only listed, undeleted listings answer. */
import { createHash } from "node:crypto";
import { gunzipSync } from "node:zlib";
import { AppError } from "@/lib/errors";
import { urlKey } from "@/lib/listing-document/endpoint-url";
import { listedSql } from "@/lib/listings/visibility";
import { clientOr, isoOf, NOW_UTC, rows, utcParam, type Client } from "@/lib/sql";
import type { DsseEnvelope } from "@/lib/badges/dsse";
import type { AttestationStatement } from "./attestation";
import type { TrustResult } from "@/lib/trust/engine";

export interface GradeDetail {
  verdictBecause: string[];
  outlook: TrustResult["outlook"];
  watch: boolean;
  watchBecause: string[];
  stale: boolean;
  uncappedScore: number | null;
  bandWidth: number | null;
  evidence: TrustResult["evidence"];
  firstProbeAt: string | null;
  /** The scoring's parts, so a page shows them without reading the history; absent on grades stored before it. */
  scored?: ScoredParts;
}

export type ScoredParts = Pick<TrustResult, "dimensions" | "gates" | "checks">;

/** JSON has no Infinity (a timeout's p95, a gate's value): written as the string, read back as the number. */
export function storedScoredParts(r: ScoredParts): ScoredParts {
  return JSON.parse(JSON.stringify({ dimensions: r.dimensions, gates: r.gates, checks: r.checks }, (_k, v) => (v === Infinity ? "Infinity" : v)));
}

export function scoredPartsOf(stored: ScoredParts): ScoredParts {
  return {
    dimensions: stored.dimensions,
    gates: stored.gates.map((g) => ({ ...g, value: infinite(g.value) })),
    checks: stored.checks.map((c) => (c.p95 === undefined ? c : { ...c, p95: infinite(c.p95) })),
  };
}

const infinite = <T>(v: T): T => ((v as unknown) === "Infinity" ? (Infinity as T) : v);

const ID = /^[A-Za-z0-9_-]{1,64}$/;
const HEX64 = /^[0-9a-f]{64}$/;

export function checkEndpointId(id: string): string {
  if (!ID.test(id)) throw new AppError("bad_request", "The endpoint id must be 1–64 letters, digits, '_' or '-'.", [{ pointer: "/id", message: "is not an endpoint id" }]);
  return id;
}

export function checkBundleHash(h: string | null): string | null {
  if (h === null) return null;
  if (!HEX64.test(h)) throw new AppError("bad_request", "sha256 must be 64 lowercase hex digits.", [{ pointer: "/sha256", message: "is not a SHA-256 in lowercase hex" }]);
  return h;
}

const LISTED = listedSql("l");

export interface StoredAttestation {
  gradeId: string;
  envelope: DsseEnvelope;
  statement: AttestationStatement;
  bundleSha256: string;
  issuedAt: string;
  expiresAt: string;
}

/** `attestation_pending`: the latest grade was of an earlier row of the endpoint. */
export async function readLatestAttestation(client: Client, endpointId: string): Promise<StoredAttestation> {
  const [r] = await rows<{ endpointFound: boolean; gradeId: string | null; gradedId: string | null; envelope: DsseEnvelope | null; bundleSha256: string | null; issuedAt: string | null; expiresAt: string | null }>(
    client,
    `SELECT true AS "endpointFound", g."id" AS "gradeId", g."endpointId" AS "gradedId", g."envelope", g."bundleSha256",
            ${isoOf(`g."issuedAt"`)} AS "issuedAt", ${isoOf(`g."expiresAt"`)} AS "expiresAt"
     FROM "endpoints" e JOIN "listings" l ON l."id" = e."listingId"
     LEFT JOIN "trust_grade_latest" p ON p."listingId" = e."listingId" AND p."method" = e."method"::text AND p."path" = e."trustPath"
     LEFT JOIN "trust_grades" g ON g."id" = p."gradeId"
     WHERE e."id" = $1 AND ${LISTED}`,
    endpointId,
  );
  if (!r) throw new AppError("not_found", "No listed endpoint has this id.", [{ pointer: "/id", message: "names no listed endpoint" }], { reason: "no_endpoint" });
  if (!r.gradeId) throw new AppError("not_found", "This endpoint has no attestation yet: the trust grade sweep has not graded it.", [], { reason: "no_attestation" });
  if (r.gradedId !== endpointId) throw new AppError("not_found", "The endpoint changed since its latest grade; the next sweep grades it under this id.", [], { reason: "attestation_pending", gradedEndpointId: r.gradedId });
  return storedOf(r.gradeId, { envelope: r.envelope!, bundleSha256: r.bundleSha256!, issuedAt: r.issuedAt!, expiresAt: r.expiresAt! });
}

type GradeEnvelope = Omit<StoredAttestation, "gradeId" | "statement">;
const storedOf = (gradeId: string, r: GradeEnvelope): StoredAttestation => ({ gradeId, ...r, statement: JSON.parse(Buffer.from(r.envelope.payload, "base64").toString("utf8")) as AttestationStatement });

async function readGradeAttestation(client: Client, gradeId: string): Promise<StoredAttestation> {
  const [r] = await rows<GradeEnvelope>(
    client,
    `SELECT "envelope", "bundleSha256", ${isoOf(`"issuedAt"`)} AS "issuedAt", ${isoOf(`"expiresAt"`)} AS "expiresAt" FROM "trust_grades" WHERE "id" = $1`,
    gradeId,
  );
  return storedOf(gradeId, r);
}

export function checkResourceUrl(raw: string | null): string {
  const bad = (message: string) => new AppError("bad_request", "url must be the absolute http(s) URL of a listed endpoint.", [{ pointer: "/url", message }]);
  if (raw === null || raw === "") throw bad("is required");
  if (raw.length > 2048) throw bad("is longer than 2048 characters");
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw bad("is not an absolute URL");
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") throw bad("is not http or https");
  return urlKey(raw)!;
}

/** A URL's text as checkResourceUrl writes it: the scheme and host lower-cased, a default port dropped, no trailing slash; the path keeps its case. */
const urlKeySql = (t: string) => {
  const origin = `regexp_replace(lower(substring(${t} from '^[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*')), '^(https://[^/]*):443$|^(http://[^/]*):80$', '\\1\\2')`;
  return `rtrim(${origin} || coalesce(substring(${t} from '^[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*([^?#]*)'), ''), '/')`;
};
const endpointUrlSql = (l: string, e: string) => urlKeySql(`(rtrim(${l}."baseUrl", '/') || '/' || ltrim(${e}."path", '/'))`);
const ENDPOINT_URL = endpointUrlSql("l", "e");

export const RELIST_MEMORY_DAYS = 30;

/** The organisation's recent avoid or down grade at l/e's URL under another key (docs/ATTESTATIONS.md "Relisting"). */
export const relistedGradeSql = (l: string, e: string, at: string) =>
  `(SELECT pg."id" FROM "listings" pl JOIN "trust_grade_latest" pp ON pp."listingId" = pl."id" JOIN "trust_grades" pg ON pg."id" = pp."gradeId"
     WHERE pl."organizationId" = ${l}."organizationId" AND pp."method" = ${e}."method"::text AND NOT (pl."id" = ${l}."id" AND pp."path" = ${e}."trustPath")
       AND pg."verdict" IN ('avoid', 'down') AND pg."scoredAt" >= ${at} - interval '${RELIST_MEMORY_DAYS} days'
       AND ${urlKeySql(`(pg."statement"->'endpoint'->>'url')`)} = ${endpointUrlSql(l, e)}
     ORDER BY pg."scoredAt" DESC, pg."id" LIMIT 1)`;

/**
 * The listed endpoint at this URL (and method, when given): first a listing whose organisation signed in with
 * the wallet its latest attestation is paid to, then the one published first (docs/ATTESTATIONS.md "Finding an
 * attestation by URL").
 */
export async function readAttestationByUrl(client: Client, url: string, method: string | null): Promise<StoredAttestation> {
  const found = await rows<{ id: string; relisted: string | null }>(
    client,
    `SELECT e."id", CASE WHEN g."id" IS NULL OR g."verdict" = 'insufficient_evidence' THEN ${relistedGradeSql("l", "e", NOW_UTC)} END AS "relisted"
     FROM "endpoints" e JOIN "listings" l ON l."id" = e."listingId"
     LEFT JOIN "trust_grade_latest" p ON p."listingId" = e."listingId" AND p."method" = e."method"::text AND p."path" = e."trustPath"
     LEFT JOIN "trust_grades" g ON g."id" = p."gradeId"
     WHERE ${LISTED} AND ${ENDPOINT_URL} = $1 AND ($2::text IS NULL OR e."method"::text = $2)
     ORDER BY EXISTS (SELECT 1 FROM "users" u WHERE u."organizationId" = l."organizationId" AND u."walletAddress" IS NOT NULL
                        AND lower(u."walletAddress") = lower(g."statement"->'payment'->>'payTo')) DESC,
              l."publishedAt" ASC NULLS LAST, l."createdAt", l."id", e."method"::text, e."id" LIMIT 1`,
    url.replace(/\/+$/, ""),
    method,
  );
  if (!found[0]) throw new AppError("not_found", "No listed endpoint is at this URL.", [{ pointer: "/url", message: "names no listed endpoint" }], { reason: "no_endpoint" });
  if (found[0].relisted) return readGradeAttestation(client, found[0].relisted);
  return readLatestAttestation(client, found[0].id);
}

export async function getAttestationByUrl(url: string, method: string | null): Promise<StoredAttestation> {
  return readAttestationByUrl(await clientOr(), url, method);
}

/** A stored document's canonical bytes, checked against its hash. */
export interface StoredDocument {
  sha256: string;
  bytes: Buffer;
}

function storedDocument(hash: string, b: { bytes: string; encoding: string }): StoredDocument {
  const stored = Buffer.from(b.bytes, "base64");
  const bytes = b.encoding === "gzip" ? gunzipSync(stored) : stored;
  if (createHash("sha256").update(bytes).digest("hex") !== hash) throw new AppError("internal", "The stored evidence does not match its hash.", [], { reason: "bundle_corrupt" });
  return { sha256: hash, bytes };
}

/**
 * The canonical bytes of a bundle of this endpoint: its latest attestation's, or (`sha256`) any
 * earlier grade's of the same endpoint. Checked against its hash before it is served.
 */
export async function readEvidenceBundle(client: Client, endpointId: string, sha256: string | null): Promise<StoredDocument> {
  let hash = sha256;
  if (hash === null) hash = (await readLatestAttestation(client, endpointId)).bundleSha256;
  const [b] = await rows<{ bytes: string; encoding: string }>(
    client,
    `SELECT encode(b."bytes", 'base64') AS "bytes", b."encoding"
     FROM "endpoints" e JOIN "listings" l ON l."id" = e."listingId"
     JOIN "trust_grades" g ON g."listingId" = e."listingId" AND g."method" = e."method"::text AND g."path" = e."trustPath" AND g."bundleSha256" = $2
     JOIN "trust_evidence_bundles" b ON b."sha256" = g."bundleSha256"
     WHERE e."id" = $1 AND ${LISTED} LIMIT 1`,
    endpointId,
    hash,
  );
  if (!b) throw new AppError("not_found", "No evidence bundle of this endpoint has that hash.", [{ pointer: "/sha256", message: "names no bundle of this endpoint" }], { reason: "no_bundle" });
  return storedDocument(hash, b);
}

/**
 * The receipts document beside a format-2 bundle of this endpoint (the bundle resolved as
 * readEvidenceBundle resolves it; `receipts.sha256` names the document). 404 `no_receipts` for a
 * format-1 bundle, which carries its receipts inline.
 */
export async function readEvidenceReceipts(client: Client, endpointId: string, sha256: string | null): Promise<StoredDocument & { bundleSha256: string }> {
  const bundle = await readEvidenceBundle(client, endpointId, sha256);
  const doc = JSON.parse(bundle.bytes.toString("utf8")) as { _type?: string; receipts?: { sha256?: string } };
  const named = doc._type === "tollgate.evidence-bundle/2" ? doc.receipts?.sha256 : undefined;
  if (typeof named !== "string") throw new AppError("not_found", "This bundle is format 1: its receipts are inside it.", [], { reason: "no_receipts", bundleSha256: bundle.sha256 });
  const [b] = await rows<{ bytes: string; encoding: string }>(client, `SELECT encode("bytes", 'base64') AS "bytes", "encoding" FROM "trust_evidence_bundles" WHERE "sha256" = $1`, named);
  if (!b) throw new AppError("internal", "The bundle's receipts document is not stored.", [], { reason: "receipts_missing" });
  return { ...storedDocument(named, b), bundleSha256: bundle.sha256 };
}

export interface StoredGrade {
  listingId: string;
  endpointId: string;
  method: string;
  path: string;
  score: number | null;
  grade: string | null;
  band: { low: number; high: number; width: number } | null;
  confidence: "high" | "medium" | "low" | null;
  verdict: "avoid" | "down" | "caution" | "insufficient_evidence" | "ok";
  flags: string[];
  detail: GradeDetail;
  scoredAt: string;
  issuedAt: string;
  expiresAt: string;
  bundleSha256: string;
  rubricRef: string;
  readingRef: string;
  seed: number;
}

type GradeRow = Omit<StoredGrade, "band"> & { bandLow: number | null; bandHigh: number | null };

const round1 = (x: number) => Math.round(x * 10) / 10;

export async function readLatestGrades(client: Client, listingIds: readonly string[]): Promise<StoredGrade[]> {
  if (listingIds.length === 0) return [];
  const rs = await rows<GradeRow>(
    client,
    `SELECT g."listingId", g."endpointId", g."method", g."path", g."score", g."grade", g."bandLow", g."bandHigh", g."confidence", g."verdict", g."flags", g."detail",
            ${isoOf(`g."scoredAt"`)} AS "scoredAt", ${isoOf(`g."issuedAt"`)} AS "issuedAt", ${isoOf(`g."expiresAt"`)} AS "expiresAt", g."bundleSha256", g."rubricRef", g."readingRef", g."seed"
     FROM "trust_grade_latest" p JOIN "trust_grades" g ON g."id" = p."gradeId"
     WHERE p."listingId" = ANY(ARRAY(SELECT jsonb_array_elements_text($1::jsonb)))`,
    JSON.stringify([...new Set(listingIds)]),
  );
  return rs.map(({ bandLow, bandHigh, ...g }) => ({
    ...g,
    score: g.score === null ? null : Number(g.score),
    band: bandLow === null || bandHigh === null ? null : { low: Number(bandLow), high: Number(bandHigh), width: g.detail.bandWidth ?? round1(Number(bandHigh) - Number(bandLow)) },
  }));
}

export interface DailyPoint {
  method: string;
  path: string;
  day: string;
  at: string;
  score: number | null;
  grade: string | null;
  verdict: string;
}

export async function readDailyPoints(client: Client, listingId: string, since: Date): Promise<DailyPoint[]> {
  const rs = await rows<DailyPoint>(
    client,
    `SELECT DISTINCT ON (g."method", g."path", (g."scoredAt"::date)) g."method", g."path", to_char(g."scoredAt"::date, 'YYYY-MM-DD') AS "day",
            ${isoOf(`g."scoredAt"`)} AS "at", g."score", g."grade", g."verdict"
     FROM "trust_grades" g WHERE g."listingId" = $1 AND g."scoredAt" >= ${utcParam(2)}
     ORDER BY g."method", g."path", (g."scoredAt"::date), g."scoredAt" DESC`,
    listingId,
    since.toISOString(),
  );
  return rs.map((r) => ({ ...r, score: r.score === null ? null : Number(r.score) }));
}

export async function getLatestAttestation(endpointId: string): Promise<StoredAttestation> {
  return readLatestAttestation(await clientOr(), endpointId);
}

export async function getEvidenceBundle(endpointId: string, sha256: string | null): Promise<StoredDocument> {
  return readEvidenceBundle(await clientOr(), endpointId, sha256);
}

export async function getEvidenceReceipts(endpointId: string, sha256: string | null): Promise<StoredDocument & { bundleSha256: string }> {
  return readEvidenceReceipts(await clientOr(), endpointId, sha256);
}
