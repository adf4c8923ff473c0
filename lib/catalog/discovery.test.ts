/**
 * The Bazaar discovery API over real HTTP (PGlite, or server PostgreSQL with TEST_DATABASE_URL): an
 * unmodified @x402/extensions client lists and searches it; the spec's shapes and its filter
 * conformance vectors; bad input named; the quality block from the confirmed ledger without the
 * house; a property test that no returned item breaks an applied filter and none is left out.
 */
import fc from "fast-check";
import { HTTPFacilitatorClient } from "@x402/core/server";
import { withBazaar } from "@x402/extensions/bazaar";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as resourcesRoute } from "@/app/discovery/resources/route";
import { GET as searchRoute } from "@/app/discovery/search/route";
import { GET as merchantRoute } from "@/app/discovery/merchant/route";
import { GET as facilitatorResources } from "@/app/api/facilitator/discovery/resources/route";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { createTestListing } from "@/test/ledger";
import { makeDiscoverable, USDC_BASE, type DiscoverableEndpoint } from "@/test/discovery";
import { serveRoutes, type RouteServer } from "@/test/route-server";

const PAY_A = "0x63aA5960943865e7d57FDdF0D899eE36B6D2046E";
const PAY_B = "0x1111111111111111111111111111111111111111";
const SOL_PAY = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin";
const SOL_USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G7wEGGkZwyTDt1v";
const SOLANA = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp";

let t: TestDatabase;
let server: RouteServer;
const ids: Record<string, string> = {};
const endpointOf: Record<string, string> = {};
/** Every published resource as the oracle sees it: its accepts and extension keys. */
const published: Array<{ resource: string; accepts: Required<Omit<DiscoverableEndpoint["accepts"][number], "amount">>[]; extensions: string[] }> = [];

async function seed(name: string, title: string, endpoints: DiscoverableEndpoint[], state: "published" | "draft" = "published") {
  const id = await createTestListing(t.prisma, {
    title,
    category: "data",
    publicationState: state,
    baseUrl: `https://${name}.example.com`,
    endpoints: endpoints.map((e) => ({ method: e.method as "GET", path: e.path })),
  });
  await makeDiscoverable(t.prisma, id, endpoints);
  ids[name] = id;
  for (const e of await t.prisma.endpoint.findMany({ where: { listingId: id } })) endpointOf[`${name} ${e.path}`] = e.id;
  if (state === "published") {
    for (const e of endpoints) {
      published.push({
        resource: `https://${name}.example.com${e.path}`,
        accepts: e.accepts.map((a) => ({ scheme: a.scheme ?? "exact", network: a.network ?? "eip155:8453", asset: a.asset ?? USDC_BASE, payTo: a.payTo })),
        extensions: e.bazaar === false ? [] : ["bazaar", ...(e.extraExtensions ?? [])],
      });
    }
  }
}

beforeAll(async () => {
  t = await createTestDatabase();
  await seed("weather", "Weather forecast API", [
    { method: "GET", path: "/forecast", accepts: [{ payTo: PAY_A }] },
    { method: "POST", path: "/alerts", accepts: [{ payTo: PAY_A }, { payTo: SOL_PAY, network: SOLANA, asset: SOL_USDC }], extraExtensions: ["payment-identifier"] },
  ]);
  await seed("geocode", "Geocode addresses", [{ method: "GET", path: "/geocode", accepts: [{ payTo: PAY_B, network: "eip155:84532" }], bazaar: false }]);
  await seed("stocks", "Stock quotes for agents", [{ method: "GET", path: "/quote", accepts: [{ payTo: PAY_B, scheme: "upto" }] }]);
  await seed("draft", "Weather forecast draft", [{ method: "GET", path: "/hidden", accepts: [{ payTo: PAY_A }] }], "draft");
  for (let i = 0; i < 8; i++) {
    await seed(`news${i}`, `News summaries ${i}`, [{ method: "GET", path: `/n${i}`, accepts: [{ payTo: i % 2 ? PAY_A : PAY_B, network: i % 3 ? "eip155:8453" : "eip155:84532", scheme: i % 4 ? "exact" : "upto" }] }]);
  }
  const discovery = (r: Request) => {
    const p = new URL(r.url).pathname;
    if (p === "/discovery/resources") return resourcesRoute(r);
    if (p === "/discovery/search") return searchRoute(r);
    if (p === "/discovery/merchant") return merchantRoute(r);
    return Promise.resolve(new Response("not found", { status: 404 }));
  };
  server = await serveRoutes({ "GET /discovery/*": discovery, "GET /api/facilitator/discovery/*": (r) => facilitatorResources(r) });
}, 120_000);
afterAll(async () => {
  await server?.close();
  await t?.close();
});

