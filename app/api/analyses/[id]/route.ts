/** GET /api/analyses/:id — progress for the owner or a moderator (polled by the seller page). */
import { routeParams } from "@/lib/http";
import { toResponse } from "@/lib/errors";
import { sessionUserId } from "@/lib/auth/session";
import { getAnalysisForActor } from "@/lib/analyses/progress";

export const dynamic = "force-dynamic";

export async function GET(_req: Request, ctx: { params: Promise<{ id: string }> }): Promise<Response> {
  try {
    const { id } = await routeParams(ctx.params);
    return Response.json(await getAnalysisForActor(await sessionUserId(), id), { headers: { "cache-control": "no-store" } });
  } catch (e) {
    return toResponse(e);
  }
}
