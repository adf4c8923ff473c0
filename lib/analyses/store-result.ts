/** Scoring and storage: evidence, result, state and pointer in one transaction fenced by the lease. */
import { AppError } from "@/lib/errors";
import { scoreWithAdvice } from "@/lib/scoring/readiness/advice";
import { CURRENT_RUBRIC, checkReadinessEvidence, rubricVersionString, type ReadinessResult } from "@/lib/scoring/readiness";
import { parseVersion } from "@/lib/scoring/readiness/rubric";
import type { ProbeEvidence } from "@/lib/evidence";
import type { ListingDocument } from "@/lib/listing-document/document";
import { validateListingDocument } from "@/lib/listing-document/validate";
import { writeDraftedListing } from "@/lib/listings/save";
import type { Prisma } from "@/lib/generated/prisma/client";
import { requireListingAccess } from "@/lib/listings/access";
import { completedWith, finishLease, leaseLost, lockLease, type LockedLease } from "@/lib/queue/lease";
import { ledgerFactsForScoring } from "@/lib/facts/aggregate";
import { loadListingDocuments } from "@/lib/listings/load-listing-documents";
import { analysisMetrics, type ProbeOutcomeKind } from "@/lib/queue/metrics";
import { requireHolderSupports } from "@/lib/queue/monitors";
import { NOW_UTC, clientOr, prismaOf, randomRowId, rows, transaction, type Client, type PrismaLike } from "@/lib/sql";
import { prepareProbeObservations, recordProbeObservations } from "@/lib/trust/observe";

export const RUBRIC_NOTICE_TEXT = "Scoring criteria updated… this reflects the rubric, not your service.";

export interface CompletionInput {
  leaseToken: string;
  evidence: ProbeEvidence;
  document?: ListingDocument | null;
  probeMs?: number;
}

export interface CompletionOutcome {
  analysisId: string;
  listingId: string;
  resultId: string | null;
  evidenceId: string | null;
  total: number | null;
  band: string | null;
  rubricVersion: string;
  alreadyCompleted: boolean;
}

const NEUTRAL_FACTS = {
  settle: { lastSettledAt: null, failedAttemptsSinceLastSettle: 0, distinctFailingBuyersSinceLastSettle: 0 },
  liveness: { uptime7d: null, uptime30d: null, healthStatus: "unverified", healthConfidence: 0, settlementUnproven: false },
};

export function checkProbeEvidence(evidence: unknown): ProbeEvidence {
  const checked = checkReadinessEvidence({ probe: evidence, ...NEUTRAL_FACTS });
  if (!checked.ok) {
    const details = checked.errors.map((e) => ({ pointer: `/evidence${e.pointer.replace(/^\/probe/, "")}`, message: e.message }));
    throw new AppError("bad_request", `evidence is invalid at ${details[0].pointer}: ${details[0].message}`, details);
  }
  return checked.value.probe;
}

