/**
 * proxy.ts and next.config.mjs's headers, called as Next.js calls them (e2e/security-headers.spec.ts
 * walks the built server): a page's CSP carries a fresh nonce and no 'unsafe-inline' script, and the
 * request carries the same policy for Next.js to read the nonce from; routes get the API policy; the
 * relay is left to its route; a server action's body past 1 MiB (declared) is 413 and an undeclared
 * one 411 before Next.js reads it; and the router's own origin serves /router/* only.
 */
import { readdirSync } from "node:fs";
import { sep } from "node:path";
import { NextRequest } from "next/server";
import { describe, expect, it } from "vitest";
// @ts-expect-error next.config.mjs is plain JavaScript with a JSDoc type, read here as Next.js reads it.
import nextConfigModule from "@/next.config.mjs";
import type { NextConfig } from "next";
import { createHash } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { actionBodyRefusal, installActionBodyGuard, malformedPathRefusal, refusalAnswer } from "@/lib/action-body-guard";
import { API_CSP, API_CSP_SOURCES, isApiPath, pageCsp, STATIC_SECURITY_HEADERS } from "@/lib/security-headers";
import { proxy } from "@/proxy";

const nextConfig = nextConfigModule as NextConfig;
const ORIGIN = "http://127.0.0.1:3000";
// Read by lib/env.ts on first use (inside proxy()), after this.
process.env.TOLLGATE_PUBLIC_URL = ORIGIN;
process.env.TOLLGATE_ROUTER_ORIGIN = "http://router.tollgate.test";
const req = (path: string, init: { method?: string; headers?: Record<string, string> } = {}) => new NextRequest(`${ORIGIN}${path}`, { method: init.method ?? "GET", headers: { host: "127.0.0.1:3000", ...init.headers } });
/** The request headers the proxy hands on to the page (Next.js's x-middleware-request-* convention). */
const forwarded = (res: Response, name: string) => res.headers.get(`x-middleware-request-${name}`);

