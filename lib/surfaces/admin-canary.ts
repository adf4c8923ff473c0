/**
 * The moderators' canary desk (/admin/canary; docs/CANARY.md): runs newest first with their evidence, budgets, shares
 * and prices awaiting approval. Authorises its caller itself.
 */
import { db } from "@/lib/db";
import { MODERATION_ROLES, requireRole } from "@/lib/auth/roles";
import { AppError } from "@/lib/errors";
import { budgetLeftForListings, organizationShares } from "@/lib/canary/budget";
import { awaitingPriceApproval, priceCeiling } from "@/lib/canary/price-ceiling";
import type { Prisma } from "@/lib/generated/prisma/client";

/** Shown on the listing page and on the desk. */
export const CANARY_RUN_SELECT = {
  id: true, trigger: true, requestedBy: true, requestReason: true, state: true, outcome: true, reason: true, attempts: true, reserved: true, createdAt: true, startedAt: true, finishedAt: true,
  samples: {
    orderBy: { createdAt: "asc" },
    select: {
      id: true, method: true, path: true, state: true, outcome: true, reason: true, listedAmount: true, quotedAmount: true, quotedPayTo: true, chainAmount: true, chainTo: true,
      chainNetwork: true, blockNumber: true, transactionId: true, paymentStatus: true, httpStatus: true, ttlbMs: true, responseBytes: true, contentType: true, outputSha256: true,
      schemaValid: true, replay: true, replayStatus: true,
    },
  },
} as const satisfies Prisma.CanaryRunSelect;

type CanaryRunRow = Prisma.CanaryRunGetPayload<{ select: typeof CANARY_RUN_SELECT }>;

/** Atomic amounts and block numbers as strings. */
export function canaryRunView(r: CanaryRunRow) {
  return {
    ...r,
    reserved: r.reserved === null ? null : r.reserved.toFixed(0),
    samples: r.samples.map((s) => ({ ...s, blockNumber: s.blockNumber === null ? null : s.blockNumber.toString() })),
  };
}

/** A run's state, or a done run's outcome. */
export const CANARY_FILTERS = ["queued", "running", "deferred", "verified", "degraded", "unverified"] as const;
export type CanaryFilter = (typeof CANARY_FILTERS)[number];

export const CANARY_DESK_PAGE = 50;

function whereOf(filter: CanaryFilter | null): Prisma.CanaryRunWhereInput {
  if (!filter) return {};
  if (filter === "queued" || filter === "running" || filter === "deferred") return { state: filter };
  return { state: "done", outcome: filter };
}

/** `?show=`; absent for every run. */
export function parseCanaryFilter(show: string | null | undefined): CanaryFilter | null {
  if (show === undefined || show === null || show === "") return null;
  if ((CANARY_FILTERS as readonly string[]).includes(show)) return show as CanaryFilter;
  throw new AppError("bad_request", `show must be one of ${CANARY_FILTERS.join(", ")} (or absent for every run), not ${JSON.stringify(show)}`, [
    { pointer: "/show", message: `must be one of ${CANARY_FILTERS.join(", ")}` },
  ]);
}

export async function adminCanaryDesk(userId: string | null, opts: { show?: string | null; cursor?: string | null; take?: number; at?: Date } = {}) {
  await requireRole(userId, MODERATION_ROLES);
  const filter = parseCanaryFilter(opts.show);
  const take = Math.min(Math.max(opts.take ?? CANARY_DESK_PAGE, 1), 200);
  const prisma = await db();
  const [byState, rows] = await Promise.all([
    prisma.canaryRun.groupBy({ by: ["state", "outcome"], _count: { _all: true } }),
    prisma.canaryRun.findMany({
      where: whereOf(filter),
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      take: take + 1,
      ...(opts.cursor ? { cursor: { id: opts.cursor }, skip: 1 } : {}),
      select: { ...CANARY_RUN_SELECT, listing: { select: { id: true, slug: true, title: true, verificationStatus: true, canarySuspendedAt: true } } },
    }),
  ]);
  const counts = Object.fromEntries(CANARY_FILTERS.map((f) => [f, 0])) as Record<CanaryFilter, number>;
  let all = 0;
  for (const g of byState) {
    all += g._count._all;
    if (g.state === "done" && g.outcome) counts[g.outcome] += g._count._all;
    else if (g.state !== "done") counts[g.state] += g._count._all;
  }
  const runs = rows.slice(0, take);
  const [budget, shares, awaiting] = await Promise.all([budgetLeftForListings([...new Set(runs.map((r) => r.listing.id))], { at: opts.at }), organizationShares({ at: opts.at }), awaitingPriceApproval()]);
  return {
    filter,
    counts: { all, ...counts },
    runs: runs.map((r) => ({ ...canaryRunView(r), listing: r.listing, budgetLeftForListing: budget.leftByListing.get(r.listing.id)!.toString() })),
    nextCursor: rows.length > take ? runs[take - 1]!.id : null,
    budget: {
      day: budget.day,
      dayCap: budget.caps.day.toString(),
      listingCap: budget.caps.listing.toString(),
      spentToday: budget.spentDay.toString(),
      leftToday: budget.leftDay.toString(),
    },
    shares: shares.map((o) => ({ organizationId: o.organizationId, name: o.name, listings: o.listings, spent: o.spent.toString(), limit: o.cap.toString() })),
    priceCeiling: priceCeiling().toString(),
    awaitingPriceApproval: awaiting.map((a) => ({ ...a, highest: a.highest.toString(), approved: a.approved === null ? null : a.approved.toString() })),
  };
}

export type CanaryDesk = Awaited<ReturnType<typeof adminCanaryDesk>>;
