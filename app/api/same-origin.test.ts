/**
 * Cookie-authenticated JSON routes refuse what another site can make a browser send with the
 * session cookie (issue #20 item 6): a cross-origin Origin or Sec-Fetch-Site is 403 `cross_origin`,
 * and a JSON route's body in any type but application/json (the text/plain a form or a no-cors fetch
 * sends without a preflight) is 415 `content_type`; nothing changes either way. The same request
 * from the configured public origin with application/json goes through. One helper does it for
 * every route (lib/http.ts assertSameOriginRequest).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { env } from "@/lib/env";
import { seedListing, seedOwner } from "@/test/analyses";
import { fullListing } from "@/test/readiness";
import { createTestDatabase, type TestDatabase } from "@/test/db";

const session = vi.hoisted(() => ({ uid: null as string | null }));
vi.mock("@/lib/auth/session", () => ({ sessionUserId: async () => session.uid }));

import * as listingsRoute from "./listings/route";
import * as listingRoute from "./listings/[id]/route";
import * as publishRoute from "./listings/[id]/publish/route";
import * as reanalyseRoute from "./listings/[id]/reanalyse/route";
import * as analysesRoute from "./analyses/route";
import * as keysRoute from "./admin/api-keys/route";
import * as keyRoute from "./admin/api-keys/[id]/route";

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(() => t?.close());

const ORIGIN = () => env().publicOrigin;
const ctx = (id: string) => ({ params: Promise.resolve({ id }) });

/** How a request arrives: its headers besides the body's. */
const CROSS_SITE: Array<[string, Record<string, string>]> = [
  ["Origin of another site", { origin: "https://evil.example" }],
  ["Origin: null (a sandboxed frame, a file)", { origin: "null" }],
  ["Origin on another port of our host", { origin: ORIGIN().replace(/:(\d+)$/, (_, p) => `:${Number(p) + 1}`) }],
  ["Sec-Fetch-Site: cross-site, no Origin", { "sec-fetch-site": "cross-site" }],
  ["Sec-Fetch-Site: same-site, no Origin", { "sec-fetch-site": "same-site" }],
];

interface Route {
  name: string;
  json: boolean;
  /** Make the world, return a call taking extra headers and a content type, and what proves nothing changed. */
  setup(): Promise<{ call(headers: Record<string, string>, type: string | null): Promise<Response>; changed(): Promise<boolean>; ok: number }>;
}

function req(url: string, method: string, headers: Record<string, string>, type: string | null, body?: string): Request {
  const h = new Headers(headers);
  const init: RequestInit = { method, headers: h };
  if (body !== undefined) {
    init.body = new Blob([body], type ? { type } : {});
    if (!type) h.delete("content-type");
  }
  return new Request(url, init);
}

