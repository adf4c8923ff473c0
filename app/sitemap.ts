/** /sitemap.xml: the catalog and every published listing's page (lib/catalog/queries.ts publishedListingSlugs). */
import type { MetadataRoute } from "next";
import { env } from "@/lib/env";
import { publishedListingSlugs } from "@/lib/catalog/queries";

export const dynamic = "force-dynamic";

export default async function sitemap(): Promise<MetadataRoute.Sitemap> {
  const origin = env().publicOrigin;
  const listings = await publishedListingSlugs();
  return [
    { url: `${origin}/catalog`, changeFrequency: "daily" },
    ...listings.map((l) => ({ url: `${origin}/listings/${encodeURIComponent(l.slug)}`, lastModified: l.updatedAt, changeFrequency: "weekly" as const })),
  ];
}
