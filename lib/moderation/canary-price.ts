/**
 * A moderator's approval for the canary to pay above its price ceiling (docs/CANARY.md "The price ceiling"), audited
 * `canary.approve_price`.
 */
import { db } from "@/lib/db";
import { AppError } from "@/lib/errors";
import { MODERATION_ROLES, requireRole } from "@/lib/auth/roles";
import { listingWhereForActor } from "@/lib/listings/access";
import { requireReason } from "./set-levers";

export async function approveCanaryPrice(input: { listingId: string; maxAmount?: unknown; reason: unknown; actorId: string | null }): Promise<{ listingId: string; approvedUpTo: string; auditId: string }> {
  const actor = await requireRole(input.actorId, MODERATION_ROLES);
  const reason = requireReason(input.reason);
  if (input.maxAmount !== undefined && (typeof input.maxAmount !== "string" || !/^\d{1,60}$/.test(input.maxAmount))) {
    throw new AppError("bad_request", "/maxAmount must be a price per call in atomic units (digits)", [{ pointer: "/maxAmount", message: "must be a price per call in atomic units (digits)" }]);
  }
  const prisma = await db();
  return prisma.$transaction(async (tx) => {
    const listing = await tx.listing.findFirst({
      where: { AND: [{ id: input.listingId }, listingWhereForActor(actor, { moderators: true })] },
      select: { id: true, endpoints: { where: { payable: true }, select: { priceAmount: true } } },
    });
    if (!listing) throw new AppError("not_found", `listing ${input.listingId} does not exist`);
    const prices = listing.endpoints.map((e) => e.priceAmount).filter((p): p is string => !!p && /^\d{1,60}$/.test(p)).map(BigInt);
    const highest = prices.reduce((m, p) => (p > m ? p : m), 0n);
    const upTo = input.maxAmount !== undefined ? BigInt(input.maxAmount as string) : highest;
    const previous = await tx.canaryPriceApproval.findFirst({ where: { listingId: listing.id }, orderBy: [{ createdAt: "desc" }, { id: "desc" }], select: { maxAmount: true } });
    await tx.canaryPriceApproval.create({ data: { listingId: listing.id, maxAmount: upTo.toString(), approvedBy: actor.id, reason } });
    const audit = await tx.moderationAudit.create({
      data: { actorId: actor.id, listingId: listing.id, action: "canary.approve_price", before: { canaryPriceApprovedUpTo: previous ? previous.maxAmount.toFixed(0) : null }, after: { canaryPriceApprovedUpTo: upTo.toString() }, reason },
      select: { id: true },
    });
    return { listingId: listing.id, approvedUpTo: upTo.toString(), auditId: audit.id };
  });
}
