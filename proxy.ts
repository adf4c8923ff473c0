/**
 * Next.js proxy (run before every request but static files): each page gets a fresh script nonce in
 * its Content-Security-Policy (set on the request too, where Next.js reads it and puts the nonce on
 * its own scripts), and with a router origin configured that origin serves the router only
 * (lib/security-headers.ts; docs/LIMITS.md "Security headers"). It runs only for requests without
 * a body: for one with a body Next.js copies the body for the proxy (up to 10 MB held) and answers
 * only once it has all arrived, which would undo every route's early refusal (lib/http.ts).
 */
import { NextResponse, type NextRequest } from "next/server";
import { env } from "@/lib/env";
import { API_CSP, isApiPath, isRelayPath, newNonce, pageCsp } from "@/lib/security-headers";

export function proxy(request: NextRequest): NextResponse {
  const { pathname } = request.nextUrl;
  const e = env();
  if (e.routerOrigin && e.routerOrigin !== e.publicOrigin && request.headers.get("host")?.toLowerCase() === new URL(e.routerOrigin).host && !pathname.startsWith("/router/")) {
    // The router's origin holds sellers' relayed content: none of the app's pages or APIs answer there.
    return NextResponse.json({ error: { code: "not_found", message: `${e.routerOrigin} serves /router/* only; the catalog is at ${e.publicOrigin}` } }, { status: 404, headers: { "content-security-policy": API_CSP } });
  }
  // The relay's route sets its own sandbox policy on every answer (lib/router/relay-response.ts).
  if (isRelayPath(pathname)) return NextResponse.next();
  // Route handlers' policy is next.config.mjs's (a static header: no nonce to make).
  if (isApiPath(pathname)) return NextResponse.next();
  const csp = pageCsp(newNonce(), { development: process.env.NODE_ENV === "development", httpImages: e.publicOrigin.startsWith("http:") });
  const requestHeaders = new Headers(request.headers);
  requestHeaders.set("content-security-policy", csp);
  const res = NextResponse.next({ request: { headers: requestHeaders } });
  res.headers.set("content-security-policy", csp);
  return res;
}

export const config = {
  matcher: [
    {
      // Static files carry no script of their own and are the same for everyone: next.config.mjs's headers only.
      source: "/((?!_next/static|_next/image|favicon.ico|icon.svg).*)",
      // No body (see the header): pages are GETs; a POST's answer (a server action's) is data, not a page.
      missing: [
        { type: "header", key: "content-length" },
        { type: "header", key: "transfer-encoding" },
      ],
    },
  ],
};
