/**
 * GET /api/endpoints/:id/evidence[?sha256=<hex>] → the evidence bundle's canonical bytes (RFC 8785,
 * docs/ATTESTATIONS.md), the latest attestation's or the named one of this endpoint, gzip when
 * accepted, its hash as ETag. 400 for a bad id or hash, 404 with `reason`, 429 past its rate limit.
 */
import { checkBundleHash, checkEndpointId, getEvidenceBundle } from "@/lib/attest/read";
import { evidenceResponse } from "@/lib/attest/serve";
import { toResponse } from "@/lib/errors";
import { clientAddress, limitsConfig, takeRateLimit } from "@/lib/limits";

export async function GET(req: Request, ctx: { params: Promise<{ id: string }> }): Promise<Response> {
  try {
    await takeRateLimit("attestation", clientAddress(req.headers, limitsConfig().trustedProxies));
    await takeRateLimit("attestationAll", "*");
    const id = checkEndpointId((await ctx.params).id);
    const named = checkBundleHash(new URL(req.url).searchParams.get("sha256"));
    return evidenceResponse(req, await getEvidenceBundle(id, named), named !== null);
  } catch (e) {
    return toResponse(e);
  }
}
