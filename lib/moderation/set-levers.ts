/**
 * The moderators' levers (docs/spec/scoring-system.md "Editorial lever", "New · canary", and the visible curation levers
 * tier and sortWeight). Each function authorises inside itself, reading the role fresh (docs/spec/style.md
 * practice 6), validates, writes the change and its ModerationAudit row (who, when, before, after,
 * reason) in one transaction, and then re-ranks the listing at once ("immediately on a Featured
 * edit"), so the public order never lags a moderator's decision by a sweep.
 */
import { db } from "@/lib/db";
import { AppError } from "@/lib/errors";
import { requireRole, MODERATION_ROLES, type Actor } from "@/lib/auth/roles";
import { listingWhereForActor } from "@/lib/listings/access";
import { FEATURED_MAX_LEVEL, type VerificationStatus } from "@/lib/rank/score";
import type { Prisma } from "@/lib/generated/prisma/client";
import { recomputeListingRank } from "@/lib/rank/sweep-ranks";
import type { ListingRank } from "@/lib/rank/inputs";

export interface ModerationResult<T> {
  listingId: string;
  before: T;
  after: T;
  auditId: string;
  /** The listing's rank straight after the change (internal: admin surfaces only). */
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

const VERIFICATION: readonly VerificationStatus[] = ["verified", "unverified", "degraded"];

export async function setVerificationStatus(input: { listingId: string; status: unknown; reason: unknown; actorId: string | null }): Promise<ModerationResult<{ verificationStatus: VerificationStatus }>> {
  const actor = await requireRole(input.actorId, MODERATION_ROLES);
  if (typeof input.status !== "string" || !VERIFICATION.includes(input.status as VerificationStatus)) {
    throw invalid("/status", `must be one of ${VERIFICATION.join(", ")}, got ${JSON.stringify(input.status)}`);
  }
  const reason = requireReason(input.reason);
  return change(actor, input.listingId, "verification.set", reason, { verificationStatus: true }, { verificationStatus: input.status as VerificationStatus });
}

export async function setTierAndSortWeight(input: { listingId: string; tier: unknown; sortWeight: unknown; reason: unknown; actorId: string | null }): Promise<ModerationResult<{ tier: number; sortWeight: number }>> {
  const actor = await requireRole(input.actorId, MODERATION_ROLES);
  // tier ≥ 0 is a table constraint; both are Int columns, so the bounds are int4's.
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

function requireReason(reason: unknown): string {
  if (typeof reason !== "string" || reason.trim() === "") throw invalid("/reason", "must be a non-empty string: every moderation change says why");
  if (reason.length > 2000) throw invalid("/reason", "must be at most 2000 characters");
  return reason.trim();
}

function invalid(pointer: string, message: string): AppError {
  return new AppError("bad_request", `${pointer} ${message}`, [{ pointer, message }]);
}
