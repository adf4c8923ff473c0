/** The trust grade sweep (docs/TRUST.md "Stored grades"), leader-locked; no bundle written twice. */
import { randomUUID } from "node:crypto";
import { gzipSync } from "node:zlib";
import { endpointUrl } from "@/lib/probe";
import { listedSql } from "@/lib/listings/visibility";
import { isoOf, rows, session, transaction, utcParam, clientOr, type Client } from "@/lib/sql";
import { canonicalJson } from "@/lib/badges/canonical-json";
import type { Signer } from "@/lib/badges/dsse";
import { DEFAULT_SEED, loadRubric, scoreSubject, type TrustResult, type TrustRubric } from "@/lib/trust/engine";
import type { TrustSubject } from "@/lib/trust/observation";
import { readTrustSubjects } from "@/lib/trust/observe/read";
import { ATTESTATION_TTL_MS, signAttestation, type AttestationStatement, type AttestedPayment, ATTESTATION_TYPE } from "./attestation";
import { buildBundle, type AttestedEndpoint } from "./bundle";
import { categoryPeersDue, refreshCategoryPeers } from "./peers";
import { storedScoredParts, type GradeDetail } from "./read";

export const GRADE_SEED = DEFAULT_SEED;
export const RENEW_AFTER_MS = 6 * 3_600_000;
export const REGRADE_AFTER_MS = 30 * 60_000;
const LATE_ROWS_MS = 3_600_000;
export const TRUST_GRADE_LOCK_KEY = 724_021_430;

export interface EndpointTerms {
  listingId: string;
  endpointId: string;
  method: string;
  path: string;
  trustPath: string;
  url: string;
  payment: AttestedPayment | null;
}

interface TermsRow {
  listingId: string;
  baseUrl: string;
  endpointId: string;
  method: string;
  path: string;
  trustPath: string;
  payable: boolean;
  priceAmount: string | null;
  priceAsset: string | null;
  priceNetwork: string | null;
  payTo: string | null;
}

export async function readEndpointTerms(client: Client, listingId: string): Promise<EndpointTerms[]> {
  const rs = await rows<TermsRow>(
    client,
    `SELECT l."id" AS "listingId", l."baseUrl", e."id" AS "endpointId", e."method"::text AS "method", e."path", e."trustPath", e."payable",
            e."priceAmount", e."priceAsset", e."priceNetwork",
            (SELECT r."payTo" FROM "trust_endpoint_revisions" r
              WHERE r."listingId" = l."id" AND r."method" = e."method"::text AND r."path" = e."trustPath" AND r."payTo" IS NOT NULL
              ORDER BY r."revision" DESC LIMIT 1) AS "payTo"
     FROM "listings" l JOIN "endpoints" e ON e."listingId" = l."id"
     WHERE l."id" = $1 ORDER BY e."position"`,
    listingId,
  );
  return rs.map((r) => ({
    listingId: r.listingId,
    endpointId: r.endpointId,
    method: r.method,
    path: r.path,
    trustPath: r.trustPath,
    url: endpointUrl(r.baseUrl, r.path),
    payment:
      r.payable && r.priceAmount && r.priceAsset && r.priceNetwork
        ? { scheme: "exact", network: r.priceNetwork, asset: r.priceAsset.toLowerCase(), payTo: r.payTo ? r.payTo.toLowerCase() : null, amount: r.priceAmount }
        : null,
  }));
}

export interface PreparedGrade {
  terms: EndpointTerms;
  result: TrustResult;
  detail: GradeDetail;
  /** `receipts`: format 2's document beside the bundle (null for a format-1 bundle, which holds its own). */
  bundle: { sha256: string; bytes: Buffer; observations: number; receipts: { sha256: string; bytes: Buffer } | null };
  statement: AttestationStatement;
  envelope: ReturnType<typeof signAttestation>;
}

