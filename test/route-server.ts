/**
 * App route handlers behind a plain node:http server on 127.0.0.1, mounted at "METHOD /path" keys (a
 * key ending in "/*" takes every path under it, whatever its query), so
 * a real HTTP client (the x402 facilitator client, a seller's middleware) can talk to them as it
 * would to the deployed app.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";

export type RouteHandler = (req: Request) => Promise<Response>;

export interface RouteServer {
  /** http://127.0.0.1:<port> */
  origin: string;
  close(): Promise<void>;
}

function prefixed(routes: Record<string, RouteHandler>, method: string, url: string): RouteHandler | undefined {
  const path = url.split("?")[0];
  for (const [key, handler] of Object.entries(routes)) {
    if (!key.endsWith("/*")) continue;
    const [m, prefix] = [key.slice(0, key.indexOf(" ")), key.slice(key.indexOf(" ") + 1, -1)];
    if ((m === method || m === "ANY") && path.startsWith(prefix)) return handler;
  }
  return undefined;
}

export async function serveRoutes(routes: Record<string, RouteHandler>): Promise<RouteServer> {
  const server = createServer(async (req, res) => {
    const handler = routes[`${req.method} ${req.url}`] ?? prefixed(routes, req.method ?? "GET", req.url ?? "/");
    // The body streams into the handler as it arrives, as under Next.js: a handler that refuses a
    // body early (lib/http.ts) never makes the server hold it.
    const hasBody = req.method !== "GET" && req.method !== "HEAD";
    const response = handler
      ? await handler(
          new Request(`http://127.0.0.1${req.url}`, {
            method: req.method,
            headers: req.headers as Record<string, string>,
            body: hasBody ? (Readable.toWeb(req) as ReadableStream<Uint8Array>) : undefined,
            duplex: "half",
          } as RequestInit),
        )
      : new Response("not found", { status: 404 });
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        // A client that gave up on a refused upload may leave its connection open: end it too.
        server.closeAllConnections();
      }),
  };
}
