/** POST /api/listings/:id/reanalyse — the owner asks for a fresh analysis; 202, or 409 naming the active one. */
import { toResponse } from "@/lib/errors";
import { assertSameOriginRequest, routeParams } from "@/lib/http";
import { sessionUserId } from "@/lib/auth/session";
import { reanalyseForActor } from "@/lib/analyses/progress";

export async function POST(req: Request, ctx: { params: Promise<{ id: string }> }): Promise<Response> {
  try {
    assertSameOriginRequest(req, { json: false });
    const { id } = await routeParams(ctx.params);
    return Response.json(await reanalyseForActor(await sessionUserId(), id), { status: 202 });
  } catch (e) {
    return toResponse(e);
  }
}
