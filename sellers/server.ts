/**
 * The fixture sellers: ONE node:http server on 127.0.0.1 serving every seller under its own path
 * prefix (`/<slug>/…`), for tests, the demo and the benchmark. Loopback only, by construction: it
 * refuses to bind anything but a loopback address.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { isIP } from "node:net";
import { agentVerdict } from "./agent-verdict-stand-in";
import { brokenSellers, gzipBombMember } from "./broken";
import { docsPage, listingFor, openApi, wellKnownX402 } from "./documents";
import { mppSeller } from "./mpp-seller";
import { notFound, sendJson, sendText } from "./respond";
import type { FixtureSeller, SellerRequest } from "./types";
import { validityCheck } from "./validity-check-stand-in";
import type { ListingDocument } from "@/lib/listing-document/document";

export const FIXTURE_SELLERS: readonly FixtureSeller[] = [agentVerdict, validityCheck, mppSeller, ...brokenSellers];

/** Request bodies above this are refused (the validity-check document's body cap, docs/spec/products.md; none of the fixtures needs more). */
const MAX_REQUEST_BODY = 262_144;

export interface FixtureServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  port: number;
  close(): Promise<void>;
  /** Every route served, "METHOD /slug/path", for the CLI banner and docs. */
  routes: string[];
  sellers: readonly FixtureSeller[];
}

export interface StartOptions {
  port?: number;
  host?: string;
  /** Extra sellers (the benchmark adds one with 1,000 endpoints). */
  extraSellers?: FixtureSeller[];
  /** Replace the default catalogue entirely. */
  sellers?: readonly FixtureSeller[];
}

function isLoopbackHost(host: string): boolean {
  if (host === "localhost") return true;
  if (isIP(host) === 4) return host.startsWith("127.");
  if (isIP(host) === 6) return host === "::1";
  return false;
}

export function startFixtureSellers(options: StartOptions = {}): Promise<FixtureServer> {
  const host = options.host ?? "127.0.0.1";
  if (!isLoopbackHost(host)) return Promise.reject(new Error(`fixture sellers bind loopback only; refused host ${host}`));
  const sellers = [...(options.sellers ?? FIXTURE_SELLERS), ...(options.extraSellers ?? [])];
  const bySlug = new Map(sellers.map((s) => [s.slug, s]));
  if (bySlug.has("gzip-bomb")) void gzipBombMember(); // warm it off the event loop before the first probe

  const server = createServer((req, res) => {
    handle(req, res, bySlug).catch(() => {
      if (!res.headersSent) sendJson(res, 500, { error: "fixture_error" });
      else res.destroy();
    });
  });
  // Keep-alive sockets would hold close() open; the benchmark opens many.
  server.keepAliveTimeout = 5_000;

  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      const port = (server.address() as AddressInfo).port;
      const hostForUrl = host.includes(":") ? `[${host}]` : host;
      resolve({
        url: `http://${hostForUrl}:${port}`,
        port,
        sellers,
        routes: sellers.flatMap((s) => routesOf(s)),
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections(); // the slow and endless sellers would otherwise hold it open
            server.close(() => done());
          }),
      });
    });
  });
}

function routesOf(s: FixtureSeller): string[] {
  const base = `/${s.slug}`;
  return [
    ...(s.discovery.wellKnown ? [`GET ${base}/.well-known/x402`] : []),
    ...(s.discovery.openapi ? [`GET ${base}/openapi.json`] : []),
    ...(s.docs ? [`GET ${base}/docs`] : []),
    `GET ${base}/${s.logo?.file ?? "logo.png"}`,
    ...s.endpoints.map((e) => `${e.method} ${base}${e.path}`),
  ];
}

async function handle(req: IncomingMessage, res: ServerResponse, bySlug: Map<string, FixtureSeller>): Promise<void> {
  const hostHeader = req.headers.host ?? "127.0.0.1";
  const url = new URL(req.url ?? "/", `http://${hostHeader}`);
  const origin = `http://${url.host}`;
  const [, slug, ...rest] = url.pathname.split("/");
  const path = "/" + rest.join("/");
  const method = (req.method ?? "GET").toUpperCase();

  if (!slug) {
    sendJson(res, 200, { sellers: [...bySlug.values()].map((s) => ({ slug: s.slug, url: `${origin}/${s.slug}`, purpose: s.purpose })) });
    return;
  }
  const seller = bySlug.get(slug);
  if (!seller) return notFound(res, `no fixture seller "${slug}"`);
  const sellerUrl = `${origin}/${seller.slug}`;

  if (method === "GET" || method === "HEAD") {
    if (path === "/.well-known/x402" && seller.discovery.wellKnown) return sendJson(res, 200, wellKnownX402(seller, sellerUrl));
    if (path === "/openapi.json" && seller.discovery.openapi) return sendJson(res, 200, openApi(seller, sellerUrl));
    if (path === "/docs" && seller.docs) return sendText(res, 200, docsPage(seller, sellerUrl), "text/html; charset=utf-8");
    if (path === `/${seller.logo?.file ?? "logo.png"}`) {
      // A logo that does not load as an image: an HTML page where the PNG should be.
      if (!seller.logo) return sendText(res, 200, "<!doctype html><title>logo</title><p>coming soon</p>", "text/html; charset=utf-8");
      return sendText(res, 200, seller.logo.bytes, seller.logo.contentType, { "cache-control": "public, max-age=3600" });
    }
  }

  const endpoint = seller.endpoints.find((e) => e.method === method && e.path === path);
  if (!endpoint) {
    if (seller.endpoints.some((e) => e.path === path)) return sendJson(res, 405, { error: "method_not_allowed" });
    return notFound(res, `${method} ${path}`);
  }
  const body = await readBody(req);
  if (body === null) return sendJson(res, 413, { error: "body_too_large", cap: MAX_REQUEST_BODY });
  const ctx: SellerRequest = { req, res, body, origin, sellerUrl, url };
  await endpoint.handle(ctx);
}

function readBody(req: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > MAX_REQUEST_BODY) {
        resolve(null);
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

/** A ListingDocument for every fixture seller, rooted at `baseUrl` (e.g. `http://127.0.0.1:4020`). */
export function fixtureListings(baseUrl: string, sellers: readonly FixtureSeller[] = FIXTURE_SELLERS): Record<string, ListingDocument> {
  return Object.fromEntries(sellers.map((s) => [s.slug, listingFor(s, baseUrl)]));
}
