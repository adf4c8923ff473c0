import { describe, expect, it } from "vitest";
import type { ListingDocument } from "@/lib/listing-document/document";
import { bandFor, normalise, roundHalfUp, scoreReadiness } from "./engine";
import { loadRubric, type RuleId } from "./rubric";
import { dynamicEndpoint, fullEndpoint, fullEvidence, fullListing, probedEndpoint, TEST_NOW } from "@/test/readiness";
import type { ReadinessEvidence, ReadinessResult, RuleStatus } from "./types";

const R = loadRubric("1.0.0");
const score = (l: ListingDocument, e: ReadinessEvidence | null = fullEvidence(l), provisional = false) =>
  scoreReadiness(l, e, R, { now: TEST_NOW, provisional });
const rule = (r: ReadinessResult, id: RuleId) => r.rules.find((x) => x.id === id)!;

describe("the full listing is the baseline every table below breaks", () => {
  it("earns 100 with no caps and no improvements", () => {
    const r = score(fullListing());
    expect(r.rules.filter((x) => x.status !== "pass").map((x) => `${x.id}: ${x.reason}`)).toEqual([]);
    expect(r).toMatchObject({ total: 100, rawTotal: 100, band: { id: "excellent" }, provisional: false, caps: [], improvements: [] });
    expect(r.rubricVersion).toBe("readiness/1.0.0");
    expect(r.rules.map((x) => x.id)).toHaveLength(25);
    expect(r.dimensions.map((d) => [d.id, d.earned, d.max])).toEqual([
      ["metadata", 15, 15], ["endpoints", 25, 25], ["pricing", 20, 20], ["documentation", 15, 15], ["operations", 10, 10], ["health", 15, 15],
    ]);
  });
});

type Case = [name: string, id: RuleId, earned: number, status: RuleStatus, build: () => { l: ListingDocument; e?: ReadinessEvidence | null }];
const L = (over: Partial<ListingDocument>) => ({ l: fullListing(over) });
const ops = (over: Partial<ListingDocument["operations"]>) => L({ operations: { ...fullListing().operations, ...over } });
const eps = (...endpoints: ListingDocument["endpoints"]) => L({ endpoints });
const ev = (l: ListingDocument, over: (e: ReadinessEvidence) => void) => {
  const e = fullEvidence(l);
  over(e);
  return { l, e };
};

