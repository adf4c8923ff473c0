/**
 * GET /api/endpoints/:id/evidence[?sha256=<hex>] → the evidence bundle's canonical bytes (RFC 8785,
 * docs/ATTESTATIONS.md), the latest attestation's or the named one of this endpoint, gzip when
 * accepted, its hash as ETag. 400 for a bad id or hash, 404 with `reason`, 429 past its rate limit.
 */
import { getEvidenceBundle } from "@/lib/attest/read";
import { evidenceRequest, evidenceResponse } from "@/lib/attest/serve";
import { toResponse } from "@/lib/errors";
import { takeAttestationLimits } from "@/lib/limits";

export async function GET(req: Request, ctx: { params: Promise<{ id: string }> }): Promise<Response> {
  try {
    await takeAttestationLimits(req.headers);
    const { id, named } = await evidenceRequest(req, ctx.params);
    return evidenceResponse(req, await getEvidenceBundle(id, named), named !== null);
  } catch (e) {
    return toResponse(e);
  }
}