const get = async (path: string) => {
  const res = await fetch(`${server.origin}${path}`);
  return { status: res.status, body: await res.json() };
};

describe("an unmodified @x402/extensions discovery client", () => {
  it("lists Tollgate's resources and searches them", async () => {
    const client = withBazaar(new HTTPFacilitatorClient({ url: server.origin }));
    const list = await client.extensions.bazaar.listResources({ type: "http", limit: 100 });
    expect(list.x402Version).toBe(2);
    expect(list.items.map((i) => i.resource).sort()).toEqual(published.map((p) => p.resource).sort());
    expect(list.pagination).toEqual({ limit: 100, offset: 0, total: published.length });
    const forecast = list.items.find((i) => i.resource === "https://weather.example.com/forecast")!;
    expect(forecast).toMatchObject({ type: "http", x402Version: 2, serviceName: "Weather forecast API", tags: ["data"] });
    expect(forecast.accepts).toEqual([{ scheme: "exact", network: "eip155:8453", amount: "10000", asset: USDC_BASE, payTo: PAY_A, maxTimeoutSeconds: 60, extra: { name: "USD Coin", version: "2" } }]);
    expect(forecast.extensions?.bazaar).toBeDefined();

    const found = await client.extensions.bazaar.search({ query: "weather forecast" });
    expect(found.resources.map((r) => r.resource)).toEqual(["https://weather.example.com/forecast", "https://weather.example.com/alerts"]);
    expect(found.partialResults).toBe(false);
    const merchant = await client.extensions.bazaar.listResources({ payTo: SOL_PAY });
    expect(merchant.items.map((i) => i.resource)).toEqual(["https://weather.example.com/alerts"]);
  });

  it("finds the same under the facilitator's path", async () => {
    const client = withBazaar(new HTTPFacilitatorClient({ url: `${server.origin}/api/facilitator` }));
    expect((await client.extensions.bazaar.listResources({ network: SOLANA })).items.map((i) => i.resource)).toEqual(["https://weather.example.com/alerts"]);
  });
});

describe("the bazaar filter conformance vectors (GET /discovery/resources)", () => {
  const ok = (body: { items: Array<{ accepts: Array<Record<string, string>>; extensions?: Record<string, unknown>; type: string }>; pagination: { total: number }; unappliedFilters: string[] }, check: (i: (typeof body.items)[number]) => boolean) => {
    expect(body.unappliedFilters).toEqual([]);
    for (const i of body.items) expect(check(i)).toBe(true);
    if (body.items.length === 0) expect(body.pagination.total).toBe(0);
  };
  it("V0–V6: applied, matching nothing when nothing carries the value; malformed is a 400 with a string error", async () => {
    const v0 = await get("/discovery/resources?limit=50");
    expect(v0.status).toBe(200);
    expect(v0.body.items.length).toBe(published.length);
    const v1 = await get("/discovery/resources?type=mcp");
    ok(v1.body, (i) => i.type === "mcp");
    expect(v1.body.items).toEqual([]);
    const v2 = await get("/discovery/resources?payTo=0x0000000000000000000000000000000000000001");
    ok(v2.body, () => false);
    const v3 = await get("/discovery/resources?scheme=batch-settlement");
    ok(v3.body, () => false);
    const v4 = await get("/discovery/resources?network=eip155:999999999");
    ok(v4.body, () => false);
    const v5 = await get("/discovery/resources?extensions=payment-identifier");
    ok(v5.body, (i) => "payment-identifier" in (i.extensions ?? {}));
    expect(v5.body.items.length).toBe(1);
    const v6 = await get("/discovery/resources?network=!!!");
    expect(v6.status).toBe(400);
    expect(typeof v6.body.error).toBe("string");
    expect(v6.body.error).toContain("network");
    expect(v6.body.parameter).toBe("network");
  });

  it("V7: the least common network is a strict subset, every item carrying it", async () => {
    const v7 = await get("/discovery/resources?network=eip155:84532&limit=100");
    expect(v7.body.items.length).toBeGreaterThan(0);
    expect(v7.body.items.length).toBeLessThan(published.length);
    ok(v7.body, (i) => i.accepts.some((a) => a.network === "eip155:84532"));
  });
});