export function prepareGrade(rubric: TrustRubric, terms: EndpointTerms, subject: TrustSubject, now: Date, signer: Signer, issuedAt = new Date()): PreparedGrade {
  const endpoint: AttestedEndpoint = { id: terms.endpointId, listingId: terms.listingId, url: terms.url, method: terms.method };
  const built = buildBundle({ endpoint, rubric, scoring: { now, seed: GRADE_SEED, bandOptions: {} }, subject });
  const doc = built.document;
  // The rows read back, in the bundle's order: exactly what a verifier recomputes from.
  const result = scoreSubject(rubric, built.subject, { now: doc.scoring.now, seed: GRADE_SEED, band: true, bandOptions: doc.scoring.bandOptions });
  const probe = rubric.file.verdict.probe_check;
  const statement: AttestationStatement = {
    _type: ATTESTATION_TYPE,
    endpoint,
    payment: terms.payment,
    grade: {
      score: result.score,
      grade: result.grade,
      band: result.band ? { low: result.band.low, high: result.band.high } : null,
      confidence: result.confidence,
      verdict: result.verdict,
    },
    rubric: { ref: doc.rubric.ref, reading: doc.rubric.reading, sha256: doc.rubric.sha256, readingSha256: doc.rubric.readingSha256 },
    scoring: { now: doc.scoring.now, seed: doc.scoring.seed },
    evidence: { sha256: built.sha256, observations: built.observations },
    issuedAt: issuedAt.toISOString(),
    expiresAt: new Date(issuedAt.getTime() + ATTESTATION_TTL_MS).toISOString(),
  };
  return {
    terms,
    result,
    detail: {
      verdictBecause: result.verdictBecause,
      outlook: result.outlook,
      watch: result.watch,
      watchBecause: result.watchBecause,
      stale: result.stale,
      uncappedScore: result.uncappedScore,
      bandWidth: result.band?.width ?? null,
      evidence: result.evidence,
      firstProbeAt: built.subject.observations.find((o) => o.check === probe)?.observedAt ?? null,
      scored: storedScoredParts(result),
    },
    bundle: { sha256: built.sha256, bytes: built.bytes, observations: built.observations, receipts: { sha256: built.receipts.sha256, bytes: built.receipts.bytes } },
    statement,
    envelope: signAttestation(statement, signer),
  };
}

/** Writes one prepared grade: receipts, bundle, grade, pointer. Inside the caller's transaction. False when that bundle was already graded. */
export async function writeGrade(tx: Client, g: PreparedGrade): Promise<boolean> {
  // The receipts document sits in the same content-addressed table, under its own hash (the bundle names it).
  for (const doc of g.bundle.receipts ? [g.bundle.receipts, g.bundle] : [g.bundle]) {
    await rows(
      tx,
      `INSERT INTO "trust_evidence_bundles" ("sha256", "encoding", "bytes", "size") VALUES ($1, 'gzip', decode($2, 'base64'), $3) ON CONFLICT ("sha256") DO NOTHING`,
      doc.sha256,
      gzipSync(doc.bytes, { level: 6 }).toString("base64"),
      doc.bytes.length,
    );
  }
  const r = g.result;
  const s = g.statement;
  const inserted = await rows<{ id: string }>(
    tx,
    `INSERT INTO "trust_grades" ("id", "listingId", "endpointId", "method", "path", "score", "grade", "bandLow", "bandHigh", "confidence", "verdict", "flags", "detail",
        "rubricRef", "readingRef", "rubricSha256", "readingSha256", "seed", "scoredAt", "bundleSha256", "observations", "statement", "envelope", "keyid", "issuedAt", "expiresAt")
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, ARRAY(SELECT jsonb_array_elements_text($12::jsonb)), $13::jsonb,
        $14, $15, $16, $17, $18, ${utcParam(19)}, $20, $21, $22::jsonb, $23::jsonb, $24, ${utcParam(25)}, ${utcParam(26)})
     ON CONFLICT ("listingId", "method", "path", "bundleSha256") DO NOTHING RETURNING "id"`,
    randomUUID(),
    g.terms.listingId,
    g.terms.endpointId,
    g.terms.method,
    g.terms.trustPath,
    r.score,
    r.grade,
    r.band?.low ?? null,
    r.band?.high ?? null,
    r.confidence,
    r.verdict,
    JSON.stringify(r.flags),
    JSON.stringify(g.detail),
    s.rubric.ref,
    s.rubric.reading,
    s.rubric.sha256,
    s.rubric.readingSha256,
    s.scoring.seed,
    s.scoring.now,
    g.bundle.sha256,
    g.bundle.observations,
    canonicalJson(s),
    JSON.stringify(g.envelope),
    g.envelope.signatures[0].keyid,
    s.issuedAt,
    s.expiresAt,
  );
  if (inserted.length === 0) return false;
  await rows(
    tx,
    `INSERT INTO "trust_grade_latest" AS t ("listingId", "method", "path", "gradeId", "scoredAt") VALUES ($1, $2, $3, $4, ${utcParam(5)})
     ON CONFLICT ("listingId", "method", "path") DO UPDATE SET "gradeId" = EXCLUDED."gradeId", "scoredAt" = EXCLUDED."scoredAt", "updatedAt" = CURRENT_TIMESTAMP
     WHERE t."scoredAt" <= EXCLUDED."scoredAt"`,
    g.terms.listingId,
    g.terms.method,
    g.terms.trustPath,
    inserted[0].id,
    s.scoring.now,
  );
  return true;
}

