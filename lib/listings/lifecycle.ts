/**
 * Unpublishing and deleting a seller's listing (issue 19 item 8). The owner (or a moderator) acts;
 * anyone else gets 404 as for no such listing (lib/listings/access.ts).
 *
 * - Unpublish: the listing leaves the catalog, feeds and router (they read published listings only)
 *   and goes back to draft; its results stay as they are, and publishing again re-analyses it.
 * - Delete: a listing that was never scored is removed with its endpoints and analyses. A listing
 *   with results cannot lose them (results are immutable, and badges and the history name them), nor
 *   one a moderator acted on its audit entries (the moderation audit is append-only, so its rows keep
 *   naming the listing), so it is archived instead: out of the catalog, out of the seller's default
 *   view and out of the duplicate check, its results and history kept.
 */
import { db } from "@/lib/db";
import { AppError } from "@/lib/errors";
import { requireListingAccess } from "@/lib/listings/access";
import { ACTIVE_STATES } from "@/lib/queue/enqueue-analysis";

export async function unpublishListing(actorId: string | null, listingId: string): Promise<{ listingId: string; publicationState: "draft" }> {
  await requireListingAccess(actorId, listingId, { moderators: true });
  const prisma = await db();
  const l = await prisma.listing.findUniqueOrThrow({ where: { id: listingId }, select: { publicationState: true } });
  if (l.publicationState !== "published" && l.publicationState !== "unlisted") {
    throw new AppError("conflict", `the listing is ${l.publicationState}, not published, so there is nothing to unpublish`);
  }
  await prisma.listing.update({ where: { id: listingId }, data: { publicationState: "draft" } });
  return { listingId, publicationState: "draft" };
}

export type DeleteOutcome = { listingId: string; outcome: "deleted" } | { listingId: string; outcome: "archived"; results: number };

export async function deleteListing(actorId: string | null, listingId: string): Promise<DeleteOutcome> {
  await requireListingAccess(actorId, listingId, { moderators: true });
  const prisma = await db();
  return prisma.$transaction(async (tx) => {
    const running = await tx.analysis.count({ where: { listingId, state: { in: [...ACTIVE_STATES] } } });
    if (running > 0) throw new AppError("conflict", "an analysis of this listing is running; delete it once the analysis has finished");
    const [results, canaryRuns, audited, row] = await Promise.all([
      tx.readinessResult.count({ where: { listingId } }),
      tx.canaryRun.count({ where: { listingId } }),
      tx.moderationAudit.count({ where: { listingId } }),
      tx.listing.findUniqueOrThrow({ where: { id: listingId }, select: { publishedAt: true } }),
    ]);
    if (results > 0 || canaryRuns > 0 || audited > 0 || row.publishedAt !== null) {
      await tx.listing.update({ where: { id: listingId }, data: { publicationState: "archived" } });
      return { listingId, outcome: "archived" as const, results };
    }
    await tx.listing.delete({ where: { id: listingId } });
    return { listingId, outcome: "deleted" as const };
  });
}
