/** GET /api/attestations?url=…[&method=GET] → the listed endpoint's latest attestation by URL (docs/ATTESTATIONS.md). */
import { checkResourceUrl, getAttestationByUrl } from "@/lib/attest/read";
import { AppError, toResponse } from "@/lib/errors";
import { takeAttestationLimits } from "@/lib/limits";

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"];

export async function GET(req: Request): Promise<Response> {
  try {
    await takeAttestationLimits(req.headers);
    const q = new URL(req.url).searchParams;
    const url = checkResourceUrl(q.get("url"));
    const method = q.get("method");
    if (method !== null && !METHODS.includes(method)) throw new AppError("bad_request", `method must be one of ${METHODS.join(", ")}.`, [{ pointer: "/method", message: "is not an HTTP method an endpoint has" }]);
    const a = await getAttestationByUrl(url, method);
    const id = a.statement.endpoint.id;
    const maxAge = Math.max(0, Math.min(3600, Math.floor((Date.parse(a.expiresAt) - Date.now()) / 1000)));
    const headers = { "cache-control": `public, max-age=${maxAge}`, etag: `"${a.gradeId}"`, "access-control-allow-origin": "*" };
    if (req.headers.get("if-none-match") === headers.etag) return new Response(null, { status: 304, headers });
    return Response.json({ envelope: a.envelope, statement: a.statement, evidence: { sha256: a.bundleSha256, url: `/api/endpoints/${id}/evidence?sha256=${a.bundleSha256}` } }, { headers });
  } catch (e) {
    return toResponse(e);
  }
}
