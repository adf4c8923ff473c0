import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { safeFetch } from "./safe-fetch";
import { fakeResolver, listenHttp, listenHttps, makeCert, testPolicy, type Cert, type LocalServer } from "@/test/net-servers";
import type { SafeFetchOptions, SafeFetchResult } from "./types";

/**
 * safeFetch against local servers only. "public.test" is an HTTPS server on 127.0.0.2, which the
 * test addressPolicy calls public; 127.0.0.1 stays what it is: forbidden loopback. Every call gets
 * an injected resolver that knows only the test names, so nothing reaches the system resolver.
 */

const servers: LocalServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
async function keep(s: Promise<LocalServer>): Promise<LocalServer> {
  const server = await s;
  servers.push(server);
  return server;
}

let cert: Cert;
beforeAll(() => {
  cert = makeCert(["public.test", "www.public.test"], 30);
});

function publicOpts(port: number, extra: Partial<SafeFetchOptions> = {}): SafeFetchOptions {
  return {
    resolver: fakeResolver({ "public.test": ["127.0.0.2"] }),
    addressPolicy: testPolicy(),
    httpsPorts: [port],
    ...extra,
  };
}

function text(r: SafeFetchResult): string {
  if (!r.ok) throw new Error(`expected ok, got ${JSON.stringify(r)}`);
  return Buffer.from(r.body).toString();
}

describe("resolution: every answer must be public unicast", () => {
  it.each([
    ["10.0.0.1", "private"],
    ["127.0.0.1", "loopback"],
    ["169.254.169.254", "linkLocal(cloudMetadata)"],
    ["100.64.0.1", "carrierGradeNat"],
    ["0.0.0.0", "unspecified"],
    ["::1", "loopback"],
    ["fd00:ec2::254", "uniqueLocal"],
    ["fe80::1", "linkLocal"],
    ["::ffff:127.0.0.1", "ipv4Mapped(loopback)"],
    ["64:ff9b::7f00:1", "nat64"],
    ["not-an-ip", "invalid"],
  ])("a name answering %s is refused (%s) before connect", async (address, range) => {
    const resolver = fakeResolver({ "api.example.com": [address] });
    const r = await safeFetch("https://api.example.com/", { resolver });
    expect(r).toMatchObject({ ok: false, refusal: "address_forbidden", stage: "resolve" });
    if (!r.ok && "refusal" in r) expect(r.detail).toContain(`(${range})`);
    expect(resolver.calls).toEqual(["api.example.com"]);
  });

  it("a name answering both a public and a private address is refused, and nothing is dialled", async () => {
    const pub = await keep(listenHttps((_q, res) => res.end("public"), cert, "127.0.0.2"));
    for (const answers of [["127.0.0.2", "10.1.2.3"], ["127.0.0.2", "127.0.0.1"], ["127.0.0.2", "::1"]]) {
      const r = await safeFetch(`https://public.test:${pub.port}/`, publicOpts(pub.port, { resolver: fakeResolver({ "public.test": answers }) }));
      expect(r).toMatchObject({ ok: false, refusal: "address_forbidden", stage: "resolve" });
    }
    expect(pub.hits).toHaveLength(0);
  });

  it("DNS rebinding: the connection goes to the address that was checked", async () => {
    // Same port on two loopback addresses: the stand-in public host and the forbidden one.
    const pub = await keep(listenHttps((_q, res) => res.end("checked"), cert, "127.0.0.2"));
    const evil = await keep(listenHttps((_q, res) => res.end("rebound"), cert, "127.0.0.1", pub.port));
    const resolver = fakeResolver({ "public.test": (call) => (call === 1 ? ["127.0.0.2"] : ["127.0.0.1"]) });
    const r = await safeFetch(`https://public.test:${pub.port}/`, publicOpts(pub.port, { resolver }));
    expect(text(r)).toBe("checked");
    expect(r).toMatchObject({ ok: true, address: "127.0.0.2" });
    expect(pub.hits[0].localAddress).toBe("127.0.0.2");
    expect(evil.hits).toHaveLength(0);
    expect(resolver.calls).toEqual(["public.test"]); // resolved once; undici never looked the name up
  });

  it("DNS rebinding between redirect hops: each hop is resolved and checked again", async () => {
    const pub = await keep(listenHttps((q, res) => {
      if (q.url === "/start") res.writeHead(302, { location: "/next" }).end();
      else res.end("next");
    }, cert, "127.0.0.2"));
    const evil = await keep(listenHttps((_q, res) => res.end("rebound"), cert, "127.0.0.1", pub.port));
    const resolver = fakeResolver({ "public.test": (call) => (call === 1 ? ["127.0.0.2"] : ["127.0.0.1"]) });
    const r = await safeFetch(`https://public.test:${pub.port}/start`, publicOpts(pub.port, { resolver }));
    expect(r).toMatchObject({ ok: false, refusal: "redirect_forbidden", cause: "address_forbidden", stage: "redirect" });
    expect(resolver.calls).toEqual(["public.test", "public.test"]);
    if (!r.ok && "refusal" in r) expect(r.redirects).toEqual([expect.objectContaining({ status: 302, followed: false, reason: "address_forbidden" })]);
    expect(evil.hits).toHaveLength(0);
    expect(pub.hits.map((h) => h.url)).toEqual(["/start"]);
  });

  it("tries the next checked address when one refuses the connection", async () => {
    const pub = await keep(listenHttps((_q, res) => res.end("second"), cert, "127.0.0.2"));
    // 127.0.0.3 has nothing listening on that port: ECONNREFUSED, then 127.0.0.2.
    const r = await safeFetch(`https://public.test:${pub.port}/`, publicOpts(pub.port, {
      resolver: fakeResolver({ "public.test": ["127.0.0.3", "127.0.0.2"] }),
      addressPolicy: testPolicy(["127.0.0.2", "127.0.0.3"]),
    }));
    expect(text(r)).toBe("second");
    expect(r).toMatchObject({ address: "127.0.0.2" });
  });

  it("dns_failed when the name does not resolve or resolves to nothing", async () => {
    expect(await safeFetch("https://nowhere.example/", { resolver: fakeResolver({}) })).toMatchObject({ ok: false, refusal: "dns_failed", stage: "resolve" });
    expect(await safeFetch("https://empty.example/", { resolver: fakeResolver({ "empty.example": [] }) })).toMatchObject({ ok: false, refusal: "dns_failed" });
  });

  it("a resolver that never answers is cut at the deadline", async () => {
    const t0 = Date.now();
    const r = await safeFetch("https://slow.example/", { resolver: () => new Promise(() => undefined), deadlineMs: 300 });
    expect(r).toMatchObject({ ok: false, error: "timeout" });
    expect(Date.now() - t0).toBeLessThan(2000);
  });

  it("an IP literal is dialled as is, without the resolver", async () => {
    const pub = await keep(listenHttps((_q, res) => res.end("literal"), cert, "127.0.0.2"));
    const resolver = fakeResolver({});
    const r = await safeFetch(`https://127.0.0.2:${pub.port}/`, { resolver, addressPolicy: testPolicy(), httpsPorts: [pub.port] });
    expect(text(r)).toBe("literal");
    expect(resolver.calls).toEqual([]);
  });
});

