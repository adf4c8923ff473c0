/** Read models for the moderators' desk. Every function authorises its caller itself. */
import { db } from "@/lib/db";
import { MODERATION_ROLES, requireRole } from "@/lib/auth/roles";

export async function adminOverview(actorId: string | null) {
  await requireRole(actorId, MODERATION_ROLES);
  const prisma = await db();
  const [byState, listings] = await Promise.all([
    prisma.analysis.groupBy({ by: ["state"], _count: { _all: true } }),
    prisma.listing.findMany({
      orderBy: [{ tier: "asc" }, { sortWeight: "desc" }, { rank: { rankScore: { sort: "desc", nulls: "last" } } }],
      select: {
        id: true,
        slug: true,
        title: true,
        publicationState: true,
        tier: true,
        sortWeight: true,
        featuredLevel: true,
        verificationStatus: true,
        rank: { select: { qualityScore: true, rankScore: true } },
        currentResult: { select: { total: true, band: true } },
      },
    }),
  ]);
  return {
    queue: Object.fromEntries(byState.map((s) => [s.state, s._count._all])) as Record<string, number>,
    listings: listings.map(withRankScores),
  };
}

/**
 * A listing row read with its listing_ranks relation, in the flat shape the moderators' read models
 * keep: qualityScore and rankScore beside the listing's own columns (null until ranked).
 */
export function withRankScores<R extends { rank: { qualityScore: number | null; rankScore: number | null } | null }>(
  row: R,
): Omit<R, "rank"> & { qualityScore: number | null; rankScore: number | null } {
  const { rank, ...rest } = row;
  return { ...rest, qualityScore: rank?.qualityScore ?? null, rankScore: rank?.rankScore ?? null };
}
