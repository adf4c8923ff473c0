/** GET and PUT /api/listings/:id — the owner reads or replaces the listing document. */
import { sessionUserId } from "@/lib/auth/session";
import { readJson, toResponse } from "@/lib/errors";
import { readListingDocumentForEditor, updateListingForSeller } from "@/lib/listings/save";

type Ctx = { params: Promise<{ id: string }> };

export async function GET(_req: Request, ctx: Ctx): Promise<Response> {
  try {
    return Response.json(await readListingDocumentForEditor(await sessionUserId(), (await ctx.params).id));
  } catch (e) {
    return toResponse(e);
  }
}

export async function PUT(req: Request, ctx: Ctx): Promise<Response> {
  try {
    const saved = await updateListingForSeller(await sessionUserId(), (await ctx.params).id, await readJson(req));
    return Response.json(saved);
  } catch (e) {
    return toResponse(e);
  }
}
