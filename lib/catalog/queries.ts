/** Read-side queries for the public catalog pages. */
import { db } from "@/lib/db";
import { publicListingSelect, toPublicListing, type PublicListing } from "@/lib/catalog/public-view";

export async function getPublishedListing(slug: string): Promise<PublicListing | null> {
  const prisma = await db();
  const row = await prisma.listing.findFirst({ where: { slug, publicationState: "published" }, select: publicListingSelect });
  return row ? toPublicListing(row) : null;
}

/** Published listings in browse order (tier ↑, sortWeight ↓, rankScore ↓ unscored last). */
export async function listPublishedListings(limit = 60): Promise<PublicListing[]> {
  const prisma = await db();
  const rows = await prisma.listing.findMany({
    where: { publicationState: "published" },
    orderBy: [{ tier: "asc" }, { sortWeight: "desc" }, { rankScore: { sort: "desc", nulls: "last" } }, { id: "asc" }],
    take: limit,
    select: publicListingSelect,
  });
  return rows.map(toPublicListing);
}
