/** DELETE /api/admin/api-keys/:id — revoke a key (admin). The row stays, marked revoked, for the audit trail. */
import { toResponse } from "@/lib/errors";
import { assertSameOriginRequest, routeParams } from "@/lib/http";
import { sessionUserId } from "@/lib/auth/session";
import { revokeApiKey } from "@/lib/apikeys";

export const dynamic = "force-dynamic";

export async function DELETE(req: Request, ctx: { params: Promise<{ id: string }> }): Promise<Response> {
  try {
    assertSameOriginRequest(req, { json: false });
    const { id } = await routeParams(ctx.params);
    return Response.json(await revokeApiKey({ actorId: await sessionUserId(), id }));
  } catch (e) {
    return toResponse(e);
  }
}
