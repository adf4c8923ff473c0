/**
 * The cap on outbound connections in flight, per target host and in total (docs/SSRF.md
 * "Connection caps"): requests over a cap wait (FIFO) before their deadline starts; a full queue or
 * a wait past queueTimeoutMs is refused with connection_limit; every slot comes back, whatever the
 * outcome. Against an HTTPS
 * server on 127.0.0.2 that holds each request and counts how many are open at once, per Host.
 */
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { safeFetch } from "./safe-fetch";
import { configureConnectionLimits, connectionsInFlight, currentConnectionLimits, DEFAULT_CONNECTION_LIMITS } from "./connection-limits";
import { fakeResolver, listenHttps, makeCert, testPolicy, type Cert, type LocalServer } from "@/test/net-servers";
import type { SafeFetchOptions } from "./types";

let cert: Cert;
let server: LocalServer | null = null;
beforeAll(() => {
  cert = makeCert(["a.test", "b.test", "c.test"], 30);
});
afterEach(async () => {
  configureConnectionLimits();
  await server?.close();
  server = null;
});

/** A server holding each request `holdMs`, recording the most open at once in total and per Host. */
async function holdingServer(holdMs: number) {
  const open = new Map<string, number>();
  const peak = { total: 0, perHost: new Map<string, number>() };
  let total = 0;
  server = await listenHttps((req, res) => {
    const host = String(req.headers.host).split(":")[0];
    open.set(host, (open.get(host) ?? 0) + 1);
    total++;
    peak.total = Math.max(peak.total, total);
    peak.perHost.set(host, Math.max(peak.perHost.get(host) ?? 0, open.get(host)!));
    setTimeout(() => {
      open.set(host, open.get(host)! - 1);
      total--;
      res.end(host);
    }, holdMs);
  }, cert);
  return { server, peak };
}

function opts(port: number, extra: Partial<SafeFetchOptions> = {}): SafeFetchOptions {
  return {
    resolver: fakeResolver({ "a.test": ["127.0.0.2"], "b.test": ["127.0.0.2"], "c.test": ["127.0.0.2"] }),
    addressPolicy: testPolicy(),
    httpsPorts: [port],
    deadlineMs: 8000,
    ...extra,
  };
}

