/** POST /router/select — a shortlist of payable services for a task (API key required; docs/FEEDS.md). */
import { readJson, toResponse } from "@/lib/errors";
import { authenticateApiKey } from "@/lib/apikeys";
import { parseSelectRequest, selectServices } from "@/lib/catalog/select";
import { CATALOG_API_VERSION_HEADER } from "@/lib/rank/score";

export const dynamic = "force-dynamic";

export async function POST(req: Request): Promise<Response> {
  try {
    await authenticateApiKey(req.headers.get("authorization"));
    const body = parseSelectRequest(await readJson(req, 64 * 1024));
    const result = await selectServices(body, { apiVersion: req.headers.get(CATALOG_API_VERSION_HEADER) });
    return Response.json(result, { headers: { "cache-control": "no-store" } });
  } catch (e) {
    const res = toResponse(e);
    if (res.status === 401) res.headers.set("www-authenticate", 'Bearer realm="tollgate"');
    return res;
  }
}
