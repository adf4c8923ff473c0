/**
 * The moderators' levers (docs/spec/scoring-system.md "Editorial lever"): each authorises inside, writes the change
 * and its ModerationAudit row in one transaction, then re-ranks the listing at once.
 */
import { db } from "@/lib/db";
import { AppError } from "@/lib/errors";
import { requireRole, MODERATION_ROLES, type Actor } from "@/lib/auth/roles";
import { listingWhereForActor } from "@/lib/listings/access";
import { isListed } from "@/lib/listings/visibility";
import { FEATURED_MAX_LEVEL } from "@/lib/rank/score";
import { requestRun } from "@/lib/canary/runs";
import type { Prisma } from "@/lib/generated/prisma/client";
import { recomputeListingRank } from "@/lib/rank/sweep-ranks";
import type { ListingRank } from "@/lib/rank/inputs";

export interface ModerationResult<T> {
  listingId: string;
  before: T;
  after: T;
  auditId: string;
  /** Internal: admin surfaces only. */
  rank: ListingRank | null;
}

export async function setFeaturedLevel(input: { listingId: string; level: unknown; reason: unknown; actorId: string | null }): Promise<ModerationResult<{ featuredLevel: number }>> {
  const actor = await requireRole(input.actorId, MODERATION_ROLES);
  const level = input.level;
  if (typeof level !== "number" || !Number.isInteger(level) || level < 0 || level > FEATURED_MAX_LEVEL) {
    throw invalid("/level", `must be an integer 0–${FEATURED_MAX_LEVEL}, got ${JSON.stringify(level)}`);
  }
  const reason = requireReason(input.reason);
  return change(actor, input.listingId, "featured.set", reason, { featuredLevel: true }, { featuredLevel: level });
}

/** Queues a run (trigger `moderator`); an active run is answered instead of a second one. */
export async function startCanaryRun(input: { listingId: string; reason: unknown; actorId: string | null }): Promise<{ listingId: string; runId: string; created: boolean; auditId: string }> {
  const actor = await requireRole(input.actorId, MODERATION_ROLES);
  const reason = requireReason(input.reason);
  const prisma = await db();
  const listing = await prisma.listing.findFirst({ where: { AND: [{ id: input.listingId }, listingWhereForActor(actor, { moderators: true })] }, select: { id: true, publicationState: true } });
  if (!listing) throw new AppError("not_found", `listing ${input.listingId} does not exist`);
  if (!isListed(listing)) {
    throw new AppError("conflict", `listing ${input.listingId} is ${listing.publicationState}: the canary calls listed (published or unlisted) listings only`);
  }
  const run = await requestRun({ listingId: listing.id, trigger: "moderator", requestedBy: actor.id });
  const audit = await prisma.moderationAudit.create({
    data: { actorId: actor.id, listingId: listing.id, action: "canary.run", before: undefined, after: { runId: run.runId, queued: run.created }, reason },
    select: { id: true },
  });
  return { listingId: listing.id, runId: run.runId, created: run.created, auditId: audit.id };
}

/** Suspended: no run is queued and the listing is `unverified`. */
export async function setCanarySuspended(input: { listingId: string; suspended: unknown; reason: unknown; actorId: string | null }): Promise<ModerationResult<{ canarySuspended: boolean; verificationStatus: string }>> {
  const actor = await requireRole(input.actorId, MODERATION_ROLES);
  if (typeof input.suspended !== "boolean") throw invalid("/suspended", `must be true or false, got ${JSON.stringify(input.suspended)}`);
  const reason = requireReason(input.reason);
  const suspended = input.suspended;
  const prisma = await db();
  const { before, after, auditId } = await prisma.$transaction(async (tx) => {
    const current = await tx.listing.findFirst({ where: { AND: [{ id: input.listingId }, listingWhereForActor(actor, { moderators: true })] }, select: { canarySuspendedAt: true, verificationStatus: true } });
    if (!current) throw new AppError("not_found", `listing ${input.listingId} does not exist`);
    const before = { canarySuspended: current.canarySuspendedAt !== null, verificationStatus: current.verificationStatus as string };
    const after = { canarySuspended: suspended, verificationStatus: suspended ? "unverified" : before.verificationStatus };
    await tx.listing.update({
      where: { id: input.listingId },
      data: suspended ? { canarySuspendedAt: current.canarySuspendedAt ?? new Date(), verificationStatus: "unverified" } : { canarySuspendedAt: null },
    });
    const audit = await tx.moderationAudit.create({
      data: { actorId: actor.id, listingId: input.listingId, action: suspended ? "canary.suspend" : "canary.resume", before, after, reason },
      select: { id: true },
    });
    return { before, after, auditId: audit.id };
  });
  const rank = await recomputeListingRank(input.listingId);
  return { listingId: input.listingId, before, after, auditId, rank };
}

export async function setTierAndSortWeight(input: { listingId: string; tier: unknown; sortWeight: unknown; reason: unknown; actorId: string | null }): Promise<ModerationResult<{ tier: number; sortWeight: number }>> {
  const actor = await requireRole(input.actorId, MODERATION_ROLES);
  // tier ≥ 0 is a table constraint; both are int4 columns.
  if (typeof input.tier !== "number" || !Number.isInteger(input.tier) || input.tier < 0 || input.tier > 1_000_000) {
    throw invalid("/tier", `must be an integer 0–1000000, got ${JSON.stringify(input.tier)}`);
  }
  if (typeof input.sortWeight !== "number" || !Number.isInteger(input.sortWeight) || Math.abs(input.sortWeight) > 1_000_000) {
    throw invalid("/sortWeight", `must be an integer from −1000000 to 1000000, got ${JSON.stringify(input.sortWeight)}`);
  }
  const reason = requireReason(input.reason);
  return change(actor, input.listingId, "curation.set", reason, { tier: true, sortWeight: true }, { tier: input.tier, sortWeight: input.sortWeight });
}

async function change<T extends Record<string, unknown>>(
  actor: Actor,
  listingId: string,
  action: string,
  reason: string,
  select: Record<keyof T, true>,
  data: T,
): Promise<ModerationResult<T>> {
  const prisma = await db();
  const { before, auditId } = await prisma.$transaction(async (tx) => {
    const current = await tx.listing.findFirst({ where: { AND: [{ id: listingId }, listingWhereForActor(actor, { moderators: true })] }, select: select as Prisma.ListingSelect });
    if (!current) throw new AppError("not_found", `listing ${listingId} does not exist`);
    await tx.listing.update({ where: { id: listingId }, data: data as Prisma.ListingUpdateInput });
    const audit = await tx.moderationAudit.create({
      data: { actorId: actor.id, listingId, action, before: current as Prisma.InputJsonValue, after: data as Prisma.InputJsonValue, reason },
      select: { id: true },
    });
    return { before: current as unknown as T, auditId: audit.id };
  });
  const rank = await recomputeListingRank(listingId);
  return { listingId, before, after: data, auditId, rank };
}

export function requireReason(reason: unknown): string {
  if (typeof reason !== "string" || reason.trim() === "") throw invalid("/reason", "must be a non-empty string: every moderation change says why");
  if (reason.length > 2000) throw invalid("/reason", "must be at most 2000 characters");
  return reason.trim();
}

function invalid(pointer: string, message: string): AppError {
  return new AppError("bad_request", `${pointer} ${message}`, [{ pointer, message }]);
}
