/**
 * D3 evidence: each endpoint's docs page fetched through lib/net and what it shows recorded (path, schema names, an
 * example); the readiness engine judges it.
 */
import type { Net } from "./request";
import { getResource } from "./request";
import { mapBounded } from "./bounded";
import type { EndpointDocsEvidence } from "@/lib/evidence";
import type { ListingDocument, ListingEndpoint } from "@/lib/listing-document/document";
import { docsNamesOf } from "@/lib/listing-document/schema-names";
import { bodyText } from "@/lib/x402/json";

/** The rest is not searched, and the evidence says so. */
export const ENDPOINT_DOCS_MAX_BYTES = 1024 * 1024;
const CONCURRENCY = 4;

const EXAMPLE = /<pre[\s>]|<code[\s>]|```|\bcurl\s+(?:-|https?:|')|"examples?"\s*:/i;
const SCRIPT_STYLE = /<script[\s\S]*?<\/script>|<style[\s\S]*?<\/style>/gi;
const TAG = /<[^>]+>/g;
const ENTITIES: Record<string, string> = { "&quot;": '"', "&#34;": '"', "&apos;": "'", "&#39;": "'", "&lt;": "<", "&gt;": ">", "&nbsp;": " ", "&amp;": "&" };
const ENTITY = /&(?:quot|#34|apos|#39|lt|gt|nbsp|amp);/g;

/** Fragment dropped: absolute http(s), or a path or anchor beside the listing's docsUrl. */
export function endpointDocsPage(ep: Pick<ListingEndpoint, "docsUrl">, listingDocsUrl: string | null): string | null {
  const u = ep.docsUrl;
  if (!u) return null;
  try {
    const abs = /^https?:\/\//i.test(u) ? new URL(u) : (u.startsWith("/") || u.startsWith("#")) && listingDocsUrl ? new URL(u, listingDocsUrl) : null;
    if (!abs || (abs.protocol !== "https:" && abs.protocol !== "http:")) return null;
    abs.hash = "";
    return abs.toString();
  } catch {
    return null;
  }
}

/** Scripts and styles dropped, tags as spaces, common entities decoded. */
export function pageText(raw: string): string {
  return raw.replace(SCRIPT_STYLE, " ").replace(TAG, " ").replace(ENTITY, (e) => ENTITIES[e] ?? e);
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

export function readPage(raw: string, ep: Pick<ListingEndpoint, "path" | "requestSchema" | "responseSchema">): Pick<EndpointDocsEvidence, "pathShown" | "names" | "example"> {
  const text = pageText(raw);
  const names = docsNamesOf(ep).filter((n) => new RegExp(`(?:^|[^A-Za-z0-9_$-])${escape(n)}(?:$|[^A-Za-z0-9_$-])`).test(text));
  return { pathShown: text.includes(ep.path) || raw.includes(ep.path), names, example: EXAMPLE.test(raw) };
}

export async function probeEndpointDocs(listing: ListingDocument, net: Net): Promise<EndpointDocsEvidence[]> {
  const seen = new Set<string>();
  const wanted: Array<{ ep: ListingEndpoint; page: string | null }> = [];
  for (const ep of listing.endpoints) {
    const key = `${ep.method.toUpperCase()} ${ep.path}`;
    if (seen.has(key) || !ep.docsUrl) continue;
    seen.add(key);
    wanted.push({ ep, page: endpointDocsPage(ep, listing.docsUrl) });
  }
  // One fetch per page, however many endpoints point into it.
  const pages = [...new Set(wanted.flatMap((w) => (w.page ? [w.page] : [])))];
  const fetched = new Map(
    await mapBounded(pages, CONCURRENCY, async (url) => [url, await getResource(url, net, { maxBodyBytes: ENDPOINT_DOCS_MAX_BYTES })] as const),
  );
  return wanted.map(({ ep, page }) => {
    const base = { method: ep.method, path: ep.path, url: page };
    const none = { truncated: false, pathShown: false, names: [], example: false };
    if (!page) return { ...base, ok: false, status: null, contentType: null, refusal: "unresolvable_docs_url", ...none };
    const r = fetched.get(page)!;
    if (!r.ok) {
      if ("refusal" in r) return { ...base, ok: false, status: null, contentType: null, refusal: r.refusal, ...none };
      return { ...base, ok: false, status: r.status ?? null, contentType: r.headers?.["content-type"] ?? null, refusal: null, ...none };
    }
    const ok = r.status >= 200 && r.status < 300;
    if (!ok) return { ...base, ok: false, status: r.status, contentType: r.contentType, refusal: null, ...none };
    return { ...base, ok: true, status: r.status, contentType: r.contentType, refusal: null, truncated: r.bodyTruncated, ...readPage(bodyText(r.body), ep) };
  });
}
