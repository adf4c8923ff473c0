/**
 * The relay's answer as it leaves Tollgate (docs/ROUTER.md "The relay is an API"): the seller's
 * status, headers and body, made inert for a browser. Every answer is sandboxed (CSP `sandbox;
 * default-src 'none'`, nosniff), any type a browser could run or render as a document is an
 * attachment, and headers that would act on our origin (cookies, Clear-Site-Data, Refresh, …) are
 * dropped. With a router origin configured, the relay refuses to answer on the public origin.
 */
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";

/** The CSP every relayed answer carries: a document with no origin, no script, no subresource. */
export const RELAY_CSP = "sandbox; default-src 'none'";

/** Framing safeFetch owns, the encoding it already undid, and headers that would act on Tollgate's origin. */
const DROPPED_RESPONSE_HEADERS = new Set([
  "content-length",
  "transfer-encoding",
  "connection",
  "keep-alive",
  "content-encoding",
  "set-cookie",
  "clear-site-data",
  "refresh",
  "service-worker-allowed",
  "link",
  "strict-transport-security",
  "alt-svc",
  "access-control-allow-origin",
  "access-control-allow-credentials",
  "access-control-allow-headers",
  "access-control-allow-methods",
  "access-control-expose-headers",
  "nel",
  "report-to",
  "reporting-endpoints",
  "content-security-policy",
  "content-security-policy-report-only",
  "x-content-type-options",
  "origin-agent-cluster",
  "permissions-policy",
  "cross-origin-opener-policy",
  "cross-origin-embedder-policy",
  "cross-origin-resource-policy",
]);

/**
 * Media types a browser shows as data, never as a document or a script: JSON, plain text, CSV,
 * bytes, raster images, audio and video. Everything else (HTML, SVG, XML, XHTML, JavaScript, PDF, a
 * missing or unknown type) is an attachment.
 */
const PASSIVE_TYPES = new Set([
  "application/json",
  "application/problem+json",
  "application/x-ndjson",
  "application/cbor",
  "application/octet-stream",
  "text/plain",
  "text/csv",
  "text/event-stream",
  "image/png",
  "image/jpeg",
  "image/gif",
  "image/webp",
  "image/avif",
  "image/bmp",
]);

/** The media type of a Content-Type header, lower-cased without parameters ("" when none). */
export function mediaType(contentType: string | null | undefined): string {
  return (contentType ?? "").split(";", 1)[0].trim().toLowerCase();
}

/** True when a browser could run or render `contentType` as a document: the answer must be an attachment. */
export function isActiveType(contentType: string | null | undefined): boolean {
  const type = mediaType(contentType);
  if (PASSIVE_TYPES.has(type)) return false;
  // application/<vendor>+json is JSON; audio and video play in a media element, never as a document.
  if (/^application\/[a-z0-9.!#$&^_-]+\+json$/.test(type)) return false;
  if (/^(audio|video)\/[a-z0-9.!#$&^_+-]+$/.test(type)) return false;
  return true;
}

/** The headers every relay answer carries (the seller's and the relay's own errors alike). */
export function applyRelayHeaders(headers: Headers): Headers {
  headers.set("content-security-policy", RELAY_CSP);
  headers.set("x-content-type-options", "nosniff");
  if (isActiveType(headers.get("content-type"))) headers.set("content-disposition", "attachment");
  return headers;
}

/** A relay-built Response (an error, a refusal) with the relay's headers added in place. */
export function withRelayHeaders(res: Response): Response {
  applyRelayHeaders(res.headers);
  return res;
}

/** The seller's answer as the relay returns it: its status and body, its headers minus the dropped ones, plus the relay's. */
export function relayedResponse(answer: { status: number; headers: Record<string, string>; body: Uint8Array }, method: string): Response {
  const out = new Headers();
  for (const [k, v] of Object.entries(answer.headers)) if (!DROPPED_RESPONSE_HEADERS.has(k.toLowerCase())) out.set(k, v);
  applyRelayHeaders(out);
  const noBody = method === "HEAD" || answer.status === 204 || answer.status === 304;
  return new Response(noBody ? null : Buffer.from(answer.body), { status: answer.status, headers: out });
}

/**
 * With TOLLGATE_ROUTER_ORIGIN set (and other than the public origin), a call that reached the public
 * origin's host is refused: 421 `misdirected_request`, naming the URL to call instead (also in
 * Location), before the caller is authenticated or a byte of the body is read.
 */
export function assertRelayOrigin(req: Request, origins: { publicOrigin: string; routerOrigin: string | null } = env()): void {
  const { publicOrigin, routerOrigin } = origins;
  if (!routerOrigin || routerOrigin === publicOrigin) return;
  const host = (req.headers.get("host") ?? new URL(req.url).host).toLowerCase();
  if (host !== new URL(publicOrigin).host) return;
  const url = new URL(req.url);
  const there = `${routerOrigin}${url.pathname}${url.search}`;
  throw new AppError("misdirected_request", `The router answers at ${routerOrigin}, not on ${publicOrigin}: call ${there}`, [{ pointer: "/headers/host", message: `call ${routerOrigin}` }], {
    routerOrigin,
    location: there,
  });
}
