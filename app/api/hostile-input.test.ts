/**
 * Hostile but well-formed input over every route (the facilitator's own table is its own): NUL and
 * lone surrogates wherever text is accepted (bodies, field names, path segments, queries), bodies
 * that are not JSON, wrong shapes and declared oversize bodies. Every answer is a 4xx, the text
 * cases name the field, and not one is a 5xx. Then the rate limits of /mcp and /api/badges/verify
 * (429 with Retry-After, before the body), and the moderators' actions checking the role first.
 * Only the session is stubbed (a test request has no cookie); handlers, database and keys are real.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createApiKey } from "@/lib/apikeys";
import { configureLimits, restoreLimits } from "@/lib/limits";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { createTestListing } from "@/test/ledger";
import { seedOwner } from "@/test/analyses";
import * as apiKeys from "@/app/api/admin/api-keys/route";
import * as apiKey from "@/app/api/admin/api-keys/[id]/route";
import * as analyses from "@/app/api/analyses/route";
import * as analysis from "@/app/api/analyses/[id]/route";
import * as listings from "@/app/api/listings/route";
import * as listing from "@/app/api/listings/[id]/route";
import * as publish from "@/app/api/listings/[id]/publish/route";
import * as reanalyse from "@/app/api/listings/[id]/reanalyse/route";
import * as badgeStatus from "@/app/api/badges/status/route";
import * as badgeVerify from "@/app/api/badges/verify/route";
import * as badge from "@/app/badges/[listing]/route";
import * as ard from "@/app/ard/route";
import * as ardSearch from "@/app/ard/search/route";
import * as aiCatalog from "@/app/ai-catalog.json/route";
import * as mcp from "@/app/mcp/route";
import * as select from "@/app/router/select/route";
import * as call from "@/app/router/call/[listing]/[...path]/route";
import * as siweNonce from "@/app/api/auth/siwe-nonce/route";
import * as leases from "@/app/api/ops/leases/route";
import * as leaseFail from "@/app/api/ops/leases/[id]/fail/route";
import * as leaseHeartbeat from "@/app/api/ops/leases/[id]/heartbeat/route";
import * as leaseComplete from "@/app/api/ops/leases/[id]/complete/route";
import * as metrics from "@/app/api/ops/metrics/route";

const session = vi.hoisted(() => ({ uid: null as string | null }));
vi.mock("@/lib/auth/session", () => ({ sessionUserId: async () => session.uid }));
// The moderators' actions answer through next/navigation's forbidden() and unauthorized(): seen here as throws.
vi.mock("next/navigation", () => ({
  forbidden: () => {
    throw new Error("NEXT_FORBIDDEN");
  },
  unauthorized: () => {
    throw new Error("NEXT_UNAUTHORIZED");
  },
  redirect: (to: string) => {
    throw new Error(`NEXT_REDIRECT ${to}`);
  },
  notFound: () => {
    throw new Error("NEXT_NOT_FOUND");
  },
}));
vi.mock("next/cache", () => ({ revalidatePath: () => {} }));

const ORIGIN = "http://127.0.0.1:3000";
const WORKER_TOKEN = "hostile-input-worker-token-0123456789";
const NUL = "a\u0000b";
const LONE = "a\ud800b";
const LOW = "\udc00";

let t: TestDatabase;
let sellerId: string;
let adminId: string;
let listingId: string;
let slug: string;
let selectKey: string;
let callKey: string;

beforeAll(async () => {
  process.env.TOLLGATE_WORKER_TOKEN = WORKER_TOKEN;
  t = await createTestDatabase();
  const owner = await seedOwner(t.prisma);
  sellerId = owner.user.id;
  adminId = (await t.prisma.user.create({ data: { name: "Admin", role: "admin" } })).id;
  selectKey = (await createApiKey({ actorId: adminId, name: "select", scopes: ["router:select"] })).secret;
  callKey = (await createApiKey({ actorId: adminId, name: "call", scopes: ["router:call"] })).secret;
  listingId = await createTestListing(t.prisma, { organizationId: owner.org.id });
  slug = (await t.prisma.listing.findUniqueOrThrow({ where: { id: listingId } })).slug;
});
afterAll(async () => {
  await t?.close();
});

type Handler = (req: Request, ctx: { params: Promise<Record<string, unknown>> }) => Promise<Response>;
interface Case {
  name: string;
  handler: unknown;
  method?: string;
  path: string;
  /** The JSON body as text (so that "\u0000" escapes reach the parser as JSON would carry them), or raw. */
  body?: string;
  headers?: Record<string, string>;
  params?: Record<string, unknown>;
  as?: "seller" | "admin" | null;
  /** What the answer must name (a field, a pointer, a header). */
  names?: string | RegExp;
  /** The exact status, when it is one. */
  status?: number;
  /** Any answer but a 5xx is right (a verdict, an ignored parameter, text a URL cannot carry). */
  anyStatus?: boolean;
}

