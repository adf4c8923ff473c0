/** GET /ard/search?q= — keyless search by relevance only (docs/FEEDS.md). */
import { toResponse } from "@/lib/errors";
import { env } from "@/lib/env";
import { ardSearch, parseFeedLimit } from "@/lib/catalog/feeds";

export const dynamic = "force-dynamic";

export async function GET(req: Request): Promise<Response> {
  try {
    const q = new URL(req.url).searchParams;
    const limit = q.has("limit") ? parseFeedLimit(q.get("limit")) : null;
    return Response.json(await ardSearch({ origin: env().publicOrigin, q: q.get("q"), limit }), { headers: { "cache-control": "no-store" } });
  } catch (e) {
    return toResponse(e);
  }
}
