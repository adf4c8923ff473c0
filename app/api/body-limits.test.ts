/**
 * The bounded body read (lib/http.ts) over a real loopback HTTP server: a 200 MB POST is streamed at
 * the routes, with and without Content-Length, anonymous and signed in, and the process's memory is
 * sampled while it is refused. An anonymous one is answered 401 before a byte is read; a signed-in
 * one 413 after at most the route's limit (1 MiB for a listing document, the relay's 10 MB for a
 * buyer's call). Only the session is stubbed (there is no request cookie in a test); the routes, the
 * database and the HTTP server are real.
 */
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createApiKey } from "@/lib/apikeys";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { createTestListing } from "@/test/ledger";
import { seedOwner } from "@/test/analyses";
import { serveRoutes, type RouteHandler, type RouteServer } from "@/test/route-server";
import * as listingsRoute from "./listings/route";
import * as callRoute from "@/app/router/call/[listing]/[...path]/route";

const session = vi.hoisted(() => ({ uid: null as string | null }));
vi.mock("@/lib/auth/session", () => ({ sessionUserId: async () => session.uid }));

const MB = 1 << 20;
const TOTAL = 200 * MB;
const CHUNK = 64 << 10;

let t: TestDatabase;
let server: RouteServer;
let sellerId: string;
let apiKey: string;
let slug: string;
/** Bytes each route's handler pulled from the request body, reset per upload. */
const read = { bytes: 0 };

/** The handler, with the bytes it pulls from the body counted on the way. */
function counted(handler: RouteHandler): RouteHandler {
  return (req) => {
    if (!req.body) return handler(req);
    const counter = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        read.bytes += chunk.byteLength;
        controller.enqueue(chunk);
      },
    });
    return handler(new Request(req.url, { method: req.method, headers: req.headers, body: req.body.pipeThrough(counter), duplex: "half" } as RequestInit));
  };
}

beforeAll(async () => {
  t = await createTestDatabase();
  sellerId = (await seedOwner(t.prisma)).user.id;
  const admin = (await t.prisma.user.create({ data: { name: "Admin", role: "admin" } })).id;
  apiKey = (await createApiKey({ actorId: admin, name: "body limits", scopes: ["router:call"] })).secret;
  const listingId = await createTestListing(t.prisma);
  slug = (await t.prisma.listing.findUniqueOrThrow({ where: { id: listingId } })).slug;
  server = await serveRoutes({
    "POST /api/listings": counted((req) => listingsRoute.POST(req)),
    "ANY /router/call/*": counted((req) => {
      const [listing, ...path] = new URL(req.url).pathname.split("/").slice(3);
      return callRoute.POST(req, { params: Promise.resolve({ listing, path }) });
    }),
  });
}, 60_000);
afterAll(async () => {
  await server?.close();
  await t?.close();
});

interface Upload {
  status: number;
  body: { error?: { code: string; message: string; limitBytes?: number } };
  /** Bytes the client had written when the answer came. */
  sent: number;
  /** The most the process's resident memory grew by, while the upload ran. */
  rssGrowth: number;
  heapGrowth: number;
}

