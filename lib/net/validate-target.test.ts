import { describe, expect, it } from "vitest";
import { validateTarget } from "./validate-target";
import { REFUSAL_CODES, type RefusalCode } from "./types";

/**
 * Hostile targets, each refused with a named code before any DNS. The order of checks (and so the
 * code when a URL breaks several rules) is: ambiguous characters → scheme → parse → plain http →
 * credentials → query → fragment → host → port.
 */
const HOSTILE: Array<[string, RefusalCode]> = [
  // IPv4 loopback in every encoding the WHATWG parser (and inet_aton) accepts
  ["https://127.0.0.1/", "ip_literal_forbidden"],
  ["https://2130706433/", "ip_literal_forbidden"],
  ["https://0177.0.0.1/", "ip_literal_forbidden"],
  ["https://0x7f000001/", "ip_literal_forbidden"],
  ["https://0x7f.0.0.1/", "ip_literal_forbidden"],
  ["https://0x7F.0x0.0x0.0x1/", "ip_literal_forbidden"],
  ["https://127.1/", "ip_literal_forbidden"],
  ["https://127.0.1/", "ip_literal_forbidden"],
  ["https://127.255.255.254/", "ip_literal_forbidden"],
  ["https://127.0.0.1./", "ip_literal_forbidden"],
  ["HtTpS://127.0.0.1:443/", "ip_literal_forbidden"],
  // unspecified / this network
  ["https://0/", "ip_literal_forbidden"],
  ["https://0.0.0.0/", "ip_literal_forbidden"],
  ["https://0.1.2.3/", "ip_literal_forbidden"],
  // IPv6 literals
  ["https://[::]/", "ip_literal_forbidden"],
  ["https://[::1]/", "ip_literal_forbidden"],
  ["https://[0:0:0:0:0:0:0:1]/", "ip_literal_forbidden"],
  ["https://[0000:0000:0000:0000:0000:0000:0000:0001]/", "ip_literal_forbidden"],
  ["https://[::ffff:127.0.0.1]/", "ip_literal_forbidden"],
  ["https://[::ffff:7f00:1]/", "ip_literal_forbidden"],
  ["https://[::ffff:8.8.8.8]/", "ip_literal_forbidden"],
  ["https://[::127.0.0.1]/", "ip_literal_forbidden"],
  ["https://[fe80::1%25eth0]/", "ip_literal_forbidden"],
  ["https://[fe80::1]/", "ip_literal_forbidden"],
  ["https://[febf:ffff::1]/", "ip_literal_forbidden"],
  ["https://[fd00:ec2::254]/", "ip_literal_forbidden"],
  ["https://[fc00::1]/", "ip_literal_forbidden"],
  ["https://[::ffff:169.254.169.254]/", "ip_literal_forbidden"],
  ["https://[::ffff:a9fe:a9fe]/", "ip_literal_forbidden"],
  ["https://[64:ff9b::7f00:1]/", "ip_literal_forbidden"],
  ["https://[64:ff9b::a9fe:a9fe]/", "ip_literal_forbidden"],
  ["https://[2002:7f00:1::]/", "ip_literal_forbidden"],
  ["https://[2002:a9fe:a9fe::1]/", "ip_literal_forbidden"],
  ["https://[2001:0::1]/", "ip_literal_forbidden"],
  ["https://[2001:db8::1]/", "ip_literal_forbidden"],
  ["https://[ff02::1]/", "ip_literal_forbidden"],
  ["https://[fec0::1]/", "ip_literal_forbidden"],
  // cloud metadata (link-local) in every encoding
  ["https://169.254.169.254/", "ip_literal_forbidden"],
  ["https://2852039166/", "ip_literal_forbidden"],
  ["https://0xa9fea9fe/", "ip_literal_forbidden"],
  ["https://0251.0376.0251.0376/", "ip_literal_forbidden"],
  ["https://169.254.43518/", "ip_literal_forbidden"],
  // private, CGNAT, multicast, broadcast, reserved, documentation, benchmarking, IETF
  ["https://10.0.0.1/", "ip_literal_forbidden"],
  ["https://012.1/", "ip_literal_forbidden"],
  ["https://167772161/", "ip_literal_forbidden"],
  ["https://172.16.0.1/", "ip_literal_forbidden"],
  ["https://172.31.255.255/", "ip_literal_forbidden"],
  ["https://192.168.1.1/", "ip_literal_forbidden"],
  ["https://0xc0a80101/", "ip_literal_forbidden"],
  ["https://100.64.0.1/", "ip_literal_forbidden"],
  ["https://100.127.255.255/", "ip_literal_forbidden"],
  ["https://224.0.0.1/", "ip_literal_forbidden"],
  ["https://239.255.255.250/", "ip_literal_forbidden"],
  ["https://255.255.255.255/", "ip_literal_forbidden"],
  ["https://4294967295/", "ip_literal_forbidden"],
  ["https://240.0.0.1/", "ip_literal_forbidden"],
  ["https://192.0.2.1/", "ip_literal_forbidden"],
  ["https://198.51.100.7/", "ip_literal_forbidden"],
  ["https://203.0.113.9/", "ip_literal_forbidden"],
  ["https://198.18.0.1/", "ip_literal_forbidden"],
  ["https://198.19.255.255/", "ip_literal_forbidden"],
  ["https://192.0.0.8/", "ip_literal_forbidden"],
  ["https://192.88.99.1/", "ip_literal_forbidden"],
  // URL-syntax tricks
  ["https://user@example.com/", "credentials_in_url"],
  ["https://user:pass@example.com/", "credentials_in_url"],
  ["https://evil.com@127.0.0.1/", "credentials_in_url"],
  ["https://127.0.0.1:443@evil.com/", "credentials_in_url"],
  ["https://@example.com/", "credentials_in_url"],
  ["https://:@example.com/", "credentials_in_url"],
  ["https://%40@example.com/", "credentials_in_url"],
  ["https://127.0.0.1#@evil.com", "fragment_not_allowed"],
  ["https://example.com/#", "fragment_not_allowed"],
  ["https://example.com/page#section", "fragment_not_allowed"],
  ["https://example.com/?", "query_not_allowed"],
  ["https://example.com/api?x=1", "query_not_allowed"],
  ["https://127.0.0.1?@evil.com/", "query_not_allowed"],
  ["https://example.com\\@127.0.0.1/", "ambiguous_url"],
  ["https:\\\\127.0.0.1\\", "ambiguous_url"],
  ["https://exa\tmple.com/", "ambiguous_url"],
  ["https://example.com/\n", "ambiguous_url"],
  ["https://127.0.0.1\r\n.evil.com/", "ambiguous_url"],
  [" https://example.com/", "ambiguous_url"],
  ["https://example.com/\u0000", "ambiguous_url"],
  ["https://exa mple.com/", "ambiguous_url"],
  ["https://example.com\u3000/", "ambiguous_url"],
  // local names, any case, trailing dots
  ["https://localhost/", "host_forbidden"],
  ["https://localhost./", "host_forbidden"],
  ["https://LOCALHOST/", "host_forbidden"],
  ["https://LocalHost.../", "host_forbidden"],
  ["https://LoCaLhOsT:443/", "host_forbidden"],
  ["https://api.localhost/", "host_forbidden"],
  ["https://API.LOCALHOST./", "host_forbidden"],
  ["https://metadata.google.internal/", "host_forbidden"],
  ["https://printer.local/", "host_forbidden"],
  ["https://router.home.arpa/", "host_forbidden"],
  ["https://1.0.0.127.in-addr.arpa/", "host_forbidden"],
  ["https://intranet/", "host_forbidden"],
  ["https://metadata./", "host_forbidden"],
  // schemes
  ["file:///etc/passwd", "scheme_not_allowed"],
  ["FILE://localhost/etc/passwd", "scheme_not_allowed"],
  ["gopher://127.0.0.1:6379/_INFO", "scheme_not_allowed"],
  ["data:text/html,hello", "scheme_not_allowed"],
  ["javascript:alert(1)", "scheme_not_allowed"],
  ["JavaScript:alert(1)", "scheme_not_allowed"],
  ["ftp://example.com/", "scheme_not_allowed"],
  ["ws://example.com/", "scheme_not_allowed"],
  ["dict://127.0.0.1:11211/", "scheme_not_allowed"],
  ["http://example.com/", "scheme_not_allowed"],
  ["http://127.0.0.1/", "scheme_not_allowed"],
  ["HTTP://LOCALHOST/", "scheme_not_allowed"],
  // ports
  ["https://example.com:8443/", "port_not_allowed"],
  ["https://example.com:80/", "port_not_allowed"],
  ["https://example.com:22/", "port_not_allowed"],
  ["https://example.com:0/", "port_not_allowed"],
  ["https://example.com:6379/", "port_not_allowed"],
  // not URLs
  ["example.com", "invalid_url"],
  ["//example.com/", "invalid_url"],
  ["https:example.com", "invalid_url"],
  ["https:/example.com", "invalid_url"],
  ["https://", "invalid_url"],
  ["https://[::1", "invalid_url"],
  ["https://exa%00mple.com/", "invalid_url"],
  ["", "invalid_url"],
];

