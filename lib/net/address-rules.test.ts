/**
 * The address rules and their precedence (docs/SSRF.md "Address rules"), as tables in the manner of
 * smokescreen's range tests: operator deny ranges win over everything; cloud endpoints
 * (169.254.169.254, fd00:ec2::254, 168.63.129.16) and the host's own addresses are refused even when
 * an allow range covers them or the policy calls them public; allowHosts lifts loopback only; allow
 * ranges lift the built-in refusal of a private range; then the built-in classification.
 */
import os from "node:os";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { parseEnv } from "@/lib/env";
import { decideAddress, parseRanges } from "./address-rules";
import { classifyAddress } from "./classify-address";
import { safeFetch, validateTarget } from "./safe-fetch";
import { fakeResolver, listenHttps, makeCert, testPolicy, type Cert, type LocalServer } from "@/test/net-servers";

const DENY = ["93.184.0.0/16", "2606:4700::/32", "10.20.30.0/24", "127.0.0.9"];
const ALLOW = ["10.20.0.0/16", "172.16.5.5", "fd00::/8", "169.254.0.0/16", "168.63.0.0/16", "34.0.0.0/8", "100.64.0.0/10"];
const OWN = ["34.117.59.81", "2a00:1450:4001:80b::200e", "127.0.0.1"];
const rules = { denyRanges: DENY, allowRanges: ALLOW, ownAddresses: OWN };

// [address, allow-listed host:port?, allowed?, the range or rule that decided]
const TABLE: Array<[string, boolean, boolean, string]> = [
  // 1. operator deny: wins over allow ranges, allowHosts and the built-in "public"
  ["93.184.216.34", false, false, "operatorDeny(93.184.0.0/16)"],
  ["2606:4700::6810:85e5", false, false, "operatorDeny(2606:4700::/32)"],
  ["::ffff:93.184.216.34", false, false, "operatorDeny(93.184.0.0/16)"],
  ["10.20.30.5", false, false, "operatorDeny(10.20.30.0/24)"],
  ["127.0.0.9", true, false, "operatorDeny(127.0.0.9)"],
  // 2. cloud endpoints: an allow range covering them does not lift them
  ["169.254.169.254", false, false, "linkLocal(cloudMetadata)"],
  ["::ffff:169.254.169.254", false, false, "linkLocal(cloudMetadata)"],
  ["fd00:ec2::254", false, false, "uniqueLocal"],
  ["168.63.129.16", false, false, "cloudHostEndpoint"],
  ["::ffff:a83f:8110", false, false, "cloudHostEndpoint"],
  // 3. the host's own addresses, even public ones, even inside an allow range
  ["34.117.59.81", false, false, "ownAddress"],
  ["::ffff:34.117.59.81", false, false, "ownAddress"],
  ["2a00:1450:4001:80b::200e", false, false, "ownAddress"],
  ["2a00:1450:4001:80b:0:0:0:200e", false, false, "ownAddress"],
  // 4. allowHosts: loopback only, and only for an allow-listed host:port
  ["127.0.0.1", true, true, "loopback(allowHosts)"],
  ["::1", true, true, "loopback(allowHosts)"],
  ["127.0.0.1", false, false, "loopback"],
  ["::ffff:127.0.0.1", true, false, "ipv4Mapped(loopback)"],
  ["10.0.0.1", true, false, "private"],
  // 5. operator allow ranges lift a private or special range
  ["10.20.1.1", false, true, "operatorAllow(10.20.0.0/16)"],
  ["172.16.5.5", false, true, "operatorAllow(172.16.5.5)"],
  ["fd12:3456::1", false, true, "operatorAllow(fd00::/8)"],
  ["169.254.10.10", false, true, "operatorAllow(169.254.0.0/16)"],
  ["100.100.100.100", false, true, "operatorAllow(100.64.0.0/10)"],
  ["34.117.59.82", false, true, "operatorAllow(34.0.0.0/8)"],
  // 6. the built-in classification
  ["10.21.0.1", false, false, "private"],
  ["172.16.5.6", false, false, "private"],
  ["192.168.1.1", false, false, "private"],
  ["8.8.8.8", false, true, "unicast"],
  ["2001:4860:4860::8888", false, true, "unicast"],
  ["not-an-ip", false, false, "invalid"],
];

