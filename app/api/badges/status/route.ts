/**
 * GET /api/badges/status?result=<id>&listing=<id> → {"status": "current"|"superseded"|"revoked"|"unknown"},
 * with "currentResultId" (the result that replaced it, or null) when superseded.
 */
import { parseStatusQuery, resultStatus } from "@/lib/badges/server";
import { toResponse } from "@/lib/errors";

export async function GET(req: Request): Promise<Response> {
  try {
    const { resultId, listingId } = parseStatusQuery(new URL(req.url).searchParams);
    const report = await resultStatus(resultId, listingId);
    const body = report.status === "superseded" ? { status: report.status, currentResultId: report.currentResultId ?? null } : { status: report.status };
    // Short-lived: a revocation or a new result should reach verifiers within a minute.
    return Response.json(body, { headers: { "cache-control": "public, max-age=60", "access-control-allow-origin": "*" } });
  } catch (e) {
    return toResponse(e);
  }
}
