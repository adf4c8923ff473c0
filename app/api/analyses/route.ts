/** POST /api/analyses — an owner submits `{listingId}` or `{url}`; 202 with the queued analysis, 409 if one is active. */
import { toResponse } from "@/lib/errors";
import { sessionUserId } from "@/lib/auth/session";
import { readBody } from "@/lib/http";
import { SubmitBody, submitAnalysisForActor } from "@/lib/analyses/progress";

export async function POST(req: Request): Promise<Response> {
  try {
    const userId = await sessionUserId();
    const queued = await submitAnalysisForActor(userId, await readBody(req, SubmitBody));
    return Response.json(queued, { status: 202 });
  } catch (e) {
    return toResponse(e);
  }
}
