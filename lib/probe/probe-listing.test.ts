import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixtureListings, startFixtureSellers, type FixtureServer } from "@/sellers";
import type { ListingDocument } from "@/lib/listing-document/document";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { MAX_OWNERSHIP_PROOFS } from "@/lib/evidence";
import { ownershipProofsOf, probeListing, type ProbeListingResult } from "./probe-listing";
import { callEndpoint } from "./probe-endpoint";
import { unpaidKey, unpaidRequest, type UnpaidCalls } from "./request";
import type { ProbeEvidence } from "@/lib/evidence";

let server: FixtureServer;
let listings: Record<string, ListingDocument>;
let allow: string[];
const results = new Map<string, ProbeListingResult>();

/** Every fixture seller and exactly the failing findings (check:code) its fault must produce. */
const EXPECTED: Record<string, { kind: string; endpoint: string[]; listing?: string[]; warn?: string[] }> = {
  "agent-verdict": { kind: "x402-v2", endpoint: [] },
  "validity-check": { kind: "x402-v2", endpoint: [] },
  "mpp-seller": { kind: "mpp", endpoint: [] },
  "no-challenge": { kind: "none", endpoint: ["R2:paid_without_payment", "C1:challenge_missing"], listing: ["M4:logo_not_image", "D1:docs_unreachable"] },
  "malformed-header": { kind: "x402-v2", endpoint: ["C1:header_not_base64"] },
  "v1-only": { kind: "x402-v1", endpoint: [] },
  disagree: { kind: "x402-v2", endpoint: ["C4:header_body_disagree"] },
  "lowercase-payto": { kind: "x402-v2", endpoint: ["C2:payto_not_checksummed"] },
  "wrong-asset": { kind: "x402-v2", endpoint: ["C3:asset_not_canonical"] },
  "server-error": { kind: "none", endpoint: ["R2:server_error", "C1:challenge_missing"] },
  redirect: { kind: "none", endpoint: ["R2:redirected", "S1:redirect_off_host", "C1:challenge_missing"] },
  "endless-body": { kind: "x402-v2", endpoint: [], warn: ["S5:body_over_cap"] },
  "gzip-bomb": { kind: "x402-v2", endpoint: ["S5:content_type_mismatch"], warn: ["S5:body_over_cap"] },
  "secret-ask": { kind: "x402-v2", endpoint: ["S4:asks_for_secret"] },
  "mpp-expired": { kind: "mpp", endpoint: ["C2:mpp_expired", "C1:mpp_realm_missing"] },
};

const codes = (findings: ProbeEvidence["findings"], severity: string) =>
  findings.filter((f) => f.severity === severity && f.code !== "not_https").map((f) => `${f.check}:${f.code}`).sort();
const evidence = (slug: string): ProbeEvidence => {
  const r = results.get(slug);
  if (!r?.ok) throw new Error(`${slug} was refused: ${JSON.stringify(r)}`);
  return r.evidence;
};

beforeAll(async () => {
  server = await startFixtureSellers({ port: 0 });
  allow = [`127.0.0.1:${server.port}`];
  listings = fixtureListings(server.url);
  // All sellers at once, as the demo does; the slow seller has its own test with the real deadline.
  await Promise.all(Object.keys(EXPECTED).map(async (slug) => results.set(slug, await probeListing(listings[slug], { allowHosts: allow, deadlineMs: 4000, now: new Date() }))));
});
afterAll(() => server?.close());

