/**
 * Unpublishing and deleting a seller's listing (owner or moderator; others get 404). A listing with history is
 * deleted as a tombstone: docs/DATA-MODEL.md.
 */
import { db } from "@/lib/db";
import { AppError } from "@/lib/errors";
import { requireListingAccess } from "@/lib/listings/access";
import { isListed } from "@/lib/listings/visibility";
import { ACTIVE_STATES } from "@/lib/queue/enqueue-analysis";
import { rows, type PrismaLike } from "@/lib/sql";

export async function unpublishListing(actorId: string | null, listingId: string): Promise<{ listingId: string; publicationState: "draft" }> {
  await requireListingAccess(actorId, listingId, { moderators: true });
  const prisma = await db();
  const l = await prisma.listing.findUniqueOrThrow({ where: { id: listingId }, select: { publicationState: true } });
  if (!isListed(l)) {
    throw new AppError("conflict", `the listing is ${l.publicationState}, not published, so there is nothing to unpublish`);
  }
  await prisma.listing.update({ where: { id: listingId }, data: { publicationState: "draft" } });
  return { listingId, publicationState: "draft" };
}

export type DeleteOutcome = { listingId: string; outcome: "deleted" } | { listingId: string; outcome: "tombstone"; results: number };

/** A listing with a row in any of these is never hard-deleted (the listings_keep_history trigger). */
const HISTORY_TABLES = [
  "catalog_scoring_results", "probe_evidence", "router_payments", "monitor_health_samples", "price_quotes",
  "canary_runs", "canary_samples", "trust_observations", "trust_endpoint_revisions", "moderation_audit",
] as const;

export async function deleteListing(actorId: string | null, listingId: string): Promise<DeleteOutcome> {
  await requireListingAccess(actorId, listingId, { moderators: true });
  const prisma = await db();
  return prisma.$transaction(async (tx) => {
    const running = await tx.analysis.count({ where: { listingId, state: { in: [...ACTIVE_STATES] } } });
    if (running > 0) throw new AppError("conflict", "an analysis of this listing is running; delete it once the analysis has finished");
    const [results, history, row] = await Promise.all([
      tx.readinessResult.count({ where: { listingId } }),
      keepsHistory(tx, listingId),
      tx.listing.findUniqueOrThrow({ where: { id: listingId }, select: { publishedAt: true } }),
    ]);
    if (history || row.publishedAt !== null) {
      await tx.listing.update({ where: { id: listingId }, data: { publicationState: "archived", deletedAt: new Date() } });
      return { listingId, outcome: "tombstone" as const, results };
    }
    await tx.listing.delete({ where: { id: listingId } });
    return { listingId, outcome: "deleted" as const };
  });
}

async function keepsHistory(tx: PrismaLike, listingId: string): Promise<boolean> {
  const [row] = await rows<{ kept: boolean }>(tx, `SELECT ${HISTORY_TABLES.map((t) => `EXISTS (SELECT 1 FROM "${t}" WHERE "listingId" = $1)`).join(" OR ")} AS kept`, listingId);
  return row.kept;
}