describe("parameters", () => {
  it("names each malformed parameter in a 400", async () => {
    for (const [q, name] of [
      ["limit=0", "limit"], ["limit=101", "limit"], ["limit=ten", "limit"], ["offset=-1", "offset"], ["payTo=0x%20bad", "payTo"],
      ["scheme=%2Fx", "scheme"], ["type=HTTP!", "type"], ["extensions=a%20b", "extensions"], ["network=eip155:1&network=eip155:2", "network"], ["payTo=%00", "payTo"],
    ]) {
      const r = await get(`/discovery/resources?${q}`);
      expect(r.status, q).toBe(400);
      expect(r.body.parameter, q).toBe(name);
    }
    expect((await get("/discovery/search")).body.parameter).toBe("query");
    expect((await get(`/discovery/search?query=${"x".repeat(401)}`)).body.parameter).toBe("query");
    expect((await get("/discovery/search?query=news&cursor=nonsense")).body.parameter).toBe("cursor");
    expect((await get("/discovery/merchant")).body.parameter).toBe("payTo");
  });

  it("reports what it does not apply instead of dropping it in silence", async () => {
    const r = await get("/discovery/resources?maxUsdPrice=0.01&network=eip155:8453");
    expect(r.body.unappliedFilters).toEqual(["maxUsdPrice"]);
    for (const i of r.body.items) expect(i.accepts.some((a: { network: string }) => a.network === "eip155:8453")).toBe(true);
    expect((await get("/discovery/search?query=news&url=example")).body.unappliedFilters).toEqual(["url"]);
  });

  it("reads a v1 network name as its CAIP-2 id, and an EVM payTo in any case", async () => {
    const base = await get("/discovery/resources?network=base-sepolia&limit=100");
    expect(base.body.items.length).toBe((await get("/discovery/resources?network=eip155:84532&limit=100")).body.items.length);
    const lower = await get(`/discovery/merchant?payTo=${PAY_A.toLowerCase()}&limit=100`);
    const mixed = await get(`/discovery/merchant?payTo=${PAY_A}&limit=100`);
    expect(lower.body.resources.length).toBeGreaterThan(0);
    expect(lower.body.resources).toEqual(mixed.body.resources);
    expect(lower.body).toMatchObject({ x402Version: 2, payTo: PAY_A.toLowerCase(), pagination: { limit: 100, offset: 0 } });
    // base58 is case-sensitive: another case is another address.
    expect((await get(`/discovery/merchant?payTo=${SOL_PAY.toLowerCase()}`)).body.resources).toEqual([]);
  });
});

describe("search", () => {
  it("pages by cursor with partialResults, and refuses a cursor made for another query", async () => {
    const first = await get("/discovery/search?query=news%20summaries&limit=3");
    expect(first.body.resources).toHaveLength(3);
    expect(first.body.partialResults).toBe(true);
    expect(first.body.pagination.limit).toBe(3);
    const seen = first.body.resources.map((r: { resource: string }) => r.resource);
    let cursor: string | null = first.body.pagination.cursor;
    while (cursor) {
      const page = await get(`/discovery/search?query=news%20summaries&limit=3&cursor=${cursor}`);
      seen.push(...page.body.resources.map((r: { resource: string }) => r.resource));
      cursor = page.body.pagination.cursor;
      if (!cursor) expect(page.body.partialResults).toBe(false);
    }
    expect(seen.sort()).toEqual(published.filter((p) => p.resource.includes("news")).map((p) => p.resource).sort());
    const other = await get(`/discovery/search?query=weather&limit=3&cursor=${first.body.pagination.cursor}`);
    expect(other.status).toBe(400);
    expect(other.body.error).toContain("another query");
  });

  it("never shows a draft, and a natural-language query finds listings holding some of its words", async () => {
    const r = await get("/discovery/search?query=weather%20forecast%20for%20my%20trip");
    expect(r.body.resources.map((x: { resource: string }) => x.resource)).toContain("https://weather.example.com/forecast");
    expect(JSON.stringify(r.body)).not.toContain("draft.example.com");
  });
});

