/** GET /api/endpoints/:id/evidence[?sha256=<hex>] → the bundle's canonical bytes (RFC 8785, docs/ATTESTATIONS.md), its hash as ETag and Digest. */
import { checkBundleHash, checkEndpointId, getEvidenceBundle } from "@/lib/attest/read";
import { toResponse } from "@/lib/errors";
import { clientAddress, limitsConfig, takeRateLimit } from "@/lib/limits";

export async function GET(req: Request, ctx: { params: Promise<{ id: string }> }): Promise<Response> {
  try {
    await takeRateLimit("attestation", clientAddress(req.headers, limitsConfig().trustedProxies));
    await takeRateLimit("attestationAll", "*");
    const id = checkEndpointId((await ctx.params).id);
    const named = checkBundleHash(new URL(req.url).searchParams.get("sha256"));
    const b = await getEvidenceBundle(id, named);
    const etag = `"${b.sha256}"`;
    const headers = {
      "content-type": "application/json",
      etag,
      digest: `sha-256=${Buffer.from(b.sha256, "hex").toString("base64")}`,
      // A named bundle never changes; the latest changes with the next grade.
      "cache-control": named ? "public, max-age=31536000, immutable" : "public, max-age=300",
      "access-control-allow-origin": "*",
    };
    if (req.headers.get("if-none-match") === etag) return new Response(null, { status: 304, headers });
    return new Response(new Uint8Array(b.bytes), { status: 200, headers });
  } catch (e) {
    return toResponse(e);
  }
}