describe("allowHosts: plain http and loopback, for exactly that host:port", () => {
  it("fetches a fixture seller on 127.0.0.1 over http", async () => {
    const s = await keep(listenHttp((_q, res) => res.writeHead(402, { "content-type": "application/json" }).end('{"x402Version":2}')));
    const r = await safeFetch(`http://127.0.0.1:${s.port}/paid`, { allowHosts: [`127.0.0.1:${s.port}`] });
    expect(r).toMatchObject({ ok: true, status: 402, tls: null, address: "127.0.0.1", sniffedType: "json", contentTypeMatches: true });
  });

  it("an allow-listed name may resolve to loopback, and only to loopback", async () => {
    const s = await keep(listenHttp((_q, res) => res.end("fixture")));
    const allowHosts = [`fixture.test:${s.port}`];
    const ok = await safeFetch(`http://fixture.test:${s.port}/`, { allowHosts, resolver: fakeResolver({ "fixture.test": ["127.0.0.1"] }) });
    expect(text(ok)).toBe("fixture");
    const priv = await safeFetch(`http://fixture.test:${s.port}/`, { allowHosts, resolver: fakeResolver({ "fixture.test": ["127.0.0.1", "192.168.1.10"] }) });
    expect(priv).toMatchObject({ ok: false, refusal: "address_forbidden" });
    const otherPort = await safeFetch(`https://fixture.test:${s.port + 1}/`, { allowHosts, resolver: fakeResolver({ "fixture.test": ["127.0.0.1"] }) });
    expect(otherPort).toMatchObject({ ok: false, refusal: "port_not_allowed" });
    expect(s.hits).toHaveLength(1);
  });

  it("without the entry, the same loopback server is refused", async () => {
    const s = await keep(listenHttp((_q, res) => res.end("x")));
    expect(await safeFetch(`http://127.0.0.1:${s.port}/`)).toMatchObject({ ok: false, refusal: "scheme_not_allowed", stage: "validate" });
    const named = await safeFetch(`https://fixture.test/`, { resolver: fakeResolver({ "fixture.test": ["127.0.0.1"] }) });
    expect(named).toMatchObject({ ok: false, refusal: "address_forbidden" });
    expect(s.hits).toHaveLength(0);
  });
});

