/**
 * Read models for the seller's pages (/dashboard/…), each authorising its caller inside (lib/listings/access.ts). The
 * one surface with the full report.
 */
import { db } from "@/lib/db";
import { requireListingAccess } from "@/lib/listings/access";
import { ACTIVE_STATES } from "@/lib/queue/enqueue-analysis";
import { RUBRIC_NOTICE_TEXT } from "@/lib/analyses/store-result";
import { listingToDocument } from "@/lib/listings/document-mapping";
import type { ListingDocument } from "@/lib/listing-document/document";
import { splitStoredEvidence, type ProbeEvidence } from "@/lib/evidence";
import type { DimensionResult, Improvement, ReadinessEvidence, RuleResult, TriggeredCap } from "@/lib/scoring/readiness/types";
import { receiptsOfListing } from "@/lib/intake/receipts";
import { CURRENT_RUBRIC } from "@/lib/scoring/readiness/rubric";
import { unprobeableAdvice, unprobeableEndpoints, type AdvisedImprovement } from "@/lib/scoring/readiness/advice";
import { bandLabel, isStale } from "./band";
import { readSellerCanary, type CanaryNotice } from "./seller-canary";

export interface ReportResult {
  id: string;
  total: number;
  rawTotal: number;
  band: string;
  rubricVersion: string;
  createdAt: string;
  provisional: boolean;
  stale: boolean;
  caps: TriggeredCap[];
  dimensions: Array<DimensionResult & { title: string }>;
  rules: Array<RuleResult & { title: string; evidenceValue: unknown; evidenceResolved: boolean }>;
  /** Null gains on results stored before advice. */
  improvements: Array<AdvisedImprovement & { title: string }>;
}

export interface SellerReport {
  listing: { id: string; slug: string; title: string; publicationState: string; baseUrl: string; updatedAt: string };
  result: ReportResult | null;
  probe: (ProbeEvidence & { evidenceId: string }) | null;
  history: Array<{ id: string; total: number; band: string; rubricVersion: string; createdAt: string }>;
  activeAnalysisId: string | null;
  lastFailure: { id: string; error: string | null; finishedAt: string | null } | null;
  rubricNotice: { version: string; text: string } | null;
  /** And the latest change that reset it. */
  verification: { status: string; reset: { at: string; reason: string } | null };
  canary: CanaryNotice;
  /** docs/PROBE.md "Receipts". */
  receipts: { items: ReceiptView[]; firstSettlementToListedMs: number | null };
  /** 400/422 before 402, and how to make them probeable. */
  unprobeable: { endpoints: string[]; advice: string } | null;
}

export interface ReceiptView {
  id: string;
  kind: string;
  status: string;
  rejectedReason: string | null;
  resourceUrl: string | null;
  method: string | null;
  amount: string | null;
  transaction: string | null;
  checks: Array<{ id: string; pass: boolean; detail: string }>;
  createdAt: string;
}

const ruleTitle = new Map(CURRENT_RUBRIC.rules.map((r) => [r.id, r.title]));
const dimensionTitle = new Map(CURRENT_RUBRIC.dimensions.map((d) => [d.id, d.title]));

/** Undefined when it leads nowhere. */
export function resolvePointer(root: unknown, pointer: string): unknown {
  if (pointer === "") return root;
  let cur: unknown = root;
  for (const raw of pointer.split("/").slice(1)) {
    const token = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<string, unknown>)[token];
  }
  return cur;
}

