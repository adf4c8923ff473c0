/**
 * The relay is an API, not a web page: through the route handler, a seller answering every type a
 * browser could run or render gets each relayed as an inert attachment (sandbox CSP, nosniff), data
 * types stay inline, headers acting on our origin are dropped, a signed-in session without a key is
 * 401, and with a router origin configured the public origin refuses the call (421) and points there.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import * as route from "@/app/router/call/[listing]/[...path]/route";
import { createApiKey } from "@/lib/apikeys";
import { routerCallUrl } from "@/lib/catalog/select";
import { assertRelayOrigin, isActiveType, RELAY_CSP } from "@/lib/router/relay-response";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { createTestListing } from "@/test/ledger";

// A browser's signed-in session, as next-auth would read it from the cookie: the relay must not ask.
const session = vi.hoisted(() => ({ uid: null as string | null, asked: 0 }));
vi.mock("@/lib/auth/session", () => ({
  sessionUserId: async () => {
    session.asked++;
    return session.uid;
  },
}));

const PUBLIC = "http://tollgate.test";
const ROUTER = "http://router.tollgate.test";
const SCRIPT = "<script>fetch('/api/admin/api-keys',{method:'POST'})</script>";

/** path → [Content-Type (null: none sent), body]; what the seller answers. */
const ANSWERS: Record<string, [string | null, string]> = {
  html: ["text/html; charset=utf-8", `<!doctype html><p>hi</p>${SCRIPT}`],
  svg: ["image/svg+xml", `<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`],
  xml: ["application/xml", `<?xml version="1.0"?><x/>`],
  textxml: ["text/xml", `<?xml version="1.0"?><x/>`],
  xhtml: ["application/xhtml+xml", `<html xmlns="http://www.w3.org/1999/xhtml">${SCRIPT}</html>`],
  js: ["text/javascript", "alert(1)"],
  appjs: ["application/javascript", "alert(1)"],
  none: [null, `<html>${SCRIPT}</html>`],
  unknown: ["application/x-tollgate-unknown", `<html>${SCRIPT}</html>`],
  uppercase: ["TEXT/HTML", `<html>${SCRIPT}</html>`],
  pdf: ["application/pdf", "%PDF-1.4"],
  json: ["application/json", `{"ok":true}`],
  vendorjson: ["application/vnd.seller+json", `{"ok":true}`],
  text: ["text/plain; charset=utf-8", "plain words"],
  png: ["image/png", "\x89PNG"],
};
const ACTIVE = ["html", "svg", "xml", "textxml", "xhtml", "js", "appjs", "none", "unknown", "uppercase", "pdf"];
const PASSIVE = ["json", "vendorjson", "text", "png"];

let seller: Server;
let t: TestDatabase;
let slug: string;
let secret: string;
let userId: string;

beforeAll(async () => {
  seller = createServer((req, res) => {
    const name = (req.url ?? "/").slice(1);
    const [type, body] = ANSWERS[name] ?? [null, ""];
    // Headers a seller might use to act on Tollgate's origin, on every answer.
    const headers: Record<string, string> = {
      "set-cookie": "next-auth.session-token=stolen; Path=/",
      "clear-site-data": '"cookies"',
      refresh: "0; url=https://evil.example/",
      "content-security-policy": "script-src *",
      "access-control-allow-origin": "*",
      "access-control-allow-credentials": "true",
      "x-content-type-options": "sniff-please",
      "content-disposition": "inline",
      "x-seller-note": "kept",
    };
    if (type) headers["content-type"] = type;
    res.writeHead(200, headers).end(body);
  });
  await new Promise<void>((r) => seller.listen(0, "127.0.0.1", r));
  process.env.TOLLGATE_PROBE_ALLOW_HOSTS = `127.0.0.1:${(seller.address() as AddressInfo).port}`;
  process.env.TOLLGATE_PUBLIC_URL = PUBLIC;
  process.env.TOLLGATE_ROUTER_ORIGIN = ROUTER;
  t = await createTestDatabase();
  userId = (await t.prisma.user.create({ data: { name: "Admin", role: "admin" } })).id;
  secret = (await createApiKey({ actorId: userId, name: "buyer agent", scopes: ["router:call"] })).secret;
  const id = await createTestListing(t.prisma, {
    baseUrl: `http://127.0.0.1:${(seller.address() as AddressInfo).port}`,
    endpoints: Object.keys(ANSWERS).map((p) => ({ method: "GET", path: `/${p}` })),
  });
  slug = (await t.prisma.listing.findUniqueOrThrow({ where: { id }, select: { slug: true } })).slug;
}, 60_000);
afterAll(async () => {
  await t?.close();
  await new Promise<void>((r) => (seller ? seller.close(() => r()) : r()));
});