describe("decideAddress: precedence table (deny > cloud endpoints > own addresses > allowHosts loopback > allow > built-in)", () => {
  it.each(TABLE)("%s (allow-listed: %s) → allowed %s, %s", (ip, allowListed, allowed, range) => {
    expect(decideAddress(ip, allowListed, rules)).toEqual({ allowed, range });
  });

  it("without operator ranges, the cloud host endpoint 168.63.129.16 is refused by the built-in classification", () => {
    expect(classifyAddress("168.63.129.16")).toEqual({ allowed: false, range: "cloudHostEndpoint" });
    expect(classifyAddress("168.63.129.15")).toEqual({ allowed: true, range: "unicast" });
    expect(classifyAddress("168.63.129.17")).toEqual({ allowed: true, range: "unicast" });
    expect(decideAddress("168.63.129.16", false, { denyRanges: [], allowRanges: [], ownAddresses: [] })).toEqual({ allowed: false, range: "cloudHostEndpoint" });
  });

  it("this machine's own interface addresses (os.networkInterfaces(), loopback aside) are refused even when the policy calls every address public", () => {
    const everythingPublic = () => ({ allowed: true, range: "unicast" });
    const mine = Object.values(os.networkInterfaces()).flatMap((l) => l ?? []).filter((a) => !a.internal).map((a) => a.address);
    expect(mine.length).toBeGreaterThan(0);
    for (const ip of mine) {
      expect(decideAddress(ip, false, { addressPolicy: everythingPublic, denyRanges: [], allowRanges: [] }), ip).toEqual({ allowed: false, range: "ownAddress" });
      expect(decideAddress(ip, false, { addressPolicy: everythingPublic, denyRanges: [], allowRanges: [ip.includes(":") ? "::/0" : "0.0.0.0/0"] }), ip).toEqual({ allowed: false, range: "ownAddress" });
    }
  });
});

describe("parseRanges and the environment", () => {
  it.each([
    ["10.0.0.0/8", ["10.0.0.0/8"]],
    ["10.0.0.0/8, 2001:db8::/32 192.0.2.7", ["10.0.0.0/8", "2001:db8::/32", "192.0.2.7"]],
    ["  ", []],
  ])("%j parses to %j", (value, cidrs) => {
    expect(parseRanges(value).map((r) => r.cidr)).toEqual(cidrs);
  });

  it.each(["10.0.0.0/33", "10.0.0/8", "example.com", "::1/129", "10.0.0.1-10.0.0.9", "0x7f000001"])("%j is refused, naming the source and the entry", (entry) => {
    expect(() => parseRanges(`10.0.0.0/8,${entry}`, "TOLLGATE_NET_DENY")).toThrow(new RegExp(`TOLLGATE_NET_DENY: "${entry.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}" is not a CIDR`));
  });

  it("lib/env.ts refuses a bad TOLLGATE_NET_DENY or TOLLGATE_NET_ALLOW at start-up, naming the variable", () => {
    expect(() => parseEnv({ TOLLGATE_NET_DENY: "10.0.0.0/8,nonsense" })).toThrow(/TOLLGATE_NET_DENY .*"nonsense"/);
    expect(() => parseEnv({ TOLLGATE_NET_ALLOW: "300.1.1.1" })).toThrow(/TOLLGATE_NET_ALLOW/);
    expect(() => parseEnv({ TOLLGATE_NET_MAX_CONNECTIONS_PER_HOST: "0" })).toThrow(/TOLLGATE_NET_MAX_CONNECTIONS_PER_HOST/);
    expect(parseEnv({ TOLLGATE_NET_DENY: "10.0.0.0/8 2001:db8::/32", TOLLGATE_NET_ALLOW: "172.16.0.0/12" }).TOLLGATE_NET_DENY).toBe("10.0.0.0/8 2001:db8::/32");
  });
});

