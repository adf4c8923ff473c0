import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { validateListingDocument } from "@/lib/listing-document/validate";
import { extractJsonObject, importProductDocument, parseEndpointLine } from "./product-document";

// Byte-identical copies of the two seller product documents (docs/spec/products.md), kept in the repo so CI needs nothing outside it.
const SEEDS = path.join(__dirname, "../scoring/readiness/fixtures/seed-products");
const seed002 = readFileSync(path.join(SEEDS, "002-agent-verdict.json"), "utf8");
const seed003 = readFileSync(path.join(SEEDS, "003-validity-check.json"), "utf8");
const SOURCE_003 = "https://validity-check.example/criteria";

function imported(raw: string | object, opts = {}) {
  const r = importProductDocument(raw, opts);
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r;
}

describe("Arbiter agent-verdict product (docs/spec/products.md)", () => {
  const r = imported(seed002);
  const ep = r.listing.endpoints[0];

  it("is recognised and passes the listing schema", () => {
    expect(r.format).toBe("arbiter-product");
    expect(validateListingDocument(r.listing).ok).toBe(true);
  });
  it("maps identity, origin and the one endpoint", () => {
    expect(r.listing).toMatchObject({ slug: "agent-verdict", title: "Agent verdict: did the work meet your criteria (signed, per criterion)", baseUrl: "https://arbiterverse.com" });
    expect(ep).toMatchObject({ method: "POST", path: "/api/x402/AGENT_VERDICT", payable: true, noParameters: false });
    expect(r.listing.endpoints).toHaveLength(1);
  });
  it("carries the input and output schemas verbatim", () => {
    const doc = JSON.parse(seed002);
    expect(ep.requestSchema).toEqual(doc.inputSchema);
    expect(ep.responseSchema).toEqual(doc.outputSchema);
  });
  it("takes the request example from the summary, not from the withheld examples", () => {
    expect(ep.requestExample).toMatchObject({ deliverable: { kind: "json" }, criteria: [{ id: "r1" }, { id: "r2" }], grading: { scale: "A_F" } });
    expect(r.listing.description).not.toMatch(/Example request/);
    expect(r.listing.description).toMatch(/never executed, echoed or stored\.$/);
    expect(r.unmapped.find((u) => u.source === "/examples")?.reason).toMatch(/OMITTED_UNTIL_REAL_EVIDENCE/);
  });
  it("prices a DYNAMIC_QUOTE as dynamic from $0.04 with no ceiling, driver or unit", () => {
    expect(ep.pricing).toEqual({ label: "from $0.04", usd: null, machine: null, mode: "dynamic", dynamic: { min: "0.04", max: null, driver: null, unit: null } });
  });
  it("takes protocols and networks from payment", () => {
    expect(r.listing.protocols).toEqual(["x402"]);
    expect(r.listing.networks).toEqual(["eip155:1", "eip155:10", "eip155:1329", "eip155:137", "eip155:143", "eip155:42161", "eip155:43114", "eip155:5042", "eip155:8453"]);
    expect(r.listing.operations.idempotency).toMatch(/same payment identifier/);
    expect(r.listing.operations.errors).toMatch(/^400: The request field is invalid\. 402:/);
    expect(r.listing.operations.syncMode).toBe("mixed");
  });
  it("invents nothing it was not given", () => {
    expect(r.listing).toMatchObject({ logoUrl: null, category: null, homepageUrl: null, walkthrough: null, discoveryUrl: null });
    expect(r.listing.operations).toMatchObject({ authPreconditions: null, limits: null, timeouts: null, supportChannel: null });
  });
  it("records where every listing value came from", () => {
    const targets = new Set(r.mapping.map((m) => m.target));
    for (const t of ["/title", "/baseUrl", "/description", "/shortDescription", "/docsUrl", "/networks", "/endpoints/0/requestExample", "/endpoints/0/pricing/dynamic/min"]) expect(targets).toContain(t);
    for (const m of r.mapping) expect(m.note.length).toBeGreaterThan(3);
  });
  it("keeps the example in the description when it lacks a required field", () => {
    const doc = JSON.parse(seed002);
    doc.summary = 'Judges work. Example request: {"criteria":[]}.';
    const x = imported(doc);
    expect(x.listing.endpoints[0].requestExample).toBeNull();
    expect(x.listing.description).toMatch(/Example request/);
  });
});

