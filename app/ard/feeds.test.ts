/**
 * The keyless feeds in browse order, and the scan: no feed or unauthenticated response owned here
 * carries qualityScore, featuredLevel, rankScore (or the readiness score: keyless feeds show
 * Readiness "—", docs/spec/scoring-system.md "Who sees what"); rankScore appears only in /router/select with a key.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { createApiKey } from "@/lib/apikeys";
import { createTestListing } from "@/test/ledger";
import { runRankSweep } from "@/lib/rank/sweep-ranks";
import { browseCatalog } from "@/lib/catalog/browse";
import { GET as ard } from "./route";
import { GET as ardSearch } from "./search/route";
import { GET as aiCatalog } from "@/app/ai-catalog.json/route";
import { POST as routerSelect } from "@/app/router/select/route";
import { POST as mcp } from "@/app/mcp/route";

let t: TestDatabase;
let secret: string;
const FORBIDDEN = /qualityScore|featuredLevel|rankScore|rankComponents|rankInputsHash|"readiness"/;

beforeAll(async () => {
  t = await createTestDatabase();
  const admin = (await t.prisma.user.create({ data: { name: "Admin", role: "admin" } })).id;
  secret = (await createApiKey({ actorId: admin, name: "scan", scopes: ["router:select"] })).secret;
  for (let i = 0; i < 7; i++) await createTestListing(t.prisma, { title: `Image resize ${i}`, featuredLevel: i % 6, sortWeight: i % 2 });
  await createTestListing(t.prisma, { title: "Image resize draft", publicationState: "draft" });
  // A published readiness result, so a leak of the readiness score would show.
  const l = await t.prisma.listing.findFirstOrThrow({ where: { publicationState: "published" } });
  const result = await t.prisma.readinessResult.create({ data: { listingId: l.id, rubricVersion: "readiness/1.0.0", total: 77, rawTotal: 77, band: "Almost ready", provisional: false, caps: [], dimensions: [], rules: [], improvements: [], document: {} } });
  await t.prisma.listing.update({ where: { id: l.id }, data: { currentResultId: result.id } });
  await runRankSweep();
});
afterAll(async () => {
  await t?.close();
});

const get = (handler: (r: Request) => Promise<Response>, url: string) => handler(new Request(url));

describe("keyless feeds", () => {
  it("/ard and /ai-catalog.json list published listings in browse order, paged by cursor", async () => {
    const order = (await browseCatalog({ limit: 100 })).items.map((i) => i.id);
    for (const [handler, path, key] of [[ard, "/ard", "services"], [aiCatalog, "/ai-catalog.json", "items"]] as const) {
      const ids: string[] = [];
      let url: string | null = `http://localhost${path}?limit=3`;
      while (url) {
        const res = await get(handler, url);
        expect(res.status).toBe(200);
        const body = await res.json();
        ids.push(...body[key].map((e: { id: string }) => e.id));
        url = body.next;
      }
      expect(ids).toEqual(order);
      expect(ids).toHaveLength(7);
    }
  });

  it("a bad cursor or limit is a 400 naming it", async () => {
    expect((await (await get(ard, "http://localhost/ard?cursor=!!")).json()).error.details[0].pointer).toBe("/cursor");
    expect((await (await get(aiCatalog, "http://localhost/ai-catalog.json?limit=0")).json()).error.details[0].pointer).toBe("/limit");
    expect((await (await get(ardSearch, "http://localhost/ard/search")).json()).error.details[0].pointer).toBe("/q");
  });

  it("/ard/search orders by relevance and says the results are keyword matches", async () => {
    const body = await (await get(ardSearch, "http://localhost/ard/search?q=image%20resize")).json();
    expect(body).toMatchObject({ order: "relevance", matching: "keyword" });
    expect(body.services.length).toBe(7);
    expect(body.services.every((s: { match: string }) => s.match === "keyword")).toBe(true);
  });
});

describe("the scan", () => {
  it("no feed or unauthenticated response carries a score, rank or featured level", async () => {
    const texts: string[] = [];
    texts.push(await (await get(ard, "http://localhost/ard")).text());
    texts.push(await (await get(aiCatalog, "http://localhost/ai-catalog.json")).text());
    texts.push(await (await get(ardSearch, "http://localhost/ard/search?q=image")).text());
    texts.push(await (await routerSelect(new Request("http://localhost/router/select", { method: "POST", body: JSON.stringify({ task: "image" }) }))).text());
    for (const name of ["search_catalog", "select_services"]) {
      const res = await mcp(new Request("http://localhost/mcp", {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: name === "search_catalog" ? { query: "image" } : { task: "image" } } }),
      }));
      texts.push(await res.text());
    }
    expect(texts.some((x) => x.includes("Image resize"))).toBe(true);
    for (const text of texts) expect(text).not.toMatch(FORBIDDEN);
  });

  it("rankScore is in /router/select with a key, and only there", async () => {
    const res = await routerSelect(new Request("http://localhost/router/select", { method: "POST", headers: { authorization: `Bearer ${secret}` }, body: JSON.stringify({ task: "image" }) }));
    const text = await res.text();
    expect(text).toMatch(/"rankScore":\d/);
    expect(text).not.toMatch(/qualityScore|featuredLevel|rankComponents/);
  });
});
