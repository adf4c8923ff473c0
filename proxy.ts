/**
 * Next.js proxy (run before every request but static files): each page gets a fresh script nonce in
 * its Content-Security-Policy (set on the request too, where Next.js reads it and puts the nonce on
 * its own scripts), route handlers get the strict API policy, a server action's body is refused
 * from its headers when too large (413) or undeclared (411), and with a router origin configured
 * that origin serves the router only (lib/security-headers.ts; docs/LIMITS.md "Security headers").
 */
import { NextResponse, type NextRequest } from "next/server";
import { env } from "@/lib/env";
import { BODY_LIMITS, declaredBodyRefusal } from "@/lib/http";
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
  if (request.method !== "GET" && request.method !== "HEAD" && !isApiPath(pathname)) {
    // A server action (a page's form): its body is judged from its headers before Next.js reads a
    // byte, where past the limit it would answer 500 after reading a megabyte.
    const refusal = declaredBodyRefusal(request.headers, BODY_LIMITS.serverAction, "a form (a server action)");
    if (refusal) return NextResponse.json(refusal.toJSON(), { status: refusal.status, headers: { "content-security-policy": API_CSP } });
  }
  if (isApiPath(pathname)) {
    const res = NextResponse.next();
    res.headers.set("content-security-policy", API_CSP);
    return res;
  }
  const csp = pageCsp(newNonce(), { development: process.env.NODE_ENV === "development", httpImages: e.publicOrigin.startsWith("http:") });
  const requestHeaders = new Headers(request.headers);
  requestHeaders.set("content-security-policy", csp);
  const res = NextResponse.next({ request: { headers: requestHeaders } });
  res.headers.set("content-security-policy", csp);
  return res;
}

export const config = {
  // Static files carry no script of their own and are the same for everyone: next.config.mjs's headers only.
  matcher: ["/((?!_next/static|_next/image|favicon.ico|icon.svg).*)"],
};
