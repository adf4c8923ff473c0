/** The relay's answer made inert for a browser (docs/ROUTER.md "The relay is an API"). */
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";

export const RELAY_CSP = "sandbox; default-src 'none'";

/** Headers that would act on Tollgate's origin, and framing safeFetch owns. */
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

/** Anything else is an attachment. */
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

export function mediaType(contentType: string | null | undefined): string {
  return (contentType ?? "").split(";", 1)[0].trim().toLowerCase();
}

export function isActiveType(contentType: string | null | undefined): boolean {
  const type = mediaType(contentType);
  if (PASSIVE_TYPES.has(type)) return false;
  if (/^application\/[a-z0-9.!#$&^_-]+\+json$/.test(type)) return false;
  if (/^(audio|video)\/[a-z0-9.!#$&^_+-]+$/.test(type)) return false;
  return true;
}

export function applyRelayHeaders(headers: Headers): Headers {
  headers.set("content-security-policy", RELAY_CSP);
  headers.set("x-content-type-options", "nosniff");
  if (isActiveType(headers.get("content-type"))) headers.set("content-disposition", "attachment");
  return headers;
}

export function withRelayHeaders(res: Response): Response {
  applyRelayHeaders(res.headers);
  return res;
}

export function relayedResponse(answer: { status: number; headers: Record<string, string>; body: Uint8Array }, method: string): Response {
  const out = new Headers();
  for (const [k, v] of Object.entries(answer.headers)) if (!DROPPED_RESPONSE_HEADERS.has(k.toLowerCase())) out.set(k, v);
  applyRelayHeaders(out);
  const noBody = method === "HEAD" || answer.status === 204 || answer.status === 304;
  return new Response(noBody ? null : Buffer.from(answer.body), { status: answer.status, headers: out });
}

/** Before anything else. */
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