/** Stored evidence is the probe alone (queue) or {probe, settle, liveness} (demo seed). */
export async function sellerReport(userId: string | null, listingId: string, now = new Date()): Promise<SellerReport> {
  const prisma = await db();
  await requireListingAccess(userId, listingId, { client: prisma });
  const listing = await prisma.listing.findUniqueOrThrow({
    where: { id: listingId },
    select: {
      id: true, slug: true, title: true, publicationState: true, baseUrl: true, updatedAt: true, rubricNoticeVersion: true, currentResultId: true,
      verificationStatus: true, verificationResetAt: true, verificationResetReason: true,
    },
  });
  const [current, history, active, failed, canary, receipts] = await Promise.all([
    listing.currentResultId ? prisma.readinessResult.findUnique({ where: { id: listing.currentResultId } }) : null,
    prisma.readinessResult.findMany({
      where: { listingId, provisional: false },
      orderBy: { createdAt: "asc" },
      take: 200,
      select: { id: true, total: true, band: true, rubricVersion: true, createdAt: true },
    }),
    prisma.analysis.findFirst({ where: { listingId, state: { in: [...ACTIVE_STATES] } }, orderBy: { createdAt: "desc" }, select: { id: true } }),
    prisma.analysis.findFirst({ where: { listingId }, orderBy: { createdAt: "desc" }, select: { id: true, state: true, error: true, finishedAt: true } }),
    readSellerCanary(prisma, listingId, listing.verificationStatus),
    receiptsOfListing(prisma, listingId),
  ]);
  const evidenceRow = current?.evidenceId ? await prisma.probeEvidence.findUnique({ where: { id: current.evidenceId } }) : null;
  const ev = evidenceRow ? splitStoredEvidence(evidenceRow.evidence) : { probe: null, settle: undefined, liveness: undefined };
  const root = { listing: current?.document ?? null, probe: ev.probe, settle: ev.settle, liveness: ev.liveness };

  let result: ReportResult | null = null;
  if (current) {
    result = {
      id: current.id,
      total: current.total,
      rawTotal: current.rawTotal,
      band: bandLabel(current.band) ?? current.band,
      rubricVersion: current.rubricVersion,
      createdAt: current.createdAt.toISOString(),
      provisional: current.provisional,
      stale: !current.provisional && isStale(current.createdAt, now),
      caps: (current.caps as unknown as TriggeredCap[]) ?? [],
      dimensions: ((current.dimensions as unknown as DimensionResult[]) ?? []).map((d) => ({ ...d, title: dimensionTitle.get(d.id) ?? d.id })),
      rules: ((current.rules as unknown as RuleResult[]) ?? []).map((r) => {
        const value = r.evidence ? resolvePointer(root, r.evidence) : undefined;
        return { ...r, title: ruleTitle.get(r.id) ?? r.id, evidenceValue: value ?? null, evidenceResolved: value !== undefined };
      }),
      improvements: ((current.improvements as unknown as Array<Improvement & Partial<AdvisedImprovement>>) ?? []).map((i) => ({
        ...i,
        gain: i.gain ?? null,
        rawGain: i.rawGain ?? null,
        fix: i.fix ?? null,
        opens: i.opens ?? [],
        alternatives: i.alternatives ?? [],
        title: ruleTitle.get(i.ruleId) ?? i.ruleId,
      })),
    };
  }
  const { verificationStatus, verificationResetAt, verificationResetReason, ...shown } = listing;
  return {
    listing: { ...shown, updatedAt: listing.updatedAt.toISOString() },
    result,
    probe: ev.probe && evidenceRow ? { ...ev.probe, evidenceId: evidenceRow.id } : null,
    history: history.map((h) => ({ ...h, band: bandLabel(h.band) ?? h.band, createdAt: h.createdAt.toISOString() })),
    activeAnalysisId: active?.id ?? null,
    lastFailure: failed && (failed.state === "failed" || failed.state === "dead") ? { id: failed.id, error: failed.error, finishedAt: failed.finishedAt?.toISOString() ?? null } : null,
    rubricNotice: listing.rubricNoticeVersion ? { version: listing.rubricNoticeVersion, text: RUBRIC_NOTICE_TEXT } : null,
    verification: {
      status: verificationStatus,
      reset: verificationResetAt && verificationResetReason ? { at: verificationResetAt.toISOString(), reason: verificationResetReason } : null,
    },
    canary,
    receipts: {
      items: receipts.receipts.map((r) => ({
        id: r.id, kind: r.kind, status: r.status, rejectedReason: r.rejectedReason, resourceUrl: r.resourceUrl, method: r.method, amount: r.amount, transaction: r.transaction,
        checks: (r.checks as ReceiptView["checks"]) ?? [], createdAt: new Date(r.createdAt).toISOString(),
      })),
      firstSettlementToListedMs: receipts.firstSettlementToListedMs,
    },
    unprobeable: unprobeableOf(ev.probe),
  };
}

function unprobeableOf(probe: ProbeEvidence | null): SellerReport["unprobeable"] {
  const endpoints = probe ? unprobeableEndpoints({ probe } as ReadinessEvidence) : [];
  return endpoints.length ? { endpoints, advice: unprobeableAdvice(endpoints) } : null;
}

/** Owner only. */
export async function sellerListingDocument(userId: string | null, listingId: string): Promise<{ id: string; title: string; publicationState: string; document: ListingDocument; publishedTotal: number | null }> {
  const prisma = await db();
  await requireListingAccess(userId, listingId, { client: prisma });
  const l = await prisma.listing.findUniqueOrThrow({ where: { id: listingId }, include: { endpoints: true, currentResult: { select: { total: true, provisional: true } } } });
  // So the editor's estimate (no probe) can say why it starts below it.
  const publishedTotal = l.currentResult && !l.currentResult.provisional ? l.currentResult.total : null;
  return { id: l.id, title: l.title, publicationState: l.publicationState, document: listingToDocument(l), publishedTotal };
}
