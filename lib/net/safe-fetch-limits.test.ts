import { once } from "node:events";
import zlib from "node:zlib";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { safeFetch } from "./safe-fetch";
import { listenHttp, listenRaw, type LocalServer } from "@/test/net-servers";
import type { SafeFetchOptions } from "./types";

/** Deadline, head and body limits, decoding and content sniffing, against local servers. */

const MiB = 1024 * 1024;
const servers: LocalServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
async function keep(s: Promise<LocalServer>): Promise<LocalServer> {
  const server = await s;
  servers.push(server);
  return server;
}
const local = (s: LocalServer, extra: Partial<SafeFetchOptions> = {}): SafeFetchOptions => ({ allowHosts: [`127.0.0.1:${s.port}`], ...extra });
const urlOf = (s: LocalServer, path = "/") => `http://127.0.0.1:${s.port}${path}`;

/** Compress `total` zero bytes as a stream, so the bomb is built without holding it inflated. */
async function bomb(kind: "gzip" | "br" | "deflate", total: number): Promise<Buffer> {
  const z =
    kind === "gzip" ? zlib.createGzip({ level: 9 }) :
    kind === "br" ? zlib.createBrotliCompress({ params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 } }) :
    zlib.createDeflate({ level: 9 });
  const out: Buffer[] = [];
  z.on("data", (c: Buffer) => out.push(c));
  const zeros = Buffer.alloc(MiB);
  for (let sent = 0; sent < total; sent += zeros.length) {
    if (!z.write(zeros)) await once(z, "drain");
  }
  z.end();
  await once(z, "end");
  return Buffer.concat(out);
}

let gzipBomb: Buffer;
let brBomb: Buffer;
let deflateBomb: Buffer;
beforeAll(async () => {
  [gzipBomb, brBomb, deflateBomb] = await Promise.all([bomb("gzip", 256 * MiB), bomb("br", 256 * MiB), bomb("deflate", 64 * MiB)]);
}, 60_000);

describe("one deadline for the whole exchange", () => {
  it("cuts a slow-drip body (one byte a second) at the deadline", async () => {
    const s = await keep(listenHttp((_q, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.write("a");
      const t = setInterval(() => res.write("a"), 1000);
      res.on("close", () => clearInterval(t));
    }));
    const t0 = Date.now();
    const r = await safeFetch(urlOf(s), local(s, { deadlineMs: 2500 }));
    const elapsed = Date.now() - t0;
    expect(r).toMatchObject({ ok: false, error: "timeout", status: 200 });
    if (!r.ok && "error" in r) expect(r.ttfbMs).toBeLessThan(1000);
    expect(elapsed).toBeGreaterThanOrEqual(2400);
    expect(elapsed).toBeLessThan(4000);
  });

  it("cuts a server that never sends a head", async () => {
    const s = await keep(listenRaw(() => undefined));
    const t0 = Date.now();
    expect(await safeFetch(urlOf(s), local(s, { deadlineMs: 500 }))).toMatchObject({ ok: false, error: "timeout" });
    expect(Date.now() - t0).toBeLessThan(2000);
  });

  it("counts every redirect hop against the same deadline", async () => {
    const s = await keep(listenHttp((q, res) => {
      const i = Number(q.url!.slice(1) || "0");
      setTimeout(() => res.writeHead(302, { location: `/${i + 1}` }).end(), 300);
    }));
    const t0 = Date.now();
    expect(await safeFetch(urlOf(s), local(s, { deadlineMs: 800 }))).toMatchObject({ ok: false, error: "timeout" });
    expect(Date.now() - t0).toBeLessThan(1500);
    expect(s.hits.length).toBeLessThanOrEqual(3);
  });

  it("a caller's abort is 'aborted', not a throw", async () => {
    const s = await keep(listenRaw(() => undefined));
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 100);
    expect(await safeFetch(urlOf(s), local(s, { signal: ac.signal }))).toMatchObject({ ok: false, error: "aborted" });
    const pre = new AbortController();
    pre.abort();
    expect(await safeFetch(urlOf(s), local(s, { signal: pre.signal }))).toMatchObject({ ok: false, error: "aborted" });
  });
});

