/**
 * readiness/1.1.0, item by item (issue "Readiness to the letter"): each table row is the listing that
 * shows the change, scored under 1.1.0 and, where the change moves a score, under 1.0.0 as well
 * (a released version never changes, so 1.0.0 keeps its reading).
 */
import { describe, expect, it } from "vitest";
import type { ListingDocument, ListingEndpoint } from "@/lib/listing-document/document";
import { uptimePercent } from "../signals";
import { scoreReadiness } from "./engine";
import { fractionOf, roundHalfUpExact, truncate6, add, frac } from "./exact";
import { CURRENT_RUBRIC, loadRubric, type RuleId } from "./rubric";
import { docsPage, dynamicEndpoint, fullEndpoint, fullEvidence, fullListing, TEST_NOW } from "@/test/readiness";
import type { ReadinessEvidence, ReadinessResult, RuleStatus } from "./types";

const V10 = loadRubric("1.0.0");
const V11 = loadRubric("1.1.0");
const score = (l: ListingDocument, e: ReadinessEvidence | null, r = V11, provisional = false) => scoreReadiness(l, e, r, { now: TEST_NOW, provisional });
const rule = (r: ReadinessResult, id: RuleId) => r.rules.find((x) => x.id === id)!;

it("1.1.0 is a released version the current 1.2.0 succeeds, and the full listing still earns 100 under it", () => {
  expect(CURRENT_RUBRIC).toBe(loadRubric("1.2.0"));
  expect(V11.version).toBe("1.1.0");
  const r = score(fullListing(), fullEvidence());
  expect(r.rules.filter((x) => x.status !== "pass").map((x) => `${x.id}: ${x.reason}`)).toEqual([]);
  expect(r).toMatchObject({ rubricVersion: "readiness/1.1.0", total: 100, rawTotal: 100, caps: [], improvements: [] });
});

describe("item 1: the total is exact", () => {
  /**
   * The issue's case: 30-day uptime 8,527 of 8,617 samples, 4 of 9 response schemas, settleability
   * unknown. The rest of the listing loses whole points only, in both versions alike: the five
   * endpoints without a response schema have no request example and no docs link, and a sixth has
   * a 5-character description and no docs link, so E5 + E2 fail 6 endpoint-checks worth 5/9 each and
   * D3 fails 6 worth 4/9 each: 30/9 + 24/9 = 6 points exactly.
   * Exact sum: 100 − 15 (E4, H2, H3) − 6 + 20/9 (E4) + 5·8527/8617 (H2) + 333/100 (H3) = 89.49999987…
   */
  const thin = (i: number): ListingEndpoint => fullEndpoint({ path: `/v1/thin/${i}`, responseSchema: null, requestExample: null, docsUrl: null });
  const listing = fullListing({
    endpoints: [fullEndpoint(), fullEndpoint({ path: "/v1/a" }), fullEndpoint({ path: "/v1/b" }), fullEndpoint({ path: "/v1/c", description: "Short", docsUrl: null }), thin(1), thin(2), thin(3), thin(4), thin(5)],
  });
  const evidence = fullEvidence(listing, {
    settle: { lastSettledAt: null, failedAttemptsSinceLastSettle: 0, distinctFailingBuyersSinceLastSettle: 0 },
    liveness: { uptime7d: null, uptime30d: uptimePercent(8527, 8617), healthStatus: "operational", healthConfidence: 1, settlementUnproven: false },
  });
  const exact = add(add(add(frac(79n), frac(20n, 9n)), frac(5n * 8527n, 8617n)), frac(333n, 100n));
  // 79 = 100 − 15 − 6: the whole points outside E4, H2 and H3.

  it("the case's exact sum is 89.49999987…, below the half", () => {
    expect(truncate6(exact)).toBe(89.499999);
    expect(roundHalfUpExact(exact)).toBe(89);
    expect(Number(exact.n) / Number(exact.d)).toBeCloseTo(89.49999987, 8);
  });

  it.each<[string, typeof V11, number, number, string]>([
    ["readiness/1.1.0: 89 Ready, raw 89.499999", V11, 89, 89.499999, "ready"],
    ["readiness/1.0.0 (released, unchanged): 90 Excellent from the 6-decimal normalisation", V10, 90, 89.5, "excellent"],
  ])("%s", (_n, rubric, total, raw, band) => {
    const r = score(listing, evidence, rubric);
    expect(rule(r, "E4")).toMatchObject({ earned: 5 * (4 / 9), status: "partial" });
    expect(rule(r, "H3")).toMatchObject({ earned: 3.33, status: "partial" });
    expect(rule(r, "H2").reason).toMatch(/30-day uptime/);
    expect(rule(r, "E2").earned + rule(r, "E5").earned + rule(r, "D3").earned).toBeCloseTo(5 + 5 + 4 - 6, 12);
    expect(r).toMatchObject({ total, rawTotal: raw, band: { id: band }, caps: [] });
  });

  it.each<[number, string]>([
    [3.33, "333/100"],
    [5 * (4 / 9), "20/9"],
    [uptimePercent(8527, 8617)! / 100, "8527/8617"],
    [0.9, "9/10"],
    [0.6, "3/5"],
    [7, "7/1"],
  ])("reads the float %d as the fraction %s", (x, f) => {
    const r = fractionOf(x);
    expect(`${r.n}/${r.d}`).toBe(f);
  });

  it("a float no small fraction explains is taken at its exact binary value", () => {
    const r = fractionOf(0.1234567890123);
    expect(Number(r.n) / Number(r.d)).toBe(0.1234567890123);
    expect(r.d > 1_000_000n).toBe(true);
  });

  it("a total that is exactly a half still rounds up (4.5 of E2 pays 2.5)", () => {
    // E2 on 1 of 2 endpoints: 2.5; no walkthrough −4; no limits −2; the rest whole: 100 − 2.5 − 6 = 91.5 → 92.
    const l = fullListing({ walkthrough: null, operations: { ...fullListing().operations, limits: null }, endpoints: [fullEndpoint(), dynamicEndpoint({ description: "short" })] });
    const r = score(l, fullEvidence(l));
    expect(r).toMatchObject({ rawTotal: 91.5, total: 92 });
  });
});