describe("pages", () => {
  for (const path of ["/", "/catalog", "/listings/geo-coder", "/dashboard", "/admin/canary", "/signin", "/no-such-page"]) {
    it(`${path}: a nonce'd policy, no 'unsafe-inline' script, never framed; the request carries it too`, () => {
      const res = proxy(req(path));
      const csp = res.headers.get("content-security-policy")!;
      const scriptSrc = csp.split(";").find((d) => d.trim().startsWith("script-src"))!;
      expect(scriptSrc).toMatch(/'nonce-[A-Za-z0-9+/=]{16,}'/);
      expect(scriptSrc).not.toContain("'unsafe-inline'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("object-src 'none'");
      expect(forwarded(res, "content-security-policy")).toBe(csp);
    });
  }

  it("a fresh nonce for every request", () => {
    const nonces = new Set(Array.from({ length: 20 }, () => proxy(req("/catalog")).headers.get("content-security-policy")!.match(/'nonce-([^']+)'/)![1]));
    expect(nonces.size).toBe(20);
  });

  it("the page policy allows no script but its nonce's, and eval only in development", () => {
    expect(pageCsp("n")).not.toContain("unsafe-eval");
    expect(pageCsp("n", { development: true })).toContain("unsafe-eval");
    expect(pageCsp("n")).toContain("connect-src 'self';");
  });
});

describe("routes", () => {
  for (const path of ["/api/listings", "/api/auth/providers", "/router/select", "/mcp", "/ard", "/ard/search", "/badges/x.svg", "/.well-known/tollgate-badge-keys.json", "/ai-catalog.json", "/api/facilitator/supported"]) {
    it(`${path}: a route (its policy is next.config.mjs's), no nonce handed on`, () => {
      expect(isApiPath(path)).toBe(true);
      const res = proxy(req(path));
      expect(res.headers.get("content-security-policy")).toBeNull();
      expect(forwarded(res, "content-security-policy")).toBeNull();
    });
  }

  it("every route handler under app/ is taken for a route, so a new one cannot miss the API policy", () => {
    const handlers = readdirSync("app", { recursive: true, encoding: "utf8" })
      .filter((f) => f.endsWith(`${sep}route.ts`) || f === "route.ts")
      .map((f) => "/" + f.split(sep).slice(0, -1).map((seg) => seg.replace(/^\[+\.*|\]+$/g, "")).join("/"));
    expect(handlers).toContain("/discovery/search");
    for (const path of handlers) expect(isApiPath(path), path).toBe(true);
  });

  it("pages are not taken for routes", () => {
    for (const path of ["/", "/catalog", "/mcpx", "/ardent", "/badgesx", "/listings/mcp", "/admin/api-keys"]) expect(isApiPath(path), path).toBe(false);
  });

  it("the relay's answers keep the route's own sandbox policy", () => {
    const res = proxy(req("/router/call/geo-coder/weather"));
    expect(res.headers.get("content-security-policy")).toBeNull();
  });
});

describe("a path that is not valid %-encoded UTF-8 (lib/action-body-guard.ts)", () => {
  it("is refused with 400 naming the segment, whatever the method, where Next.js would answer 500", () => {
    for (const [url, segment, why] of [
      ["/listings/%FF", 2, "has %-escapes that are not UTF-8"],
      ["/router/call/geo-coder/%C0%80?q=1", 4, "has %-escapes that are not UTF-8"],
      ["/api/endpoints/%E0%A4%A/evidence", 3, "has a % that is not followed by two hex digits"],
      ["/x/%ED%A0%80", 2, "has %-escapes that are not UTF-8"],
    ] as const) {
      const refusal = malformedPathRefusal(url)!;
      expect(refusal.status, url).toBe(400);
      expect(refusal.toJSON().error).toMatchObject({ code: "bad_request", reason: "malformed_path", details: [{ pointer: `/path/${segment}` }] });
      expect(refusal.message).toBe(`the request path is not a valid URL path: path segment ${segment} ("${url.split("/")[segment].split("?")[0]}") ${why}`);
    }
  });

  it("is a plain page for a browser's navigation, the segment escaped", () => {
    const refusal = malformedPathRefusal("/listings/%FF<script>alert(1)<")!;
    const page = refusalAnswer(refusal, "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8");
    expect(page.type).toBe("text/html; charset=utf-8");
    expect(page.body).toContain("<h1>This address is not a valid URL</h1>");
    expect(page.body).toContain("The request path is not a valid URL path: path segment 2 (&#34;%FF&#60;script&#62;alert(1)&#60;&#34;) has %-escapes that are not UTF-8.");
    expect(page.body).not.toContain("<script>");
    // Its one inline style is allowed by hash, nothing else.
    const style = page.body.match(/<style>(.*?)<\/style>/)![1];
    expect(page.csp).toBe(`default-src 'none'; style-src 'sha256-${createHash("sha256").update(style).digest("base64")}'; frame-ancestors 'none'`);
    expect(refusalAnswer(refusal, "application/json").type).toBe("application/json");
    expect(refusalAnswer(refusal, undefined).body).toBe(JSON.stringify(refusal.toJSON()));
  });

  it("lets well-formed escapes, and any query, through", () => {
    for (const url of ["/listings/caf%C3%A9", "/router/call/geo/v1/geo%20code", "/x/%F0%9F%92%A9", "/catalog?search=%FF", "/", "/a/%2F"]) expect(malformedPathRefusal(url), url).toBeNull();
  });

  it("on a server with the guard installed, is answered before the request's body is read", async () => {
    const emit = http.Server.prototype.emit;
    installActionBodyGuard();
    let reached = 0;
    const server = http.createServer((_req, res) => {
      reached++;
      res.end("route");
    });
    await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
    try {
      const { port } = server.address() as AddressInfo;
      // A declared 2 GB body that is never sent: an answer proves nothing waited for it.
      const answer = await new Promise<{ status: number; body: string }>((ok, fail) => {
        const r = http.request({ host: "127.0.0.1", port, method: "POST", path: "/router/call/geo/%FF", headers: { "content-length": String(2 ** 31), "content-type": "application/json" } }, (res) => {
          let body = "";
          res.on("data", (c) => (body += c));
          res.on("end", () => ok({ status: res.statusCode!, body }));
        });
        r.on("error", fail);
        r.write("{");
      });
      expect(answer.status).toBe(400);
      expect(JSON.parse(answer.body).error.reason).toBe("malformed_path");
      const fine = await fetch(`http://127.0.0.1:${port}/listings/caf%C3%A9`);
      expect(await fine.text()).toBe("route");
      expect(reached).toBe(1);
    } finally {
      server.closeAllConnections();
      await new Promise((ok) => server.close(ok));
      http.Server.prototype.emit = emit; // the guard stays for next start only
    }
  });
});

describe("server actions' bodies, judged from their headers (lib/action-body-guard.ts)", () => {
  const action = (headers: Record<string, string>, path = "/admin/listings/x") => actionBodyRefusal("POST", path, { "next-action": "abc", ...headers });

  it("a declared 2 GB form: 413 naming the 1 MiB limit", () => {
    const refusal = action({ "content-length": String(2 ** 31) })!;
    expect(refusal.status).toBe(413);
    expect(refusal.toJSON().error).toMatchObject({ code: "payload_too_large", limitBytes: 1 << 20 });
  });

  it("a chunked form (no length): 411; a malformed length: 400", () => {
    expect(action({ "transfer-encoding": "chunked" })!.status).toBe(411);
    expect(action({ "content-length": "12abc" })!.status).toBe(400);
  });

  it("a form within the limit, a GET, and a route's body (its own limit) pass on", () => {
    expect(action({ "content-length": String(1 << 20) })).toBeNull();
    expect(actionBodyRefusal("GET", "/catalog", {})).toBeNull();
    expect(action({ "content-length": String(2 ** 31) }, "/api/listings")).toBeNull();
    expect(action({ "content-length": String(2 ** 31) }, "/router/call/x/y")).toBeNull();
  });
});

describe("the proxy never runs for a request with a body", () => {
  it("its matcher requires no Content-Length and no Transfer-Encoding (Next.js would hold the body for it)", async () => {
    const { config } = await import("@/proxy");
    expect(config.matcher[0].missing.map((m) => m.key).sort()).toEqual(["content-length", "transfer-encoding"]);
  });
});

describe("next.config.mjs headers", () => {
  it("every answer carries nosniff, the referrer policy, DENY and the permissions policy (lib/security-headers.ts's values)", async () => {
    const rules = await nextConfig.headers!();
    const all = rules.find((r) => r.source === "/:path*")!;
    expect(Object.fromEntries(all.headers.map((h) => [h.key.toLowerCase(), h.value]))).toEqual(STATIC_SECURITY_HEADERS);
  });

  it("every route handler's path but the relay's gets the API policy", async () => {
    const rules = await nextConfig.headers!();
    const api = rules.filter((r) => r.headers.some((h) => h.key === "Content-Security-Policy"));
    expect(api.map((r) => r.source)).toEqual(API_CSP_SOURCES);
    for (const r of api) expect(r.headers).toEqual([{ key: "Content-Security-Policy", value: API_CSP }]);
    expect(api.some((r) => r.source.startsWith("/router/call"))).toBe(false);
  });
});

describe("the router's own origin", () => {
  const there = (path: string) => proxy(new NextRequest(`http://router.tollgate.test${path}`, { headers: { host: "router.tollgate.test" } }));

  it("serves /router/* only: a page or an API there is 404", () => {
    for (const path of ["/", "/catalog", "/admin", "/api/admin/api-keys", "/mcp"]) expect(there(path).status, path).toBe(404);
    expect(there("/router/call/geo-coder/weather").headers.get("x-middleware-next")).toBe("1");
  });
});
