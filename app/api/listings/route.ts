/** POST /api/listings — a seller creates a draft listing from a listing document (400 names the first bad field). */
import { requireSessionUserId } from "@/lib/auth/signed-in";
import { toResponse } from "@/lib/errors";
import { BODY_LIMITS, assertSameOriginRequest, readJson } from "@/lib/http";
import { createListingForSeller } from "@/lib/listings/save";

export async function POST(req: Request): Promise<Response> {
  try {
    const userId = await requireSessionUserId();
    assertSameOriginRequest(req, { json: true });
    const saved = await createListingForSeller(userId, await readJson(req, BODY_LIMITS.listingDocument, "a listing document"), "api");
    return Response.json({ id: saved.id, slug: saved.slug, publicationState: "draft" }, { status: 201 });
  } catch (e) {
    return toResponse(e);
  }
}