function minorOf(version: string): string {
  const [a, b] = parseVersion(version.replace(/^readiness\//, ""));
  return `${a}.${b}`;
}

export function probeOutcomeKinds(evidence: ProbeEvidence): ProbeOutcomeKind[] {
  return evidence.endpoints.map((e) => (e.refusal ? "refused" : e.challenge.kind));
}

/** Analyses the seller times; their probes write no trust observation (docs/TRUST.md "Where they come from"). */
const SELLER_TIMED: ReadonlySet<string> = new Set(["submit", "publish", "reanalyse"]);

/** How far a worker's probedAt may run ahead of the database's clock. */
export const PROBED_AT_SKEW_MS = 5 * 60_000;

export async function completeLease(id: string, input: CompletionInput, opts: { client?: Client; now?: Date } = {}): Promise<CompletionOutcome> {
  const probe = checkProbeEvidence(input.evidence);
  const draft = input.document ? checkDraft(input.document) : null;
  const client = await clientOr(opts.client);
  // The probe's instant dates its trust observations: a worker whose clock runs ahead would store evidence
  // "observed" in the future, ignored now and counted later as the newest, whatever the endpoint did meanwhile.
  const [{ dbNow }] = await rows<{ dbNow: string }>(client, `SELECT to_char(${NOW_UTC}, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "dbNow"`);
  if (Date.parse(probe.probedAt) > Date.parse(dbNow) + PROBED_AT_SKEW_MS) {
    throw new AppError("bad_request", "The evidence is dated in the future by the database's clock; check the worker's clock.", [{ pointer: "/evidence/probedAt", message: `is ${probe.probedAt}, after the database's ${dbNow} by more than ${PROBED_AT_SKEW_MS / 60_000} minutes` }]);
  }
  const rubricVersion = rubricVersionString(CURRENT_RUBRIC);

  // Visible progress while the transaction runs.
  const marked = await rows<{ id: string; listingId: string | null }>(
    client,
    `UPDATE "catalog_scoring_analyses" SET "step" = 'scoring', "updatedAt" = ${NOW_UTC}
     WHERE "id" = $1 AND "state" = 'running' AND "leaseToken" = $2 AND "leaseExpiresAt" > ${NOW_UTC} RETURNING "id", "listingId"`,
    id,
    input.leaseToken,
  );
  if (marked.length === 0) return replayOrLost(client, id, input.leaseToken, rubricVersion);

  const started = performance.now();
  const now = opts.now ?? new Date();
  // No transaction waits on a chain.
  const domains = await prepareProbeObservations(probe);
  const run = async (tx: Client) => {
    const lease = await lockLease(tx, id, input.leaseToken);
    if (!lease) throw await leaseLost(tx, id);
    await requireHolderSupports(tx, id, rubricVersion);
    const listingId = lease.listingId ?? (await createDraftListing(await prismaOf(tx), lease, draft));
    const document = (await loadListingDocuments(tx, [listingId])).get(listingId);
    if (!document) throw new AppError("not_found", `listing ${listingId} of analysis ${id} no longer exists`);
    const facts = await ledgerFactsForScoring(tx, listingId, now);
    const result = scoreWithAdvice(document, { probe, ...facts }, CURRENT_RUBRIC, { now });

    // Raw SQL: Prisma's model create costs several times more here.
    const [stored] = await rows<{ evidenceId: string; resultId: string }>(
      tx,
      `WITH ev AS (
         INSERT INTO "probe_evidence" ("id", "listingId", "analysisId", "vantage", "probedAt", "ok", "refusal", "evidence", "createdAt")
         VALUES ($1, $3, $4, $5, ($6::timestamptz AT TIME ZONE 'UTC'), true, NULL, $7::jsonb, ${NOW_UTC})
         RETURNING "id"
       )
       INSERT INTO "catalog_scoring_results" ("id", "listingId", "analysisId", "rubricVersion", "total", "rawTotal", "band", "provisional",
         "caps", "dimensions", "rules", "improvements", "evidenceId", "document", "createdAt")
       SELECT $2, $3, $4, $8, $9::int, $10::float8, $11, false, $12::jsonb, $13::jsonb, $14::jsonb, $15::jsonb, ev."id", $16::jsonb, ${NOW_UTC} FROM ev
       RETURNING "evidenceId", "id" AS "resultId"`,
      randomRowId("r"),
      randomRowId("r"),
      listingId,
      id,
      probe.vantage,
      probe.probedAt,
      JSON.stringify(probe),
      result.rubricVersion,
      result.total,
      result.rawTotal,
      result.band.label,
      JSON.stringify(result.caps),
      JSON.stringify(result.dimensions),
      JSON.stringify(result.rules),
      JSON.stringify(result.improvements),
      JSON.stringify(document),
    );
    if (!SELLER_TIMED.has(lease.trigger)) await recordProbeObservations(tx, { listingId, evidence: probe, source: "analysis", sourceId: stored.evidenceId, domains });
    const previous = lease.listingId ? lease.previousRubricVersion : null;
    const notice = lease.trigger === "rubric" && previous !== null && minorOf(previous) !== minorOf(rubricVersion);
    await rows(
      tx,
      `UPDATE "listings" SET "currentResultId" = $2, "rubricNoticeVersion" = CASE WHEN $3::boolean THEN $4 ELSE "rubricNoticeVersion" END, "updatedAt" = ${NOW_UTC}
       WHERE "id" = $1 RETURNING "id"`,
      listingId,
      stored.resultId,
      notice,
      rubricVersion,
    );
    const evidenceRow = { id: stored.evidenceId };
    const resultRow = { id: stored.resultId };
    const finished = await finishLease(tx, id, input.leaseToken, { resultId: resultRow.id, evidenceId: evidenceRow.id, rubricVersion, detail: `total ${result.total}` });
    if (!finished) throw await leaseLost(tx, id);
    return { analysisId: id, listingId, resultId: resultRow.id, evidenceId: evidenceRow.id, total: result.total, band: result.band.label, rubricVersion, alreadyCompleted: false };
  };
  // A URL submission creates its listing through Prisma, so it takes the Prisma transaction.
  const outcome = await transaction(marked[0].listingId ? client : await prismaOf(opts.client), run);

  const m = analysisMetrics();
  m.scoringSeconds.observe((performance.now() - started) / 1000);
  if (input.probeMs !== undefined) m.probeSeconds.observe(input.probeMs / 1000);
  for (const k of probeOutcomeKinds(probe)) m.probeOutcomes.inc({ kind: k });
  m.completions.inc({ outcome: "succeeded" });
  return outcome;
}

async function replayOrLost(prisma: Client, id: string, leaseToken: string, rubricVersion: string): Promise<CompletionOutcome> {
  const done = await completedWith(prisma, id, leaseToken);
  if (!done) throw await leaseLost(prisma, id);
  const [row] = await rows<{ listingId: string | null; evidenceId: string | null; rubricVersion: string | null }>(
    prisma,
    `SELECT "listingId", "evidenceId", "rubricVersion" FROM "catalog_scoring_analyses" WHERE "id" = $1`,
    id,
  );
  return {
    analysisId: id,
    listingId: row.listingId ?? "",
    resultId: done.resultId,
    evidenceId: row.evidenceId,
    total: null,
    band: null,
    rubricVersion: row.rubricVersion ?? rubricVersion,
    alreadyCompleted: true,
  };
}

function checkDraft(document: unknown): ListingDocument {
  const v = validateListingDocument(document);
  if (!v.ok) {
    const first = v.errors[0];
    throw new AppError("invalid_document", `drafted listing is invalid at ${first.pointer || "/"}: ${first.message}`, v.errors.map((e) => ({ pointer: `/document${e.pointer}`, message: e.message })));
  }
  return v.value;
}

/** Written by lib/listings/save.ts inside the completion transaction. */
async function createDraftListing(tx: PrismaLike, lease: LockedLease, draft: ListingDocument | null): Promise<string> {
  if (!draft) throw new AppError("bad_request", `analysis ${lease.id} is a URL submission: the completion must carry the drafted document`, [{ pointer: "/document", message: "is required" }]);
  const listingId = await writeDraftedListing(tx, draft, { analysisId: lease.id, submitter: lease.submitter, targetUrl: lease.targetUrl });
  await tx.analysis.update({ where: { id: lease.id }, data: { listingId } });
  return listingId;
}

/** The demo seed's Prisma create; completeLease's raw insert writes the same. */
export function resultColumns(result: ReadinessResult, document: ListingDocument) {
  const j = (v: unknown) => v as Prisma.InputJsonValue;
  return {
    rubricVersion: result.rubricVersion,
    total: result.total,
    rawTotal: result.rawTotal,
    band: result.band.label,
    provisional: result.provisional,
    caps: j(result.caps),
    dimensions: j(result.dimensions),
    rules: j(result.rules),
    improvements: j(result.improvements),
    document: j(document),
  };
}

export async function acknowledgeRubricNotice(listingId: string, actorId: string | null, client?: Client): Promise<{ acknowledged: string | null }> {
  const prisma = await prismaOf(client);
  await requireListingAccess(actorId, listingId, { client: prisma });
  const before = await prisma.listing.findUniqueOrThrow({ where: { id: listingId }, select: { rubricNoticeVersion: true } });
  await prisma.listing.update({ where: { id: listingId }, data: { rubricNoticeVersion: null } });
  return { acknowledged: before.rubricNoticeVersion };
}
