/**
 * Read models for the moderators' desk, each authorising its caller itself; the one surface with the rank components.
 */
import type { WashReason, WashRing } from "@/lib/rank/wash";
import { db } from "@/lib/db";
import { MODERATION_ROLES, requireRole } from "@/lib/auth/roles";
import { AppError } from "@/lib/errors";
import { listingWhereForActor } from "@/lib/listings/access";
import { crossOwnerOverlaps, findOverlappingListings } from "@/lib/listings/overlap";
import { browseKeys, BROWSE_MAX_LIMIT } from "@/lib/catalog/browse";
import type { AnalysisState } from "@/lib/generated/prisma/client";
import { encodeCursor } from "@/lib/rank/score";
import { explainStoredRank } from "@/lib/rank/sweep-ranks";
import { bandLabel } from "./band";
import { budgetLeft } from "@/lib/canary/budget";
import { findAsset } from "@/lib/x402/assets";
import { requeueDeadAnalysis } from "@/lib/queue/dead-letter";
import { CANARY_RUN_SELECT, canaryRunView } from "./admin-canary";

export const ANALYSIS_STATES: AnalysisState[] = ["deferred", "queued", "running", "succeeded", "failed", "dead"];

export async function requeueDeadForModerator(userId: string | null, analysisId: string) {
  const actor = await requireRole(userId, MODERATION_ROLES);
  return requeueDeadAnalysis(analysisId, actor.id);
}

export async function browseOrder(now = new Date(), maxPages = 50): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < maxPages; page++) {
    const { rows, seed, more }: Awaited<ReturnType<typeof browseKeys>> = await browseKeys({ cursor, limit: BROWSE_MAX_LIMIT, now });
    ids.push(...rows.map((r) => r.id));
    const last = rows[rows.length - 1];
    if (!more || !last) break;
    cursor = encodeCursor({ seed, id: last.id, tier: last.tier, sortWeight: last.sortWeight, rankScore: last.rankScore });
  }
  return ids;
}

export async function browsePosition(listingId: string, now = new Date()): Promise<{ position: number | null; of: number }> {
  const ids = await browseOrder(now);
  const i = ids.indexOf(listingId);
  return { position: i === -1 ? null : i + 1, of: ids.length };
}

export async function adminDesk(userId: string | null, opts: { state?: string | null } = {}) {
  await requireRole(userId, MODERATION_ROLES);
  const state = opts.state && (ANALYSIS_STATES as string[]).includes(opts.state) ? (opts.state as AnalysisState) : null;
  const prisma = await db();
  const [byState, analyses, listings, order] = await Promise.all([
    prisma.analysis.groupBy({ by: ["state"], _count: { _all: true } }),
    prisma.analysis.findMany({
      where: state ? { state } : {},
      orderBy: [{ createdAt: "desc" }],
      take: 100,
      select: {
        id: true, state: true, step: true, attempts: true, maxAttempts: true, leaseExpiresAt: true, leasedBy: true, error: true, trigger: true,
        targetUrl: true, submitter: true, createdAt: true, runAfter: true, finishedAt: true, priority: true,
        listing: { select: { id: true, title: true } },
      },
    }),
    prisma.listing.findMany({
      where: { deletedAt: null },
      select: {
        id: true, slug: true, title: true, publicationState: true, tier: true, sortWeight: true, featuredLevel: true, verificationStatus: true,
        rank: { select: { qualityScore: true, rankScore: true } }, currentResult: { select: { total: true, band: true } }, organization: { select: { name: true } },
        baseUrl: true, organizationId: true, endpoints: { select: { method: true, path: true } },
      },
    }).then((rows) => rows.map(withRankScores)),
    browseOrder(),
  ]);
  const pos = new Map(order.map((id, i) => [id, i + 1]));
  const overlaps = crossOwnerOverlaps(listings);
  const sorted = [...listings].sort((a, b) => (pos.get(a.id) ?? 1e9) - (pos.get(b.id) ?? 1e9) || a.title.localeCompare(b.title));
  return {
    state,
    counts: Object.fromEntries(byState.map((s) => [s.state, s._count._all])) as Record<string, number>,
    analyses,
    listings: sorted.map(({ endpoints: _e, ...l }) => ({ ...l, overlaps: overlaps.get(l.id) ?? [], position: pos.get(l.id) ?? null, currentResult: l.currentResult ? { ...l.currentResult, band: bandLabel(l.currentResult.band) ?? l.currentResult.band } : null })),
  };
}