describe("validateTarget refuses hostile targets before any DNS", () => {
  it("has a big enough table", () => {
    expect(HOSTILE.length).toBeGreaterThanOrEqual(60);
  });
  it.each(HOSTILE)("%j → %s", (input, code) => {
    const r = validateTarget(input);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.refusal).toBe(code);
      expect(r.detail.length).toBeGreaterThan(0);
    }
  });
});

describe("what the WHATWG parser hands over is checked too", () => {
  // Round-trip: the parser's normalised href of each numeric form must be refused as well.
  const forms = ["https://2130706433/", "https://0177.0.0.1/", "https://0x7f000001/", "https://127.1/", "https://[::ffff:127.0.0.1]/", "https://[0:0:0:0:0:0:0:1]/"];
  it.each(forms)("%s and its parsed href", (raw) => {
    const href = new URL(raw).href;
    const a = validateTarget(raw);
    const b = validateTarget(href);
    expect(a.ok || b.ok).toBe(false);
    if (!a.ok && !b.ok) expect([a.refusal, b.refusal]).toEqual(["ip_literal_forbidden", "ip_literal_forbidden"]);
  });
});

describe("validateTarget accepts what it should", () => {
  it.each([
    "https://example.com/",
    "https://EXAMPLE.com./api/v1/weather",
    "https://api.example.com:443/x",
    "https://8.8.8.8/",
    "https://[2001:4860:4860::8888]/",
    "https://xn--bcher-kva.example/",
  ])("%s", (input) => {
    const r = validateTarget(input);
    expect(r).toMatchObject({ ok: true });
    if (r.ok) {
      expect(r.url.hostname.endsWith(".")).toBe(false);
      expect(r.url.hostname).toBe(r.url.hostname.toLowerCase());
    }
  });

  it("allows a query only when asked", () => {
    expect(validateTarget("https://example.com/api?city=Paris")).toMatchObject({ ok: false, refusal: "query_not_allowed" });
    expect(validateTarget("https://example.com/api?city=Paris", { allowQuery: true })).toMatchObject({ ok: true });
    // allowQuery never lets a fragment through
    expect(validateTarget("https://example.com/api?city=Paris#x", { allowQuery: true })).toMatchObject({ ok: false, refusal: "fragment_not_allowed" });
  });

  it("extra https ports only when listed", () => {
    expect(validateTarget("https://example.com:8443/", { httpsPorts: [443, 8443] })).toMatchObject({ ok: true });
    expect(validateTarget("https://example.com:8444/", { httpsPorts: [443, 8443] })).toMatchObject({ ok: false, refusal: "port_not_allowed" });
  });
});

