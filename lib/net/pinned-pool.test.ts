import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { safeFetch } from "./safe-fetch";
import { closePinnedPool, pinnedPoolSize } from "./pinned-pool";
import { fakeResolver, listenHttp, listenHttps, makeCert, testPolicy, type Cert, type LocalServer } from "@/test/net-servers";

/**
 * safeFetch's `pool`: keep-alive connections reused only for the same checked addresses. Each
 * request is still resolved and checked first, so a name that now resolves to a forbidden address
 * is refused before any pooled connection is used. "public.test" is an HTTPS server on 127.0.0.2.
 */

const servers: LocalServer[] = [];
afterEach(async () => {
  await closePinnedPool();
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

let cert: Cert;
beforeAll(() => {
  cert = makeCert(["public.test"], 30);
});

describe("pooled pinned connections", () => {
  it("reuses one keep-alive connection for the same checked address, and opens one per request without the pool", async () => {
    const sockets: unknown[] = [];
    const s = await listenHttps((req, res) => {
      if (!sockets.includes(req.socket)) sockets.push(req.socket);
      res.end("ok");
    }, cert);
    servers.push(s);
    const opts = { resolver: fakeResolver({ "public.test": ["127.0.0.2"] }), addressPolicy: testPolicy(), httpsPorts: [s.port], ca: cert.cert, requireValidTls: true };
    for (let i = 0; i < 3; i++) {
      const r = await safeFetch(`https://public.test:${s.port}/x`, { ...opts, pool: true });
      expect(r).toMatchObject({ ok: true, status: 200, address: "127.0.0.2", tls: { valid: true } });
    }
    expect(sockets).toHaveLength(1);
    expect(pinnedPoolSize()).toBe(1);
    for (let i = 0; i < 2; i++) expect(await safeFetch(`https://public.test:${s.port}/x`, opts)).toMatchObject({ ok: true });
    expect(sockets).toHaveLength(3);
  });

  it("a name that now resolves to a private address is refused on the next request, the pooled connection unused", async () => {
    const s = await listenHttps((_q, res) => res.end("ok"), cert);
    servers.push(s);
    const answers = ["127.0.0.2", "10.0.0.1", "127.0.0.1", "169.254.169.254"];
    const resolver = fakeResolver({ "public.test": (call) => [answers[Math.min(call, answers.length) - 1]] });
    const opts = { resolver, addressPolicy: testPolicy(), httpsPorts: [s.port], ca: cert.cert, requireValidTls: true, pool: true };
    expect(await safeFetch(`https://public.test:${s.port}/first`, opts)).toMatchObject({ ok: true, address: "127.0.0.2" });
    for (const range of ["private", "loopback", "linkLocal"]) {
      const r = await safeFetch(`https://public.test:${s.port}/again`, opts);
      expect(r).toMatchObject({ ok: false, refusal: "address_forbidden", stage: "resolve" });
      expect(r.ok ? "" : r.detail).toContain(range);
    }
    expect(s.hits.map((h) => h.url)).toEqual(["/first"]);
  });

  it("an allow-listed loopback seller keeps its pooled connection; a private answer beside loopback is still refused", async () => {
    const sockets = new Set<unknown>();
    const s = await listenHttp((req, res) => {
      sockets.add(req.socket);
      res.end("fixture");
    });
    servers.push(s);
    const allowHosts = [`fixture.test:${s.port}`];
    let answer = ["127.0.0.1"];
    const resolver = fakeResolver({ "fixture.test": () => answer });
    for (let i = 0; i < 3; i++) expect(await safeFetch(`http://fixture.test:${s.port}/`, { allowHosts, resolver, pool: true })).toMatchObject({ ok: true, address: "127.0.0.1" });
    expect(sockets.size).toBe(1);
    answer = ["127.0.0.1", "192.168.1.10"];
    expect(await safeFetch(`http://fixture.test:${s.port}/`, { allowHosts, resolver, pool: true })).toMatchObject({ ok: false, refusal: "address_forbidden" });
    expect(s.hits).toHaveLength(3);
  });

  it("another public address for the name gets its own pinned connection, never the old one", async () => {
    const s = await listenHttps((req, res) => res.end(String(req.socket.localAddress)), cert, "127.0.0.2");
    const t = await listenHttps((req, res) => res.end(String(req.socket.localAddress)), cert, "127.0.0.3", 0);
    servers.push(s, t);
    // Both servers on one port is not possible on every machine; each name points at its own.
    const policy = testPolicy(["127.0.0.2", "127.0.0.3"]);
    let answer = "127.0.0.2";
    const resolver = fakeResolver({ "public.test": () => [answer] });
    const opts = { resolver, addressPolicy: policy, httpsPorts: [s.port], ca: cert.cert, requireValidTls: true, pool: true };
    const a = await safeFetch(`https://public.test:${s.port}/`, opts);
    expect(a).toMatchObject({ ok: true, address: "127.0.0.2" });
    answer = "127.0.0.3";
    const b = await safeFetch(`https://public.test:${s.port}/`, opts);
    // 127.0.0.3 does not listen on s.port: the pool dialled the new address, not the kept connection.
    expect(b).toMatchObject({ ok: false, error: "connection_failed" });
    expect(s.hits).toHaveLength(1);
    expect(pinnedPoolSize()).toBe(2);
  });
});
