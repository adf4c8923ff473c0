/** GET and PUT /api/listings/:id — the owner reads or replaces the listing document. */
import { sessionUserId } from "@/lib/auth/session";
import { requireSessionUserId } from "@/lib/auth/signed-in";
import { toResponse } from "@/lib/errors";
import { BODY_LIMITS, assertSameOriginRequest, readJson, routeParams } from "@/lib/http";
import { readListingDocumentForEditor, updateListingForSeller } from "@/lib/listings/save";

type Ctx = { params: Promise<{ id: string }> };

export async function GET(_req: Request, ctx: Ctx): Promise<Response> {
  try {
    return Response.json(await readListingDocumentForEditor(await sessionUserId(), (await routeParams(ctx.params)).id));
  } catch (e) {
    return toResponse(e);
  }
}

export async function PUT(req: Request, ctx: Ctx): Promise<Response> {
  try {
    const userId = await requireSessionUserId();
    assertSameOriginRequest(req, { json: true });
    const saved = await updateListingForSeller(userId, (await routeParams(ctx.params)).id, await readJson(req, BODY_LIMITS.listingDocument, "a listing document"));
    return Response.json(saved);
  } catch (e) {
    return toResponse(e);
  }
}
