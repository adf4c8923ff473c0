/**
 * GET /api/endpoints/:id/evidence/receipts[?sha256=<bundle hex>] → the receipts document beside a
 * format-2 bundle (docs/ATTESTATIONS.md "The receipts"), resolved as /evidence resolves the bundle;
 * gzip when accepted. 404 `no_receipts` for a format-1 bundle; otherwise as /evidence.
 */
import { getEvidenceReceipts } from "@/lib/attest/read";
import { evidenceRequest, evidenceResponse } from "@/lib/attest/serve";
import { toResponse } from "@/lib/errors";
import { takeAttestationLimits } from "@/lib/limits";

export async function GET(req: Request, ctx: { params: Promise<{ id: string }> }): Promise<Response> {
  try {
    await takeAttestationLimits(req.headers);
    const { id, named } = await evidenceRequest(req, ctx.params);
    const r = await getEvidenceReceipts(id, named);
    return evidenceResponse(req, r, named !== null, { "x-evidence-bundle": r.bundleSha256 });
  } catch (e) {
    return toResponse(e);
  }
}
