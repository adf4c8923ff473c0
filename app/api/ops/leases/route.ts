/** POST /api/ops/leases — a catalog-monitor worker claims up to `limit` jobs (worker token). */
import { toResponse } from "@/lib/errors";
import { BODY_LIMITS, readBody } from "@/lib/http";
import { ClaimBody, opsClaim } from "@/lib/ops/handlers";
import { requireWorkerToken } from "@/lib/ops/auth";

export async function POST(req: Request): Promise<Response> {
  try {
    requireWorkerToken(req);
    return Response.json(await opsClaim(await readBody(req, ClaimBody, BODY_LIMITS.opsSmall, "an ops request")));
  } catch (e) {
    return toResponse(e);
  }
}