/** The bazaar extension of the spec's "Example: GET Endpoint" (specs/extensions/bazaar.md), verbatim. */
const SPEC_GET_EXAMPLE = {
  bazaar: {
    info: { input: { type: "http", method: "GET", queryParams: { city: "San Francisco" } }, output: { type: "json", example: { city: "San Francisco", weather: "foggy", temperature: 60 } } },
    schema: {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: {
        input: {
          type: "object",
          properties: {
            type: { type: "string", const: "http" },
            method: { type: "string", enum: ["GET", "HEAD", "DELETE"] },
            queryParams: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
            headers: { type: "object", additionalProperties: { type: "string" } },
          },
          required: ["type", "method"],
          additionalProperties: false,
        },
        output: { type: "object", properties: { type: { type: "string" }, example: { type: "object" } }, required: ["type"] },
      },
      required: ["input"],
    },
  },
};

describe("the spec's example", () => {
  it("a 402 carrying the spec's GET example is served with its extension as declared, and found by its words and filters", async () => {
    const id = await createTestListing(t.prisma, { title: "Fog report", baseUrl: "https://fog.example.com", endpoints: [{ method: "GET", path: "/weather" }] });
    await makeDiscoverable(t.prisma, id, [{ method: "GET", path: "/weather", accepts: [{ payTo: "0x3333333333333333333333333333333333333333" }], extensions: SPEC_GET_EXAMPLE }]);
    const r = await get("/discovery/search?query=fog&extensions=bazaar&payTo=0x3333333333333333333333333333333333333333");
    expect(r.body.resources).toHaveLength(1);
    expect(r.body.resources[0]).toMatchObject({ resource: "https://fog.example.com/weather", type: "http", x402Version: 2, extensions: SPEC_GET_EXAMPLE });
    await t.prisma.listing.update({ where: { id }, data: { publicationState: "archived" } });
  });
});

describe("the rows follow the listing", () => {
  it("unpublishing hides a listing's resources at once, a title edit is searchable, a new result replaces the rows", async () => {
    const id = await createTestListing(t.prisma, { title: "Zeppelin tracker", baseUrl: "https://zep.example.com", endpoints: [{ method: "GET", path: "/z" }] });
    await makeDiscoverable(t.prisma, id, [{ method: "GET", path: "/z", accepts: [{ payTo: PAY_A }] }]);
    const find = async (q: string) => (await get(`/discovery/search?query=${q}`)).body.resources.map((r: { resource: string }) => r.resource);
    expect(await find("zeppelin")).toEqual(["https://zep.example.com/z"]);
    await t.prisma.listing.update({ where: { id }, data: { title: "Blimp tracker" } });
    expect(await find("blimp")).toEqual(["https://zep.example.com/z"]);
    await t.prisma.listing.update({ where: { id }, data: { publicationState: "unlisted" } });
    expect(await find("blimp")).toEqual([]);
    expect((await get(`/discovery/merchant?payTo=${PAY_A}&limit=100`)).body.resources.map((r: { resource: string }) => r.resource)).not.toContain("https://zep.example.com/z");
    await t.prisma.listing.update({ where: { id }, data: { publicationState: "published" } });
    await makeDiscoverable(t.prisma, id, [{ method: "GET", path: "/z", accepts: [{ payTo: "0x2222222222222222222222222222222222222222" }] }]);
    const now = (await get("/discovery/merchant?payTo=0x2222222222222222222222222222222222222222")).body.resources;
    expect(now.map((r: { resource: string }) => r.resource)).toEqual(["https://zep.example.com/z"]);
    expect((await get(`/discovery/merchant?payTo=${PAY_A}&limit=100`)).body.resources.map((r: { resource: string }) => r.resource)).not.toContain("https://zep.example.com/z");
    await t.prisma.listing.update({ where: { id }, data: { publicationState: "archived" } });
  });
});

