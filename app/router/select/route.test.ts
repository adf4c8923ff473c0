import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { createApiKey, revokeApiKey } from "@/lib/apikeys";
import { createTestListing } from "@/test/ledger";
import { runRankSweep } from "@/lib/rank/sweep-ranks";
import { env } from "@/lib/env";
import { POST } from "./route";

let t: TestDatabase;
let secret: string;

beforeAll(async () => {
  t = await createTestDatabase();
  const admin = (await t.prisma.user.create({ data: { name: "Admin", role: "admin" } })).id;
  secret = (await createApiKey({ actorId: admin, name: "test", scopes: ["router:select"] })).secret;
  await createTestListing(t.prisma, { title: "Geocode addresses", shortDescription: "Turn street addresses into coordinates" });
  await createTestListing(t.prisma, { title: "Geocode addresses fast", featuredLevel: 4 });
  await runRankSweep();
});
afterAll(async () => {
  await t?.close();
});

const call = (body: unknown, headers: Record<string, string> = { authorization: `Bearer ${secret}` }) =>
  POST(new Request("http://localhost/router/select", { method: "POST", headers: { "content-type": "application/json", ...headers }, body: typeof body === "string" ? body : JSON.stringify(body) }));

describe("POST /router/select", () => {
  it("401 without a key, with a malformed one, and after revocation", async () => {
    const none = await call({ task: "geocode" }, {});
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect((await call({ task: "geocode" }, { authorization: "Bearer nope" })).status).toBe(401);
    const admin = (await t.prisma.user.findFirstOrThrow({ where: { role: "admin" } })).id;
    const k = await createApiKey({ actorId: admin, name: "revoked", scopes: ["router:select"] });
    await revokeApiKey({ actorId: admin, id: k.id });
    expect((await call({ task: "geocode" }, { authorization: `Bearer ${k.secret}` })).status).toBe(401);
  });

  it("400 naming the field by JSON pointer", async () => {
    const pointer = async (body: unknown) => {
      const res = await call(body);
      expect(res.status).toBe(400);
      return (await res.json()).error.details[0].pointer;
    };
    expect(await pointer({})).toBe("/task");
    expect(await pointer({ task: "x", limit: 99 })).toBe("/limit");
    expect(await pointer({ task: "x", filters: { maxPrice: "1e-3" } })).toBe("/filters/maxPrice");
    expect(await pointer("{not json")).toBe("");
  });

  it("200 with a shortlist carrying rankScore and relevance, keyword-matched", async () => {
    const res = await call({ task: "geocode addresses", limit: 5 });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.matching).toBe("keyword");
    expect(body.items).toHaveLength(2);
    for (const item of body.items) {
      expect(typeof item.rankScore).toBe("number");
      expect(item.relevance).toBeGreaterThan(0);
      expect(item.endpoint).toMatchObject({ method: "POST", path: "/run", price: { usd: "0.01" } });
      // Select and call in one step: the router's URL for that endpoint, on the configured origin.
      expect(item.callUrl).toBe(`${env().publicOrigin}/router/call/${item.slug}/run`);
      expect(item).not.toHaveProperty("qualityScore");
      expect(item).not.toHaveProperty("featuredLevel");
    }
  });

  it("the version gate: below 1.55 rankScore is null; a malformed version is a 400", async () => {
    const old = await (await call({ task: "geocode" }, { authorization: `Bearer ${secret}`, "catalog-api-version": "1.54" })).json();
    expect(old.items.map((i: { rankScore: unknown }) => i.rankScore)).toEqual([null, null]);
    const current = await (await call({ task: "geocode" }, { authorization: `Bearer ${secret}`, "catalog-api-version": "1.55" })).json();
    expect(current.items.every((i: { rankScore: unknown }) => typeof i.rankScore === "number")).toBe(true);
    const bad = await call({ task: "geocode" }, { authorization: `Bearer ${secret}`, "catalog-api-version": "v2" });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.header).toBe("Catalog-Api-Version");
  });
});