describe("head limits and broken servers", () => {
  it("a head past 16 KiB is headers_too_large", async () => {
    const s = await keep(listenHttp((_q, res) => res.writeHead(402, { "x-pad": "p".repeat(20 * 1024) }).end()));
    expect(await safeFetch(urlOf(s), local(s))).toMatchObject({ ok: false, error: "headers_too_large" });
  });

  it("a 12 KiB PAYMENT-REQUIRED header passes; a smaller cap refuses it", async () => {
    const s = await keep(listenHttp((_q, res) => res.writeHead(402, { "payment-required": "e".repeat(12 * 1024) }).end()));
    const r = await safeFetch(urlOf(s), local(s));
    expect(r).toMatchObject({ ok: true, status: 402 });
    if (r.ok) expect(r.headers["payment-required"]).toHaveLength(12 * 1024);
    expect(await safeFetch(urlOf(s), local(s, { maxHeaderBytes: 4096 }))).toMatchObject({ ok: false, error: "headers_too_large" });
  });

  it("many small headers add up", async () => {
    const s = await keep(listenRaw((sock) => {
      sock.once("data", () => {
        let head = "HTTP/1.1 200 OK\r\n";
        for (let i = 0; i < 1000; i++) head += `x-h${i}: ${"v".repeat(20)}\r\n`;
        sock.end(`${head}content-length: 0\r\n\r\n`);
      });
    }));
    expect(await safeFetch(urlOf(s), local(s))).toMatchObject({ ok: false, error: "headers_too_large" });
  });

  it("garbage instead of HTTP is protocol_error", async () => {
    const s = await keep(listenRaw((sock) => sock.once("data", () => sock.end("SSH-2.0-OpenSSH_9.6\r\n\r\n"))));
    expect(await safeFetch(urlOf(s), local(s))).toMatchObject({ ok: false, error: "protocol_error" });
  });

  it("a reset before the head, and a closed port, are connection_failed", async () => {
    const s = await keep(listenRaw((sock) => sock.once("data", () => sock.resetAndDestroy())));
    expect(await safeFetch(urlOf(s), local(s))).toMatchObject({ ok: false, error: "connection_failed" });
    const closed = await listenRaw(() => undefined);
    await closed.close();
    expect(await safeFetch(urlOf(closed), local(closed))).toMatchObject({ ok: false, error: "connection_failed" });
  });
});

describe("the body: bytes are trusted, not Content-Length", () => {
  it("Content-Length larger than the bytes sent: protocol_error that keeps the head", async () => {
    const s = await keep(listenRaw((sock) => sock.once("data", () => {
      sock.end("HTTP/1.1 402 Payment Required\r\ncontent-type: application/json\r\npayment-required: abc\r\ncontent-length: 1000\r\n\r\n{\"short\":1}");
    })));
    const r = await safeFetch(urlOf(s), local(s));
    expect(r).toMatchObject({ ok: false, error: "protocol_error", status: 402, headers: { "payment-required": "abc" } });
  });

  it("Content-Length smaller than the bytes sent: the body is what the framing allows", async () => {
    const s = await keep(listenRaw((sock) => sock.once("data", () => {
      sock.end("HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 5\r\n\r\nhello, and then a great deal more");
    })));
    const r = await safeFetch(urlOf(s), local(s));
    expect(r).toMatchObject({ ok: true, bodyTruncated: false });
    if (r.ok) expect(Buffer.from(r.body).toString()).toBe("hello");
  });

  it("an endless body stops at 1 MiB, truncated, with memory bounded", async () => {
    let sent = 0;
    const s = await keep(listenHttp((_q, res) => {
      res.writeHead(200, { "content-type": "application/octet-stream" });
      const chunk = Buffer.alloc(64 * 1024, 7);
      const pump = () => {
        while (!res.destroyed && sent < 512 * MiB) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once("drain", pump);
        }
      };
      pump();
    }));
    const r = await safeFetch(urlOf(s), local(s));
    expect(r).toMatchObject({ ok: true, bodyTruncated: true, sniffedType: "binary", contentTypeMatches: true });
    if (r.ok) expect(r.body.byteLength).toBe(MiB);
    expect(sent).toBeLessThan(64 * MiB); // we stopped reading; the server did not get to push it all
  });

  it("a lying huge Content-Length with an endless body is truncated the same way", async () => {
    const s = await keep(listenRaw((sock) => sock.once("data", () => {
      sock.write("HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 10000000000\r\n\r\n");
      const chunk = Buffer.alloc(64 * 1024, 0x61);
      const pump = () => {
        while (!sock.destroyed) if (!sock.write(chunk)) return void sock.once("drain", pump);
      };
      pump();
    })));
    const r = await safeFetch(urlOf(s), local(s, { maxBodyBytes: 100_000 }));
    expect(r).toMatchObject({ ok: true, bodyTruncated: true, sniffedType: "text" });
    if (r.ok) expect(r.body.byteLength).toBe(100_000);
  });

  it("bodyOverflow: 'error' returns body_too_large with the head", async () => {
    const s = await keep(listenHttp((_q, res) => res.writeHead(200, { "x-a": "1" }).end(Buffer.alloc(2 * MiB))));
    expect(await safeFetch(urlOf(s), local(s, { bodyOverflow: "error" }))).toMatchObject({ ok: false, error: "body_too_large", status: 200, headers: { "x-a": "1" } });
  });

  it("a body of exactly the cap is not truncated", async () => {
    const s = await keep(listenHttp((_q, res) => res.end(Buffer.alloc(1000, 0x62))));
    const r = await safeFetch(urlOf(s), local(s, { maxBodyBytes: 1000 }));
    expect(r).toMatchObject({ ok: true, bodyTruncated: false });
    if (r.ok) expect(r.body.byteLength).toBe(1000);
  });
});

