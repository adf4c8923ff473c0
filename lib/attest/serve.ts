/**
 * The evidence routes' answer: a stored document's canonical bytes (docs/TRUST.md "Verifying a grade"),
 * ETag and Digest naming their SHA-256.
 */
import { checkBundleHash, checkEndpointId, type StoredDocument } from "./read";

/** An evidence route's request: the endpoint's id and the named bundle hash (null: the latest). */
export async function evidenceRequest(req: Request, params: Promise<{ id: string }>): Promise<{ id: string; named: string | null }> {
  return { id: checkEndpointId((await params).id), named: checkBundleHash(new URL(req.url).searchParams.get("sha256")) };
}

/**
 * Always the canonical bytes: the web server compresses on the wire when the client accepts it. A
 * route that set Content-Encoding itself was gzipped a second time by `next start` (measured: the
 * verifier read gzip inside gzip).
 */
export function evidenceResponse(req: Request, doc: StoredDocument, immutable: boolean, extra: Record<string, string> = {}): Response {
  const etag = `"${doc.sha256}"`;
  const headers: Record<string, string> = {
    "content-type": "application/json",
    etag,
    digest: `sha-256=${Buffer.from(doc.sha256, "hex").toString("base64")}`,
    // A named document never changes; the latest changes with the next grade.
    "cache-control": immutable ? "public, max-age=31536000, immutable" : "public, max-age=300",
    "access-control-allow-origin": "*",
    ...extra,
  };
  const match = (req.headers.get("if-none-match") ?? "").split(",").map((t) => t.trim());
  if (match.includes(etag)) return new Response(null, { status: 304, headers });
  return new Response(new Uint8Array(doc.bytes), { status: 200, headers });
}
