/**
 * Next.js proxy (run before every request but static files): each page gets a fresh script nonce in
 * its Content-Security-Policy (set on the request too, where Next.js reads it and puts the nonce on
 * its own scripts), and with a router origin configured that origin serves the router only
 * (lib/security-headers.ts; docs/LIMITS.md "Security headers"). It runs for requests without a
 * body, and for one with a body only when its path is malformed: for a body Next.js copies it for
 * the proxy (up to 10 MB held) and answers only once it has all arrived, which would undo every route's
 * early refusal (lib/http.ts). A malformed path is refused here with 400 (docs/LIMITS.md "Hostile
 * input"); Next.js itself would answer it 500.
 */
import { NextResponse, type NextRequest } from "next/server";
import { env } from "@/lib/env";
import { malformedPathProblem } from "@/lib/http";
import { API_CSP, isApiPath, isRelayPath, newNonce, pageCsp } from "@/lib/security-headers";

export function proxy(request: NextRequest): NextResponse {
  const { pathname } = request.nextUrl;
  const malformed = malformedPathProblem(pathname);
  if (malformed) {
    // docs/LIMITS.md "Hostile input": Next.js would fail decoding the route's parameters with a 500.
    return NextResponse.json(
      { error: { code: "bad_request", message: `the request path is not a valid URL path: ${malformed.message}`, details: [malformed], reason: "malformed_path" } },
      { status: 400, headers: { "content-security-policy": API_CSP } },
    );
  }
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
    // A request with a body runs the proxy only when its path is certainly malformed: Next.js would hold
    // its body for the proxy, cut to 10 MB. The pattern is "not wholly ASCII or %-escaped UTF-8" (RFC
    // 3629, as decodeURIComponent reads it). Next.js reads config statically, so it is a literal here;
    // app/security-headers.test.ts holds it to malformedPathProblem over every kind of escape.
    {
      source:
        "/((?!(?:[^%]|%[0-7][0-9A-Fa-f]|%[Cc][2-9A-Fa-f]%[89ABab][0-9A-Fa-f]|%[Dd][0-9A-Fa-f]%[89ABab][0-9A-Fa-f]|%[Ee]0%[ABab][0-9A-Fa-f]%[89ABab][0-9A-Fa-f]|%[Ee][1-9A-Ca-cEeFf]%[89ABab][0-9A-Fa-f]%[89ABab][0-9A-Fa-f]|%[Ee][Dd]%[89][0-9A-Fa-f]%[89ABab][0-9A-Fa-f]|%[Ff]0%[9ABab][0-9A-Fa-f]%[89ABab][0-9A-Fa-f]%[89ABab][0-9A-Fa-f]|%[Ff][1-3]%[89ABab][0-9A-Fa-f]%[89ABab][0-9A-Fa-f]%[89ABab][0-9A-Fa-f]|%[Ff]4%8[0-9A-Fa-f]%[89ABab][0-9A-Fa-f]%[89ABab][0-9A-Fa-f])*$).*)",
    },
  ],
};
