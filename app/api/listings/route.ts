/** POST /api/listings — a seller creates a draft listing from a listing document (400 names the first bad field). */
import { sessionUserId } from "@/lib/auth/session";
import { readJson, toResponse } from "@/lib/errors";
import { createListingForSeller } from "@/lib/listings/save";

export async function POST(req: Request): Promise<Response> {
  try {
    const saved = await createListingForSeller(await sessionUserId(), await readJson(req), "api");
    return Response.json({ id: saved.id, slug: saved.slug, publicationState: "draft" }, { status: 201 });
  } catch (e) {
    return toResponse(e);
  }
}