export type RankComponentView = { key: string; value: number; reason: string; facts: Record<string, unknown> };

export interface WashExclusionView {
  payer: string;
  reason: WashReason;
  from?: string;
  transaction?: string;
  listing?: string;
}

function washExclusions(json: unknown): WashExclusionView[] {
  return Array.isArray(json) ? (json.filter((e) => e && typeof e === "object" && typeof (e as WashExclusionView).payer === "string") as WashExclusionView[]) : [];
}

export const CANARY_RUNS_SHOWN = 10;

export async function adminListing(userId: string | null, listingId: string) {
  const actor = await requireRole(userId, MODERATION_ROLES);
  const prisma = await db();
  const found = await prisma.listing.findFirst({
    where: { AND: [{ id: listingId }, listingWhereForActor(actor, { moderators: true })] },
    select: {
      id: true, slug: true, title: true, baseUrl: true, publicationState: true, tier: true, sortWeight: true, featuredLevel: true, verificationStatus: true,
      canarySuspendedAt: true, verificationResetAt: true, verificationResetReason: true, healthStatus: true, currentResultId: true, rubricNoticeVersion: true, organizationId: true,
      organization: { select: { name: true } },
      endpoints: { select: { id: true, method: true, path: true, priceAsset: true, priceDecimals: true } },
      rank: { select: { qualityScore: true, rankScore: true, facts: true, rankedAt: true } },
      // The rank sweep's wash check (lib/rank/wash.ts): payers not counted as distinct, and why.
      wash: { select: { excluded: true, measuredAt: true, unmeasured: true, checkedAt: true, ring: true } },
    },
  });
  if (!found) throw new AppError("not_found", `listing ${listingId} does not exist`);
  const stored = found.rank;
  const listing = { ...withRankScores(found), rankedAt: stored?.rankedAt ?? null };
  const [results, evidence, analyses, audits, position, ledger, ledgerCounts, canaryRuns, canaryBudget] = await Promise.all([
    prisma.readinessResult.findMany({
      where: { listingId },
      orderBy: { createdAt: "desc" },
      take: 100,
      select: { id: true, total: true, rawTotal: true, band: true, rubricVersion: true, provisional: true, createdAt: true, evidenceId: true, analysisId: true, caps: true },
    }),
    prisma.probeEvidence.findMany({ where: { listingId }, orderBy: { probedAt: "desc" }, take: 20, select: { id: true, probedAt: true, vantage: true, ok: true, refusal: true, analysisId: true, evidence: true } }),
    prisma.analysis.findMany({
      where: { listingId },
      orderBy: { createdAt: "desc" },
      take: 30,
      select: { id: true, state: true, step: true, attempts: true, maxAttempts: true, leaseExpiresAt: true, error: true, trigger: true, createdAt: true, finishedAt: true },
    }),
    prisma.moderationAudit.findMany({ where: { listingId }, orderBy: { createdAt: "desc" }, take: 50, include: { actor: { select: { name: true, role: true } } } }),
    browsePosition(listingId),
    prisma.routerPayment.findMany({
      where: { listingId },
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      take: LEDGER_ROWS_SHOWN,
      select: {
        id: true, createdAt: true, status: true, reason: true, detail: true, payer: true, house: true, advertisedAmount: true, quotedPayTo: true, asset: true, network: true,
        transactionId: true, blockNumber: true, chainFrom: true, chainTo: true, chainAmount: true, confirmedAt: true, httpStatus: true, latencyMs: true,
        endpointId: true, correctsId: true, correctedBy: { select: { id: true } },
      },
    }),
    prisma.routerPayment.groupBy({ by: ["status"], where: { listingId, correctedBy: { is: null } }, _count: { _all: true } }),
    prisma.canaryRun.findMany({ where: { listingId }, orderBy: { createdAt: "desc" }, take: CANARY_RUNS_SHOWN, select: CANARY_RUN_SELECT }),
    budgetLeft(listingId),
  ]);
  const overlaps = (await findOverlappingListings(prisma, found, { excludeListingId: found.id })).filter((o) => o.organizationId !== found.organizationId);
  const explained = stored ? explainStoredRank(stored) : null;
  const comps = (explained?.components ?? null) as Record<string, { value: number; reason: string; facts?: Record<string, unknown> }> | null;
  const ORDER = ["gate", "liveness", "traction", "priceIntegrity", "featured", "verification"];
  const components: RankComponentView[] = comps
    ? Object.entries(comps)
        .map(([key, c]) => ({ key, value: c.value, reason: c.reason, facts: c.facts ?? {} }))
        .sort((a, b) => (ORDER.indexOf(a.key) + 1 || 99) - (ORDER.indexOf(b.key) + 1 || 99))
    : [];
  return {
    listing,
    overlaps,
    components,
    wash: found.wash ? { ...found.wash, excluded: washExclusions(found.wash.excluded), ring: (found.wash.ring ?? null) as WashRing | null } : null,
    results: results.map((r) => ({ ...r, band: bandLabel(r.band) ?? r.band, current: r.id === listing.currentResultId })),
    evidence,
    analyses,
    audits,
    position,
    canaryRuns: canaryRuns.map(canaryRunView),
    canaryBudget: { leftToday: canaryBudget.day.toString(), leftTodayForListing: canaryBudget.listing.toString() },
    // Unknown decimals stay atomic.
    ledger: ledger.map(({ endpointId, correctedBy, ...r }) => {
      // A save rewrites endpoint rows, so an older id names none.
      const endpoint = found.endpoints.find((e) => e.id === endpointId) ?? null;
      return {
        ...r,
        endpoint,
        correctedBy: correctedBy?.id ?? null,
        decimals: findAsset(r.network, r.asset)?.decimals ?? (endpoint?.priceAsset?.toLowerCase() === r.asset.toLowerCase() ? endpoint.priceDecimals : null),
      };
    }),
    ledgerCounts: Object.fromEntries(ledgerCounts.map((c) => [c.status, c._count._all])) as Partial<Record<"settled" | "failed" | "unconfirmed" | "rejected" | "unmeasured", number>>,
  };
}

export const LEDGER_ROWS_SHOWN = 50;

export async function adminAudit(userId: string | null, opts: { listingId?: string | null; cursor?: string | null; take?: number } = {}) {
  await requireRole(userId, MODERATION_ROLES);
  const prisma = await db();
  const take = Math.min(Math.max(opts.take ?? 50, 1), 200);
  const rows = await prisma.moderationAudit.findMany({
    where: opts.listingId ? { listingId: opts.listingId } : {},
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: take + 1,
    ...(opts.cursor ? { cursor: { id: opts.cursor }, skip: 1 } : {}),
    include: { actor: { select: { name: true, role: true } }, listing: { select: { id: true, title: true } } },
  });
  return { rows: rows.slice(0, take), nextCursor: rows.length > take ? rows[take - 1]!.id : null };
}

export function withRankScores<R extends { rank: { qualityScore: number | null; rankScore: number | null } | null }>(
  row: R,
): Omit<R, "rank"> & { qualityScore: number | null; rankScore: number | null } {
  const { rank, ...rest } = row;
  return { ...rest, qualityScore: rank?.qualityScore ?? null, rankScore: rank?.rankScore ?? null };
}