interface LatestState {
  method: string;
  path: string;
  endpointId: string;
  readingRef: string;
  payment: string;
  scoredAt: string;
  createdAt: string;
  fresh: boolean;
  urgent: boolean;
}

const NEW_ROWS = `SELECT 1 FROM "trust_observations" o WHERE o."listingId" = g."listingId" AND o."method" = g."method" AND o."path" = g."path"
  AND o."observedAt" > g."scoredAt" - interval '${LATE_ROWS_MS / 1000} seconds' AND o."createdAt" > g."createdAt"`;

async function latestStates(client: Client, listingId: string): Promise<Map<string, LatestState>> {
  const rs = await rows<LatestState>(
    client,
    `SELECT g."method", g."path", g."endpointId", g."readingRef", (g."statement"->'payment')::text AS "payment",
            ${isoOf(`g."scoredAt"`)} AS "scoredAt", ${isoOf(`g."createdAt"`)} AS "createdAt",
            EXISTS (${NEW_ROWS}) AS "fresh", EXISTS (${NEW_ROWS} AND (o."kind" = 'paid' OR o."outcome" = 'fail' OR g."observations" = 0)) AS "urgent"
     FROM "trust_grade_latest" p JOIN "trust_grades" g ON g."id" = p."gradeId" WHERE p."listingId" = $1`,
    listingId,
  );
  return new Map(rs.map((r) => [`${r.method} ${r.path}`, r]));
}

const samePayment = (stored: string, p: AttestedPayment | null) => canonicalJson(JSON.parse(stored)) === canonicalJson(p);

export interface GradeListingOptions {
  now?: Date;
  signer: Signer;
  rubric?: TrustRubric;
  force?: boolean;
}

export interface GradeListingResult {
  written: number;
  unchanged: number;
  skipped: number;
}

/**
 * Due: never graded; new terms, id or reading; a new paid or failing observation; new observations past
 * REGRADE_AFTER_MS; or past RENEW_AFTER_MS.
 */
