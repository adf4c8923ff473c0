/**
 * readiness/1.2.0: the per-scheme policies (H1, reading scheme-policies) and the schema shape D3
 * asks for (reading schema-shape), each scored under 1.2.0 and under the released 1.1.0, which keeps
 * its reading. The challenges are read by the probe's own parser, so the evidence is what a probe records.
 */
import { describe, expect, it } from "vitest";
import type { ListingDocument } from "@/lib/listing-document/document";
import { parseX402 } from "@/lib/x402";
import { docsPage, fullEndpoint, fullEvidence, fullListing, probedEndpoint, TEST_NOW } from "@/test/readiness";
import { scoreReadiness } from "./engine";
import { CURRENT_RUBRIC, loadRubric, type RuleId } from "./rubric";
import type { ReadinessEvidence, ReadinessResult } from "./types";

const V11 = loadRubric("1.1.0");
const V12 = loadRubric("1.2.0");
const rule = (r: ReadinessResult, id: RuleId) => r.rules.find((x) => x.id === id)!;
const enc = (o: unknown) => Buffer.from(JSON.stringify(o)).toString("base64");

/** Circle Gateway's batched scheme as public sellers send it (exact, extra.name GatewayWalletBatched). */
const gateway = (maxTimeoutSeconds: number, extraName = "GatewayWalletBatched") => ({
  x402Version: 2,
  resource: { url: "https://api.weatherly.dev/v1/forecast", description: "Forecast", mimeType: "application/json" },
  accepts: [{ scheme: "exact", network: "eip155:5042002", asset: "0x3600000000000000000000000000000000000000", amount: "2000", payTo: "0x2222222222222222222222222222222222222222", maxTimeoutSeconds, extra: { name: extraName, version: "1", verifyingContract: "0x0077777d7EBA4688BDeF3E311b846F25870A19B9" } }],
});
/** The decoded PAYMENT-REQUIRED of coinbase/x402 specs/schemes/deferred/scheme_deferred_cloudflare.md. */
const cloudflare = (over: Record<string, unknown> = {}) => ({
  x402Version: 2,
  error: "No PAYMENT-SIGNATURE header provided",
  resource: { url: "https://example.com/article", mimeType: "text/html" },
  accepts: [{ scheme: "deferred", network: "cloudflare:402", amount: "1", asset: "USD", payTo: "merchant", extra: { version: "1.0.0" }, ...over }],
  extensions: { "http-message-signatures": { info: { registrationUrl: "https://developers.cloudflare.com/ai-crawl-control/features/pay-per-crawl/use-pay-per-crawl-as-ai-owner/verify-ai-crawler/", signatureSchemes: ["ed25519"], tags: ["web-bot-auth"] } } },
});

/** The full listing, its one endpoint answering with `challenge` as the probe reads it. */
function withChallenge(challenge: unknown): { listing: ListingDocument; evidence: ReadinessEvidence } {
  const listing = fullListing({ endpoints: [fullEndpoint()] });
  const read = parseX402({ status: 402, headers: { "payment-required": enc(challenge) }, body: null });
  const ep = listing.endpoints[0];
  const evidence = fullEvidence(listing);
  evidence.probe.endpoints = [probedEndpoint(ep, { challenge: { kind: read.kind, valid: read.valid, requirements: read.requirements }, findings: read.findings })];
  return { listing, evidence };
}
const h1 = (c: unknown, rubric = V12) => {
  const { listing, evidence } = withChallenge(c);
  return rule(scoreReadiness(listing, evidence, rubric, { now: TEST_NOW }), "H1");
};

it("1.2.0 is the current rubric, and the full listing earns 100 under it", () => {
  expect(CURRENT_RUBRIC).toBe(V12);
  const listing = fullListing();
  const r = scoreReadiness(listing, fullEvidence(listing), V12, { now: TEST_NOW });
  expect(r.rules.filter((x) => x.status !== "pass").map((x) => `${x.id}: ${x.reason}`)).toEqual([]);
  expect(r).toMatchObject({ rubricVersion: "readiness/1.2.0", total: 100, rawTotal: 100, caps: [], improvements: [] });
});

