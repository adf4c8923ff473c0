/** /robots.txt: the public catalog may be crawled; the seller's, moderators' and API paths may not. The sitemap lists the public listings. */
import type { MetadataRoute } from "next";
import { env } from "@/lib/env";

export const dynamic = "force-dynamic";

export default function robots(): MetadataRoute.Robots {
  const origin = env().publicOrigin;
  return {
    rules: [{ userAgent: "*", allow: ["/", "/catalog", "/listings/"], disallow: ["/dashboard", "/admin", "/api/", "/router/", "/mcp", "/signin"] }],
    sitemap: `${origin}/sitemap.xml`,
  };
}
