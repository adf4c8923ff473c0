/**
 * GET /api/endpoints/:id/evidence/receipts[?sha256=<bundle hex>] → the receipts document beside a
 * format-2 bundle (docs/ATTESTATIONS.md "The receipts"), resolved as /evidence resolves the bundle;
 * gzip when accepted. 404 `no_receipts` for a format-1 bundle; otherwise as /evidence.
 */
import { checkBundleHash, checkEndpointId, getEvidenceReceipts } from "@/lib/attest/read";
import { evidenceResponse } from "@/lib/attest/serve";
import { toResponse } from "@/lib/errors";
import { clientAddress, limitsConfig, takeRateLimit } from "@/lib/limits";

export async function GET(req: Request, ctx: { params: Promise<{ id: string }> }): Promise<Response> {
  try {
    await takeRateLimit("attestation", clientAddress(req.headers, limitsConfig().trustedProxies));
    await takeRateLimit("attestationAll", "*");
    const id = checkEndpointId((await ctx.params).id);
    const named = checkBundleHash(new URL(req.url).searchParams.get("sha256"));
    const r = await getEvidenceReceipts(id, named);
    return evidenceResponse(req, r, named !== null, { "x-evidence-bundle": r.bundleSha256 });
  } catch (e) {
    return toResponse(e);
  }
}