const json = (v: unknown) => JSON.stringify(v);
/** In a URL: NUL as %00; a lone surrogate has no UTF-8 form, so its CESU-8 bytes (which decode to U+FFFD). */
const q = (bad: string) => [...bad].map((ch) => (ch === "\u0000" ? "%00" : /[\ud800-\udfff]/.test(ch) ? "%ED%A0%80" : encodeURIComponent(ch))).join("");
const sameOrigin = { origin: ORIGIN, "content-type": "application/json" };
/** The keys are made in beforeAll, after the table is built: send() puts them in for these names. */
const bearer = (k: "$SELECT" | "$CALL") => ({ authorization: `Bearer ${k}`, "content-type": "application/json" });
const worker = { authorization: `Bearer ${WORKER_TOKEN}`, "content-type": "application/json" };
const mcpHeaders = () => ({ ...bearer("$SELECT"), accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" });
const tool = (name: string, args: unknown) => json({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } });

function cases(): Case[] {
  const out: Case[] = [];
  for (const [label, bad] of [
    ["NUL", NUL],
    ["lone high surrogate", LONE],
    ["lone low surrogate", LOW],
  ] as const) {
    out.push(
      { name: `select task with a ${label}`, handler: select.POST, path: "/router/select", body: json({ task: bad }), headers: bearer("$SELECT"), names: "/task", status: 400 },
      { name: `select filters.network with a ${label}`, handler: select.POST, path: "/router/select", body: json({ task: "weather", filters: { network: bad } }), headers: bearer("$SELECT"), names: "/filters/network", status: 400 },
      { name: `select with a ${label} in a field name`, handler: select.POST, path: "/router/select", body: json({ task: "weather", [bad]: 1 }), headers: bearer("$SELECT"), names: "field name", status: 400 },
      { name: `API key name with a ${label}`, handler: apiKeys.POST, path: "/api/admin/api-keys", body: json({ name: bad, scopes: ["router:call"] }), headers: sameOrigin, as: "admin", names: "/name", status: 400 },
      { name: `API key scope with a ${label}`, handler: apiKeys.POST, path: "/api/admin/api-keys", body: json({ name: "k", scopes: [bad] }), headers: sameOrigin, as: "admin", names: "/scopes/0", status: 400 },
      { name: `analysis url with a ${label}`, handler: analyses.POST, path: "/api/analyses", body: json({ url: `https://api.example.com/${bad}` }), headers: sameOrigin, as: "seller", names: "/url", status: 400 },
      { name: `analysis listingId with a ${label}`, handler: analyses.POST, path: "/api/analyses", body: json({ listingId: bad }), headers: sameOrigin, as: "seller", names: "/listingId", status: 400 },
      { name: `listing document title with a ${label}`, handler: listings.POST, path: "/api/listings", body: json({ title: bad }), headers: sameOrigin, as: "seller", names: "/title" },
      { name: `listing PUT with a ${label}`, handler: listing.PUT, method: "PUT", path: `/api/listings/x`, params: { id: listingId }, body: json({ title: bad }), headers: sameOrigin, as: "seller", names: "/title" },
      { name: `badge verify envelope with a ${label}`, handler: badgeVerify.POST, path: "/api/badges/verify", body: json({ payload: bad, payloadType: "x", signatures: [] }), headers: { "content-type": "application/json" }, anyStatus: true },
      { name: `MCP search_catalog query with a ${label}`, handler: mcp.POST, path: "/mcp", body: tool("search_catalog", { query: bad }), headers: mcpHeaders(), names: "query", status: 400 },
      { name: `MCP select_services task with a ${label}`, handler: mcp.POST, path: "/mcp", body: tool("select_services", { task: bad }), headers: mcpHeaders(), names: "task", status: 400 },
      { name: `ops claim with a ${label}`, handler: leases.POST, path: "/api/ops/leases", body: json({ workerId: bad }), headers: worker, names: "/workerId" },
      // Path segments and queries.
      { name: `listing id (path) with a ${label}`, handler: listing.GET, method: "GET", path: "/api/listings/x", params: { id: bad }, as: "seller", names: "id" },
      { name: `publish id (path) with a ${label}`, handler: publish.POST, path: "/api/listings/x/publish", params: { id: bad }, headers: { origin: ORIGIN }, as: "seller", names: "id" },
      { name: `reanalyse id (path) with a ${label}`, handler: reanalyse.POST, path: "/api/listings/x/reanalyse", params: { id: bad }, headers: { origin: ORIGIN }, as: "seller", names: "id" },
      { name: `analysis id (path) with a ${label}`, handler: analysis.GET, method: "GET", path: "/api/analyses/x", params: { id: bad }, as: "seller", names: "id" },
      { name: `API key id (path) with a ${label}`, handler: apiKey.DELETE, method: "DELETE", path: "/api/admin/api-keys/x", params: { id: bad }, headers: { origin: ORIGIN }, as: "admin", names: "id" },
      { name: `ops lease id (path) with a ${label}`, handler: leaseFail.POST, path: "/api/ops/leases/x/fail", params: { id: bad }, body: json({ error: "x" }), headers: worker, names: "id" },
      { name: `ops heartbeat id (path) with a ${label}`, handler: leaseHeartbeat.POST, path: "/api/ops/leases/x/heartbeat", params: { id: bad }, body: json({}), headers: worker, names: "id" },
      { name: `ops complete id (path) with a ${label}`, handler: leaseComplete.POST, path: "/api/ops/leases/x/complete", params: { id: bad }, body: json({}), headers: worker, names: "id" },
      { name: `badge listing (path) with a ${label}`, handler: badge.GET, method: "GET", path: "/badges/x.svg", params: { listing: `${bad}.svg` }, names: "listing" },
      { name: `relay listing (path) with a ${label}`, handler: call.GET, method: "GET", path: "/router/call/x/y", params: { listing: bad, path: ["weather"] }, headers: bearer("$CALL"), names: "listing" },
      { name: `relay path with a ${label}`, handler: call.GET, method: "GET", path: "/router/call/x/y", params: { listing: "$SLUG", path: [bad] }, headers: bearer("$CALL"), names: "/params/path/0" },
      { name: `ard search q with a ${label}`, handler: ardSearch.GET, method: "GET", path: `/ard/search?q=${q(bad)}`, ...(bad === NUL ? { names: "/q", status: 400 } : { anyStatus: true }) },
      { name: `badge status listingId with a ${label}`, handler: badgeStatus.GET, method: "GET", path: `/api/badges/status?listingId=${q(bad)}`, ...(bad === NUL ? { names: "listingId" } : { anyStatus: true }) },
    );
  }
  // Shapes that are not the route's.
  for (const [label, body] of [
    ["not JSON", "{"],
    ["empty", ""],
    ["an array", "[]"],
    ["null", "null"],
    ["a string", '"x"'],
    ["deeply nested", "[".repeat(5000) + "]".repeat(5000)],
  ] as const) {
    out.push(
      { name: `select: ${label}`, handler: select.POST, path: "/router/select", body, headers: bearer("$SELECT") },
      { name: `API keys: ${label}`, handler: apiKeys.POST, path: "/api/admin/api-keys", body, headers: sameOrigin, as: "admin" },
      { name: `analyses: ${label}`, handler: analyses.POST, path: "/api/analyses", body, headers: sameOrigin, as: "seller" },
      { name: `listings: ${label}`, handler: listings.POST, path: "/api/listings", body, headers: sameOrigin, as: "seller" },
      { name: `badge verify: ${label}`, handler: badgeVerify.POST, path: "/api/badges/verify", body, headers: { "content-type": "application/json" } },
      { name: `MCP: ${label}`, handler: mcp.POST, path: "/mcp", body, headers: mcpHeaders(), anyStatus: true },
      { name: `ops claim: ${label}`, handler: leases.POST, path: "/api/ops/leases", body, headers: worker },
    );
  }
  // A declared body far past the limit, of which nothing is sent: refused from the header alone.
  for (const [name, handler, path, headers, as] of [
    ["select", select.POST, "/router/select", bearer("$SELECT"), null],
    ["API keys", apiKeys.POST, "/api/admin/api-keys", sameOrigin, "admin"],
    ["analyses", analyses.POST, "/api/analyses", sameOrigin, "seller"],
    ["listings", listings.POST, "/api/listings", sameOrigin, "seller"],
    ["badge verify", badgeVerify.POST, "/api/badges/verify", { "content-type": "application/json" }, null],
    ["MCP", mcp.POST, "/mcp", mcpHeaders(), null],
    ["ops claim", leases.POST, "/api/ops/leases", worker, null],
    ["relay", call.POST, "/router/call/x/run", bearer("$CALL"), null],
  ] as const) {
    out.push({ name: `${name}: Content-Length of 2 GB`, handler, path, body: "{}", headers: { ...headers, "content-length": String(2 ** 31) }, as, params: { listing: "$SLUG", path: ["run"] }, status: 413, names: "limit" });
  }
  // Query strings.
  out.push(
    { name: "ard search: a limit that is not a number", handler: ardSearch.GET, method: "GET", path: "/ard/search?q=x&limit=%00", names: "limit" },
    { name: "ard feed: a hostile cursor", handler: ard.GET, method: "GET", path: `/ard?cursor=${q(NUL)}` },
    { name: "ai-catalog: a hostile query", handler: aiCatalog.GET, method: "GET", path: `/ai-catalog.json?cursor=${q(LONE)}` },
    { name: "siwe nonce: a hostile query", handler: siweNonce.GET, method: "GET", path: `/api/auth/siwe-nonce?address=${q(NUL)}`, anyStatus: true },
    { name: "ops metrics: a hostile token", handler: metrics.GET, method: "GET", path: "/api/ops/metrics", headers: { authorization: `Bearer ${NUL}` } },
  );
  return out;
}

async function send(c: Case): Promise<Response> {
  session.uid = c.as === "admin" ? adminId : c.as === "seller" ? sellerId : null;
  const method = c.method ?? "POST";
  // Headers cannot carry NUL: a case putting one there is answered by the fetch layer, not the route.
  let headers: Headers;
  try {
    headers = new Headers(Object.entries(c.headers ?? {}).map(([k, v]): [string, string] => [k, v.replace("$SELECT", selectKey).replace("$CALL", callKey)]));
  } catch {
    return new Response(null, { status: 400 });
  }
  const req = new Request(`${ORIGIN}${c.path}`, { method, headers, body: method === "GET" || method === "DELETE" || c.body === undefined ? undefined : c.body });
  try {
    const params = Object.fromEntries(Object.entries(c.params ?? {}).map(([k, v]) => [k, v === "$SLUG" ? slug : v]));
    return await (c.handler as Handler)(req, { params: Promise.resolve(params) });
  } finally {
    session.uid = null;
  }
}

describe("hostile input: a 4xx naming the field, never a 5xx", () => {
  const all = cases();
  it("covers every route but the facilitator's", () => {
    expect(all.length).toBeGreaterThan(100);
  });
  for (const c of all) {
    it(c.name, async () => {
      const res = await send(c);
      const text = await res.text();
      expect(res.status, `${c.name}: ${text.slice(0, 300)}`).toBeLessThan(500);
      if (c.anyStatus) return;
      expect(res.status, `${c.name}: ${text.slice(0, 300)}`).toBeGreaterThanOrEqual(400);
      if (c.status) expect(res.status, text.slice(0, 300)).toBe(c.status);
      if (c.names) expect(text).toMatch(typeof c.names === "string" ? new RegExp(c.names.replace(/[/.*+?^${}()|[\]\\]/g, "\\$&")) : c.names);
    });
  }
});

describe("rate limits: 429 with Retry-After, before the body", () => {
  for (const [name, action, send1] of [
    ["/mcp", "mcp", () => mcp.POST(new Request(`${ORIGIN}/mcp`, { method: "POST", headers: { ...mcpHeaders(), "x-forwarded-for": "203.0.113.7" }, body: "{" }))],
    ["/api/badges/verify", "badgeVerify", () => badgeVerify.POST(new Request(`${ORIGIN}/api/badges/verify`, { method: "POST", headers: { "content-type": "application/json", "x-forwarded-for": "203.0.113.8" }, body: "{" }))],
  ] as const) {
    it(`${name}: 3 per address a minute, the 4th is 429 naming the limit; another address still passes`, async () => {
      const previous = configureLimits({ rates: { [action]: { max: 3, windowSeconds: 60 } } });
      try {
        const statuses: number[] = [];
        for (let i = 0; i < 4; i++) statuses.push((await send1()).status);
        expect(statuses.slice(0, 3).every((s) => s === 400)).toBe(true);
        const refused = await send1();
        expect(refused.status).toBe(429);
        expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
        expect((await refused.json()).error).toMatchObject({ code: "rate_limited", limit: action, max: 3 });
        expect(statuses[3]).toBe(429);
      } finally {
        restoreLimits(previous);
      }
    });
  }

  it("the deployment's ceilings hold whatever address a client claims", async () => {
    const previous = configureLimits({ rates: { mcpAll: { max: 2, windowSeconds: 60 }, badgeVerifyAll: { max: 2, windowSeconds: 60 } } });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) {
        const res = await mcp.POST(new Request(`${ORIGIN}/mcp`, { method: "POST", headers: { ...mcpHeaders(), "x-forwarded-for": `198.51.100.${i}` }, body: "{" }));
        statuses.push(res.status);
      }
      expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(2);
    } finally {
      restoreLimits(previous);
    }
  });
});