describe("H1 per scheme (reading scheme-policies)", () => {
  it("Circle Gateway batched with 345,600 s: invalid for the probe and 1.1.0, valid under 1.2.0", () => {
    expect(parseX402({ status: 402, headers: { "payment-required": enc(gateway(345_600)) }, body: null }).valid).toBe(false);
    expect(h1(gateway(345_600), V11)).toMatchObject({ status: "fail", earned: 0 });
    const r = h1(gateway(345_600));
    expect(r).toMatchObject({ status: "pass", earned: 5 });
    expect(r.reason).toContain("circle-gateway-batched");
    expect(h1(gateway(604_900))).toMatchObject({ status: "pass" });
  });

  it("Gateway outside its own window, or the window without the Gateway domain, stays invalid", () => {
    expect(h1(gateway(3_600 * 24))).toMatchObject({ status: "fail" }); // one day: under Circle's four
    expect(h1(gateway(31_536_000))).toMatchObject({ status: "fail" }); // a year: over our 30 days
    expect(h1(gateway(345_600, "USD Coin"))).toMatchObject({ status: "fail" }); // a plain exact challenge: 30–3,600 s
  });

  it("Cloudflare pay-per-crawl (deferred on cloudflare:402, no maxTimeoutSeconds): valid under 1.2.0 only", () => {
    expect(h1(cloudflare(), V11)).toMatchObject({ status: "fail" });
    expect(h1(cloudflare())).toMatchObject({ status: "pass", earned: 5 });
    expect(h1(cloudflare({ maxTimeoutSeconds: 0 }))).toMatchObject({ status: "pass" }); // "omitted or set to 0"
    expect(h1(cloudflare({ scheme: "batch-settlement" }))).toMatchObject({ status: "pass" }); // the scheme's later name
    expect(h1(cloudflare()).reason).toContain("cloudflare-pay-per-crawl");
  });

  it("a policy excuses only its own codes: any other C1/C2 failure still fails", () => {
    expect(h1(cloudflare({ amount: "1.5" }))).toMatchObject({ status: "fail" }); // amount_not_integer
    expect(h1(cloudflare({ maxTimeoutSeconds: 86_400 }))).toMatchObject({ status: "fail" }); // over its 3,600 s
    expect(h1({ ...cloudflare(), resource: undefined })).toMatchObject({ status: "fail" }); // resource_missing (C1)
    expect(h1(cloudflare({ scheme: "exact" }))).toMatchObject({ status: "fail" }); // exact on cloudflare:402 matches no policy
  });
});

describe("D3 schema shape (reading schema-shape)", () => {
  const VALIDITY_ONEOF = {
    type: "object",
    oneOf: [
      { type: "object", required: ["op", "verdict", "valid_before"], properties: { op: {}, verdict: {}, valid_before: {} } },
      { type: "object", required: ["op", "verdict", "remaining_slots"], properties: { op: {}, verdict: {}, remaining_slots: {} } },
    ],
  };
  const listing = fullListing({
    endpoints: [
      fullEndpoint(),
      fullEndpoint({ method: "GET", path: "/metrics", requestSchema: null, noParameters: true, requestExample: null, responseSchema: { type: "string" } }),
      fullEndpoint({ path: "/validity", responseSchema: VALIDITY_ONEOF }),
      fullEndpoint({ path: "/v1/a" }),
      fullEndpoint({ path: "/v1/b" }),
    ],
  });
  const d3 = (rubric: typeof V12, l = listing, evidence = fullEvidence(l)) => rule(scoreReadiness(l, evidence, rubric, { now: TEST_NOW }), "D3");

  it("a string response and a oneOf response pass under 1.2.0; 1.1.0 fails both, 1.6 of 4 points", () => {
    expect(d3(V11)).toMatchObject({ status: "partial", earned: 4 * (3 / 5), endpoints: ["GET /metrics", "GET /validity"] });
    expect(d3(V12)).toMatchObject({ status: "pass", earned: 4 });
  });

  it("a oneOf asks for the names its branches share, and the page must show them", () => {
    const evidence = fullEvidence(listing);
    evidence.probe.endpointDocs = listing.endpoints.map((e) => (e.path === "/validity" ? docsPage(e, { names: docsPage(e).names.filter((n) => n !== "verdict") }) : docsPage(e)));
    const r = d3(V12, listing, evidence);
    expect(r.endpoints).toEqual(["GET /validity"]);
    expect(r.reason).toContain("verdict");
  });

  it("an endpoint with no response schema at all still fails D3 under 1.2.0", () => {
    const l = fullListing({ endpoints: [fullEndpoint({ responseSchema: null })] });
    const r = d3(V12, l);
    expect(r).toMatchObject({ status: "fail" });
    expect(r.reason).toContain("no response schema is declared");
  });
});