/** The route handler as Next would call it, at `origin`. */
const call = (path: string, headers: Record<string, string> = {}, origin = ROUTER, method = "GET") =>
  route[method as "GET"](new Request(`${origin}/router/call/${slug}/${path}`, { method, headers: { host: new URL(origin).host, ...headers } }), {
    params: Promise.resolve({ listing: slug, path: [path] }),
  });

const expectInertHeaders = (res: Response) => {
  expect(res.headers.get("content-security-policy")).toBe(RELAY_CSP);
  expect(res.headers.get("x-content-type-options")).toBe("nosniff");
};

describe("every relayed answer is inert", () => {
  for (const path of ACTIVE) {
    it(`${path} (${ANSWERS[path][0] ?? "no Content-Type"}): sandboxed, nosniff, an attachment`, async () => {
      const res = await call(path, { authorization: `Bearer ${secret}` });
      expect(res.status).toBe(200);
      expectInertHeaders(res);
      expect(res.headers.get("content-disposition")).toBe("attachment");
      expect(await res.text()).toBe(ANSWERS[path][1]);
    });
  }

  for (const path of PASSIVE) {
    it(`${path} (${ANSWERS[path][0]}): sandboxed and nosniff, left inline`, async () => {
      const res = await call(path, { "x-tollgate-key": secret });
      expect(res.status).toBe(200);
      expectInertHeaders(res);
      expect(res.headers.get("content-disposition")).toBe("inline");
      expect(res.headers.get("content-type")).toBe(ANSWERS[path][0]);
    });
  }

  it("headers that would act on Tollgate's origin are dropped; the seller's others are kept", async () => {
    const res = await call("json", { authorization: `Bearer ${secret}` });
    for (const h of ["set-cookie", "clear-site-data", "refresh", "access-control-allow-origin", "access-control-allow-credentials"]) expect(res.headers.get(h), h).toBeNull();
    expect(res.headers.get("x-seller-note")).toBe("kept");
  });

  it("the relay's own errors carry the same headers", async () => {
    const res = await call("nowhere", { authorization: `Bearer ${secret}` });
    expect(res.status).toBe(404);
    expectInertHeaders(res);
  });
});

describe("a session is no authority at the relay", () => {
  it("a signed-in admin without a key: 401 naming the key headers, the session never read, the seller never reached", async () => {
    session.uid = userId;
    const asked = session.asked;
    const res = await call("html", { cookie: "next-auth.session-token=whatever" });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expectInertHeaders(res);
    const body = await res.json();
    expect(body.error.code).toBe("unauthorized");
    expect(body.error.message).toContain("Authorization: Bearer tg_");
    expect(body.error.message).toContain("X-Tollgate-Key");
    expect(session.asked).toBe(asked);
    session.uid = null;
  });
});

describe("the relay's own origin", () => {
  it("on the public origin the call is refused (421) with the router's URL, before the key is read", async () => {
    const res = await call("json", { authorization: "Bearer tg_not_a_key" }, PUBLIC);
    expect(res.status).toBe(421);
    expect(res.headers.get("location")).toBe(`${ROUTER}/router/call/${slug}/json`);
    expectInertHeaders(res);
    const body = await res.json();
    expect(body.error).toMatchObject({ code: "misdirected_request", routerOrigin: ROUTER });
  });

  it("select answers' callUrl name the router's origin", () => {
    expect(routerCallUrl("geo-coder", "/geocode")).toBe(`${ROUTER}/router/call/geo-coder/geocode`);
  });

  it("without a router origin, or one equal to the public origin, nothing is refused", () => {
    const req = new Request(`${PUBLIC}/router/call/x/y`, { headers: { host: "tollgate.test" } });
    expect(() => assertRelayOrigin(req, { publicOrigin: PUBLIC, routerOrigin: null })).not.toThrow();
    expect(() => assertRelayOrigin(req, { publicOrigin: PUBLIC, routerOrigin: PUBLIC })).not.toThrow();
    expect(() => assertRelayOrigin(req, { publicOrigin: PUBLIC, routerOrigin: ROUTER })).toThrow(/router\.tollgate\.test/);
  });
});

describe("isActiveType", () => {
  it("documents and scripts are active; data is not", () => {
    for (const t of ["text/html", "image/svg+xml", "application/xml", "text/xml", "application/xhtml+xml", "text/javascript", "application/ecmascript", "", null, "text/x-whatever", "multipart/x-mixed-replace", "application/pdf", "text/vtt", "image/svg+xml; charset=utf-8"]) expect(isActiveType(t), String(t)).toBe(true);
    for (const t of ["application/json", "application/json; charset=utf-8", "application/ld+json", "text/plain", "text/csv", "image/png", "image/jpeg", "audio/mpeg", "video/mp4", "application/octet-stream"]) expect(isActiveType(t), t).toBe(false);
  });
});
