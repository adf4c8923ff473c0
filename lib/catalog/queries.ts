/** Read-side queries for the public catalog pages. */
import { cache } from "react";
import { db } from "@/lib/db";
import { PUBLIC_LISTING } from "@/lib/listings/visibility";
import { publicListingSelect, toPublicListing, type PublicListing } from "@/lib/catalog/public-view";

/** One read per server request (React's cache()); outside a render it reads every time. */
export const getPublishedListing = cache(async (slug: string): Promise<PublicListing | null> => {
  const prisma = await db();
  const row = await prisma.listing.findFirst({ where: { slug, ...PUBLIC_LISTING }, select: publicListingSelect });
  return row ? toPublicListing(row) : null;
});


/** Newest first, at most `limit`. */
export async function publishedListingSlugs(limit = 50_000): Promise<Array<{ slug: string; updatedAt: Date }>> {
  const prisma = await db();
  return prisma.listing.findMany({ where: PUBLIC_LISTING, select: { slug: true, updatedAt: true }, orderBy: { updatedAt: "desc" }, take: limit });
}
