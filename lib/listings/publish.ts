/** Publishing a listing queues its analysis; the target is checked before anything changes. */
import { db } from "@/lib/db";
import { ACTIVE_STATES, assertTargetAllowed, onListingPublished } from "@/lib/queue/enqueue-analysis";
import { assertAnalysisCapacity, takeRateLimit } from "@/lib/limits";
import { requireListingAccess } from "@/lib/listings/access";

export async function publishListing(actorId: string | null, listingId: string) {
  const { actor } = await requireListingAccess(actorId, listingId, { moderators: true });
  const prisma = await db();
  const listing = await prisma.listing.findUniqueOrThrow({ where: { id: listingId }, select: { baseUrl: true, publicationState: true, publishedAt: true } });
  const checked = assertTargetAllowed(listing.baseUrl);
  // Limits before anything changes (docs/LIMITS.md); an analysis already in flight for this listing is returned, not
  // queued again.
  await takeRateLimit("publish", actor.id);
  const analysing = await prisma.analysis.count({ where: { listingId, state: { in: [...ACTIVE_STATES] } } });
  if (analysing === 0) await assertAnalysisCapacity(actor);
  if (listing.publicationState !== "published") {
    await prisma.listing.update({ where: { id: listingId }, data: { publicationState: "published", publishedAt: listing.publishedAt ?? new Date() } });
  }
  const analysis = await onListingPublished(listingId, actor.id, undefined, checked);
  return { listingId, publicationState: "published" as const, analysis };
}
