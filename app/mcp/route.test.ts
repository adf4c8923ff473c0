import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { createApiKey } from "@/lib/apikeys";
import { createTestListing } from "@/test/ledger";
import { runRankSweep } from "@/lib/rank/sweep-ranks";
import { recordSampleObservations } from "@/lib/trust/observe";
import { POST } from "./route";

let t: TestDatabase;
let secret: string;
const audio: Record<string, string> = {};

beforeAll(async () => {
  t = await createTestDatabase();
  const admin = (await t.prisma.user.create({ data: { name: "Admin", role: "admin" } })).id;
  secret = (await createApiKey({ actorId: admin, name: "mcp", scopes: ["router:select"] })).secret;
  await createTestListing(t.prisma, { title: "Summarise documents", shortDescription: "Summaries of long PDFs" });
  audio.honest = await createTestListing(t.prisma, { title: "Transcribe audio", rankScore: 0.5 });
  audio.overcharger = await createTestListing(t.prisma, { title: "Transcribe audio", rankScore: 0.9 });
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
  it("initialises and lists its tools", async () => {
    const init = await rpc("initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "test", version: "1" } });
    expect(init.status).toBe(200);
    expect(init.body.result.serverInfo.name).toBe("tollgate");
    const tools = await rpc("tools/list", {});
    expect(tools.body.result.tools.map((x: { name: string }) => x.name)).toEqual(expect.arrayContaining(["search_catalog", "select_services", "search_resources", "proxy_tool_call", "preflight"]));
  });

  it("search_catalog needs no key and answers by relevance, keyword matches, no numbers of rank", async () => {
    const r = await call("search_catalog", { query: "summarise documents" });
    const content = r.body.result.structuredContent;
    expect(content).toMatchObject({ order: "relevance", matching: "keyword" });
    expect(content.results).toBeUndefined();
    expect(content.services[0]).toMatchObject({ title: "Summarise documents", match: "keyword" });
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

  it("select_services leaves out an endpoint whose trust verdict is avoid by default, says so, brings it back on include (or the old excludeAvoid: false), and describes both", async () => {
    const tools = await rpc("tools/list", {});
    const select = tools.body.result.tools.find((x: { name: string }) => x.name === "select_services");
    expect(select.description).toMatch(/canary_failed.*trust_avoid.*include/s);
    expect(select.inputSchema.properties.include).toMatchObject({ type: "array" });
    expect(select.inputSchema.properties.filters.properties.excludeAvoid).toMatchObject({ type: "boolean" });

    // A completed canary sample charged twice what it was quoted: H5 fails and the overcharge gate says avoid.
    const ep = await t.prisma.endpoint.findFirstOrThrow({ where: { listingId: audio.overcharger }, orderBy: { position: "asc" } });
    const run = await t.prisma.canaryRun.create({ data: { listingId: audio.overcharger, trigger: "schedule", requestedBy: "test" } });
    const payTo = "0x63aA5960943865e7d57FDdF0D899eE36B6D2046E";
    const usdc = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";
    const sample = await t.prisma.canarySample.create({
      data: {
        runId: run.id, listingId: audio.overcharger, endpointId: ep.id, method: ep.method, path: ep.path, state: "completed", completedAt: new Date(),
        listedAmount: "10000", quotedAmount: "10000", quotedPayTo: payTo, quotedAsset: usdc, quotedNetwork: "eip155:8453",
        authorizationNonce: "0x" + "cd".repeat(32), paymentStatus: "settled", transactionId: "0x" + "ab".repeat(32), chainAmount: "20000", chainTo: payTo, chainNetwork: "eip155:8453", chainAsset: usdc, blockNumber: 7n,
        httpStatus: 200, ttlbMs: 300, responseBytes: 20, contentType: "application/json", schemaValid: true, outcome: "broken", reason: "overcharged",
      },
    });
    await t.prisma.$transaction((db) => recordSampleObservations(db, sample.id, null));

    const auth = { authorization: `Bearer ${secret}` };
    const ids = async (args: unknown) => {
      const r = await call("select_services", args, auth);
      expect(r.body.result.isError).toBeUndefined();
      return r.body.result.structuredContent.items.map((i: { id: string }) => i.id);
    };
    const byDefault = (await call("select_services", { task: "transcribe audio" }, auth)).body.result.structuredContent;
    expect(byDefault.items.map((i: { id: string }) => i.id)).toEqual([audio.honest]);
    expect(byDefault.items[0].why).toMatch(/^Matches 'transcribe', 'audio'; /);
    expect(byDefault.excluded).toMatchObject([{ id: audio.overcharger, reasons: ["trust_avoid"] }]);
    expect(await ids({ task: "transcribe audio", filters: { excludeAvoid: true } })).toEqual([audio.honest]);
    expect(await ids({ task: "transcribe audio", filters: { excludeAvoid: false } })).toEqual([audio.honest, audio.overcharger]);
    const included = (await call("select_services", { task: "transcribe audio", include: ["trust_avoid"] }, auth)).body.result.structuredContent;
    expect(included.items.map((i: { id: string; excludedByDefault: string[] }) => [i.id, i.excludedByDefault])).toEqual([[audio.honest, []], [audio.overcharger, ["trust_avoid"]]]);
    const unknown = await call("select_services", { task: "transcribe audio", include: ["everything"] }, auth);
    expect(unknown.body.result.isError).toBe(true);
    expect(JSON.parse(unknown.body.result.content[0].text).error.details[0].pointer).toBe("/include/0");
    const bad = await call("select_services", { task: "transcribe audio", filters: { excludeAvoid: "yes" } }, auth);
    expect(bad.body.result.isError).toBe(true);
  });
});
