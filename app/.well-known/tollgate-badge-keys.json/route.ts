/** GET /.well-known/tollgate-badge-keys.json: the public keys badges are signed with (docs/BADGES.md "Keys"). */
import { etagOf, ifNoneMatchHits } from "@/lib/badges/issue";
import { badgeKeySet } from "@/lib/badges/server";
import { toResponse } from "@/lib/errors";

// Never prerendered at build time: the key set is the running process's.
export const dynamic = "force-dynamic";

export async function GET(req: Request): Promise<Response> {
  try {
    const body = JSON.stringify(await badgeKeySet(new Date()));
    const etag = etagOf(body);
    const headers = { etag, "cache-control": "public, max-age=300", "access-control-allow-origin": "*", "x-content-type-options": "nosniff" };
    if (ifNoneMatchHits(req.headers.get("if-none-match"), etag)) return new Response(null, { status: 304, headers });
    return new Response(body, { status: 200, headers: { ...headers, "content-type": "application/json; charset=utf-8" } });
  } catch (e) {
    return toResponse(e);
  }
}
