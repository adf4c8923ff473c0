/** POST /api/analyses — an owner submits `{listingId}` or `{url}`; 202 with the queued analysis, 409 if one is active. */
import { toResponse } from "@/lib/errors";
import { BODY_LIMITS, assertSameOriginRequest, readBody } from "@/lib/http";
import { requireSessionUserId } from "@/lib/auth/signed-in";
import { SubmitBody, submitAnalysisForActor } from "@/lib/intake/api-door";

export async function POST(req: Request): Promise<Response> {
  try {
    const userId = await requireSessionUserId();
    assertSameOriginRequest(req, { json: true });
    const queued = await submitAnalysisForActor(userId, await readBody(req, SubmitBody, BODY_LIMITS.analysisSubmit, "an analysis request"));
    return Response.json(queued, { status: 202 });
  } catch (e) {
    return toResponse(e);
  }
}
