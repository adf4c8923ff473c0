/** POST /api/admin/api-keys — create a key (admin; the secret is returned once). GET lists keys, never secrets. */
import { readJson, toResponse } from "@/lib/errors";
import { sessionUserId } from "@/lib/auth/session";
import { createApiKey, listApiKeys, parseCreateApiKey } from "@/lib/apikeys";

export const dynamic = "force-dynamic";

export async function POST(req: Request): Promise<Response> {
  try {
    const actorId = await sessionUserId();
    const { name } = parseCreateApiKey(await readJson(req, 4096));
    return Response.json(await createApiKey({ actorId, name }), { status: 201, headers: { "cache-control": "no-store" } });
  } catch (e) {
    return toResponse(e);
  }
}

export async function GET(): Promise<Response> {
  try {
    return Response.json({ items: await listApiKeys({ actorId: await sessionUserId() }) }, { headers: { "cache-control": "no-store" } });
  } catch (e) {
    return toResponse(e);
  }
}
