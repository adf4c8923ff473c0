/**
 * Publishing a listing: the owner (or a moderator) makes it live, which queues its analysis
 * (docs/spec/scoring-system.md "Trigger": "a listing is published"). The target is checked before anything changes, so
 * a listing whose base URL the probe would refuse is never published half-way.
 */
import { db } from "@/lib/db";
import { ACTIVE_STATES, assertTargetAllowed, onListingPublished } from "@/lib/queue/enqueue-analysis";
import { assertAnalysisCapacity, takeRateLimit } from "@/lib/limits";
import { requireListingAccess } from "@/lib/listings/access";

export async function publishListing(actorId: string | null, listingId: string) {
  const { actor } = await requireListingAccess(actorId, listingId, { moderators: true });
  const prisma = await db();
  const listing = await prisma.listing.findUniqueOrThrow({ where: { id: listingId }, select: { baseUrl: true, publicationState: true, publishedAt: true } });
  const checked = assertTargetAllowed(listing.baseUrl);
  // Limits before anything changes (docs/LIMITS.md): per user, then the organisation's cap on
  // analyses in flight, unless this listing's analysis is already one of them (publishing again
  // returns it and queues nothing).
  await takeRateLimit("publish", actor.id);
  const analysing = await prisma.analysis.count({ where: { listingId, state: { in: [...ACTIVE_STATES] } } });
  if (analysing === 0) await assertAnalysisCapacity(actor);
  if (listing.publicationState !== "published") {
    await prisma.listing.update({ where: { id: listingId }, data: { publicationState: "published", publishedAt: listing.publishedAt ?? new Date() } });
  }
  const analysis = await onListingPublished(listingId, actor.id, undefined, checked);
  return { listingId, publicationState: "published" as const, analysis };
}