describe("probeListing against every fixture seller", () => {
  it("covers every fixture seller but the slow one", () => {
    expect(Object.keys(listings).sort()).toEqual([...Object.keys(EXPECTED), "slow"].sort());
  });

  for (const [slug, want] of Object.entries(EXPECTED)) {
    it(`${slug}: exactly the expected findings`, () => {
      const e = evidence(slug);
      const paid = e.endpoints.filter((x) => listings[slug].endpoints.find((l) => l.path === x.path)?.payable);
      expect(paid.length).toBeGreaterThan(0);
      for (const ep of paid) {
        expect(ep.reachable).toBe(true);
        expect(ep.challenge.kind).toBe(want.kind);
        expect(codes(ep.findings, "fail")).toEqual([...want.endpoint].sort());
        for (const w of want.warn ?? []) expect(codes(ep.findings, "warn")).toContain(w);
        // Every fixture is plain http on loopback: S1 records it, honestly.
        expect(ep.findings).toContainEqual(expect.objectContaining({ check: "S1", code: "not_https", severity: "fail" }));
      }
      expect(codes(e.findings, "fail")).toEqual([...(want.listing ?? [])].sort());
    });
  }

  it("records TTFB, status and the kept challenge headers", () => {
    const ep = evidence("agent-verdict").endpoints[0];
    expect(ep.status).toBe(402);
    expect(ep.ttfbMs).toBeGreaterThan(0);
    expect(ep.headers["payment-required"]).toBeTruthy();
    expect(ep.tls).toBeNull();
    expect(ep.challenge.bazaarReading).toBe("x402-foundation");
    expect(ep.challenge.requirements?.[0]).toMatchObject({ network: "eip155:8453", amount: "40000", payTo: "0x63aA5960943865e7d57FDdF0D899eE36B6D2046E" });
    expect(ep.findings.filter((f) => f.code === "asset_unverified").length).toBe(3); // eip155:10, 1329, 5042: not in the table
  });

  it("reads the coinbase reading on validity-check and leaves its free routes alone", () => {
    const e = evidence("validity-check");
    const free = e.endpoints.filter((x) => x.path === "/criteria" || x.path === "/precheck");
    expect(free.map((x) => x.status)).toEqual([200, 200]);
    for (const f of free) expect(f.findings).toContainEqual(expect.objectContaining({ check: "R2", code: "not_payable" }));
    expect(e.endpoints.find((x) => x.path === "/upto")?.challenge.bazaarReading).toBe("coinbase");
  });

  it("records the listing-level facts: logo, docs, discovery", () => {
    const e = evidence("agent-verdict");
    expect(e.logo).toMatchObject({ ok: true, isImage: true });
    expect(e.docs).toMatchObject({ ok: true, status: 200 });
    expect(e.discovery).toMatchObject({ ok: true, kind: "well-known-x402" });
    expect(evidence("mpp-seller").discovery).toMatchObject({ ok: true, kind: "openapi" });
    expect(evidence("validity-check").logo).toMatchObject({ isImage: true }); // an SVG
  });

  it("normalises MPP charges and lists every challenge", () => {
    const ep = evidence("mpp-seller").endpoints[0];
    expect(ep.challenge.mpp?.map((c) => c.method)).toEqual(["tempo", "evm"]);
    // mppx puts the chain in request.methodDetails.chainId: both charges keep their eip155 network.
    expect(ep.challenge.requirements?.map((r) => r.network)).toEqual(["eip155:42431", "eip155:8453"]);
    expect(ep.challenge.requirements?.[1]).toMatchObject({ network: "eip155:8453", amount: "5000" });
  });
});

