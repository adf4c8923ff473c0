/**
 * The site's security headers (docs/LIMITS.md "Security headers"): the Content-Security-Policy of the
 * app's pages (a fresh script nonce per request, no 'unsafe-inline' script), the strict one of its
 * API answers, and the headers every answer carries. Pure: proxy.ts applies the page policy per
 * request and next.config.mjs the static ones; the relay's answers have their own (lib/router/relay-response.ts).
 */

/** Every answer, static files included (next.config.mjs headers()). */
export const STATIC_SECURITY_HEADERS: Record<string, string> = {
  "x-content-type-options": "nosniff",
  "referrer-policy": "same-origin",
  "x-frame-options": "DENY",
  "permissions-policy": "camera=(), microphone=(), geolocation=(), payment=()",
};

/** A CSP nonce: 16 random bytes, base64. */
export function newNonce(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...bytes));
}

export interface PageCspOptions {
  /** next dev: React's dev tools evaluate strings and the hot reloader talks over a websocket. */
  development?: boolean;
  /** The public origin is plain http (a local demo): listing logos on loopback sellers are http images. */
  httpImages?: boolean;
}

/**
 * The policy of a page: scripts only with this request's nonce (Next.js puts it on its own scripts
 * when it reads it from the request's CSP; 'strict-dynamic' lets those load their chunks), styles
 * from our files and style attributes (charts set them), images from anywhere over https (sellers'
 * logos), requests to our own origin only, no plugin, no <base>, forms to ourselves, never framed.
 */
export function pageCsp(nonce: string, opts: PageCspOptions = {}): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${opts.development ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    `img-src 'self' data: blob: https:${opts.httpImages ? " http:" : ""}`,
    "font-src 'self' data:",
    `connect-src 'self'${opts.development ? " ws: wss:" : ""}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/** The policy of an API answer (JSON, a badge, a feed): nothing loads, nothing runs, never framed. */
export const API_CSP = "default-src 'none'; frame-ancestors 'none'";

/** Paths answered by route handlers, not pages: no nonce, and API_CSP from next.config.mjs (the relay: its own). */
const API_PREFIXES = ["/api/", "/router/", "/mcp", "/ard", "/badges/", "/discovery/", "/.well-known/", "/ai-catalog.json"];
/** next.config.mjs's sources for API_CSP (every API prefix but the relay's). */
export const API_CSP_SOURCES = ["/api/:path*", "/router/select", "/mcp", "/ard", "/ard/:path*", "/badges/:path*", "/discovery/:path*", "/.well-known/:path*", "/ai-catalog.json"];

/** True for a route handler's path (an API, a feed, a badge); false for a page. */
export function isApiPath(pathname: string): boolean {
  return API_PREFIXES.some((p) => pathname === p.replace(/\/$/, "") || pathname.startsWith(p.endsWith("/") ? p : `${p}/`) || pathname === p);
}

/** The relay's own path: its answers carry the relay's headers, set by its route (lib/router/relay-response.ts). */
export function isRelayPath(pathname: string): boolean {
  return pathname.startsWith("/router/call/") || pathname === "/router/call";
}