describe("TLS facts", () => {
  it("records a self-signed chain as invalid, with days to expiry, SNI and Host as the name", async () => {
    const pub = await keep(listenHttps((_q, res) => res.end("hi"), cert, "127.0.0.2"));
    const r = await safeFetch(`https://public.test:${pub.port}/`, publicOpts(pub.port));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.tls).not.toBeNull();
    expect(r.tls!.valid).toBe(false);
    expect(r.tls!.authorizationError).toMatch(/SELF_SIGNED/);
    expect(r.tls!.daysToExpiry).toBeGreaterThanOrEqual(29);
    expect(r.tls!.daysToExpiry).toBeLessThanOrEqual(30);
    expect(r.tls!.protocol).toMatch(/^TLSv1\.[23]$/);
    expect(pub.hits[0].servername).toBe("public.test");
    expect(pub.hits[0].headers.host).toBe(`public.test:${pub.port}`);
  });

  it("a trusted chain is valid; the same chain for another name is not", async () => {
    const pub = await keep(listenHttps((_q, res) => res.end("hi"), cert, "127.0.0.2"));
    const good = await safeFetch(`https://public.test:${pub.port}/`, publicOpts(pub.port, { ca: cert.cert }));
    expect(good).toMatchObject({ ok: true, tls: { valid: true } });
    const other = await safeFetch(`https://other.test:${pub.port}/`, publicOpts(pub.port, { ca: cert.cert, resolver: fakeResolver({ "other.test": ["127.0.0.2"] }) }));
    expect(other).toMatchObject({ ok: true, tls: { valid: false, authorizationError: "ERR_TLS_CERT_ALTNAME_INVALID" } });
  });

  it("requireValidTls turns an invalid chain into tls_failed, before any request is sent", async () => {
    const pub = await keep(listenHttps((_q, res) => res.end("hi"), cert, "127.0.0.2"));
    const r = await safeFetch(`https://public.test:${pub.port}/`, publicOpts(pub.port, { requireValidTls: true }));
    expect(r).toMatchObject({ ok: false, error: "tls_failed" });
    expect(pub.hits).toHaveLength(0);
    const ok = await safeFetch(`https://public.test:${pub.port}/`, publicOpts(pub.port, { requireValidTls: true, ca: cert.cert }));
    expect(ok).toMatchObject({ ok: true, tls: { valid: true } });
  });

  it("an expiring certificate shows it", async () => {
    const soon = makeCert(["public.test"], 3);
    const pub = await keep(listenHttps((_q, res) => res.end("hi"), soon, "127.0.0.2"));
    const r = await safeFetch(`https://public.test:${pub.port}/`, publicOpts(pub.port, { ca: soon.cert }));
    expect(r).toMatchObject({ ok: true, tls: { valid: true } });
    if (r.ok) expect(r.tls!.daysToExpiry).toBeLessThanOrEqual(3);
  });

  it("TLS against a plain-http port fails as tls_failed or connection_failed, never a throw", async () => {
    const s = await keep(listenHttp((_q, res) => res.end("plain"), "127.0.0.2"));
    const r = await safeFetch(`https://public.test:${s.port}/`, publicOpts(s.port));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(["tls_failed", "connection_failed", "protocol_error"]).toContain("error" in r ? r.error : r.refusal);
  });
});