describe("validity-check criteria document (docs/spec/products.md)", () => {
  const r = imported(seed003, { sourceUrl: SOURCE_003 });

  it("is recognised and passes the listing schema", () => {
    expect(r.format).toBe("criteria-document");
    expect(validateListingDocument(r.listing).ok).toBe(true);
  });
  it("needs to be told where it was fetched from", () => {
    const x = importProductDocument(seed003);
    expect(x.ok).toBe(false);
    if (!x.ok) expect(x.errors[0].pointer).toBe("/baseUrl");
  });
  it("lists five endpoints: criteria, precheck and metrics free; upto and validity paid $0.01", () => {
    expect(r.listing.endpoints.map((e) => [e.method, e.path, e.payable])).toEqual([
      ["GET", "/criteria", false], ["POST", "/precheck", false], ["POST", "/upto", true], ["POST", "/validity", true], ["GET", "/metrics", false],
    ]);
    const upto = r.listing.endpoints[2];
    expect(upto.pricing).toEqual({ label: "$0.01 per challenge", usd: "0.01", machine: null, mode: "fixed", dynamic: null });
    expect(upto.description).toBe("signed ceiling-exposure statement");
    expect(r.unmapped.find((u) => u.source === "/endpoints/not_offered")).toBeDefined();
  });
  it("leaves the prose input contract out of requestSchema", () => {
    for (const e of r.listing.endpoints) expect(e.requestSchema).toBeNull();
    expect(r.unmapped.map((u) => u.source)).toContain("/input_contract, /input_contract_text");
  });
  it("maps operations it states and nothing else", () => {
    expect(r.listing.operations.limits).toBe("Free pre-check: 100 per day per caller wallet, at least 5000 ms apart, 402 when exhausted. Request bodies at most 262144 bytes.");
    expect(r.listing.operations.syncMode).toBe("sync");
    expect(r.listing.operations.errors).toMatch(/^Malformed artefacts/);
    expect(r.listing).toMatchObject({ shortDescription: null, protocols: [], networks: [], docsUrl: "https://validity-check.example/criteria" });
  });
});

describe("input handling", () => {
  it("refuses what it does not recognise, and bad JSON", () => {
    expect(importProductDocument("{nope").ok).toBe(false);
    expect(importProductDocument({ name: "x" }).ok).toBe(false);
    expect(importProductDocument("[]").ok).toBe(false);
  });
  it("refuses a product whose resource URL is not http(s)", () => {
    const doc = { ...JSON.parse(seed002), resourceUrl: "ftp://arbiterverse.com/x" };
    const x = importProductDocument(doc);
    expect(!x.ok && x.errors[0].pointer).toBe("/resourceUrl");
  });
  it("parses endpoint lines", () => {
    expect(parseEndpointLine("POST /validity (paid, $0.01 per payload: signed validity analysis)")).toEqual({ method: "POST", path: "/validity", paid: true, priceUsd: "0.01", per: "payload", description: "signed validity analysis" });
    expect(parseEndpointLine("GET /criteria (free)")).toMatchObject({ paid: false, description: null });
    expect(parseEndpointLine("GET /metrics")).toMatchObject({ paid: null, priceUsd: null });
    expect(parseEndpointLine("Any other POST path answers NOT COVERED")).toBeNull();
  });
  it("extracts balanced JSON with braces inside strings", () => {
    expect(extractJsonObject('x: {"a":"}{","b":{"c":1}} tail', 0)?.value).toEqual({ a: "}{", b: { c: 1 } });
    expect(extractJsonObject("no json here", 0)).toBeNull();
  });
});

describe("docs/SEED-IMPORT.md", () => {
  it("holds every mapping row the importer produces for the two seeds", () => {
    const doc = readFileSync(path.join(__dirname, "../../docs/SEED-IMPORT.md"), "utf8");
    for (const r of [imported(seed002), imported(seed003, { sourceUrl: SOURCE_003 })]) {
      for (const m of r.mapping) expect(doc).toContain(`| \`${m.source}\` | \`${m.target}\` |`);
      for (const u of r.unmapped) expect(doc).toContain(`| \`${u.source}\` |`);
    }
  });
});
