/** GET /api/endpoints/:id/attestation → the endpoint's latest signed attestation (docs/ATTESTATIONS.md). */
import { checkEndpointId, getLatestAttestation } from "@/lib/attest/read";
import { toResponse } from "@/lib/errors";
import { takeAttestationLimits } from "@/lib/limits";

export async function GET(req: Request, ctx: { params: Promise<{ id: string }> }): Promise<Response> {
  try {
    await takeAttestationLimits(req.headers);
    const id = checkEndpointId((await ctx.params).id);
    const a = await getLatestAttestation(id);
    const etag = `"${a.gradeId}"`;
    // Cached until the next hourly sweep at most, never past the statement's expiry.
    const maxAge = Math.max(0, Math.min(3600, Math.floor((Date.parse(a.expiresAt) - Date.now()) / 1000)));
    const headers = { "cache-control": `public, max-age=${maxAge}`, etag, "access-control-allow-origin": "*" };
    if (req.headers.get("if-none-match") === etag) return new Response(null, { status: 304, headers });
    return Response.json({ envelope: a.envelope, statement: a.statement, evidence: { sha256: a.bundleSha256, url: `/api/endpoints/${id}/evidence?sha256=${a.bundleSha256}` } }, { headers });
  } catch (e) {
    return toResponse(e);
  }
}