export async function gradeListing(client: Client, listingId: string, opts: GradeListingOptions): Promise<GradeListingResult> {
  const now = opts.now ?? new Date();
  const rubric = opts.rubric ?? loadRubric();
  const [terms, latest] = await Promise.all([readEndpointTerms(client, listingId), latestStates(client, listingId)]);
  const out: GradeListingResult = { written: 0, unchanged: 0, skipped: 0 };
  const dueTerms = terms.filter((t) => {
    const l = latest.get(`${t.method} ${t.trustPath}`);
    const current =
      l &&
      !opts.force &&
      l.endpointId === t.endpointId &&
      l.readingRef === rubric.reading?.ref &&
      samePayment(l.payment, t.payment) &&
      !l.urgent &&
      !(l.fresh && now.getTime() - Date.parse(l.scoredAt) >= REGRADE_AFTER_MS) &&
      now.getTime() - Date.parse(l.scoredAt) < RENEW_AFTER_MS &&
      Date.parse(l.scoredAt) <= now.getTime();
    if (current) out.skipped++;
    return !current;
  });
  if (dueTerms.length === 0) return out;
  // The observations are read only when something is due.
  // Every row, archived ones included: the bundle carries them all (docs/ATTESTATIONS.md).
  const subjects = await readTrustSubjects(client, listingId, { raw: true });
  const due: PreparedGrade[] = [];
  for (const t of dueTerms) {
    const subject = subjects.find((s) => s.endpointId === t.endpointId);
    if (subject) due.push(prepareGrade(rubric, t, subject, now, opts.signer));
  }
  if (due.length === 0) return out;
  await transaction(client, async (tx) => {
    for (const g of due) (await writeGrade(tx, g)) ? out.written++ : out.unchanged++;
  });
  return out;
}

export interface TrustGradeSweepResult extends GradeListingResult {
  leader: boolean;
  listings: number;
  failed: number;
  ms: number;
}

async function listingsToGrade(client: Client, now: Date, readingRef: string, all: boolean): Promise<string[]> {
  const rs = await rows<{ id: string }>(
    client,
    `SELECT l."id" FROM "listings" l WHERE ${listedSql("l")}
       AND EXISTS (SELECT 1 FROM "endpoints" e
         LEFT JOIN "trust_grade_latest" p ON p."listingId" = e."listingId" AND p."method" = e."method"::text AND p."path" = e."trustPath"
         LEFT JOIN "trust_grades" g ON g."id" = p."gradeId"
         WHERE e."listingId" = l."id" AND ($3 OR g."id" IS NULL OR g."endpointId" <> e."id" OR g."readingRef" <> $2
           OR g."scoredAt" < ${utcParam(1)} - interval '${RENEW_AFTER_MS / 1000} seconds' OR EXISTS (${NEW_ROWS})))
     ORDER BY l."id"`,
    now.toISOString(),
    readingRef,
    all,
  );
  return rs.map((r) => r.id);
}

export async function runTrustGradeSweep(opts: { now?: Date; signer: Signer; client?: Client; force?: boolean; log?: (m: string) => void }): Promise<TrustGradeSweepResult> {
  const started = Date.now();
  const client = await clientOr(opts.client);
  const res: TrustGradeSweepResult = { leader: false, listings: 0, failed: 0, written: 0, unchanged: 0, skipped: 0, ms: 0 };
  return session(client, async (conn) => {
    const [{ got }] = await rows<{ got: boolean }>(conn, "SELECT pg_try_advisory_lock($1, hashtext(current_schema())) AS got", TRUST_GRADE_LOCK_KEY);
    if (!got) return { ...res, ms: Date.now() - started };
    try {
      res.leader = true;
      const rubric = loadRubric();
      const graded: string[] = [];
      for (const id of await listingsToGrade(client, opts.now ?? new Date(), rubric.reading?.ref ?? "", opts.force ?? false)) {
        res.listings++;
        try {
          const r = await gradeListing(client, id, { now: opts.now, signer: opts.signer, rubric, force: opts.force });
          if (r.written > 0) graded.push(id);
          res.written += r.written;
          res.unchanged += r.unchanged;
          res.skipped += r.skipped;
        } catch (err) {
          res.failed++;
          (opts.log ?? ((m: string) => console.error(m)))(`[attest] grading listing ${id} failed: ${(err as Error)?.message ?? err}`);
        }
      }
      // The value peers the pages read (lib/attest/peers.ts): every category at least every
      // PEERS_REFRESH_MS; otherwise the categories of the listings this run graded.
      const now = opts.now ?? new Date();
      if (await categoryPeersDue(client, now)) await refreshCategoryPeers(client, rubric, now);
      else await refreshCategoryPeers(client, rubric, now, graded);
      return { ...res, ms: Date.now() - started };
    } finally {
      await rows(conn, "SELECT pg_advisory_unlock($1, hashtext(current_schema()))", TRUST_GRADE_LOCK_KEY);
    }
  });
}