type Row = [name: string, id: RuleId, v11: [number, RuleStatus, RegExp], v10: [number, RuleStatus] | null, build: () => { l: ListingDocument; e: ReadinessEvidence | null }];
const withEv = (l: ListingDocument, edit: (e: ReadinessEvidence) => void = () => {}) => {
  const e = fullEvidence(l);
  edit(e);
  return { l, e };
};
const one = (ep: ListingEndpoint) => fullListing({ endpoints: [ep] });
const page = (edit: (d: NonNullable<ReadinessEvidence["probe"]["endpointDocs"]>[number]) => void) => (e: ReadinessEvidence) => edit(e.probe.endpointDocs![0]);

const rows: Row[] = [
  // Item 3: D3 reads the docs page the probe fetched.
  ["D3 page shows path, request and response fields and an example", "D3", [4, "pass", /1 of 1 endpoints have a docs page that shows/], [4, "pass"], () => withEv(one(fullEndpoint()))],
  ["D3 page lacks a response field", "D3", [0, "fail", /GET \/v1\/forecast: its docs page does not show the response field hours/], [4, "pass"], () => withEv(one(fullEndpoint()), page((d) => { d.names = ["lat", "lon"]; }))],
  ["D3 page lacks the request fields", "D3", [0, "fail", /does not show the request fields lat, lon/], [4, "pass"], () => withEv(one(fullEndpoint()), page((d) => { d.names = ["hours"]; }))],
  ["D3 page has no example", "D3", [0, "fail", /an example \(a code block or a curl command\)/], [4, "pass"], () => withEv(one(fullEndpoint()), page((d) => { d.example = false; }))],
  ["D3 page does not name the path", "D3", [0, "fail", /the path \/v1\/forecast/], [4, "pass"], () => withEv(one(fullEndpoint()), page((d) => { d.pathShown = false; }))],
  ["D3 page answered 404", "D3", [0, "fail", /its docs page did not load \(HTTP 404\)/], [4, "pass"], () => withEv(one(fullEndpoint()), page((d) => { d.ok = false; d.status = 404; }))],
  ["D3 page not fetched", "D3", [0, "fail", /the probe did not fetch its docs page/], [4, "pass"], () => withEv(one(fullEndpoint()), (e) => { e.probe.endpointDocs = []; })],
  ["D3 noParameters needs no request fields", "D3", [4, "pass", /1 of 1/], [4, "pass"], () => withEv(one(fullEndpoint({ requestSchema: null, noParameters: true, requestExample: null })), page((d) => { d.names = ["hours"]; }))],
  ["D3 a response schema without property names cannot be matched", "D3", [0, "fail", /the response shape \(the response schema names no property to look for\)/], [4, "pass"], () => withEv(one(fullEndpoint({ responseSchema: { type: "string" } })))],
  ["D3 half the endpoints", "D3", [2, "partial", /1 of 2 endpoints/], [4, "pass"], () => withEv(fullListing(), (e) => { e.probe.endpointDocs![1].example = false; })],
  ["D3 provisional: a declared link, not yet observed", "D3", [4, "pass", /declared, not yet observed/], [4, "pass"], () => ({ l: fullListing(), e: null })],
  // Item 4: M4, D1, D4 pass only on an observation in a probed run.
  ["M4 probed, logo not observed", "M4", [0, "fail", /the probe did not observe the logo/], [3, "pass"], () => withEv(fullListing(), (e) => { e.probe.logo = null; })],
  ["D1 probed, docs not observed", "D1", [0, "fail", /the probe did not observe the docs/], [4, "pass"], () => withEv(fullListing(), (e) => { e.probe.docs = null; })],
  ["D4 probed, discovery document not observed", "D4", [0, "fail", /the probe did not observe the discovery document/], [3, "pass"], () => withEv(fullListing(), (e) => { e.probe.discovery = null; })],
  ["M4 provisional, declared https logo", "M4", [3, "pass", /declared, not yet observed/], [3, "pass"], () => ({ l: fullListing(), e: null })],
  ["D4 probed, found though not declared", "D4", [3, "pass", /the probe found a/], [3, "pass"], () => withEv(fullListing({ discoveryUrl: null }))],
  // Item 5: a machine-readable price is a published price.
  ["P1 machine price only", "P1", [6, "pass", /1 of 1 payable endpoints publish a price or quote/], [0, "fail"], () => withEv(one(fullEndpoint({ pricing: { ...fullEndpoint().pricing!, label: null, usd: null } })))],
  ["P1 no price at all", "P1", [0, "fail", /no price label, USD amount or complete machine-readable price/], [0, "fail"], () => withEv(one(fullEndpoint({ pricing: { ...fullEndpoint().pricing!, label: null, usd: null, machine: null } })))],
  // Item 6: a dynamic range with min above max fails, naming the fields.
  ["P4 min above max", "P4", [0, "fail", /POST \/v1\/batch: pricing\.dynamic\.min 5 is above pricing\.dynamic\.max 2/], [4, "pass"], () => withEv(one(dynamicEndpoint({ pricing: { ...dynamicEndpoint().pricing!, dynamic: { min: "5", max: "2", driver: "coordinates", unit: "per coordinate" } } })))],
  ["P4 min not a number", "P4", [0, "fail", /pricing\.dynamic\.min "cheap" is not a decimal number/], [4, "pass"], () => withEv(one(dynamicEndpoint({ pricing: { ...dynamicEndpoint().pricing!, dynamic: { min: "cheap", max: "2", driver: "coordinates", unit: "per coordinate" } } })))],
  ["P4 min equals max", "P4", [4, "pass", /1 of 1/], [4, "pass"], () => withEv(one(dynamicEndpoint({ pricing: { ...dynamicEndpoint().pricing!, dynamic: { min: "2", max: "2.0", driver: "coordinates", unit: "per coordinate" } } })))],
  ["P4 driver and unit missing", "P4", [0, "fail", /pricing\.dynamic\.driver, pricing\.dynamic\.unit are missing/], [0, "fail"], () => withEv(one(dynamicEndpoint({ pricing: { ...dynamicEndpoint().pricing!, dynamic: { min: "1", max: "2", driver: null, unit: " " } } })))],
  // Item 7: reasons a seller can act on (wording only: 1.0.0 scores the same).
  ["E2 states the 10-character minimum", "E2", [0, "fail", /the description has 5 characters, fewer than 10/], [0, "fail"], () => withEv(one(fullEndpoint({ description: "Hours" })))],
  ["E2 no description", "E2", [0, "fail", /no description \(at least 10 characters needed\)/], [0, "fail"], () => withEv(one(fullEndpoint({ description: null })))],
  ["E3 {} is allowed but earns nothing", "E3", [0, "fail", /request schema is `\{\}`, which JSON Schema allows but which says nothing about the shape and earns nothing/], [0, "fail"], () => withEv(one(fullEndpoint({ requestSchema: {} })))],
  ["E4 true is allowed but earns nothing", "E4", [0, "fail", /response schema is `true`, which JSON Schema allows but which says nothing about the shape and earns nothing/], [0, "fail"], () => withEv(one(fullEndpoint({ responseSchema: true })))],
  ["E4 annotations only", "E4", [0, "fail", /has only annotations/], [0, "fail"], () => withEv(one(fullEndpoint({ responseSchema: { title: "Forecast" } })))],
  ["E5 missing example", "E5", [0, "fail", /GET \/v1\/forecast: no request example \(and noParameters is not set\)/], [0, "fail"], () => withEv(one(fullEndpoint({ requestExample: null })))],
  ["E5 example lacks required fields", "E5", [0, "fail", /the request example lacks the required field lon/], [0, "fail"], () => withEv(one(fullEndpoint({ requestExample: { lat: 1 } })))],
  ["E5 example not an object", "E5", [0, "fail", /not an object, but the request schema requires fields/], [0, "fail"], () => withEv(one(fullEndpoint({ requestExample: "lat=1" })))],
  // Item 2: an unsafe example fails E5 under 1.1.0 with the field named (never the value); 1.0.0 passed it.
  ["E5 example carries a private key", "E5", [0, "fail", /private key at requestExample\/privateKey\)/], [5, "pass"], () => withEv(one(fullEndpoint({ requestExample: { lat: 1, lon: 2, privateKey: `0x${"ab".repeat(32)}` } })))],
  ["E5 example carries a recovery phrase", "E5", [0, "fail", /seed phrase at requestExample\/wallet\/mnemonic/], [5, "pass"], () => withEv(one(fullEndpoint({ requestExample: { lat: 1, lon: 2, wallet: { mnemonic: "test test test test test test test test test test test junk" } } })))],
  ["E5 example carries a bearer token", "E5", [0, "fail", /bearer token at requestExample\/headers\/0/], [5, "pass"], () => withEv(one(fullEndpoint({ requestExample: { lat: 1, lon: 2, headers: ["Bearer abcdefghijklmnopqrstuvwxyz0123456789"] } })))],
  ["E5 example carries an API key", "E5", [0, "fail", /api key at requestExample\/apiKey/], [5, "pass"], () => withEv(one(fullEndpoint({ requestExample: { lat: 1, lon: 2, apiKey: "sk_live_4eC39HqLyjWDarjtT1zdp7dc" } })))],
  ["E5 a transaction hash is not a key", "E5", [5, "pass", /1 of 1/], [5, "pass"], () => withEv(one(fullEndpoint({ requestExample: { lat: 1, lon: 2, txHash: `0x${"ab".repeat(32)}` } })))],
];