const cases: Case[] = [
  // Metadata
  ["M1 specific title", "M1", 3, "pass", () => L({})],
  ["M1 placeholder title", "M1", 0, "fail", () => L({ title: "My API" })],
  ["M1 title is the host", "M1", 0, "fail", () => L({ title: "api.weatherly.dev" })],
  ["M2 short description", "M2", 3, "pass", () => L({})],
  ["M2 exactly 20 characters", "M2", 3, "pass", () => L({ shortDescription: "Forecasts per coords" })],
  ["M2 19 characters", "M2", 0, "fail", () => L({ shortDescription: "Forecasts per coord" })],
  ["M2 repeats the title", "M2", 0, "fail", () => L({ title: "Weatherly hourly forecasts", shortDescription: "weatherly: Hourly forecasts!" })],
  ["M2 missing", "M2", 0, "fail", () => L({ shortDescription: null })],
  ["M3 60 characters", "M3", 3, "pass", () => L({ description: "x".repeat(60) })],
  ["M3 59 characters (trimmed)", "M3", 0, "fail", () => L({ description: `  ${"x".repeat(59)}  ` })],
  ["M3 missing", "M3", 0, "fail", () => L({ description: null })],
  ["M4 logo loaded as an image", "M4", 3, "pass", () => L({})],
  ["M4 logo answers but is HTML", "M4", 0, "fail", () => ev(fullListing(), (e) => { e.probe.logo = { ...e.probe.logo!, contentType: "text/html", isImage: false }; })],
  ["M4 logo 404", "M4", 0, "fail", () => ev(fullListing(), (e) => { e.probe.logo = { ...e.probe.logo!, ok: false, status: 404, isImage: false }; })],
  ["M4 no logo declared", "M4", 0, "fail", () => L({ logoUrl: null })],
  ["M4 not fetched by the probe: declared https", "M4", 3, "pass", () => ev(fullListing(), (e) => { e.probe.logo = null; })],
  ["M4 not fetched by the probe: declared http", "M4", 0, "fail", () => ev(fullListing({ logoUrl: "http://weatherly.dev/logo.png" }), (e) => { e.probe.logo = null; })],
  ["M5 category and homepage", "M5", 3, "pass", () => L({})],
  ["M5 no category", "M5", 0, "fail", () => L({ category: "  " })],
  ["M5 no homepage", "M5", 0, "fail", () => L({ homepageUrl: null })],
  ["M5 homepage not a URL", "M5", 0, "fail", () => L({ homepageUrl: "weatherly" })],
  // Endpoints
  ["E1 endpoints published", "E1", 5, "pass", () => L({})],
  ["E1 no endpoint", "E1", 0, "fail", () => eps()],
  ["E2 both described", "E2", 5, "pass", () => L({})],
  ["E2 one of two undescribed", "E2", 2.5, "partial", () => eps(fullEndpoint(), dynamicEndpoint({ description: null }))],
  ["E2 descriptions under 10 characters", "E2", 0, "fail", () => eps(fullEndpoint({ description: "forecast" }), dynamicEndpoint({ description: "   " }))],
  ["E3 noParameters counts as a request schema", "E3", 5, "pass", () => eps(fullEndpoint({ requestSchema: null, noParameters: true }))],
  ["E3 {} and true say nothing", "E3", 0, "fail", () => eps(fullEndpoint({ requestSchema: {} }), dynamicEndpoint({ requestSchema: true }))],
  ["E3 annotations only say nothing", "E3", 2.5, "partial", () => eps(fullEndpoint(), dynamicEndpoint({ requestSchema: { $schema: "https://json-schema.org/draft/2020-12/schema", description: "points" } }))],
  ["E4 seed example: 3 of 4 → 3.75", "E4", 3.75, "partial", () => eps(fullEndpoint(), dynamicEndpoint(), fullEndpoint({ path: "/v1/now" }), fullEndpoint({ path: "/v1/alerts", responseSchema: null }))],
  ["E4 every endpoint has one", "E4", 5, "pass", () => L({})],
  ["E4 none", "E4", 0, "fail", () => eps(fullEndpoint({ responseSchema: null }))],
  ["E5 examples present", "E5", 5, "pass", () => L({})],
  ["E5 noParameters needs no example", "E5", 5, "pass", () => eps(fullEndpoint({ method: "GET", path: "/v1/stations", requestSchema: null, noParameters: true, requestExample: null }))],
  ["E5 example misses a required field", "E5", 2.5, "partial", () => eps(fullEndpoint({ requestExample: { lat: 1 } }), dynamicEndpoint())],
  ["E5 example is not an object", "E5", 0, "fail", () => eps(fullEndpoint({ requestExample: "lat=1&lon=2" }))],
  ["E5 no example", "E5", 0, "fail", () => eps(fullEndpoint({ requestExample: null }))],
  // Pricing
  ["P1 priced", "P1", 6, "pass", () => L({})],
  ["P1 one of two unpriced", "P1", 3, "partial", () => eps(fullEndpoint(), dynamicEndpoint({ pricing: { ...dynamicEndpoint().pricing!, label: null, usd: null } }))],
  ["P1 free endpoints are not counted", "P1", 6, "pass", () => eps(fullEndpoint(), fullEndpoint({ path: "/v1/health", payable: false, pricing: null }))],
  ["P1 no payable endpoint: nothing is priced", "P1", 0, "fail", () => eps(fullEndpoint({ payable: false }))],
  ["P1 USD amount without a label", "P1", 6, "pass", () => eps(fullEndpoint({ pricing: { ...fullEndpoint().pricing!, label: null } }))],
  ["P2 machine price", "P2", 6, "pass", () => L({})],
  ["P2 one missing", "P2", 3, "partial", () => eps(fullEndpoint(), dynamicEndpoint({ pricing: { ...dynamicEndpoint().pricing!, machine: null } }))],
  ["P2 no pricing at all", "P2", 0, "fail", () => eps(fullEndpoint({ pricing: null }))],
  ["P3 mode declared", "P3", 4, "pass", () => L({})],
  ["P3 mode missing on one", "P3", 2, "partial", () => eps(fullEndpoint({ pricing: { ...fullEndpoint().pricing!, mode: null } }), dynamicEndpoint())],
  ["P3 no payable endpoint", "P3", 0, "fail", () => eps(fullEndpoint({ payable: false }))],
  ["P4 full range, driver, unit", "P4", 4, "pass", () => L({})],
  ["P4 no dynamic endpoint: full marks", "P4", 4, "pass", () => eps(fullEndpoint())],
  ["P4 floor only (no max)", "P4", 0, "fail", () => eps(dynamicEndpoint({ pricing: { ...dynamicEndpoint().pricing!, dynamic: { min: "0.04", max: null, driver: "points", unit: "per point" } } }))],
  ["P4 one of two dynamic without a driver", "P4", 2, "partial", () => eps(dynamicEndpoint(), dynamicEndpoint({ path: "/v2/batch", pricing: { ...dynamicEndpoint().pricing!, dynamic: { min: "0.01", max: "2", driver: null, unit: "per point" } } }))],
  ["P4 a free endpoint marked dynamic is not counted", "P4", 4, "pass", () => eps(fullEndpoint(), dynamicEndpoint({ payable: false, pricing: { ...dynamicEndpoint().pricing!, dynamic: null } }))],
  // Documentation
  ["D1 docs fetched", "D1", 4, "pass", () => L({})],
  ["D1 docs answer 401", "D1", 0, "fail", () => ev(fullListing(), (e) => { e.probe.docs = { ...e.probe.docs!, ok: false, status: 401 }; })],
  ["D1 docs refused by the SSRF guard", "D1", 0, "fail", () => ev(fullListing(), (e) => { e.probe.docs = { ...e.probe.docs!, ok: false, status: null, refusal: "private_address" }; })],
  ["D1 no docs URL", "D1", 0, "fail", () => L({ docsUrl: null })],
  ["D2 walkthrough link", "D2", 4, "pass", () => L({})],
  ["D2 80 characters of text", "D2", 4, "pass", () => L({ walkthrough: "w".repeat(80) })],
  ["D2 79 characters of text", "D2", 0, "fail", () => L({ walkthrough: "w".repeat(79) })],
  ["D2 missing", "D2", 0, "fail", () => L({ walkthrough: null })],
  ["D3 absolute docs links", "D3", 4, "pass", () => L({})],
  ["D3 anchor relative to the listing docs", "D3", 4, "pass", () => eps(fullEndpoint({ docsUrl: "#forecast" }), dynamicEndpoint({ docsUrl: "/api/batch" }))],
  ["D3 relative link without listing docs", "D3", 0, "fail", () => ({ l: fullListing({ docsUrl: null, endpoints: [fullEndpoint({ docsUrl: "#forecast" })] }) })],
  ["D3 one of two linked", "D3", 2, "partial", () => eps(fullEndpoint(), dynamicEndpoint({ docsUrl: null }))],
  ["D4 discovery document fetched", "D4", 3, "pass", () => L({})],
  ["D4 found by the probe though undeclared", "D4", 3, "pass", () => L({ discoveryUrl: null })],
  ["D4 declared but 404", "D4", 0, "fail", () => ev(fullListing(), (e) => { e.probe.discovery = { ...e.probe.discovery!, ok: false, status: 404 }; })],
  ["D4 none declared, none found", "D4", 0, "fail", () => ev(fullListing({ discoveryUrl: null }), (e) => { e.probe.discovery = null; })],
  // Operations
  ["O1 declared", "O1", 3, "pass", () => L({})],
  ["O1 missing", "O1", 0, "fail", () => ops({ authPreconditions: null })],
  ["O2 declared", "O2", 3, "pass", () => L({})],
  ["O2 networks list stands in for networkRequirements", "O2", 3, "pass", () => ops({ networkRequirements: null })],
  ["O2 no network statement at all", "O2", 0, "fail", () => ({ l: fullListing({ networks: [], operations: { ...fullListing().operations, networkRequirements: null } }) })],
  ["O2 funding missing", "O2", 0, "fail", () => ops({ fundingRequirements: null })],
  ["O3 declared", "O3", 2, "pass", () => L({})],
  ["O3 timeouts missing", "O3", 0, "fail", () => ops({ timeouts: null })],
  ["O3 sync mode missing", "O3", 0, "fail", () => ops({ syncMode: null })],
  ["O4 declared", "O4", 2, "pass", () => L({})],
  ["O4 support channel missing", "O4", 0, "fail", () => ops({ supportChannel: "" })],
  // Health
  ["H1 valid challenge", "H1", 5, "pass", () => L({})],
  ["H1 one valid of two is enough", "H1", 5, "pass", () => ev(fullListing(), (e) => { e.probe.endpoints[1].challenge = { kind: "x402-v2", valid: false }; })],
  ["H1 challenge found but invalid", "H1", 0, "fail", () => ev(fullListing(), (e) => { for (const p of e.probe.endpoints) p.challenge = { kind: "x402-v1", valid: false }; })],
  ["H1 no endpoint reachable", "H1", 0, "fail", () => ev(fullListing(), (e) => { for (const p of e.probe.endpoints) Object.assign(p, { reachable: false, status: null, challenge: { kind: "none", valid: false } }); })],
  ["H2 100% uptime", "H2", 5, "pass", () => L({})],
  ["H2 95% uptime → 4.75", "H2", 4.75, "partial", () => ev(fullListing(), (e) => { e.liveness.uptime7d = 95; })],
  ["H2 falls back to 30-day uptime", "H2", 4.5, "partial", () => ev(fullListing(), (e) => { e.liveness.uptime7d = null; e.liveness.uptime30d = 90; })],
  ["H2 capped by a structured-4xx confidence", "H2", 3, "partial", () => ev(fullListing(), (e) => { e.liveness.healthConfidence = 0.6; })],
  ["H2 uptime withheld: degraded baseline", "H2", 2.5, "partial", () => ev(fullListing(), (e) => { e.liveness.settlementUnproven = true; e.liveness.healthStatus = "degraded"; })],
  ["H2 no answer", "H2", 0, "fail", () => ev(fullListing(), (e) => { e.liveness.healthConfidence = 0; })],
  ["H3 settleable", "H3", 5, "pass", () => L({})],
  ["H3 unknown → 3.33", "H3", 3.33, "partial", () => ev(fullListing(), (e) => { e.settle.lastSettledAt = null; })],
  ["H3 settled 31 days ago → unknown", "H3", 3.33, "partial", () => ev(fullListing(), (e) => { e.settle.lastSettledAt = "2026-11-01T11:00:00Z"; })],
  ["H3 unpayable", "H3", 0, "fail", () => ev(fullListing(), (e) => { e.settle = { lastSettledAt: "2026-11-20T00:00:00Z", failedAttemptsSinceLastSettle: 3, distinctFailingBuyersSinceLastSettle: 2 }; })],
  ["H3 two failures are not unpayable", "H3", 5, "pass", () => ev(fullListing(), (e) => { e.settle.failedAttemptsSinceLastSettle = 2; e.settle.distinctFailingBuyersSinceLastSettle = 2; })],
];

