import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { slugify, validateListingDocument } from "./validate";

const minimal = { title: "Weather forecasts by coordinates", baseUrl: "https://api.weatherly.dev" };
const endpoint = { method: "GET", path: "/v1/forecast" };

function firstError(doc: unknown) {
  const r = validateListingDocument(doc);
  if (r.ok) throw new Error("expected the document to be refused");
  return r.errors[0];
}

describe("validateListingDocument: refusals point at the field", () => {
  it.each([
    ["bad method", { ...minimal, endpoints: [{ method: "FETCH", path: "/x" }] }, "/endpoints/0/method", /one of/],
    ["missing method", { ...minimal, endpoints: [endpoint, { path: "/y" }] }, "/endpoints/1/method", /required/],
    ["path without leading slash", { ...minimal, endpoints: [{ method: "GET", path: "forecast" }] }, "/endpoints/0/path", /shape/],
    ["missing title", { baseUrl: minimal.baseUrl }, "/title", /required/],
    ["missing baseUrl", { title: minimal.title }, "/baseUrl", /required/],
    ["baseUrl with a query string", { ...minimal, baseUrl: "https://api.weatherly.dev/?key=1" }, "/baseUrl", /shape/],
    ["baseUrl with credentials", { ...minimal, baseUrl: "https://user:pw@api.weatherly.dev" }, "/baseUrl", /shape/],
    ["unknown top-level field", { ...minimal, rating: 5 }, "/rating", /not a field/],
    ["unknown endpoint field", { ...minimal, endpoints: [{ ...endpoint, verb: "GET" }] }, "/endpoints/0/verb", /not a field/],
    ["logo not a URL", { ...minimal, logoUrl: "logo.png" }, "/logoUrl", /uri|shape/],
    ["machine price amount with decimals", { ...minimal, endpoints: [{ ...endpoint, pricing: { machine: { amount: "0.01", asset: "USDC", network: "eip155:8453", decimals: 6 } } }] }, "/endpoints/0/pricing/machine/amount", /shape/],
    ["machine price missing network", { ...minimal, endpoints: [{ ...endpoint, pricing: { machine: { amount: "10000", asset: "USDC", decimals: 6 } } }] }, "/endpoints/0/pricing/machine/network", /required/],
    ["network not CAIP-2", { ...minimal, networks: ["base"] }, "/networks/0", /shape/],
    ["unknown protocol", { ...minimal, protocols: ["lightning"] }, "/protocols/0", /one of/],
    ["syncMode outside the closed list", { ...minimal, operations: { syncMode: "sometimes" } }, "/operations/syncMode", /one of/],
    ["usd not a decimal string", { ...minimal, endpoints: [{ ...endpoint, pricing: { usd: "$0.01" } }] }, "/endpoints/0/pricing/usd", /shape/],
    ["noParameters not boolean", { ...minimal, endpoints: [{ ...endpoint, noParameters: "yes" }] }, "/endpoints/0/noParameters", /type boolean/],
    ["title of the wrong type", { ...minimal, title: 42 }, "/title", /type string/],
    ["an escaped letter in a path", { ...minimal, endpoints: [{ method: "GET", path: "/v1/%78" }] }, "/endpoints/0/path", /another spelling of \/v1\/x .*: write \/v1\/x$/],
    ["a lower-case escape", { ...minimal, endpoints: [{ method: "GET", path: "/v1/a%2fb" }] }, "/endpoints/0/path", /write \/v1\/a%2Fb$/],
    ["a dot segment", { ...minimal, endpoints: [{ method: "GET", path: "/v1/../x" }] }, "/endpoints/0/path", /write \/x$/],
    ["an escaped digit in the base URL's path", { ...minimal, baseUrl: "https://api.weatherly.dev/v%31" }, "/baseUrl", /write \/v1$/],
    ["one URL twice, with and without a trailing slash", { ...minimal, endpoints: [endpoint, { ...endpoint, path: "/v1/forecast/" }] }, "/endpoints/1/path", /the URL of \/endpoints\/0\/path written another way/],
  ])("%s → %s", (_name, doc, pointer, message) => {
    const e = firstError(doc);
    expect(e.pointer).toBe(pointer);
    expect(e.message).toMatch(message);
  });

  it("escapes / and ~ in field names per RFC 6901", () => {
    expect(firstError({ ...minimal, "a/b~c": 1 }).pointer).toBe("/a~1b~0c");
  });

  it("reports every problem, not only the first", () => {
    const r = validateListingDocument({ baseUrl: "ftp://x", endpoints: [{ method: "GET" }] });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors.map((e) => e.pointer)).toEqual(expect.arrayContaining(["/title", "/baseUrl", "/endpoints/0/path"]));
  });

  it("refuses a non-object", () => {
    expect(firstError([]).pointer).toBe("");
    expect(firstError("listing").pointer).toBe("");
  });
});