const ROUTES: Route[] = [
  {
    name: "POST /api/listings",
    json: true,
    async setup() {
      const { user, org } = await seedOwner(t.prisma);
      session.uid = user.id;
      return {
        call: (h, type) => listingsRoute.POST(req("http://test/api/listings", "POST", h, type, JSON.stringify(fullListing({ slug: `so-${Date.now()}` })))),
        changed: async () => (await t.prisma.listing.count({ where: { organizationId: org.id } })) > 0,
        ok: 201,
      };
    },
  },
  {
    name: "PUT /api/listings/:id",
    json: true,
    async setup() {
      const { user, org } = await seedOwner(t.prisma);
      const id = await seedListing(t.prisma, org.id);
      const before = (await t.prisma.listing.findUniqueOrThrow({ where: { id } })).title;
      session.uid = user.id;
      return {
        call: (h, type) => listingRoute.PUT(req(`http://test/api/listings/${id}`, "PUT", h, type, JSON.stringify(fullListing({ title: "Changed by the request" }))), ctx(id)),
        changed: async () => (await t.prisma.listing.findUniqueOrThrow({ where: { id } })).title !== before,
        ok: 200,
      };
    },
  },
  {
    name: "POST /api/listings/:id/publish",
    json: false,
    async setup() {
      const { user, org } = await seedOwner(t.prisma);
      const id = await seedListing(t.prisma, org.id);
      await t.prisma.listing.update({ where: { id }, data: { publicationState: "draft", publishedAt: null } });
      session.uid = user.id;
      return {
        call: (h, type) => publishRoute.POST(req(`http://test/api/listings/${id}/publish`, "POST", h, type, ""), ctx(id)),
        changed: async () => (await t.prisma.listing.findUniqueOrThrow({ where: { id } })).publicationState !== "draft",
        ok: 202,
      };
    },
  },
  {
    name: "POST /api/listings/:id/reanalyse",
    json: false,
    async setup() {
      const { user, org } = await seedOwner(t.prisma);
      const id = await seedListing(t.prisma, org.id);
      session.uid = user.id;
      return {
        call: (h, type) => reanalyseRoute.POST(req(`http://test/api/listings/${id}/reanalyse`, "POST", h, type, ""), ctx(id)),
        changed: async () => (await t.prisma.analysis.count({ where: { listingId: id } })) > 0,
        ok: 202,
      };
    },
  },
  {
    name: "POST /api/analyses",
    json: true,
    async setup() {
      const { user, org } = await seedOwner(t.prisma);
      const id = await seedListing(t.prisma, org.id);
      session.uid = user.id;
      return {
        call: (h, type) => analysesRoute.POST(req("http://test/api/analyses", "POST", h, type, JSON.stringify({ listingId: id }))),
        changed: async () => (await t.prisma.analysis.count({ where: { listingId: id } })) > 0,
        ok: 202,
      };
    },
  },
  {
    name: "POST /api/admin/api-keys",
    json: true,
    async setup() {
      const { user } = await seedOwner(t.prisma, "admin");
      const name = `so-key-${Math.random().toString(36).slice(2)}`;
      session.uid = user.id;
      return {
        call: (h, type) => keysRoute.POST(req("http://test/api/admin/api-keys", "POST", h, type, JSON.stringify({ name, scopes: ["router:select"] }))),
        changed: async () => (await t.prisma.apiKey.count({ where: { name } })) > 0,
        ok: 201,
      };
    },
  },
  {
    name: "DELETE /api/admin/api-keys/:id",
    json: false,
    async setup() {
      const { user } = await seedOwner(t.prisma, "admin");
      session.uid = user.id;
      const created = await keysRoute.POST(req("http://test/api/admin/api-keys", "POST", {}, "application/json", JSON.stringify({ name: `so-del-${Math.random().toString(36).slice(2)}`, scopes: ["router:select"] })));
      const { id } = (await created.json()) as { id: string };
      return {
        call: (h, type) => keyRoute.DELETE(req(`http://test/api/admin/api-keys/${id}`, "DELETE", h, type), ctx(id)),
        changed: async () => (await t.prisma.apiKey.findUniqueOrThrow({ where: { id } })).revokedAt !== null,
        ok: 200,
      };
    },
  },
];

describe("cookie-authenticated routes refuse cross-origin requests and non-JSON bodies", () => {
  for (const route of ROUTES) {
    describe(route.name, () => {
      for (const [how, headers] of CROSS_SITE) {
        it(`${how}: 403 cross_origin, nothing changed`, async () => {
          const w = await route.setup();
          const res = await w.call(headers, route.json ? "text/plain" : null);
          expect(res.status).toBe(403);
          expect((await res.json()).error).toMatchObject({ code: "forbidden", reason: "cross_origin" });
          expect(await w.changed()).toBe(false);
        });
      }

      if (route.json) {
        for (const type of ["text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", null]) {
          it(`same origin, Content-Type ${type ?? "(none)"}: 415 content_type, nothing changed`, async () => {
            const w = await route.setup();
            const res = await w.call({ origin: ORIGIN(), "sec-fetch-site": "same-origin" }, type);
            expect(res.status).toBe(415);
            expect((await res.json()).error).toMatchObject({ code: "unsupported_media_type", reason: "content_type" });
            expect(await w.changed()).toBe(false);
          });
        }
      }

      it(`same origin${route.json ? " with application/json" : ""}: ${"accepted"}`, async () => {
        const w = await route.setup();
        const res = await w.call({ origin: ORIGIN(), "sec-fetch-site": "same-origin" }, route.json ? "application/json; charset=utf-8" : null);
        expect(res.status, JSON.stringify(await res.clone().json())).toBe(w.ok);
        expect(await w.changed()).toBe(true);
      });

      it("no Origin and no Sec-Fetch-Site (curl, a script): accepted", async () => {
        const w = await route.setup();
        const res = await w.call({}, route.json ? "application/json" : null);
        expect(res.status).toBe(w.ok);
      });
    });
  }
});
