/**
 * GET /api/endpoints/:id/evidence/proof[?sha256=<hex>] → the inclusion proof of the endpoint's bundle
 * (latest or named) in its day's root on chain (docs/ATTESTATIONS.md "The daily root").
 */
import { endpointBundleProof } from "@/lib/attest/root-ticks";
import { toResponse } from "@/lib/errors";
import { takeAttestationLimits } from "@/lib/limits";

export async function GET(req: Request, ctx: { params: Promise<{ id: string }> }): Promise<Response> {
  try {
    await takeAttestationLimits(req.headers);
    const named = new URL(req.url).searchParams.get("sha256");
    const proof = await endpointBundleProof((await ctx.params).id, named);
    // A published day's proof never changes; the latest bundle changes with the next grade.
    return Response.json(proof, { headers: { "cache-control": named ? "public, max-age=31536000, immutable" : "public, max-age=300", "access-control-allow-origin": "*" } });
  } catch (e) {
    return toResponse(e);
  }
}