describe("allowHosts: plain http and loopback, for exactly that host:port", () => {
  const allowHosts = ["127.0.0.1:4021", "localhost:3000", "[::1]:8080", "10.0.0.5:80"];
  it.each([
    ["http://127.0.0.1:4021/", true],
    ["https://127.0.0.1:4021/", true],
    ["http://localhost:3000/paid", true],
    ["http://LOCALHOST.:3000/paid", true],
    ["http://[::1]:8080/", true],
    ["http://[0:0:0:0:0:0:0:1]:8080/", true],
    ["http://2130706433:4021/", true],
  ] as const)("%s allowed", (input, ok) => {
    expect(validateTarget(input, { allowHosts }).ok).toBe(ok);
  });
  it.each([
    ["http://127.0.0.1:4022/", "scheme_not_allowed"],
    ["https://127.0.0.1:4022/", "ip_literal_forbidden"],
    ["http://127.0.0.2:4021/", "scheme_not_allowed"],
    ["http://localhost:3001/", "scheme_not_allowed"],
    ["https://localhost:3001/", "host_forbidden"],
    ["http://10.0.0.5/", "ip_literal_forbidden"], // on the list, but not loopback
    ["http://user@127.0.0.1:4021/", "credentials_in_url"],
    ["http://127.0.0.1:4021/?a=1", "query_not_allowed"],
    ["http://[::ffff:127.0.0.1]:8080/", "scheme_not_allowed"],
  ] as const)("%s → %s", (input, code) => {
    expect(validateTarget(input, { allowHosts })).toMatchObject({ ok: false, refusal: code });
  });
});

describe("REFUSAL_CODES", () => {
  it("describes every code once", () => {
    const codes = REFUSAL_CODES.map((c) => c.code);
    expect(new Set(codes).size).toBe(codes.length);
    for (const c of REFUSAL_CODES) expect(c.description.length).toBeGreaterThan(10);
    for (const [, code] of HOSTILE) expect(codes).toContain(code);
  });
});
