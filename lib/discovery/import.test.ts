import { readFileSync } from "node:fs";
import path from "node:path";
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIXTURE_SELLERS, fixtureListings, startFixtureSellers, type FixtureServer } from "@/sellers";
import { probeListing } from "@/lib/probe";
import { atomicToDecimal } from "./import-sources";
import { draftListingFromUrl } from "./import";
import { baseChallenge } from "@/sellers/broken";
import { sendX402 } from "@/sellers/respond";
import { askedAboveStated } from "@/lib/amounts";

let server: FixtureServer;
let allow: string[];
const schema = JSON.parse(readFileSync(path.resolve(__dirname, "../../public/schemas/listing.schema.json"), "utf8"));
const ajv = new Ajv2020({ allErrors: true, strict: false });
addFormats(ajv);
const validateListing = ajv.compile(schema);

beforeAll(async () => {
  server = await startFixtureSellers({ port: 0 });
  allow = [`127.0.0.1:${server.port}`];
});
afterAll(() => server?.close());

async function draft(slug: string) {
  const r = await draftListingFromUrl(`${server.url}/${slug}`, { allowHosts: allow, deadlineMs: 4000 });
  if (!r.ok) throw new Error(JSON.stringify(r));
  return r;
}

describe("draftListingFromUrl from the fixture sellers", () => {
  for (const slug of ["agent-verdict", "validity-check", "mpp-seller", "v1-only", "lowercase-payto"]) {
    it(`${slug}: the draft validates against public/schemas/listing.schema.json`, async () => {
      const { draft: d } = await draft(slug);
      const ok = validateListing(d);
      expect(validateListing.errors ?? []).toEqual([]);
      expect(ok).toBe(true);
    });
  }

  it("agent-verdict: title, descriptions, schemas, example and the 402's price in USDC", async () => {
    const { draft: d, sources } = await draft("agent-verdict");
    const seller = fixtureListings(server.url)["agent-verdict"];
    expect(d.title).toBe(seller.title);
    expect(d.description).toBe(seller.description);
    expect(d.baseUrl).toBe(seller.baseUrl);
    expect(d.logoUrl).toBe(seller.logoUrl);
    expect(d.docsUrl).toBe(seller.docsUrl);
    expect(d.discoveryUrl).toBe(`${seller.baseUrl}/.well-known/x402`);
    expect(d.protocols).toEqual(["x402"]);
    expect(d.networks).toEqual(expect.arrayContaining(["eip155:8453", "eip155:137", "eip155:42161"]));
    expect(d.endpoints).toHaveLength(1);
    const e = d.endpoints[0];
    expect(e).toMatchObject({ method: "POST", path: "/api/x402/AGENT_VERDICT", payable: true });
    expect(e.requestSchema).toEqual(seller.endpoints[0].requestSchema);
    expect(e.responseSchema).toEqual(seller.endpoints[0].responseSchema);
    expect(e.requestExample).toEqual(seller.endpoints[0].requestExample);
    expect(e.pricing).toMatchObject({ usd: "0.04", machine: { amount: "40000", network: "eip155:8453", decimals: 6 }, mode: null });
    expect(e.pricing?.label).toBe("from $0.04 per verdict (dynamic quote)"); // the document's words, still true of the 402
    expect(sources.map((s) => `${s.kind}:${s.ok}`)).toEqual(["well-known-x402:true", "openapi:true", "challenge:true"]);
  });

  it("validity-check: free routes drafted as free, paid routes priced at $0.01", async () => {
    const { draft: d } = await draft("validity-check");
    expect(d.endpoints.map((e) => `${e.method} ${e.path} ${e.payable} ${e.pricing?.usd ?? "-"}`)).toEqual([
      "GET /criteria false -", "POST /precheck false -", "POST /upto true 0.01", "POST /validity true 0.01",
    ]);
  });

  it("mpp-seller: OpenAPI only, the MPP challenge priced in Base USDC", async () => {
    const { draft: d, warnings } = await draft("mpp-seller");
    expect(d.protocols).toEqual(["mpp"]);
    expect(d.discoveryUrl).toBe(`${server.url}/mpp-seller/openapi.json`);
    expect(d.endpoints[0].pricing).toMatchObject({ usd: "0.005", machine: { amount: "5000", decimals: 6 } });
    // Both charges name their chain in methodDetails.chainId, as mppx emits them.
    expect(d.networks).toEqual(expect.arrayContaining(["eip155:42431", "eip155:8453"]));
    expect(warnings).toContain("walkthrough (D2) was not found in any source: fill it in.");
  });

  it("no-challenge: the paid route answering 200 is flagged in the warnings", async () => {
    const { draft: d, warnings } = await draft("no-challenge");
    expect(d.endpoints[0].payable).toBe(true);
    expect(warnings.some((w) => w.includes("answered 200 without payment"))).toBe(true);
  });

  it("a draft can be probed as it stands", async () => {
    const { draft: d } = await draft("validity-check");
    const r = await probeListing(d, { allowHosts: allow, deadlineMs: 4000 });
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.evidence.endpoints.filter((e) => e.status === 402)).toHaveLength(2);
  });

  it("an endpoint URL on its own drafts that one endpoint", async () => {
    const r = await draftListingFromUrl(`${server.url}/agent-verdict/api/x402/AGENT_VERDICT`, { allowHosts: allow, deadlineMs: 4000 });
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.draft.endpoints.map((e) => `${e.method} ${e.path} ${e.pricing?.usd}`)).toEqual(["POST /agent-verdict/api/x402/AGENT_VERDICT 0.04"]);
  });

  it("refuses a URL with a query, a fragment or credentials, and loopback without the allow-list", async () => {
    expect(await draftListingFromUrl(`${server.url}/agent-verdict?x=1`, { allowHosts: allow })).toMatchObject({ ok: false, refusal: "query_not_allowed" });
    expect(await draftListingFromUrl(`${server.url}/agent-verdict#x`, { allowHosts: allow })).toMatchObject({ ok: false, refusal: "fragment_not_allowed" });
    expect(await draftListingFromUrl(server.url.replace("http://", "http://a:b@"), { allowHosts: allow })).toMatchObject({ ok: false, refusal: "credentials_in_url" });
    expect((await draftListingFromUrl(`${server.url}/agent-verdict`)).ok).toBe(false);
  });
});