describe("safeFetch and validateTarget apply the rules", () => {
  let cert: Cert;
  let server: LocalServer | null = null;
  const saved = { deny: process.env.TOLLGATE_NET_DENY, allow: process.env.TOLLGATE_NET_ALLOW };
  beforeAll(() => {
    cert = makeCert(["public.test"], 30);
  });
  afterEach(async () => {
    await server?.close();
    server = null;
    for (const [k, v] of [["TOLLGATE_NET_DENY", saved.deny], ["TOLLGATE_NET_ALLOW", saved.allow]] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });

  it("an IP-literal target of the cloud host endpoint or an own address is refused before DNS", () => {
    expect(validateTarget("https://168.63.129.16/")).toMatchObject({ ok: false, refusal: "ip_literal_forbidden" });
    const own = Object.values(os.networkInterfaces()).flatMap((l) => l ?? []).find((a) => !a.internal && a.family === "IPv4")!.address;
    const r = validateTarget(`https://${own}/`, { addressPolicy: () => ({ allowed: true, range: "unicast" }) });
    expect(r).toMatchObject({ ok: false, refusal: "ip_literal_forbidden" });
    if (!r.ok) expect(r.detail).toContain("ownAddress");
  });

  it("a name resolving to this machine's own address is refused at resolution, nothing dialled, even with a policy calling it public", async () => {
    const own = Object.values(os.networkInterfaces()).flatMap((l) => l ?? []).filter((a) => !a.internal).map((a) => a.address.split("%")[0]);
    for (const ip of own) {
      const r = await safeFetch("https://api.example.com/", { resolver: fakeResolver({ "api.example.com": [ip] }), addressPolicy: () => ({ allowed: true, range: "unicast" }), deadlineMs: 2000 });
      expect(r, ip).toMatchObject({ ok: false, refusal: "address_forbidden", stage: "resolve" });
      if (!r.ok && "refusal" in r) expect(r.detail).toContain("(ownAddress)");
    }
  });

  it("TOLLGATE_NET_DENY refuses an address the policy calls public; nothing is dialled", async () => {
    server = await listenHttps((_q, res) => res.end("hello"), cert);
    const opts = { resolver: fakeResolver({ "public.test": ["127.0.0.2"] }), addressPolicy: testPolicy(), httpsPorts: [server.port], deadlineMs: 3000 };
    expect((await safeFetch(`https://public.test:${server.port}/`, opts)).ok).toBe(true);
    process.env.TOLLGATE_NET_DENY = "127.0.0.0/30";
    const r = await safeFetch(`https://public.test:${server.port}/`, opts);
    expect(r).toMatchObject({ ok: false, refusal: "address_forbidden", stage: "resolve" });
    if (!r.ok && "refusal" in r) expect(r.detail).toContain("operatorDeny(127.0.0.0/30)");
    expect(server.hits).toHaveLength(1);
  });

  it("TOLLGATE_NET_ALLOW lets an operator-named private range through, and a deny range inside it still wins", async () => {
    server = await listenHttps((_q, res) => res.end("internal"), cert);
    const opts = { resolver: fakeResolver({ "public.test": ["127.0.0.2"] }), httpsPorts: [server.port], deadlineMs: 3000 };
    expect(await safeFetch(`https://public.test:${server.port}/`, opts)).toMatchObject({ ok: false, refusal: "address_forbidden" });
    process.env.TOLLGATE_NET_ALLOW = "127.0.0.2/32";
    const r = await safeFetch(`https://public.test:${server.port}/`, opts);
    expect(r.ok && Buffer.from(r.body).toString()).toBe("internal");
    process.env.TOLLGATE_NET_DENY = "127.0.0.2";
    expect(await safeFetch(`https://public.test:${server.port}/`, opts)).toMatchObject({ ok: false, refusal: "address_forbidden" });
    expect(server.hits).toHaveLength(1);
  });
});