describe("the moderators' actions check the role before the form", () => {
  it("a seller sending the canary action a bogus lever is refused 403, not told about the field", async () => {
    const { canaryAction, setFeaturedAction, setCurationAction } = await import("@/lib/surfaces/admin-actions");
    session.uid = sellerId;
    try {
      const form = new FormData();
      form.set("canary", NUL);
      form.set("level", LONE);
      form.set("tier", "x");
      form.set("reason", "");
      await expect(canaryAction(listingId, { status: "idle" }, form)).rejects.toThrow("NEXT_FORBIDDEN");
      await expect(setFeaturedAction(listingId, { status: "idle" }, form)).rejects.toThrow("NEXT_FORBIDDEN");
      await expect(setCurationAction(listingId, { status: "idle" }, form)).rejects.toThrow("NEXT_FORBIDDEN");
      session.uid = null;
      await expect(canaryAction(listingId, { status: "idle" }, form)).rejects.toThrow("NEXT_UNAUTHORIZED");
    } finally {
      session.uid = null;
    }
  });
});

describe("the seller's actions answer hostile text with a result naming it, never an internal error", () => {
  it("a URL to draft, a document to save or validate, a price note: NUL and lone surrogates", async () => {
    const { draftFromUrlAction, saveListingAction, validateListingAction } = await import("@/lib/surfaces/seller-actions");
    session.uid = sellerId;
    try {
      for (const bad of [NUL, LONE, LOW]) {
        // A URL percent-encodes what it carries; the loopback target is refused before any request.
        const drafted = await draftFromUrlAction(`http://127.0.0.1:9/${bad}`);
        expect(drafted.ok).toBe(false);
        if (!drafted.ok) expect(drafted.code, JSON.stringify(drafted)).not.toBe("internal");
        const raw = await draftFromUrlAction(bad);
        expect(raw.ok).toBe(false);
        if (!raw.ok) expect(raw.code, JSON.stringify(raw)).not.toBe("internal");
        const saved = await saveListingAction({ document: { title: bad }, intent: "draft" });
        expect(saved.ok).toBe(false);
        if (!saved.ok) {
          expect(saved.code).not.toBe("internal");
          expect(saved.errors.map((e) => e.pointer)).toContain("/title");
        }
        const note = await saveListingAction({ listingId, document: { title: "x" }, intent: "draft", priceChangeNote: bad });
        expect(note.ok).toBe(false);
        if (!note.ok) expect(note.code).not.toBe("internal");
        expect((await validateListingAction({ title: bad })).map((e) => e.pointer)).toContain("/title");
      }
    } finally {
      session.uid = null;
    }
  });
});