describe("probeListing: a slot's next call before its last answer is judged (docs/PROBE.md \"Concurrency\")", () => {
  it("makes every call of a one-slot run before judging the first answer, and the evidence is unchanged", async () => {
    const l = listings["agent-verdict"];
    const first = l.endpoints[0];
    const endpoints = ["/a", "/b", "/c"].map((path) => ({ ...first, path }));
    const target = (path: string) => ({ method: first.method, path, url: `${l.baseUrl}${path}`, requestExample: first.requestExample, payable: true });
    // One real answer of the fixture, standing as the prefetched answer of all three (the draft's calls do this).
    const answer = await callEndpoint(target(first.path), { allowHosts: allow, deadlineMs: 4000 });
    class CountedCalls extends Map<string, { result: typeof answer; deadlineMs: number; maxBodyBytes: number }> {
      calls = 0;
      override get(key: string) {
        this.calls++;
        return super.get(key);
      }
    }
    const calls = new CountedCalls();
    for (const e of endpoints) calls.set(unpaidKey(unpaidRequest(e.method, `${l.baseUrl}${e.path}`, e.requestExample)), { result: answer, deadlineMs: 4000, maxBodyBytes: 256 * 1024 });
    const callsWhenJudged: number[] = [];
    const r = await probeListing({ ...l, endpoints }, {
      allowHosts: allow, deadlineMs: 4000, concurrency: 1, prefetched: calls as UnpaidCalls,
      onEndpoint: (done) => void (done > 0 && callsWhenJudged.push(calls.calls)),
    });
    // Judged in the same turn as its call, the first answer would be judged after one call: [1, 2, 3].
    expect(callsWhenJudged).toEqual([3, 3, 3]);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.evidence.endpoints.map((e) => e.path)).toEqual(["/a", "/b", "/c"]);
    const judgedAlone = (await probeListing({ ...l, endpoints: [endpoints[0]] }, { allowHosts: allow, deadlineMs: 4000, prefetched: calls as UnpaidCalls })) as Extract<ProbeListingResult, { ok: true }>;
    expect(r.evidence.endpoints[0]).toEqual(judgedAlone.evidence.endpoints[0]);
  });

  it("a failure judging one answer while other calls are in flight is the run's failure, not an unhandled rejection", async () => {
    const l = listings["agent-verdict"];
    const endpoints = ["/a", "/b", "/c"].map((path) => ({ ...l.endpoints[0], path }));
    const run = probeListing({ ...l, endpoints }, {
      allowHosts: allow, deadlineMs: 4000, concurrency: 1,
      onEndpoint: (done) => {
        if (done === 1) throw new Error("progress sink failed");
      },
    });
    await expect(run).rejects.toThrow("progress sink failed");
    // Let the calls still in flight finish inside this test.
    await new Promise((r) => setTimeout(r, 300));
  });
});

describe("probeListing: refusals and deadlines", () => {
  it("refuses a baseUrl with credentials, a query or a fragment before any request", async () => {
    for (const [suffix, refusal] of [["?a=1", "query_not_allowed"], ["#x", "fragment_not_allowed"]] as const) {
      const r = await probeListing({ ...listings["agent-verdict"], baseUrl: listings["agent-verdict"].baseUrl + suffix }, { allowHosts: allow });
      expect(r).toMatchObject({ ok: false, refusal });
    }
    const creds = listings["agent-verdict"].baseUrl.replace("http://", "http://user:pw@");
    expect(await probeListing({ ...listings["agent-verdict"], baseUrl: creds }, { allowHosts: allow })).toMatchObject({ ok: false, refusal: "credentials_in_url" });
  });

  it("refuses loopback without an allow-list entry", async () => {
    const r = await probeListing(listings["agent-verdict"]);
    expect(r.ok).toBe(false);
  });

  it("a base host that resolves to a forbidden address refuses the listing (a refusal after DNS is a refusal, issue #20 item 6)", async () => {
    const l = listings["agent-verdict"];
    for (const address of ["127.0.0.1", "10.0.0.7", "::1"]) {
      const resolver = async () => [{ address, family: (address.includes(":") ? 6 : 4) as 4 | 6 }];
      const r = await probeListing({ ...l, baseUrl: "https://rebound.example.com", logoUrl: null, docsUrl: null, discoveryUrl: null }, { resolver, deadlineMs: 2000 });
      expect(r).toMatchObject({ ok: false, refusal: "address_forbidden" });
      if (!r.ok) expect(r.detail).toContain(address);
    }
  });

  it("a logo on another host that resolves inward stays a finding, not a refusal of the listing", async () => {
    const l = listings["agent-verdict"];
    const resolver = async () => [{ address: "10.0.0.7", family: 4 as const }];
    const r = await probeListing({ ...l, logoUrl: "https://cdn.example.net/logo.png" }, { allowHosts: allow, resolver, deadlineMs: 4000 });
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.evidence.logo).toMatchObject({ ok: false, refusal: "address_forbidden" });
  });

  it("an endpoint the guard refuses is evidence, not a refusal of the listing", async () => {
    const l = listings["agent-verdict"];
    const r = await probeListing({ ...l, endpoints: [{ ...l.endpoints[0], path: "/x?y=1" }] }, { allowHosts: allow, deadlineMs: 2000 });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.evidence.endpoints[0]).toMatchObject({ reachable: false, refusal: "query_not_allowed" });
    expect(r.evidence.endpoints[0].findings).toContainEqual(expect.objectContaining({ check: "R1", code: "target_refused" }));
  });

  it("the redirect seller reached as localhost redirects to 127.0.0.1: still off the host", async () => {
    const asLocalhost = fixtureListings(`http://localhost:${server.port}`).redirect;
    const r = await probeListing(asLocalhost, { allowHosts: [`localhost:${server.port}`], deadlineMs: 4000 });
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.evidence.endpoints[0].findings).toContainEqual(expect.objectContaining({ check: "S1", code: "redirect_off_host" }));
  });

  it("slow: the 402 after 15 s fails R1 at the 10 s deadline", async () => {
    const started = Date.now();
    const r = await probeListing(listings.slow, { allowHosts: allow });
    const took = Date.now() - started;
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const ep = r.evidence.endpoints[0];
    expect(ep).toMatchObject({ reachable: false, status: null });
    expect(codes(ep.findings, "fail")).toEqual(["R1:timeout"]);
    expect(took).toBeGreaterThanOrEqual(9_900);
    expect(took).toBeLessThan(14_000);
  }, 25_000);
});

