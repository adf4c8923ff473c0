/** Drafts included, tombstones not. */
import { db } from "@/lib/db";
import type { Actor } from "@/lib/auth/roles";

export async function listOwnListings(actor: Actor) {
  if (!actor.organizationId) return [];
  const prisma = await db();
  return prisma.listing.findMany({
    where: { organizationId: actor.organizationId, deletedAt: null },
    orderBy: { updatedAt: "desc" },
    select: {
      id: true,
      slug: true,
      title: true,
      publicationState: true,
      baseUrl: true,
      updatedAt: true,
      analyses: { orderBy: { createdAt: "desc" }, take: 1, select: { state: true, step: true } },
      currentResult: { select: { total: true, band: true, rubricVersion: true, createdAt: true } },
      _count: { select: { endpoints: true } },
    },
  });
}
