/** Read-side queries for the public catalog pages. */
import { db } from "@/lib/db";
import { publicListingSelect, toPublicListing, type PublicListing } from "@/lib/catalog/public-view";

export async function getPublishedListing(slug: string): Promise<PublicListing | null> {
  const prisma = await db();
  const row = await prisma.listing.findFirst({ where: { slug, publicationState: "published" }, select: publicListingSelect });
  return row ? toPublicListing(row) : null;
}