describe("ownership proofs for trust H4 (the operator's own /.well-known/x402)", () => {
  const sig = "0x" + "ab".repeat(65);
  const compact = "0x" + "cd".repeat(64);
  const body = (doc: unknown) => new TextEncoder().encode(JSON.stringify(doc));
  it.each<[string, unknown, string, string, string[] | null]>([
    ["the origin's file", { version: 1, resources: [], ownershipProofs: [sig, compact] }, "https://a.example/.well-known/x402", "https://a.example/v1", [sig, compact]],
    ["non-signature strings and other values dropped", { resources: [], ownershipProofs: [sig, "0x1234", "hello", 7, null] }, "https://a.example/.well-known/x402", "https://a.example", [sig]],
    ["no ownershipProofs: a file that lists none", { resources: [] }, "https://a.example/.well-known/x402", "https://a.example", []],
    ["another origin's file", { resources: [], ownershipProofs: [sig] }, "https://b.example/.well-known/x402", "https://a.example", null],
    ["below a path prefix", { resources: [], ownershipProofs: [sig] }, "https://a.example/api/.well-known/x402", "https://a.example/api", null],
    ["another port", { resources: [], ownershipProofs: [sig] }, "https://a.example:8443/.well-known/x402", "https://a.example", null],
  ])("%s", (_, doc, url, base, want) => expect(ownershipProofsOf(body(doc), url, base)).toEqual(want));

  it("keeps at most MAX_OWNERSHIP_PROOFS", () => {
    const many = Array.from({ length: MAX_OWNERSHIP_PROOFS + 5 }, () => sig);
    expect(ownershipProofsOf(body({ resources: [], ownershipProofs: many }), "https://a.example/.well-known/x402", "https://a.example")).toHaveLength(MAX_OWNERSHIP_PROOFS);
  });

  it("the probe records them from the discovery document it already fetches, with no extra request", async () => {
    const hits: string[] = [];
    const srv = http.createServer((req, res) => {
      hits.push(`${req.method} ${req.url}`);
      if (req.url === "/.well-known/x402") {
        res.writeHead(200, { "content-type": "application/json" });
        return res.end(JSON.stringify({ version: 1, resources: [], ownershipProofs: [sig, "not a signature"] }));
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
    const host = `127.0.0.1:${(srv.address() as AddressInfo).port}`;
    try {
      const l = listings["agent-verdict"];
      const r = await probeListing({ ...l, baseUrl: `http://${host}`, logoUrl: null, docsUrl: null, discoveryUrl: null, endpoints: [{ ...l.endpoints[0], path: "/run" }] }, { allowHosts: [host], deadlineMs: 4000 });
      expect(r.ok).toBe(true);
      if (r.ok) expect(r.evidence.discovery).toMatchObject({ ok: true, kind: "well-known-x402", ownershipProofs: [sig] });
      expect(hits.filter((h) => h === "GET /.well-known/x402")).toHaveLength(1);
    } finally {
      await new Promise((r) => srv.close(r));
    }
  });
});