describe("redirects, followed by hand", () => {
  async function redirector(to: string | ((path: string) => string | null), status = 302): Promise<LocalServer> {
    return keep(listenHttp((q, res) => {
      const target = typeof to === "function" ? to(q.url ?? "/") : q.url === "/" ? to : null;
      if (target !== null) res.writeHead(status, { location: target }).end("moved");
      else res.writeHead(200, { "content-type": "text/plain" }).end(`at ${q.method} ${q.url}`);
    }));
  }
  const allow = (s: LocalServer) => ({ allowHosts: [`127.0.0.1:${s.port}`], resolver: fakeResolver({}) });

  it.each([
    ["https://127.0.0.1/", "ip_literal_forbidden"],
    ["https://2130706433/", "ip_literal_forbidden"],
    ["https://[::1]/", "ip_literal_forbidden"],
    ["https://[::ffff:169.254.169.254]/latest/meta-data/", "ip_literal_forbidden"],
    ["http://169.254.169.254/latest/meta-data/", "scheme_not_allowed"],
    ["https://localhost/", "host_forbidden"],
    ["file:///etc/passwd", "scheme_not_allowed"],
    ["gopher://127.0.0.1:6379/_FLUSHALL", "scheme_not_allowed"],
    ["https://user:pw@example.com/", "credentials_in_url"],
    ["//@example.com/", "credentials_in_url"],
    ["/next?token=1", "query_not_allowed"],
    ["https://example.com\\@127.0.0.1/", "ambiguous_url"],
    ["https://example.com:8443/", "port_not_allowed"],
  ])("to %s is refused (%s)", async (location, cause) => {
    const s = await redirector(location);
    const r = await safeFetch(`http://127.0.0.1:${s.port}/`, allow(s));
    expect(r).toMatchObject({ ok: false, refusal: "redirect_forbidden", cause, stage: "redirect" });
    if (!r.ok && "refusal" in r) expect(r.redirects).toEqual([expect.objectContaining({ status: 302, followed: false, reason: cause })]);
    expect(s.hits).toHaveLength(1);
  });

  it("to a loopback port not on the allow-list is refused", async () => {
    const other = await keep(listenHttp((_q, res) => res.end("other")));
    const s = await redirector(`http://127.0.0.1:${other.port}/`);
    const r = await safeFetch(`http://127.0.0.1:${s.port}/`, allow(s));
    expect(r).toMatchObject({ ok: false, refusal: "redirect_forbidden", cause: "scheme_not_allowed" });
    expect(other.hits).toHaveLength(0);
  });

  it("off the host: recorded, not followed, the 3xx returned (docs/spec/trust-rubric.md S1)", async () => {
    const resolver = fakeResolver({ "elsewhere.example": ["169.254.169.254"] });
    const s = await redirector("https://elsewhere.example/pay");
    const r = await safeFetch(`http://127.0.0.1:${s.port}/`, { ...allow(s), resolver });
    expect(r).toMatchObject({
      ok: true, status: 302, finalUrl: `http://127.0.0.1:${s.port}/`,
      redirects: [{ from: `http://127.0.0.1:${s.port}/`, to: "https://elsewhere.example/pay", status: 302, followed: false, reason: "redirect_off_host" }],
    });
    expect(text(r)).toBe("moved");
    expect(resolver.calls).toEqual([]); // an unfollowed hop is never resolved
  });

  it("a port change on the same name counts as another host", async () => {
    const pub = await keep(listenHttps((_q, res) => res.writeHead(301, { location: "https://public.test/" }).end(), cert, "127.0.0.2"));
    const r = await safeFetch(`https://public.test:${pub.port}/`, publicOpts(pub.port, { httpsPorts: [pub.port, 443] }));
    expect(r).toMatchObject({ ok: true, status: 301, redirects: [{ followed: false, reason: "redirect_off_host" }] });
  });

  it("https → http on the same host is refused", async () => {
    const pub = await keep(listenHttps((_q, res) => res.writeHead(302, { location: `http://public.test:${pub.port}/plain` }).end(), cert, "127.0.0.2"));
    const r = await safeFetch(`https://public.test:${pub.port}/`, publicOpts(pub.port));
    expect(r).toMatchObject({ ok: false, refusal: "redirect_forbidden", cause: "scheme_not_allowed" });
  });

  it("same-host https redirects are followed, with TLS facts of the last hop", async () => {
    const pub = await keep(listenHttps((q, res) => {
      if (q.url === "/a") res.writeHead(308, { location: "/b" }).end();
      else res.end(`at ${q.url}`);
    }, cert, "127.0.0.2"));
    const r = await safeFetch(`https://public.test:${pub.port}/a`, publicOpts(pub.port));
    expect(text(r)).toBe("at /b");
    expect(r).toMatchObject({ ok: true, finalUrl: `https://public.test:${pub.port}/b`, tls: { valid: false }, redirects: [{ status: 308, followed: true }] });
  });

  it("three hops are followed; a fourth is redirect_limit", async () => {
    const chain = (n: number) => (p: string) => {
      const i = Number(p.slice(1) || "0");
      return i < n ? `/${i + 1}` : null;
    };
    const three = await redirector(chain(3));
    const ok = await safeFetch(`http://127.0.0.1:${three.port}/`, allow(three));
    expect(text(ok)).toBe("at GET /3");
    if (ok.ok) expect(ok.redirects.map((h) => h.followed)).toEqual([true, true, true]);

    const four = await redirector(chain(4));
    const r = await safeFetch(`http://127.0.0.1:${four.port}/`, allow(four));
    expect(r).toMatchObject({ ok: false, refusal: "redirect_limit", stage: "redirect" });
    if (!r.ok && "refusal" in r) expect(r.redirects!.map((h) => h.followed)).toEqual([true, true, true, false]);
    expect(four.hits.map((h) => h.url)).toEqual(["/", "/1", "/2", "/3"]);

    const none = await safeFetch(`http://127.0.0.1:${four.port}/`, { ...allow(four), maxRedirects: 0 });
    expect(none).toMatchObject({ ok: false, refusal: "redirect_limit" });
  });

  it("a query in a redirect is followed only with allowQuery; a fragment is dropped", async () => {
    const s = await redirector((p) => (p === "/" ? "/next?page=2#top" : null));
    const r = await safeFetch(`http://127.0.0.1:${s.port}/`, { ...allow(s), allowQuery: true });
    expect(text(r)).toBe("at GET /next?page=2");
    const frag = await redirector((p) => (p === "/" ? "/next#top" : null));
    const f = await safeFetch(`http://127.0.0.1:${frag.port}/`, allow(frag));
    expect(f).toMatchObject({ ok: true, redirects: [{ to: `http://127.0.0.1:${frag.port}/next`, followed: true }] });
  });

  it("303 turns a POST into a GET without a body; 307 keeps both", async () => {
    const s303 = await redirector((p) => (p === "/" ? "/done" : null), 303);
    await safeFetch(`http://127.0.0.1:${s303.port}/`, { ...allow(s303), method: "POST", body: "a=1", headers: { "content-type": "text/plain" } });
    expect(s303.hits.map((h) => [h.method, h.body])).toEqual([["POST", "a=1"], ["GET", ""]]);
    const s307 = await redirector((p) => (p === "/" ? "/done" : null), 307);
    await safeFetch(`http://127.0.0.1:${s307.port}/`, { ...allow(s307), method: "POST", body: "a=1" });
    expect(s307.hits.map((h) => [h.method, h.body])).toEqual([["POST", "a=1"], ["POST", "a=1"]]);
  });

  it("a 3xx without Location is an ordinary response", async () => {
    const s = await keep(listenHttp((_q, res) => res.writeHead(304).end()));
    expect(await safeFetch(`http://127.0.0.1:${s.port}/`, allow(s))).toMatchObject({ ok: true, status: 304, redirects: [] });
  });
});

