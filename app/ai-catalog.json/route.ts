/** GET /ai-catalog.json — the keyless catalog feed in browse order, no scores (docs/FEEDS.md). */
import { toResponse } from "@/lib/errors";
import { env } from "@/lib/env";
import { aiCatalogFeed, parseFeedLimit } from "@/lib/catalog/feeds";

export const dynamic = "force-dynamic";

export async function GET(req: Request): Promise<Response> {
  try {
    const q = new URL(req.url).searchParams;
    const feed = await aiCatalogFeed({ origin: env().publicOrigin, cursor: q.get("cursor"), limit: parseFeedLimit(q.get("limit")) });
    return Response.json(feed, { headers: { "cache-control": "public, max-age=60" } });
  } catch (e) {
    return toResponse(e);
  }
}