describe.each(cases)("%s", (_name, id, earned, status, build) => {
  it(`${id} earns ${earned} (${status})`, () => {
    const { l, e } = build();
    const r = score(l, e === undefined ? fullEvidence(l) : e);
    const x = rule(r, id);
    expect(x.earned).toBeCloseTo(earned, 9);
    expect(x.status).toBe(status);
    expect(x.reason.length).toBeGreaterThan(5);
    if (status === "partial" && x.endpoints.length) expect(x.endpoints[0]).toMatch(/^(GET|POST|PUT|PATCH|DELETE) \//);
  });
});

describe("every rule has a pass and a fail case above", () => {
  it.each(R.rules.map((r) => r.id))("%s", (id) => {
    const statuses = new Set(cases.filter((c) => c[1] === id).map((c) => c[3]));
    expect(statuses.has("pass")).toBe(true);
    expect(statuses.has("fail")).toBe(true);
  });
});

describe("evidence pointers and affected endpoints", () => {
  it("points at the first failing endpoint field and names the endpoints", () => {
    const r = score(fullListing({ endpoints: [fullEndpoint(), dynamicEndpoint({ responseSchema: null })] }));
    expect(rule(r, "E4")).toMatchObject({ evidence: "/listing/endpoints/1/responseSchema", endpoints: ["POST /v1/batch"] });
  });
  it("points at the challenge of the first valid endpoint for H1", () => {
    const l = fullListing();
    const e = fullEvidence(l);
    e.probe.endpoints[0].challenge = { kind: "none", valid: false };
    expect(rule(score(l, e), "H1").evidence).toBe("/probe/endpoints/1/challenge");
  });
  it("counts endpoints with the same upper-cased method and path once, and the same \"METHOD path\" key once however it splits", () => {
    const l = fullListing({ endpoints: [fullEndpoint({ path: "/a" }), fullEndpoint({ method: "get" as "GET", path: "/a" }), fullEndpoint({ method: "POST", path: "/a" })] });
    expect(rule(score(l), "E1").reason).toBe("2 endpoints published (1 duplicate counted once)");
    const odd = fullListing({ endpoints: [fullEndpoint({ method: "GET X" as "GET", path: "/a" }), fullEndpoint({ method: "GET", path: "X /a" })] });
    expect(rule(score(odd), "E1").reason).toBe("1 endpoint published (1 duplicate counted once)");
  });
  it("counts H1's valid endpoints once per method and path (any case of the method), on short and long probe lists", () => {
    const l = fullListing();
    const e = fullEvidence(l);
    const at = (method: string, path: string, valid = true) => probedEndpoint({ method: method as "GET", path }, { challenge: { kind: "x402-v2", valid } });
    e.probe.endpoints = [at("GET", "/a"), at("get", "/a"), at("GET", "/b"), at("POST", "/a"), at("GET", "/c", false), at("GET", "/b")];
    expect(rule(score(l, e), "H1").reason).toMatch(/^3 of 6 probed endpoints answered/);
    // Over 16 probed endpoints the count is kept by key; the same answer.
    e.probe.endpoints = [...e.probe.endpoints, ...Array.from({ length: 12 }, (_, i) => at(i % 2 ? "put" : "PUT", `/p${i >> 1}`))];
    expect(rule(score(l, e), "H1").reason).toMatch(/^9 of 18 probed endpoints answered/);
  });
  it("names the payable endpoints without a valid challenge when H1 fails", () => {
    const l = fullListing({ endpoints: [fullEndpoint(), fullEndpoint({ path: "/v1/health", payable: false, pricing: null })] });
    const e = fullEvidence(l);
    for (const p of e.probe.endpoints) p.challenge = { kind: "none", valid: false };
    expect(rule(score(l, e), "H1").endpoints).toEqual(["GET /v1/forecast"]);
  });
});

describe("caps", () => {
  const noChallenge = (l: ListingDocument) => ev(l, (e) => { for (const p of e.probe.endpoints) Object.assign(p, { status: 200, challenge: { kind: "none", valid: false } }); });
  const unreachable = (e: ReadinessEvidence) => { for (const p of e.probe.endpoints) Object.assign(p, { reachable: false, status: null, challenge: { kind: "none", valid: false } }); };
  const unpayable = (e: ReadinessEvidence) => { e.settle = { lastSettledAt: "2026-11-20T00:00:00Z", failedAttemptsSinceLastSettle: 7, distinctFailingBuyersSinceLastSettle: 4 }; };

  it("noPaymentMechanism alone caps at 59", () => {
    const { l, e } = noChallenge(fullListing());
    const r = score(l, e);
    expect(r.rawTotal).toBe(95);
    expect(r.caps.map((c) => [c.id, c.value])).toEqual([["noPaymentMechanism", 59]]);
    expect(r).toMatchObject({ total: 59, band: { id: "getting-started" } });
  });
  it("knownUnpayable alone caps at 39", () => {
    const { l, e } = ev(fullListing(), unpayable);
    const r = score(l, e);
    expect(r.rawTotal).toBe(95);
    expect(r.caps.map((c) => c.id)).toEqual(["knownUnpayable"]);
    expect(r.total).toBe(39);
  });
  it("noReachableEndpoint: none reached also means no challenge was found, so both trigger and 39 wins", () => {
    const { l, e } = ev(fullListing(), unreachable);
    const r = score(l, e);
    expect(r.caps.map((c) => [c.id, c.value])).toEqual([["noReachableEndpoint", 39], ["noPaymentMechanism", 59]]);
    expect(r.total).toBe(39);
  });
  it("noReachableEndpoint on a listing with no endpoints", () => {
    const l = fullListing({ endpoints: [] });
    const r = score(l, fullEvidence(l));
    expect(r.caps.map((c) => c.id)).toEqual(["noReachableEndpoint", "noPaymentMechanism"]);
    expect(r.caps[0].reason).toMatch(/no endpoint/);
    expect(r.total).toBe(39);
  });
  it("knownUnpayable with noPaymentMechanism: the lower cap wins", () => {
    const { l, e } = noChallenge(fullListing());
    unpayable(e);
    const r = score(l, e);
    expect(r.caps.map((c) => c.id)).toEqual(["knownUnpayable", "noPaymentMechanism"]);
    expect(r.total).toBe(39);
  });
  it("all three together: 39", () => {
    const { l, e } = ev(fullListing(), (x) => { unreachable(x); unpayable(x); });
    const r = score(l, e);
    expect(r.caps.map((c) => c.id)).toEqual(["noReachableEndpoint", "knownUnpayable", "noPaymentMechanism"]);
    expect(r.total).toBe(39);
  });
  it("a cap above the raw total leaves the raw total (rounded) in place", () => {
    const l = fullListing({ title: "API", shortDescription: null, description: null, logoUrl: null, category: null, docsUrl: null, walkthrough: null, discoveryUrl: null, networks: [],
      operations: { authPreconditions: null, networkRequirements: null, fundingRequirements: null, limits: null, timeouts: null, syncMode: null, errors: null, idempotency: null, supportChannel: null },
      endpoints: [fullEndpoint({ docsUrl: null, requestExample: null, responseSchema: null })] });
    const { e } = noChallenge(l);
    e.probe.discovery = null;
    e.liveness.uptime7d = 91;
    const r = score(l, e);
    expect(r.caps.map((c) => c.id)).toEqual(["noPaymentMechanism"]);
    expect(r.rawTotal).toBeLessThan(59);
    expect(r.total).toBe(roundHalfUp(r.rawTotal));
  });
  it("a cap's fix is a blocker and comes first in the improvements", () => {
    const { l, e } = noChallenge(fullListing({ walkthrough: null }));
    const r = score(l, e);
    expect(r.improvements[0]).toMatchObject({ ruleId: "H1", blocker: true, points: 5, effort: "high" });
    expect(r.improvements.find((i) => i.ruleId === "D2")).toMatchObject({ blocker: false, points: 4 });
    expect(r.improvements[0].action).toMatch(/GET \/v1\/forecast and POST \/v1\/batch/);
  });
  it("H3 is the blocker of knownUnpayable", () => {
    const { l, e } = ev(fullListing(), unpayable);
    expect(score(l, e).improvements.map((i) => [i.ruleId, i.blocker])).toEqual([["H3", true]]);
  });
});

describe("bands and rounding", () => {
  it.each([
    [0, "getting-started"], [59, "getting-started"], [60, "almost-ready"], [79, "almost-ready"],
    [80, "ready"], [89, "ready"], [90, "excellent"], [100, "excellent"],
  ])("%i is %s", (total, band) => expect(bandFor(total, R).id).toBe(band));

  it("names the bands as docs/spec/scoring-notes.md does", () => {
    expect(R.bands.map((b) => b.label)).toEqual(["Getting started", "Almost ready", "Ready", "Excellent"]);
  });

  it.each([
    [0.5, 1], [2.5, 3], [59.5, 60], [59.49, 59], [95.75, 96], [56.6, 57], [86.83, 87], [1.005 * 100, 101], [0, 0], [100, 100],
  ])("roundHalfUp(%d) = %i", (x, y) => expect(roundHalfUp(x)).toBe(y));

  it("normalises floating noise before rounding", () => {
    expect(1.005 * 100).toBeLessThan(100.5); // the noise the normalisation exists for
    expect(normalise(0.1 + 0.2)).toBe(0.3);
  });

  // Listings built to land exactly on each band edge: the dropped rules fix the ceiling, and
  // 7-day uptime u adds 5·u/100 through H2.
  const blank = { title: "API", shortDescription: null, description: null, logoUrl: null, category: null };
  const noOps = { authPreconditions: null, networkRequirements: null, fundingRequirements: null, limits: null, timeouts: null, syncMode: null, errors: null, idempotency: null, supportChannel: null };
  const noDocs = { docsUrl: null, walkthrough: null, discoveryUrl: null, endpoints: [fullEndpoint({ docsUrl: null }), dynamicEndpoint({ docsUrl: null })] };
  const edges: Array<[string, Partial<ListingDocument>, number, number, number, string]> = [
    ["59.45 → 59", { ...blank, ...noDocs, networks: [], operations: noOps }, 89, 59.45, 59, "getting-started"],
    ["59.5 → 60", { ...blank, ...noDocs, networks: [], operations: noOps }, 90, 59.5, 60, "almost-ready"],
    ["79.45 → 79", { ...noDocs, operations: { ...fullListing().operations, limits: null, errors: null } }, 69, 79.45, 79, "almost-ready"],
    ["79.5 → 80", { ...noDocs, operations: { ...fullListing().operations, limits: null, errors: null } }, 70, 79.5, 80, "ready"],
    ["89.45 → 89", { networks: [], operations: noOps }, 89, 89.45, 89, "ready"],
    ["89.5 → 90", { networks: [], operations: noOps }, 90, 89.5, 90, "excellent"],
  ];
  it.each(edges)("%s", (_n, over, uptime, raw, total, band) => {
    const l = fullListing(over);
    const e = fullEvidence(l);
    e.liveness.uptime7d = uptime;
    if (over.discoveryUrl === null) e.probe.discovery = null;
    if (over.docsUrl === null) e.probe.docs = null;
    const r = score(l, e);
    expect(r.rawTotal).toBe(raw);
    expect(r.total).toBe(total);
    expect(r.band.id).toBe(band);
  });
});

describe("endpoint sets", () => {
  it("counts duplicate method+path once, keeping the first", () => {
    const l = fullListing({ endpoints: [fullEndpoint(), fullEndpoint({ responseSchema: null, description: null }), fullEndpoint({ method: "POST" })] });
    const r = score(l);
    expect(rule(r, "E4")).toMatchObject({ earned: 5, status: "pass" });
    expect(rule(r, "E2").reason).toMatch(/2 of 2/);
    expect(rule(r, "E1").reason).toMatch(/1 duplicate counted once/);
  });
  it("a duplicate does not dilute a failing endpoint either", () => {
    const l = fullListing({ endpoints: [fullEndpoint({ responseSchema: null }), fullEndpoint(), dynamicEndpoint()] });
    expect(rule(score(l), "E4").earned).toBe(2.5);
  });
  it("no endpoints: E1–E5, D3, P1–P3 earn nothing, P4 earns full marks, and the caps trigger", () => {
    const l = fullListing({ endpoints: [] });
    const r = score(l, fullEvidence(l));
    for (const id of ["E1", "E2", "E3", "E4", "E5", "D3", "P1", "P2", "P3", "H1"] as RuleId[]) expect(rule(r, id).earned).toBe(0);
    expect(rule(r, "P4")).toMatchObject({ earned: 4, status: "pass" });
    expect(r.rawTotal).toBe(100 - 5 - 20 - 4 - 16 - 5);
    expect(r.total).toBe(39);
    expect(r.improvements.find((i) => i.ruleId === "E1")).toMatchObject({ blocker: true });
    expect(r.improvements.find((i) => i.ruleId === "P1")!.action).toMatch(/Mark the endpoints/);
  });
  it("no payable endpoints: P1–P3 earn 0 and say nothing is priced; P4 full", () => {
    const l = fullListing({ endpoints: [fullEndpoint({ payable: false, pricing: null })] });
    const r = score(l);
    for (const id of ["P1", "P2", "P3"] as RuleId[]) expect(rule(r, id)).toMatchObject({ earned: 0, status: "fail", reason: expect.stringMatching(/nothing is priced/) });
    expect(rule(r, "P4").earned).toBe(4);
  });
  it("no dynamic endpoints: P4 full marks", () => {
    expect(rule(score(fullListing({ endpoints: [fullEndpoint()] })), "P4")).toMatchObject({ earned: 4, status: "pass" });
  });
});

describe("provisional mode", () => {
  it("with no evidence: H1–H3 not observed, no caps, provisional", () => {
    const l = fullListing({ endpoints: [] });
    const r = scoreReadiness(l, null, R, { now: TEST_NOW });
    expect(r.provisional).toBe(true);
    expect(r.caps).toEqual([]);
    for (const id of ["H1", "H2", "H3"] as RuleId[]) expect(rule(r, id)).toMatchObject({ earned: 0, status: "not_observed", evidence: null });
    // No endpoints would cap at 39 in a probed run; provisionally it is just the rule sum.
    expect(r.total).toBe(100 - 15 - 5 - 20 - 4 - 16);
    expect(r.improvements.map((i) => i.ruleId)).not.toContain("H1");
  });
  it("asked for with evidence: the evidence is ignored entirely", () => {
    const l = fullListing();
    const e = fullEvidence(l);
    e.probe.logo = { ...e.probe.logo!, ok: false, status: 404, isImage: false };
    for (const p of e.probe.endpoints) Object.assign(p, { reachable: false, challenge: { kind: "none", valid: false } });
    const r = score(l, e, true);
    expect(r).toMatchObject({ provisional: true, caps: [], total: 85, rawTotal: 85 });
    expect(rule(r, "M4")).toMatchObject({ earned: 3, reason: expect.stringMatching(/declared, not yet observed/) });
  });
  it("declared, not yet observed for M4, D1 and D4", () => {
    const r = scoreReadiness(fullListing(), null, R);
    for (const id of ["M4", "D1", "D4"] as RuleId[]) expect(rule(r, id).reason).toMatch(/declared, not yet observed/);
  });
});

describe("improvements", () => {
  it("orders blockers, then points, then endpoints, then effort, then rule order", () => {
    const l = fullListing({
      shortDescription: null, // M2 3 low
      walkthrough: null, // D2 4 medium
      operations: { ...fullListing().operations, authPreconditions: null }, // O1 3 low
      endpoints: [fullEndpoint({ responseSchema: null, requestExample: null }), dynamicEndpoint({ requestExample: null })], // E4 2.5 (1 ep, medium), E5 5 (2 eps, low)
    });
    const e = fullEvidence(l);
    e.probe.discovery = null; // D4 3 medium, declared → passes
    e.settle.lastSettledAt = null; // H3 1.67 high
    const r = score(l, e);
    expect(r.improvements.map((i) => [i.ruleId, i.points])).toEqual([
      ["E5", 5], ["D2", 4], ["M2", 3], ["O1", 3], ["E4", 2.5], ["H3", 1.67],
    ]);
    expect(r.improvements.find((i) => i.ruleId === "E5")!.endpoints).toEqual(["GET /v1/forecast", "POST /v1/batch"]);
  });
  it("more endpoints win a tie on points", () => {
    // E2 on 1 of 2 endpoints (2.5) against E4 on 1 of 2 (2.5) would tie everywhere but effort; make it endpoints.
    const four = [fullEndpoint(), dynamicEndpoint(), fullEndpoint({ path: "/a" }), fullEndpoint({ path: "/b" })];
    const l = fullListing({ endpoints: [four[0], four[1], { ...four[2], docsUrl: null }, { ...four[3], docsUrl: null }] }); // D3 2 points, 2 endpoints
    l.operations.limits = null; // O3 2 points, 0 endpoints
    const r = score(l);
    expect(r.improvements.map((i) => i.ruleId)).toEqual(["D3", "O3"]);
  });
  it("lists at most a few endpoints in the action sentence", () => {
    const many = Array.from({ length: 7 }, (_, i) => fullEndpoint({ path: `/v1/r${i}`, responseSchema: null }));
    const r = score(fullListing({ endpoints: many }));
    expect(r.improvements[0].action).toMatch(/GET \/v1\/r0, GET \/v1\/r1, GET \/v1\/r2 and 4 more/);
    expect(r.improvements[0].endpoints).toHaveLength(7);
  });
});

describe("purity", () => {
  it("does not mutate the listing or the evidence, and repeats itself", () => {
    const l = fullListing();
    const e = fullEvidence(l);
    const before = JSON.stringify([l, e]);
    const a = score(l, e);
    const b = score(l, e);
    expect(JSON.stringify([l, e])).toBe(before);
    expect(b).toEqual(a);
  });
  it("reads the settle gate at opts.now", () => {
    const l = fullListing();
    const e = fullEvidence(l);
    const later = scoreReadiness(l, e, R, { now: new Date("2027-02-01T00:00:00Z") });
    expect(rule(later, "H3").earned).toBe(3.33);
  });
  it("an unreachable endpoint probe and an unreachable evidence entry are both plain data", () => {
    const l = fullListing();
    const e = fullEvidence(l, { probe: { ...fullEvidence(l).probe, endpoints: [probedEndpoint(l.endpoints[0], { reachable: false, challenge: { kind: "none", valid: false }, refusal: "private_address" })] } });
    expect(() => score(l, e)).not.toThrow();
  });
});
