/** POST /router/select — a shortlist of payable services for a task (an API key with the scope router:select, rate-limited per key; docs/FEEDS.md, docs/LIMITS.md). */
import { toResponse } from "@/lib/errors";
import { BODY_LIMITS, readJson } from "@/lib/http";
import { authenticateApiKey } from "@/lib/apikeys";
import { takeRateLimit } from "@/lib/limits";
import { parseSelectRequest, selectServices } from "@/lib/catalog/select";
import { CATALOG_API_VERSION_HEADER } from "@/lib/rank/score";

export const dynamic = "force-dynamic";

export async function POST(req: Request): Promise<Response> {
  try {
    // The key first, then its budget, then the body (docs/LIMITS.md).
    const key = await authenticateApiKey(req.headers.get("authorization"), "router:select");
    await takeRateLimit("select", key.id);
    const body = parseSelectRequest(await readJson(req, BODY_LIMITS.select, "a select request"));
    const result = await selectServices(body, { apiVersion: req.headers.get(CATALOG_API_VERSION_HEADER) });
    return Response.json(result, { headers: { "cache-control": "no-store" } });
  } catch (e) {
    const res = toResponse(e);
    if (res.status === 401) res.headers.set("www-authenticate", 'Bearer realm="tollgate"');
    return res;
  }
}