describe("validateListingDocument: fills optional fields", () => {
  it("turns a minimal document into a complete ListingDocument", () => {
    const r = validateListingDocument({ ...minimal, endpoints: [endpoint] });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value).toEqual({
      slug: "weather-forecasts-by-coordinates",
      title: minimal.title,
      shortDescription: null,
      description: null,
      logoUrl: null,
      category: null,
      homepageUrl: null,
      baseUrl: minimal.baseUrl,
      docsUrl: null,
      walkthrough: null,
      discoveryUrl: null,
      protocols: [],
      networks: [],
      operations: {
        authPreconditions: null, networkRequirements: null, fundingRequirements: null, limits: null, timeouts: null,
        syncMode: null, errors: null, idempotency: null, supportChannel: null,
      },
      endpoints: [
        { method: "GET", path: "/v1/forecast", description: null, requestSchema: null, noParameters: false, responseSchema: null, requestExample: null, payable: false, pricing: null, docsUrl: null },
      ],
    });
  });

  it("fills partial pricing and operations", () => {
    const r = validateListingDocument({ ...minimal, operations: { limits: "60/min" }, endpoints: [{ ...endpoint, payable: true, pricing: { label: "$0.01", dynamic: { min: "0.01" } } }] });
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    expect(r.value.operations.limits).toBe("60/min");
    expect(r.value.operations.errors).toBeNull();
    expect(r.value.endpoints[0].pricing).toEqual({ label: "$0.01", usd: null, machine: null, mode: null, dynamic: { min: "0.01", max: null, driver: null, unit: null } });
  });

  it("keeps an explicit slug and $schema, and does not mutate the input", () => {
    const input = { $schema: "/schemas/listing.schema.json", slug: "weatherly", ...minimal };
    const before = JSON.stringify(input);
    const r = validateListingDocument(input);
    expect(r.ok && r.value.slug).toBe("weatherly");
    expect(r.ok && r.value.$schema).toBe("/schemas/listing.schema.json");
    expect(JSON.stringify(input)).toBe(before);
  });

  it("derives slugs from any title", () => {
    expect(slugify("Crème brûlée API — v2!")).toBe("creme-brulee-api-v2");
    expect(slugify("!!!")).toBe("listing");
  });
});

describe("the published schema", () => {
  it("is JSON Schema 2020-12 and names every ListingDocument field", () => {
    const schema = JSON.parse(readFileSync(path.join(__dirname, "../../public/schemas/listing.schema.json"), "utf8"));
    expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    const source = readFileSync(path.join(__dirname, "document.ts"), "utf8");
    // Every field declared in the ListingDocument interface must have a home in the schema.
    const block = source.slice(source.indexOf("export interface ListingDocument"));
    const fields = [...block.matchAll(/^\s+(\$?[a-zA-Z]+)\??:/gm)].map((m) => m[1]);
    expect(fields.length).toBeGreaterThan(10);
    for (const f of fields) expect(Object.keys(schema.properties)).toContain(f);
  });
});
