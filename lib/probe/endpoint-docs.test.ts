/**
 * D3 evidence end to end (reading "endpoint-docs", readiness/1.1.0 onwards): a loopback docs server, the
 * probe fetching each endpoint's page through the SSRF guard, and the engine judging what it recorded
 * under 1.1.0 and under the served rubric.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ListingDocument } from "@/lib/listing-document/document";
import { scoreReadiness } from "@/lib/scoring/readiness";
import { CURRENT_RUBRIC, loadRubric } from "@/lib/scoring/readiness/rubric";
import { dynamicEndpoint, fullEndpoint, fullEvidence, fullListing, TEST_NOW } from "@/test/readiness";
import { listenHttp, type LocalServer } from "@/test/net-servers";
import { endpointDocsPage, ENDPOINT_DOCS_MAX_BYTES, probeEndpointDocs, readPage } from "./endpoint-docs";
import { probeListing } from "./probe-listing";

const FULL_PAGE = `<html><body><h1>Weatherly API</h1>
<section id="forecast"><h2>GET /v1/forecast</h2><p>Query: <code>lat</code>, <code>lon</code>. Answers <code>{"hours": [...]}</code>.</p>
<pre>curl 'https://api.weatherly.dev/v1/forecast?lat=52.52&amp;lon=13.405'</pre></section>
<section id="batch"><h2>POST /v1/batch</h2><p>Body: points (array). Answers hours.</p></section>
<script>var lon_and_points = "example";</script></body></html>`;

let server: LocalServer;
let base: string;
beforeAll(async () => {
  server = await listenHttp((req, res) => {
    if (req.url === "/api") return void res.writeHead(200, { "content-type": "text/html" }).end(FULL_PAGE);
    if (req.url === "/big") return void res.writeHead(200, { "content-type": "text/html" }).end("x".repeat(ENDPOINT_DOCS_MAX_BYTES + 10) + "GET /v1/forecast lat lon hours <pre>");
    res.writeHead(404, { "content-type": "text/plain" }).end("not found");
  });
  base = `http://127.0.0.1:${server.port}`;
});
afterAll(() => server?.close());

const net = () => ({ allowHosts: [`127.0.0.1:${server.port}`], deadlineMs: 4000 });

describe("what the probe records from a docs page", () => {
  it.each<[string, string | null, string | null, string | null]>([
    ["an absolute URL, fragment dropped", "https://docs.weatherly.dev/api#forecast", null, "https://docs.weatherly.dev/api"],
    ["an anchor next to the listing docs", "#batch", "https://docs.weatherly.dev/api", "https://docs.weatherly.dev/api"],
    ["a path next to the listing docs", "/guide/batch#x", "https://docs.weatherly.dev/api", "https://docs.weatherly.dev/guide/batch"],
    ["a path without listing docs", "/guide", null, null],
    ["not http(s)", "ftp://docs.weatherly.dev/api", null, null],
  ])("resolves %s", (_n, url, listingDocs, want) => {
    expect(endpointDocsPage({ docsUrl: url }, listingDocs)).toBe(want);
  });

  it("reads path, whole-word names and an example; scripts and tags are not text", () => {
    expect(readPage(FULL_PAGE, fullEndpoint())).toEqual({ pathShown: true, names: ["lat", "lon", "hours"], example: true });
    const batch = readPage(FULL_PAGE.replace(/<pre>[\s\S]*?<\/pre>|<code>/g, ""), dynamicEndpoint());
    expect(batch).toEqual({ pathShown: true, names: ["points", "hours"], example: false });
    expect(readPage("<p>latitude and longitude</p>", fullEndpoint()).names).toEqual([]);
  });

  it("fetches each page once, bounded, and records a 404, a truncation and an SSRF refusal", async () => {
    const listing = fullListing({
      baseUrl: base,
      docsUrl: `${base}/api`,
      endpoints: [
        fullEndpoint({ docsUrl: "#forecast" }),
        dynamicEndpoint({ docsUrl: `${base}/api#batch` }),
        fullEndpoint({ path: "/v1/gone", docsUrl: `${base}/gone` }),
        fullEndpoint({ path: "/v1/big", docsUrl: `${base}/big` }),
        fullEndpoint({ path: "/v1/meta", docsUrl: "http://169.254.169.254/latest" }),
        fullEndpoint({ path: "/v1/none", docsUrl: null }),
      ],
    });
    const before = server.hits.length;
    const docs = await probeEndpointDocs(listing, net());
    const apiHits = server.hits.slice(before).filter((h) => h.url === "/api");
    expect(apiHits).toHaveLength(1);
    expect(docs.map((d) => [d.path, d.ok, d.status, d.pathShown, d.example, d.truncated])).toEqual([
      ["/v1/forecast", true, 200, true, true, false],
      ["/v1/batch", true, 200, true, true, false],
      ["/v1/gone", false, 404, false, false, false],
      ["/v1/big", true, 200, false, false, true],
      ["/v1/meta", false, null, false, false, false],
    ]);
    expect(docs[4].refusal).toBeTruthy();
  });
});

/** D3 under 1.1.0 and under the served rubric (1.2.0 reads object schemas as 1.1.0 does): the same rule, or a failure. */
function d3Both(listing: ListingDocument, ev: Parameters<typeof scoreReadiness>[1]) {
  expect(CURRENT_RUBRIC.version).toBe("1.2.0");
  const [v11, served] = [loadRubric("1.1.0"), CURRENT_RUBRIC].map((r) => scoreReadiness(listing, ev, r, { now: TEST_NOW }).rules.find((x) => x.id === "D3")!);
  expect(served).toEqual(v11);
  return served;
}