/** Stream `TOTAL` bytes of JSON-ish filler at `path`, from one reused buffer, until the server answers. */
function upload(path: string, opts: { declare: boolean; headers?: Record<string, string> }): Promise<Upload> {
  read.bytes = 0;
  const chunk = Buffer.alloc(CHUNK, 0x20);
  const base = process.memoryUsage();
  let peakRss = base.rss;
  let peakHeap = base.heapUsed;
  const sample = setInterval(() => {
    const m = process.memoryUsage();
    peakRss = Math.max(peakRss, m.rss);
    peakHeap = Math.max(peakHeap, m.heapUsed);
  }, 2);
  return new Promise<Upload>((resolve, reject) => {
    let sent = 0;
    let answered = false;
    const req = http.request(`${server.origin}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(opts.declare ? { "content-length": String(TOTAL) } : {}), ...opts.headers },
    });
    const finish = (status: number, text: string) => {
      clearInterval(sample);
      req.destroy();
      resolve({ status, body: JSON.parse(text), sent, rssGrowth: peakRss - base.rss, heapGrowth: peakHeap - base.heapUsed });
    };
    req.on("response", (res) => {
      answered = true;
      const parts: Buffer[] = [];
      res.on("data", (c: Buffer) => parts.push(c));
      res.on("end", () => finish(res.statusCode ?? 0, Buffer.concat(parts).toString("utf8")));
    });
    req.on("error", (e) => {
      // The server closes a refused upload's connection once it has answered: only an error before the answer counts.
      if (!answered) {
        clearInterval(sample);
        reject(e);
      }
    });
    const pump = () => {
      while (!answered && sent < TOTAL) {
        sent += CHUNK;
        if (!req.write(chunk)) return void req.once("drain", pump);
      }
      if (!answered) req.end();
    };
    pump();
  });
}

const LIMIT_NOTE = (u: Upload) => `status ${u.status}, ${u.sent} bytes sent, ${read.bytes} read, RSS +${(u.rssGrowth / MB).toFixed(1)} MB, heap +${(u.heapGrowth / MB).toFixed(1)} MB`;

describe("a 200 MB POST over HTTP", () => {
  it("warms the routes up (first loads are not the upload's memory)", async () => {
    session.uid = sellerId;
    for (const declare of [true, false]) {
      await upload("/api/listings", { declare });
      await upload(`/router/call/${slug}/run`, { declare, headers: { authorization: `Bearer ${apiKey}` } });
    }
    session.uid = null;
  }, 120_000);

  for (const declare of [true, false]) {
    const how = declare ? "with Content-Length" : "chunked, no Content-Length";
    it(`anonymous (${how}): 401 before a byte is read, memory growth under 10 MB`, async () => {
      session.uid = null;
      const u = await upload("/api/listings", { declare });
      console.log(`anonymous listing POST ${how}: ${LIMIT_NOTE(u)}`);
      expect(u.status).toBe(401);
      expect(u.body.error?.code).toBe("unauthorized");
      expect(read.bytes).toBe(0);
      expect(u.sent).toBeLessThan(TOTAL / 4);
      expect(u.rssGrowth).toBeLessThan(10 * MB);
      expect(u.heapGrowth).toBeLessThan(10 * MB);
    }, 60_000);

    it(`signed in (${how}): 413 naming the 1 MiB limit, reading stops there, memory growth under 10 MB`, async () => {
      session.uid = sellerId;
      const u = await upload("/api/listings", { declare });
      console.log(`signed-in listing POST ${how}: ${LIMIT_NOTE(u)}`);
      expect(u.status).toBe(413);
      expect(u.body.error).toMatchObject({ code: "payload_too_large", limitBytes: MB });
      expect(u.body.error?.message).toMatch(/1 MiB \(1048576-byte\) limit for a listing document/);
      expect(read.bytes).toBeLessThanOrEqual(declare ? 0 : MB + CHUNK);
      expect(u.sent).toBeLessThan(TOTAL / 4);
      expect(u.rssGrowth).toBeLessThan(10 * MB);
      expect(u.heapGrowth).toBeLessThan(10 * MB);
    }, 60_000);

    it(`the router's relay (${how}): 401 unread without a key; with one, 413 at its 10 MB cap`, async () => {
      session.uid = null;
      const anonymous = await upload(`/router/call/${slug}/run`, { declare });
      expect(anonymous.status).toBe(401);
      expect(read.bytes).toBe(0);
      const keyed = await upload(`/router/call/${slug}/run`, { declare, headers: { authorization: `Bearer ${apiKey}` } });
      console.log(`keyed relay POST ${how}: ${LIMIT_NOTE(keyed)}`);
      expect(keyed.status).toBe(413);
      expect(keyed.body.error).toMatchObject({ code: "payload_too_large", limitBytes: 10 * MB });
      expect(read.bytes).toBeLessThanOrEqual(declare ? 0 : 10 * MB + CHUNK);
      expect(keyed.sent).toBeLessThan(TOTAL / 4);
      // It holds up to its 10 MB cap of the body, by design; never the 200 MB.
      expect(keyed.rssGrowth).toBeLessThan(40 * MB);
    }, 60_000);
  }
});
