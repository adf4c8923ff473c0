/** POST /api/admin/api-keys `{name, scopes}` — create a key (admin; the secret is returned once). GET lists keys, never secrets. */
import { toResponse } from "@/lib/errors";
import { BODY_LIMITS, assertSameOriginRequest, readJson } from "@/lib/http";
import { requireSessionUserId } from "@/lib/auth/signed-in";
import { sessionUserId } from "@/lib/auth/session";
import { createApiKey, listApiKeys, parseCreateApiKey } from "@/lib/apikeys";

export const dynamic = "force-dynamic";

export async function POST(req: Request): Promise<Response> {
  try {
    // Signed in before a byte of the body is read; createApiKey checks the admin role itself.
    const actorId = await requireSessionUserId();
    assertSameOriginRequest(req, { json: true });
    const { name, scopes } = parseCreateApiKey(await readJson(req, BODY_LIMITS.apiKeyCreate, "an API key request"));
    return Response.json(await createApiKey({ actorId, name, scopes }), { status: 201, headers: { "cache-control": "no-store" } });
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
