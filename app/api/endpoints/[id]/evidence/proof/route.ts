/**
 * GET /api/endpoints/:id/evidence/proof?sha256=<bundle hash> — the bundle's inclusion proof in its
 * day's root on chain (docs/ATTESTATIONS.md "The daily root"); 404 root_not_published until then.
 */
import { endpointBundleProof } from "@/lib/attest/root-ticks";
import { toResponse } from "@/lib/errors";
import { routeParams } from "@/lib/http";

type Ctx = { params: Promise<{ id: string }> };

export async function GET(req: Request, ctx: Ctx): Promise<Response> {
  try {
    const { id } = await routeParams(ctx.params);
    const proof = await endpointBundleProof(id, new URL(req.url).searchParams.get("sha256"));
    // A published day's proof never changes; anyone may fetch it.
    return Response.json(proof, { headers: { "cache-control": "public, max-age=3600", "access-control-allow-origin": "*" } });
  } catch (e) {
    return toResponse(e);
  }
}
