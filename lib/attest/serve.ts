/**
 * The evidence routes' answer: a stored document's canonical bytes, as stored gzip when the client
 * accepts it (docs/TRUST.md "Verifying a grade"). ETag names the canonical bytes' hash (with `-gzip`
 * for the gzip form); Digest is the plain bytes' SHA-256 and sent with them only.
 */
import { checkBundleHash, checkEndpointId, type StoredDocument } from "./read";

/** An evidence route's request: the endpoint's id and the named bundle hash (null: the latest). */
export async function evidenceRequest(req: Request, params: Promise<{ id: string }>): Promise<{ id: string; named: string | null }> {
  return { id: checkEndpointId((await params).id), named: checkBundleHash(new URL(req.url).searchParams.get("sha256")) };
}

/** True when Accept-Encoding names gzip (or `*`) without q=0. */
export function acceptsGzip(header: string | null): boolean {
  if (!header) return false;
  return header.split(",").some((part) => {
    const [name, ...params] = part.trim().toLowerCase().split(";").map((x) => x.trim());
    if (name !== "gzip" && name !== "*") return false;
    const q = params.find((p) => p.startsWith("q="));
    return !q || Number(q.slice(2)) > 0;
  });
}

export function evidenceResponse(req: Request, doc: StoredDocument, immutable: boolean, extra: Record<string, string> = {}): Response {
  const gz = doc.gzip !== null && acceptsGzip(req.headers.get("accept-encoding"));
  const etag = gz ? `"${doc.sha256}-gzip"` : `"${doc.sha256}"`;
  const headers: Record<string, string> = {
    "content-type": "application/json",
    etag,
    vary: "accept-encoding",
    // A named document never changes; the latest changes with the next grade.
    "cache-control": immutable ? "public, max-age=31536000, immutable" : "public, max-age=300",
    "access-control-allow-origin": "*",
    ...extra,
  };
  if (gz) headers["content-encoding"] = "gzip";
  else headers.digest = `sha-256=${Buffer.from(doc.sha256, "hex").toString("base64")}`;
  const match = (req.headers.get("if-none-match") ?? "").split(",").map((t) => t.trim());
  if (match.includes(`"${doc.sha256}"`) || match.includes(`"${doc.sha256}-gzip"`)) return new Response(null, { status: 304, headers });
  return new Response(new Uint8Array(gz ? doc.gzip! : doc.bytes), { status: 200, headers });
}
