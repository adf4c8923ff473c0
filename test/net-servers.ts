/**
 * Local servers for lib/net's tests. Everything binds to loopback (127.0.0.0/8) on an ephemeral
 * port; a "public" host in a test is one of these, reached through an injected resolver and an
 * addressPolicy that calls 127.0.0.2 public. Not imported by product code.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { classifyAddress } from "@/lib/net/classify-address";
import type { AddressPolicy, Resolver } from "@/lib/net/types";

export interface Hit {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  localAddress: string;
  servername?: string;
}

export interface LocalServer {
  host: string;
  port: number;
  hits: Hit[];
  close(): Promise<void>;
}

type Handler = (req: http.IncomingMessage, res: http.ServerResponse, hit: Hit) => void;

function track(server: net.Server): Set<net.Socket> {
  const sockets = new Set<net.Socket>();
  server.on("connection", (s: net.Socket) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  server.on("secureConnection", (s: net.Socket) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  return sockets;
}

async function start(server: net.Server, host: string, port: number, hits: Hit[]): Promise<LocalServer> {
  const sockets = track(server);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const addr = server.address() as net.AddressInfo;
  return {
    host,
    port: addr.port,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

function wrap(handler: Handler, hits: Hit[]) {
  return (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const hit: Hit = {
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
        localAddress: req.socket.localAddress ?? "",
        servername: (req.socket as { servername?: string }).servername,
      };
      hits.push(hit);
      res.on("error", () => undefined);
      handler(req, res, hit);
    });
  };
}

export async function listenHttp(handler: Handler, host = "127.0.0.1", port = 0): Promise<LocalServer> {
  const hits: Hit[] = [];
  return start(http.createServer(wrap(handler, hits)), host, port, hits);
}

export async function listenHttps(handler: Handler, cert: Cert, host = "127.0.0.2", port = 0): Promise<LocalServer> {
  const hits: Hit[] = [];
  return start(https.createServer({ cert: cert.cert, key: cert.key }, wrap(handler, hits)), host, port, hits);
}

/** A port the OS reports free on 127.0.0.1 right now: nothing listens there (bind, note the port, close). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** A TCP server that speaks whatever the test writes (for malformed or oversized heads). */
export async function listenRaw(onSocket: (socket: net.Socket) => void, host = "127.0.0.1"): Promise<LocalServer> {
  const hits: Hit[] = [];
  const server = net.createServer((socket) => {
    socket.on("error", () => undefined);
    hits.push({ method: "", url: "", headers: {}, body: "", localAddress: socket.localAddress ?? "" });
    onSocket(socket);
  });
  return start(server, host, 0, hits);
}

export interface Cert {
  cert: string;
  key: string;
}

/** A self-signed certificate for `names`, valid for `days` days, made by the openssl CLI. */
export function makeCert(names: string[], days: number): Cert {
  const dir = mkdtempSync(path.join(os.tmpdir(), "tollgate-net-cert-"));
  try {
    const key = path.join(dir, "key.pem");
    const cert = path.join(dir, "cert.pem");
    execFileSync("openssl", [
      "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
      "-keyout", key, "-out", cert, "-days", String(days), "-subj", `/CN=${names[0]}`,
      "-addext", `subjectAltName=${names.map((n) => `DNS:${n}`).join(",")}`,
      "-addext", "basicConstraints=critical,CA:TRUE",
    ], { stdio: "ignore" });
    return { cert: readFileSync(cert, "utf8"), key: readFileSync(key, "utf8") };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** 127.0.0.2 (and any extra addresses given) stand in for public hosts; the rest is the real policy. */
export function testPolicy(publicStandIns: string[] = ["127.0.0.2"]): AddressPolicy {
  return (ip) => (publicStandIns.includes(ip) ? { allowed: true, range: "unicast(test stand-in)" } : classifyAddress(ip));
}

/**
 * A resolver that answers only the names it is given (a list, or a function of the call count)
 * and fails every other name, so a test can never reach the system resolver.
 */
export function fakeResolver(table: Record<string, string[] | ((call: number) => string[])>): Resolver & { calls: string[] } {
  const calls: string[] = [];
  const counts = new Map<string, number>();
  const resolver = (async (host: string) => {
    calls.push(host);
    const n = (counts.get(host) ?? 0) + 1;
    counts.set(host, n);
    const entry = table[host];
    if (!entry) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
    const list = typeof entry === "function" ? entry(n) : entry;
    return list.map((address) => ({ address, family: (address.includes(":") ? 6 : 4) as 4 | 6 }));
  }) as Resolver & { calls: string[] };
  resolver.calls = calls;
  return resolver;
}