describe("draftListingFromUrl: a seed-style product document", () => {
  it("hands a JSON document with productId to importProductDocument", async () => {
    // A seller that publishes its product document (the agent-verdict product's shape, docs/spec/products.md) at a docs path.
    const av = fixtureListings(server.url)["agent-verdict"];
    const doc = {
      productId: "AGENT_VERDICT", title: av.title, summary: av.description, method: "POST",
      resourceUrl: `${av.baseUrl}/api/x402/AGENT_VERDICT`, inputSchema: av.endpoints[0].requestSchema, outputSchema: av.endpoints[0].responseSchema,
      pricing: { currency: "USD", floorUsd: 0.04, mode: "DYNAMIC_QUOTE", publicStartingPriceUsd: 0.04 },
      payment: { protocol: "X402_V2", admitted: true },
    };
    const own = await startFixtureSellers({
      port: 0,
      sellers: [{
        ...FIXTURE_SELLERS.find((s) => s.slug === "agent-verdict")!,
        slug: "product-doc",
        endpoints: [{ method: "GET", path: "/docs/AGENT_VERDICT.json", summary: "", description: "", payable: false, requestSchema: null, responseSchema: null, requestExample: null, pricing: null, handle: ({ res }) => { res.writeHead(200, { "content-type": "application/json" }); res.end(JSON.stringify(doc)); } }],
      }],
    });
    try {
      const r = await draftListingFromUrl(`${own.url}/product-doc/docs/AGENT_VERDICT.json`, { allowHosts: [`127.0.0.1:${own.port}`, ...allow] });
      expect(r.ok).toBe(true);
      if (!r.ok) return;
      // The document, then what the seller publishes at the resource's origin, then the resource's 402.
      expect(r.sources.map((s) => `${s.kind} ${s.ok}`)).toEqual(["product-document true", "well-known-x402 false", "openapi false", "challenge true"]);
      const e = r.draft.endpoints[0];
      // The 402's machine price beside the document's dynamic pricing; the bazaar's example where the document had none.
      expect(e.pricing).toEqual({ label: "from $0.04", usd: null, machine: { amount: "40000", asset: expect.any(String), network: "eip155:8453", decimals: 6 }, mode: "dynamic", dynamic: { min: "0.04", max: null, driver: null, unit: null } });
      expect(e.requestExample).toEqual(av.endpoints[0].requestExample);
      expect(r.draft.protocols).toEqual(["x402"]);
      expect(r.draft.title).toBe(av.title);
      expect(r.draft.endpoints[0].method).toBe("POST");
      expect(r.draft.baseUrl.replace(/\/+$/, "") + r.draft.endpoints[0].path).toBe(doc.resourceUrl);
      expect(validateListing(r.draft)).toBe(true);
    } finally {
      await own.close();
    }
  });
});

