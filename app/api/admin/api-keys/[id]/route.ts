/** DELETE /api/admin/api-keys/:id — revoke a key (admin). The row stays, marked revoked, for the audit trail. */
import { toResponse } from "@/lib/errors";
import { sessionUserId } from "@/lib/auth/session";
import { revokeApiKey } from "@/lib/apikeys";

export const dynamic = "force-dynamic";

export async function DELETE(_req: Request, ctx: { params: Promise<{ id: string }> }): Promise<Response> {
  try {
    const { id } = await ctx.params;
    return Response.json(await revokeApiKey({ actorId: await sessionUserId(), id }));
  } catch (e) {
    return toResponse(e);
  }
}