describe("the quality and tollgate blocks", () => {
  it("count confirmed settlements of 30 days and distinct payers, never the house's, failures or corrected rows", async () => {
    const endpointId = endpointOf["stocks /quote"];
    const listingId = ids.stocks;
    const day = 86_400_000;
    const pay = (payer: string, status: "settled" | "failed" | "unconfirmed", ago: number, extra: Record<string, unknown> = {}) =>
      t.prisma.routerPayment.create({
        data: { payer, listingId, endpointId, advertisedAmount: "10000", settledAmount: status === "settled" ? "10000" : null, asset: USDC_BASE, network: "eip155:8453", status, createdAt: new Date(Date.now() - ago), transactionId: `0x${Math.random().toString(16).slice(2).padEnd(64, "0")}`, ...extra },
      });
    await pay("0xaaa", "settled", 2 * day);
    await pay("0xaaa", "settled", 1 * day);
    await pay("0xbbb", "settled", 3 * day);
    await pay("0xccc", "settled", 40 * day); // outside the window: only lastCalledAt could see it
    await pay("0xddd", "failed", 1 * day);
    await pay("0xeee", "unconfirmed", 1 * day);
    const wrong = await pay("0xfff", "settled", 1 * day);
    await pay("0xfff", "failed", 1 * day, { correctsId: wrong.id, createdAt: wrong.createdAt, confirmedAt: new Date() });
    const house = await pay("0x0house", "settled", 0.5 * day, { house: true, blockNumber: 77n, confirmedAt: new Date() });
    const r = await get(`/discovery/merchant?payTo=${PAY_B}&limit=100`);
    const item = r.body.resources.find((i: { resource: string }) => i.resource === "https://stocks.example.com/quote");
    expect(item.quality).toMatchObject({ l30DaysTotalCalls: 3, l30DaysUniquePayers: 2 });
    expect(Date.parse(item.quality.lastCalledAt)).toBeLessThan(Date.now() - 0.9 * day);
    // The last paid proof is the latest settlement, the house canary's included and so marked.
    expect(item.tollgate.lastPaidProof).toMatchObject({ transaction: house.transactionId, house: true, blockNumber: "77" });
    expect(item.tollgate).toMatchObject({ endpointId, readiness: { score: 82, band: "Ready" }, verification: "unverified", grade: null, toolName: expect.stringContaining(":GET /quote") });
  });
});

describe("property: random filter combinations", () => {
  const value = <T>(xs: T[]) => fc.option(fc.constantFrom(...xs), { nil: undefined });
  it("no returned item breaks an applied filter, and none that passes is left out", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          payTo: value([PAY_A, PAY_A.toLowerCase(), PAY_B, SOL_PAY, "0x0000000000000000000000000000000000000001"]),
          network: value(["eip155:8453", "eip155:84532", SOLANA, "eip155:1"]),
          scheme: value(["exact", "upto", "batch-settlement"]),
          asset: value([USDC_BASE, SOL_USDC]),
          extensions: value(["bazaar", "payment-identifier", "offer-receipt"]),
          type: value(["http", "mcp"]),
          limit: fc.integer({ min: 1, max: 100 }),
        }),
        async (f) => {
          const q = new URLSearchParams(Object.entries(f).filter(([, v]) => v !== undefined).map(([k, v]) => [k, String(v)]));
          const r = await get(`/discovery/resources?${q}`);
          expect(r.status).toBe(200);
          expect(r.body.unappliedFilters).toEqual([]);
          const key = (a: string) => (/^0x/i.test(a) ? a.toLowerCase() : a);
          const passes = (p: (typeof published)[number]) =>
            (f.type === undefined || f.type === "http") &&
            (f.extensions === undefined || p.extensions.includes(f.extensions)) &&
            p.accepts.some((a) => (!f.payTo || key(a.payTo) === key(f.payTo)) && (!f.network || a.network === f.network) && (!f.scheme || a.scheme === f.scheme) && (!f.asset || key(a.asset) === key(f.asset)));
          for (const item of r.body.items) {
            const p = published.find((x) => x.resource === item.resource)!;
            expect(p, item.resource).toBeDefined();
            expect(passes(p), `${item.resource} under ${q}`).toBe(true);
          }
          const expected = published.filter(passes).length;
          expect(r.body.pagination.total).toBe(expected);
          expect(r.body.items.length).toBe(Math.min(expected, f.limit));
        },
      ),
      { numRuns: 60 },
    );
  }, 120_000);
});