describe("D3 on a probed listing (readiness/1.1.0 and the served 1.2.0), from the probe's own evidence", () => {
  it("passes both endpoints of a shared page that shows their paths, fields and an example", async () => {
    const listing: ListingDocument = fullListing({
      baseUrl: base,
      docsUrl: `${base}/api`,
      endpoints: [fullEndpoint({ docsUrl: "#forecast" }), dynamicEndpoint({ docsUrl: "#batch" })],
    });
    const probed = await probeListing(listing, { allowHosts: [`127.0.0.1:${server.port}`], deadlineMs: 4000 });
    if (!probed.ok) throw new Error(probed.detail);
    expect(probed.evidence.version).toBe(2);
    const ev = { ...fullEvidence(listing), probe: probed.evidence };
    const d3 = d3Both(listing, ev);
    // The page has one <pre> (forecast) and <code> elements: both endpoints share it, so both carry an example.
    expect(probed.evidence.endpointDocs!.map((d) => [d.path, d.names, d.example])).toEqual([
      ["/v1/forecast", ["lat", "lon", "hours"], true],
      ["/v1/batch", ["points", "hours"], true],
    ]);
    expect(d3).toMatchObject({ earned: 4, status: "pass" });
    const old = scoreReadiness(listing, ev, loadRubric("1.0.0"), { now: TEST_NOW }).rules.find((r) => r.id === "D3")!;
    expect(old.reason).toMatch(/checks the link only/);
  });

  it("fails an endpoint whose page lacks its response field, naming it", async () => {
    const listing: ListingDocument = fullListing({
      baseUrl: base,
      docsUrl: `${base}/api`,
      endpoints: [fullEndpoint({ docsUrl: "#forecast", responseSchema: { type: "object", required: ["hours", "timezone"], properties: { hours: { type: "array" }, timezone: { type: "string" } } } }), fullEndpoint({ path: "/v1/gone", docsUrl: `${base}/gone` })],
    });
    const probed = await probeListing(listing, { allowHosts: [`127.0.0.1:${server.port}`], deadlineMs: 4000 });
    if (!probed.ok) throw new Error(probed.detail);
    const d3 = d3Both(listing, { ...fullEvidence(listing), probe: probed.evidence });
    expect(d3).toMatchObject({ earned: 0, status: "fail" });
    expect(d3.reason).toBe("0 of 2 endpoints have a docs page that shows their path, request and response fields and an example; GET /v1/forecast: its docs page does not show the response field timezone; GET /v1/gone: its docs page did not load (HTTP 404)");
  });
});
