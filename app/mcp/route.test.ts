import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { createApiKey } from "@/lib/apikeys";
import { createTestListing } from "@/test/ledger";
import { runRankSweep } from "@/lib/rank/sweep-ranks";
import { POST } from "./route";

let t: TestDatabase;
let secret: string;

beforeAll(async () => {
  t = await createTestDatabase();
  const admin = (await t.prisma.user.create({ data: { name: "Admin", role: "admin" } })).id;
  secret = (await createApiKey({ actorId: admin, name: "mcp", scopes: ["router:select"] })).secret;
  await createTestListing(t.prisma, { title: "Summarise documents", shortDescription: "Summaries of long PDFs" });
  await runRankSweep();
});
afterAll(async () => {
  await t?.close();
});

let nextId = 1;
async function rpc(method: string, params: unknown, headers: Record<string, string> = {}) {
  const res = await POST(
    new Request("http://localhost/mcp", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18", ...headers },
      body: JSON.stringify({ jsonrpc: "2.0", id: nextId++, method, params }),
    }),
  );
  return { status: res.status, body: await res.json() };
}
const call = (name: string, args: unknown, headers?: Record<string, string>) => rpc("tools/call", { name, arguments: args }, headers);

describe("/mcp (stateless Streamable HTTP)", () => {
  it("initialises and lists the two tools", async () => {
    const init = await rpc("initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "test", version: "1" } });
    expect(init.status).toBe(200);
    expect(init.body.result.serverInfo.name).toBe("tollgate");
    const tools = await rpc("tools/list", {});
    expect(tools.body.result.tools.map((x: { name: string }) => x.name).sort()).toEqual(["search_catalog", "select_services"]);
  });

  it("search_catalog needs no key and answers by relevance, keyword matches, no numbers of rank", async () => {
    const r = await call("search_catalog", { query: "summarise documents" });
    const content = r.body.result.structuredContent;
    expect(content).toMatchObject({ order: "relevance", matching: "keyword" });
    expect(content.results[0]).toMatchObject({ title: "Summarise documents", match: "keyword" });
    expect(JSON.stringify(r.body)).not.toMatch(/rankScore|qualityScore|featuredLevel/);
  });

  it("select_services without a key is a tool error saying a key is needed; with one it shortlists with rankScore", async () => {
    const denied = await call("select_services", { task: "summarise documents" });
    expect(denied.body.result.isError).toBe(true);
    expect(denied.body.result.content[0].text).toContain("unauthorized");
    expect(JSON.stringify(denied.body)).not.toMatch(/rankScore/);

    const ok = await call("select_services", { task: "summarise documents", limit: 3 }, { authorization: `Bearer ${secret}` });
    const items = ok.body.result.structuredContent.items;
    expect(items).toHaveLength(1);
    expect(typeof items[0].rankScore).toBe("number");
    const old = await call("select_services", { task: "summarise documents" }, { authorization: `Bearer ${secret}`, "catalog-api-version": "1.50" });
    expect(old.body.result.structuredContent.items[0].rankScore).toBeNull();
  });

  it("select_services applies the route's validation, naming the field", async () => {
    const r = await call("select_services", { task: "x", limit: 500 }, { authorization: `Bearer ${secret}` });
    expect(r.body.result.isError).toBe(true);
    expect(JSON.parse(r.body.result.content[0].text).error.details[0].pointer).toBe("/limit");
  });
});
