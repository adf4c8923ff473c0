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
import { actionBodyRefusal } from "@/lib/action-body-guard";
import { malformedPathProblem } from "@/lib/http";
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

describe("the proxy never runs for a request with a body unless its path is malformed", () => {
  it("its first matcher requires no Content-Length and no Transfer-Encoding (Next.js would hold the body for it)", async () => {
    const { config } = await import("@/proxy");
    expect(config.matcher[0].missing!.map((m) => m.key).sort()).toEqual(["content-length", "transfer-encoding"]);
  });

  it("its second matcher takes exactly the paths malformedPathProblem refuses: every kind of escape, and random bytes", async () => {
    const { config } = await import("@/proxy");
    expect(config.matcher).toHaveLength(2);
    const second = config.matcher[1];
    expect(Object.keys(second)).toEqual(["source"]);
    const candidate = new RegExp(`^${second.source}$`);
    const agree = (p: string) => expect(candidate.test(p), p).toBe(malformedPathProblem(p) !== null);
    const hex = (b: number) => `%${b.toString(16).toUpperCase().padStart(2, "0")}`;
    for (const p of ["/router/call/%FF/x", "/router/call/geo/%C0%80", "/api/listings/%E0%A4%A", "/mcp%", "/a/%zz", "/a/%4", "/a%2/b", "/x/%ED%A0%80", "/x/%F4%90%80%80", "/x/%80", "/x/%E2%82"]) {
      expect(malformedPathProblem(p), p).not.toBeNull();
      agree(p);
    }
    for (const p of ["/router/call/geo/v1/geo%20code", "/router/call/geo/a%2Fb", "/router/select", "/listings/caf%C3%A9", "/x/%e2%82%ac", "/x/%F0%9F%92%A9", "/x/%EF%BF%BF", "/x/%F4%8F%BF%BF"]) {
      expect(malformedPathProblem(p), p).toBeNull();
      agree(p);
    }
    // Every one- and two-byte escape, and every lead byte before each continuation pair.
    for (let a = 0; a < 256; a++) {
      agree(`/x/${hex(a)}`);
      for (let b = 0; b < 256; b += 1) agree(`/x/${hex(a)}${hex(b)}`);
      if (a >= 0xe0) for (const b of [0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0]) for (const c of [0x7f, 0x80, 0xbf, 0xc0]) agree(`/x/${hex(a)}${hex(b)}${hex(c)}%80`);
    }
    // UTF-8 of random code points, cut or corrupted at random (seeded).
    let seed = 7;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n);
    for (let i = 0; i < 3000; i++) {
      const bytes = [...Buffer.from(String.fromCodePoint(rand(0x10ffff) & ~(rand(2) ? 0 : 0x7ff) || 65).repeat(1 + rand(2)), "utf8")];
      if (rand(3) === 0) bytes.splice(rand(bytes.length), 1);
      if (rand(4) === 0) bytes[rand(bytes.length)] = rand(256);
      agree(`/r/${bytes.map(hex).join("")}/end`);
    }
  });
});

describe("a malformed path", () => {
  it("is refused with 400 and names the segment, before Next.js fails decoding it (a 500)", async () => {
    for (const [path, segment] of [["/listings/%FF", 2], ["/router/call/geo-coder/%C0%80", 4], ["/api/endpoints/%E0%A4%A/evidence", 3]] as const) {
      const res = proxy(req(path));
      expect(res.status, path).toBe(400);
      expect(res.headers.get("content-security-policy")).toBe(API_CSP);
      const body = await res.json();
      expect(body.error).toMatchObject({ code: "bad_request", reason: "malformed_path", details: [{ pointer: `/path/${segment}` }] });
      expect(body.error.message).toContain(`path segment ${segment} (`);
    }
    expect(proxy(req("/listings/caf%C3%A9")).status).toBe(200);
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