describe("connection caps", () => {
  it("defaults: 64 in total, 8 per host, 1024 queued; the environment can change them", () => {
    expect(DEFAULT_CONNECTION_LIMITS).toEqual({ total: 64, perHost: 8, maxQueued: 1024 });
    const saved = process.env.TOLLGATE_NET_MAX_CONNECTIONS_PER_HOST;
    process.env.TOLLGATE_NET_MAX_CONNECTIONS_PER_HOST = "3";
    expect(currentConnectionLimits().perHost).toBe(3);
    if (saved === undefined) delete process.env.TOLLGATE_NET_MAX_CONNECTIONS_PER_HOST;
    else process.env.TOLLGATE_NET_MAX_CONNECTIONS_PER_HOST = saved;
  });

  it("never more than the per-host cap open to one host, nor the total cap in all; the rest wait and all succeed", async () => {
    configureConnectionLimits({ perHost: 2, total: 3, maxQueued: 100 });
    const { server: s, peak } = await holdingServer(120);
    const hosts = ["a.test", "b.test", "c.test"];
    const results = await Promise.all(Array.from({ length: 15 }, (_, i) => safeFetch(`https://${hosts[i % 3]}:${s.port}/${i}`, opts(s.port))));
    expect(results.filter((r) => r.ok)).toHaveLength(15);
    expect(s.hits).toHaveLength(15);
    expect(peak.total).toBe(3);
    for (const h of hosts) expect(peak.perHost.get(h), h).toBeLessThanOrEqual(2);
    expect(connectionsInFlight()).toEqual({ total: 0, perHost: {}, queued: 0 });
  });

  it("one busy host does not hold up another: its queue waits, the other host's requests go through", async () => {
    configureConnectionLimits({ perHost: 1, total: 10, maxQueued: 100 });
    const { server: s } = await holdingServer(400);
    const started = Date.now();
    const slow = Promise.all([1, 2, 3].map((i) => safeFetch(`https://a.test:${s.port}/${i}`, opts(s.port))));
    await new Promise((r) => setTimeout(r, 50));
    const other = await safeFetch(`https://b.test:${s.port}/x`, opts(s.port));
    expect(other.ok).toBe(true);
    expect(Date.now() - started).toBeLessThan(1000); // not behind a.test's three 400 ms requests
    expect((await slow).every((r) => r.ok)).toBe(true);
  });

  it("time in the queue is not the server's: a request queued longer than its deadline still gets its full deadline", async () => {
    configureConnectionLimits({ perHost: 1, total: 10, maxQueued: 100 });
    const { server: s } = await holdingServer(600);
    const first = safeFetch(`https://a.test:${s.port}/first`, opts(s.port));
    await new Promise((r) => setTimeout(r, 50));
    const queued = await safeFetch(`https://a.test:${s.port}/queued`, opts(s.port, { deadlineMs: 2000 }));
    expect(queued.ok).toBe(true); // waited ~550 ms, then had 2 s for a 600 ms answer
    expect((await first).ok).toBe(true);
  });

  it("a request that waits past queueTimeoutMs is refused with connection_limit and never reaches the server", async () => {
    configureConnectionLimits({ perHost: 1, total: 10, maxQueued: 100 });
    const { server: s } = await holdingServer(1500);
    const first = safeFetch(`https://a.test:${s.port}/first`, opts(s.port));
    await new Promise((r) => setTimeout(r, 50));
    const queued = await safeFetch(`https://a.test:${s.port}/queued`, opts(s.port, { queueTimeoutMs: 300 }));
    expect(queued).toMatchObject({ ok: false, refusal: "connection_limit", stage: "connect" });
    if (!queued.ok && "refusal" in queued) expect(queued.detail).toMatch(/no slot after \d+ ms in the queue for a connection slot to a\.test/);
    expect((await first).ok).toBe(true);
    expect(s.hits.map((h) => h.url)).toEqual(["/first"]);
    expect(connectionsInFlight()).toEqual({ total: 0, perHost: {}, queued: 0 });
  });

  it("past the queue's length, a request is refused with connection_limit before it is sent", async () => {
    configureConnectionLimits({ perHost: 1, total: 1, maxQueued: 1 });
    const { server: s } = await holdingServer(300);
    const inFlight = safeFetch(`https://a.test:${s.port}/1`, opts(s.port));
    await new Promise((r) => setTimeout(r, 50));
    const waiting = safeFetch(`https://a.test:${s.port}/2`, opts(s.port));
    const refused = await safeFetch(`https://b.test:${s.port}/3`, opts(s.port));
    expect(refused).toMatchObject({ ok: false, refusal: "connection_limit", stage: "connect" });
    if (!refused.ok && "refusal" in refused) expect(refused.detail).toMatch(/1 requests already wait/);
    expect((await inFlight).ok).toBe(true);
    expect((await waiting).ok).toBe(true);
    expect(s.hits.map((h) => h.url)).toEqual(["/1", "/2"]);
  });

  it("slots come back after failures too (a refused connect, an abort), so the cap never leaks", async () => {
    configureConnectionLimits({ perHost: 1, total: 1, maxQueued: 10 });
    // Nothing listens on this port: connection_failed, and the slot is released.
    const closed = await safeFetch("https://a.test:1/", opts(1));
    expect(closed).toMatchObject({ ok: false, error: "connection_failed" });
    const { server: s } = await holdingServer(1000);
    const ac = new AbortController();
    const aborted = safeFetch(`https://a.test:${s.port}/abort`, opts(s.port, { signal: ac.signal }));
    setTimeout(() => ac.abort(), 100);
    expect(await aborted).toMatchObject({ ok: false, error: "aborted" });
    expect(connectionsInFlight().total).toBe(0);
    const after = await safeFetch(`https://b.test:${s.port}/after`, opts(s.port));
    expect(after.ok).toBe(true);
  });
});