describe("draftListingFromUrl: a 402 asking more than the seller's own documents state", () => {
  it("keeps the documents' stated price beside the 402's machine amount, warns, and the selection rule reads the two", async () => {
    const base = FIXTURE_SELLERS.find((s) => s.slug === "lowercase-payto")!;
    const own = await startFixtureSellers({
      port: 0,
      sellers: [{
        ...base,
        slug: "overcharger",
        endpoints: [{ ...base.endpoints[0], handle: (ctx) => {
          const pr = baseChallenge(ctx, "overcharger");
          pr.accepts[0].amount = "30000";
          sendX402(ctx.res, pr, "same");
        } }],
      }],
    });
    try {
      const r = await draftListingFromUrl(`${own.url}/overcharger`, { allowHosts: [`127.0.0.1:${own.port}`] });
      if (!r.ok) throw new Error(r.detail);
      const e = r.draft.endpoints[0];
      expect(e.pricing).toMatchObject({ usd: "0.01", label: "$0.01 per call", machine: { amount: "30000", decimals: 6 } });
      expect(r.warnings).toContain("POST /api/summarise: the document states $0.01, the 402 quotes $0.03; the machine price is the 402's.");
      expect(askedAboveStated({ usd: e.pricing!.usd, amount: e.pricing!.machine!.amount, decimals: 6, mode: e.pricing!.mode, usdToken: true })).toEqual({ asked: "0.03", stated: "0.01" });
      expect(validateListing(r.draft)).toBe(true);
    } finally {
      await own.close();
    }
  });

  it("a 402 at the documents' price keeps the documents' words and raises nothing", async () => {
    const { draft: d, warnings } = await draft("lowercase-payto");
    expect(d.endpoints[0].pricing).toMatchObject({ usd: "0.01", machine: { amount: "10000" } });
    expect(warnings.filter((w) => w.includes("the 402 quotes"))).toEqual([]);
  });
});

describe("draftListingFromUrl: a product document with probeChallenges false", () => {
  it("is the product document's mapping alone: nothing beside it is fetched, no 402 is read", async () => {
    const av = fixtureListings(server.url)["agent-verdict"];
    const doc = { productId: "AGENT_VERDICT", title: av.title, summary: av.description, method: "POST", resourceUrl: `${av.baseUrl}/api/x402/AGENT_VERDICT`, payment: { protocol: "X402_V2", admitted: true } };
    const own = await startFixtureSellers({
      port: 0,
      sellers: [{
        ...FIXTURE_SELLERS.find((s) => s.slug === "agent-verdict")!,
        slug: "product-doc",
        endpoints: [{ method: "GET", path: "/doc.json", summary: "", description: "", payable: false, requestSchema: null, responseSchema: null, requestExample: null, pricing: null, handle: ({ res }) => { res.writeHead(200, { "content-type": "application/json" }); res.end(JSON.stringify(doc)); } }],
      }],
    });
    try {
      const r = await draftListingFromUrl(`${own.url}/product-doc/doc.json`, { allowHosts: [`127.0.0.1:${own.port}`, ...allow], probeChallenges: false });
      if (!r.ok) throw new Error(r.detail);
      expect(r.sources.map((s) => s.kind)).toEqual(["product-document"]);
      expect(r.draft.endpoints[0]).toMatchObject({ payable: true, pricing: null, requestExample: null });
    } finally {
      await own.close();
    }
  });
});

describe("atomicToDecimal", () => {
  it.each([["10000", 6, "0.01"], ["40000", 6, "0.04"], ["1", 6, "0.000001"], ["1000000", 6, "1"], ["1234567", 2, "12345.67"], ["0", 6, "0"], ["5", 0, "5"]] as const)("%s at %d decimals is %s", (amount, decimals, expected) => {
    expect(atomicToDecimal(amount, decimals)).toBe(expected);
  });
});

describe("draftListingFromUrl: a refusal after DNS resolution (issue #20 item 6)", () => {
  const to = (address: string) => async () => [{ address, family: 4 as const }];
  for (const address of ["127.0.0.1", "10.1.2.3", "169.254.169.254"]) {
    it(`a public name resolving to ${address} is refused with address_forbidden, not drafted`, async () => {
      const r = await draftListingFromUrl("https://rebound.example.com/api", { resolver: to(address), deadlineMs: 2000 });
      expect(r).toMatchObject({ ok: false, refusal: "address_forbidden" });
      if (!r.ok) expect(r.detail).toContain(address);
    });
  }

  it("a name that does not resolve is still a draft whose sources say so (reachability is R1's to score)", async () => {
    const r = await draftListingFromUrl("https://gone.example.com/api", { resolver: async () => [], deadlineMs: 2000 });
    expect(r.ok).toBe(true);
  });
});