describe("request options the guard owns", () => {
  it.each(["Host", "connection", "Content-Length", "transfer-encoding", "proxy-authorization"])("refuses a caller-set %s header", async (name) => {
    expect(await safeFetch("https://example.com/", { headers: { [name]: "x" }, resolver: fakeResolver({}) })).toMatchObject({ ok: false, refusal: "header_not_allowed", stage: "validate" });
  });
  it.each([[{ "x-a": "1\r\nHost: evil" }], [{ "bad name": "1" }], [{ "x-b": "a\u0000b" }]])("refuses header injection %j", async (headers) => {
    expect(await safeFetch("https://example.com/", { headers, resolver: fakeResolver({}) })).toMatchObject({ ok: false, refusal: "header_not_allowed" });
  });
  it.each(["CONNECT", "TRACE", "FOO"])("refuses method %s", async (method) => {
    expect(await safeFetch("https://example.com/", { method, resolver: fakeResolver({}) })).toMatchObject({ ok: false, refusal: "method_not_allowed" });
  });
  it("passes the caller's headers and body through", async () => {
    const s = await keep(listenHttp((_q, res) => res.end("ok")));
    await safeFetch(`http://127.0.0.1:${s.port}/`, { allowHosts: [`127.0.0.1:${s.port}`], method: "post", headers: { "X-Payment": "abc" }, body: new TextEncoder().encode("body!") });
    expect(s.hits[0]).toMatchObject({ method: "POST", body: "body!", headers: { "x-payment": "abc" } });
    expect(s.hits[0].headers["user-agent"]).toMatch(/Tollgate/);
  });
});