describe("items 3–7, rule by rule", () => {
  it.each(rows)("%s", (_name, id, [earned, status, reason], v10, build) => {
    const { l, e } = build();
    const r = rule(score(l, e, V11, e === null), id);
    expect({ earned: r.earned, status: r.status }).toEqual({ earned, status });
    expect(r.reason).toMatch(reason);
    if (v10) {
      const old = rule(score(l, e, V10, e === null), id);
      expect({ earned: old.earned, status: old.status }).toEqual({ earned: v10[0], status: v10[1] });
    }
  });

  it("an unsafe example's reason names where the secret is and never repeats it", () => {
    const key = `0x${"cd".repeat(32)}`;
    const { l, e } = withEv(one(fullEndpoint({ requestExample: { lat: 1, lon: 2, signer_key: key } })));
    const r = rule(score(l, e), "E5");
    expect(r.reason).toMatch(/private key at requestExample\/signer_key/);
    expect(JSON.stringify(score(l, e))).not.toContain(key.slice(2));
  });

  it("a reason names at most three failing endpoints and counts the rest", () => {
    const l = fullListing({ endpoints: [1, 2, 3, 4, 5].map((i) => fullEndpoint({ path: `/v1/p${i}`, description: null })) });
    expect(rule(score(l, fullEvidence(l)), "E2").reason).toMatch(/GET \/v1\/p3: no description \(at least 10 characters needed\); and 2 more$/);
  });
});

