/**
 * A real ops API for tests and the crash drills: node:http on 127.0.0.1 mapping requests onto the
 * route handlers in app/api/ops (their exported POST/GET, called with a web Request), so worker
 * processes talk to exactly the code Next.js serves.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import * as leases from "@/app/api/ops/leases/route";
import * as heartbeat from "@/app/api/ops/leases/[id]/heartbeat/route";
import * as complete from "@/app/api/ops/leases/[id]/complete/route";
import * as fail from "@/app/api/ops/leases/[id]/fail/route";
import * as metrics from "@/app/api/ops/metrics/route";

type Handler = (req: Request, ctx: { params: Promise<{ id: string }> }) => Promise<Response>;

function route(method: string, pathname: string): { handler: Handler; id: string } | null {
  if (method === "POST" && pathname === "/api/ops/leases") return { handler: leases.POST, id: "" };
  if (method === "GET" && pathname === "/api/ops/metrics") return { handler: metrics.GET, id: "" };
  const m = /^\/api\/ops\/leases\/([^/]+)\/(heartbeat|complete|fail)$/.exec(pathname);
  if (method === "POST" && m) {
    const handler = m[2] === "heartbeat" ? heartbeat.POST : m[2] === "complete" ? complete.POST : fail.POST;
    return { handler, id: decodeURIComponent(m[1]) };
  }
  return null;
}

export interface OpsTestServer {
  url: string;
  requests: number;
  close(): Promise<void>;
}

export async function startOpsTestServer(): Promise<OpsTestServer> {
  const state = { requests: 0 };
  const server = http.createServer(async (req, res) => {
    state.requests++;
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const found = route(req.method ?? "GET", url.pathname);
    if (!found) {
      res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: { code: "not_found", message: "no such route" } }));
      return;
    }
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
    const request = new Request(url, { method: req.method, headers, body: chunks.length && req.method !== "GET" ? Buffer.concat(chunks) : undefined });
    try {
      const response = await found.handler(request, { params: Promise.resolve({ id: found.id }) });
      res.writeHead(response.status, Object.fromEntries(response.headers.entries()));
      res.end(Buffer.from(await response.arrayBuffer()));
    } catch (e) {
      res.writeHead(500).end(String(e));
    }
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get requests() {
      return state.requests;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
