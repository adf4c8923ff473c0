/**
 * The site's security headers (docs/LIMITS.md "Security headers"). Pure: proxy.ts applies the page policy,
 * next.config.mjs the static ones; the relay has its own.
 */

/** Static files included (next.config.mjs headers()). */
export const STATIC_SECURITY_HEADERS: Record<string, string> = {
  "x-content-type-options": "nosniff",
  "referrer-policy": "same-origin",
  "x-frame-options": "DENY",
  "permissions-policy": "camera=(), microphone=(), geolocation=(), payment=()",
};

/** 16 random bytes, base64. */
export function newNonce(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...bytes));
}

export interface PageCspOptions {
  /** React's dev tools evaluate strings; the hot reloader uses a websocket. */
  development?: boolean;
  /** A local demo: loopback sellers' logos are http images. */
  httpImages?: boolean;
}

/**
 * Scripts only with this nonce ('strict-dynamic' for Next's chunks), style attributes (charts), https images
 * (sellers' logos), own-origin requests, never framed.
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

/** JSON, badges, feeds: nothing loads or runs. */
export const API_CSP = "default-src 'none'; frame-ancestors 'none'";

/** Route handlers: no nonce; API_CSP from next.config.mjs (the relay: its own). */
const API_PREFIXES = ["/api/", "/router/", "/mcp", "/ard", "/badges/", "/discovery/", "/.well-known/", "/ai-catalog.json"];
/** Every API prefix but the relay's. */
export const API_CSP_SOURCES = ["/api/:path*", "/router/select", "/mcp", "/ard", "/ard/:path*", "/badges/:path*", "/discovery/:path*", "/.well-known/:path*", "/ai-catalog.json"];

export function isApiPath(pathname: string): boolean {
  return API_PREFIXES.some((p) => pathname === p.replace(/\/$/, "") || pathname.startsWith(p.endsWith("/") ? p : `${p}/`) || pathname === p);
}

/** Its headers are set by its route. */
export function isRelayPath(pathname: string): boolean {
  return pathname.startsWith("/router/call/") || pathname === "/router/call";
}