describe("D3 reads the first docs observation of each endpoint, however many there are", () => {
  // Over 16 observations they are looked up by key rather than scanned once per endpoint; both
  // readings must agree: the observations out of order, a lower-cased method, one endpoint's page
  // missing, and a failed observation of another ahead of its good one (the first counts).
  const scoredWith = (n: number) => {
    const listing = fullListing({ endpoints: Array.from({ length: n }, (_, i) => fullEndpoint({ path: `/v1/e${i}` })) });
    const ev = fullEvidence(listing);
    const docs = ev.probe.endpointDocs!;
    docs.reverse();
    docs.find((d) => d.path === "/v1/e5")!.method = "get";
    docs.splice(docs.findIndex((d) => d.path === "/v1/e7"), 1);
    const good = docs.find((d) => d.path === "/v1/e3")!;
    docs.unshift({ ...good, ok: false, status: 404, names: [], example: false });
    return rule(score(listing, ev, CURRENT_RUBRIC), "D3");
  };

  it.each([10, 16, 17, 40])("%i endpoints", (n) => {
    const d3 = scoredWith(n);
    expect(d3.status).toBe("partial");
    expect(d3.reason).toMatch(new RegExp(`^${n - 2} of ${n} endpoints `));
    expect(d3.reason).toContain("; GET /v1/e3: its docs page did not load (HTTP 404); GET /v1/e7: the probe did not fetch its docs page");
    expect(d3.endpoints).toEqual(["GET /v1/e3", "GET /v1/e7"]);
  });
});
