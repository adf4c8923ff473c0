/** GET /api/badges/status?result=<id>&listing=<id> → {"status": "current"|"superseded"|"revoked"|"unknown"}. */
import { parseStatusQuery, resultStatus } from "@/lib/badges/server";
import { toResponse } from "@/lib/errors";

export async function GET(req: Request): Promise<Response> {
  try {
    const { resultId, listingId } = parseStatusQuery(new URL(req.url).searchParams);
    const status = await resultStatus(resultId, listingId);
    // Short-lived: a revocation should reach verifiers within a minute.
    return Response.json({ status }, { headers: { "cache-control": "public, max-age=60", "access-control-allow-origin": "*" } });
  } catch (e) {
    return toResponse(e);
  }
}
