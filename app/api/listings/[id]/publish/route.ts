/** POST /api/listings/:id/publish — make the listing live and queue its analysis (202). */
import { sessionUserId } from "@/lib/auth/session";
import { toResponse } from "@/lib/errors";
import { assertSameOriginRequest, routeParams } from "@/lib/http";
import { publishListing } from "@/lib/listings/publish";

export async function POST(req: Request, ctx: { params: Promise<{ id: string }> }): Promise<Response> {
  try {
    assertSameOriginRequest(req, { json: false });
    return Response.json(await publishListing(await sessionUserId(), (await routeParams(ctx.params)).id), { status: 202 });
  } catch (e) {
    return toResponse(e);
  }
}