describe("decoding, capped after decompression", () => {
  it.each(["gzip", "br", "deflate"] as const)("a %s bomb inflates only to the cap", async (kind) => {
    const payload = kind === "gzip" ? gzipBomb : kind === "br" ? brBomb : deflateBomb;
    expect(payload.length).toBeLessThan(MiB); // small on the wire
    const s = await keep(listenHttp((_q, res) => res.writeHead(200, { "content-type": "text/plain", "content-encoding": kind }).end(payload)));
    const before = process.memoryUsage().arrayBuffers;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().arrayBuffers)), 2);
    const r = await safeFetch(urlOf(s), local(s));
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage().arrayBuffers);
    expect(r).toMatchObject({ ok: true, bodyTruncated: true });
    if (r.ok) {
      expect(r.body.byteLength).toBe(MiB);
      expect(r.body.every((b) => b === 0)).toBe(true);
    }
    expect(peak - before).toBeLessThan(48 * MiB); // 256 MiB inflated would blow far past this
  });

  it.each([
    ["gzip", (b: Buffer) => zlib.gzipSync(b)],
    ["x-gzip", (b: Buffer) => zlib.gzipSync(b)],
    ["deflate", (b: Buffer) => zlib.deflateSync(b)],
    ["deflate", (b: Buffer) => zlib.deflateRawSync(b)], // raw deflate, as some servers send it
    ["br", (b: Buffer) => zlib.brotliCompressSync(b)],
    ["gzip, br", (b: Buffer) => zlib.brotliCompressSync(zlib.gzipSync(b))],
    ["identity", (b: Buffer) => b],
  ] as const)("decodes %s", async (encoding, encode) => {
    const json = JSON.stringify({ x402Version: 2, accepts: [{ scheme: "exact", amount: "1000" }] });
    const s = await keep(listenHttp((_q, res) => res.writeHead(402, { "content-type": "application/json", "content-encoding": encoding }).end(encode(Buffer.from(json)))));
    const r = await safeFetch(urlOf(s), local(s));
    expect(r).toMatchObject({ ok: true, status: 402, sniffedType: "json", contentTypeMatches: true, bodyTruncated: false });
    if (r.ok) expect(Buffer.from(r.body).toString()).toBe(json);
  });

  it("a corrupt gzip body is protocol_error with the head kept", async () => {
    const s = await keep(listenHttp((_q, res) => res.writeHead(402, { "content-encoding": "gzip", "payment-required": "x" }).end(Buffer.from("this is not gzip"))));
    expect(await safeFetch(urlOf(s), local(s))).toMatchObject({ ok: false, error: "protocol_error", status: 402, headers: { "payment-required": "x" } });
  });

  it("an encoding we did not offer is protocol_error", async () => {
    const s = await keep(listenHttp((_q, res) => res.writeHead(200, { "content-encoding": "zstd" }).end("??")));
    const r = await safeFetch(urlOf(s), local(s));
    expect(r).toMatchObject({ ok: false, error: "protocol_error" });
    if (!r.ok) expect(r.detail).toContain("zstd");
  });
});

describe("content type against the bytes (docs/spec/trust-rubric.md S5)", () => {
  const png = Buffer.from("89504e470d0a1a0a0000000d49484452", "hex");
  it.each([
    ["application/json; charset=utf-8", '{"a":1}', "json", true],
    ["application/json", "<html><script>alert(1)</script></html>", "html", false],
    ["application/json", "not json at all", "text", false],
    ["text/html", "<!DOCTYPE html><html></html>", "html", true],
    ["image/png", png, "png", true],
    ["image/svg+xml", '<svg xmlns="http://www.w3.org/2000/svg"></svg>', "svg", true],
    ["image/png", '<svg xmlns="http://www.w3.org/2000/svg"><script/></svg>', "svg", false],
    [null, '{"a":1}', "json", false],
    ["application/json", "", "empty", true],
  ] as const)("%s with %j → %s, matches %s", async (type, body, sniffed, matches) => {
    const s = await keep(listenHttp((_q, res) => {
      if (type) res.setHeader("content-type", type);
      res.end(body);
    }));
    const r = await safeFetch(urlOf(s), local(s));
    expect(r).toMatchObject({ ok: true, contentType: type, sniffedType: sniffed, contentTypeMatches: matches });
  });

  it("times: ttfb before total", async () => {
    const s = await keep(listenHttp((_q, res) => {
      res.writeHead(200);
      res.flushHeaders();
      setTimeout(() => res.end("late"), 150);
    }));
    const r = await safeFetch(urlOf(s), local(s));
    expect(r.ok).toBe(true);
    if (r.ok) {
      expect(r.ttfbMs).toBeLessThan(r.totalMs);
      expect(r.totalMs - r.ttfbMs).toBeGreaterThanOrEqual(100);
    }
  });
});
