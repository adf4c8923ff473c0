/**
 * /mcp: the catalog over the Model Context Protocol (Streamable HTTP, stateless: a fresh server and
 * transport per request). Tools: `search_catalog` (keyless, as /ard/search); `select_services` (the
 * /router/select shortlist, docs/SELECTION.md: a Bearer key with `router:select`, as on the route);
 * `preflight` (./preflight-tool.ts). Each calls the same lib functions as the HTTP routes.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { z } from "zod";
import { isAppError, toResponse } from "@/lib/errors";
import { BODY_LIMITS, assertStorableJson, readBodyText } from "@/lib/http";
import { authenticateApiKey } from "@/lib/apikeys";
import { clientAddress, limitsConfig, takeRateLimit } from "@/lib/limits";
import { env } from "@/lib/env";
import { feedEntry } from "@/lib/catalog/feeds";
import { searchCatalog, validateQuery } from "@/lib/catalog/search";
import { parseSelectRequest, selectServices } from "@/lib/catalog/select";
import { CATALOG_API_VERSION_HEADER } from "@/lib/rank/score";
import { registerBazaarTools } from "@/lib/catalog/bazaar-mcp";
import { registerPreflight } from "./preflight-tool";

export const dynamic = "force-dynamic";

type ToolResult = { content: Array<{ type: "text"; text: string }>; structuredContent?: Record<string, unknown>; isError?: boolean };

/** A tool's value as MCP content; an AppError (bad input, missing key) becomes a tool error the agent can read. */
async function toolResult(fn: () => Promise<Record<string, unknown>>): Promise<ToolResult> {
  try {
    const value = await fn();
    return { content: [{ type: "text", text: JSON.stringify(value) }], structuredContent: value };
  } catch (e) {
    if (!isAppError(e)) throw e;
    return { content: [{ type: "text", text: JSON.stringify(e.toJSON()) }], isError: true };
  }
}

function catalogServer(req: Request): McpServer {
  const origin = env().publicOrigin;
  const server = new McpServer({ name: "tollgate", version: "1.0.0" });

  server.registerTool(
    "search_catalog",
    {
      title: "Search the catalog",
      description: "Find pay-per-call HTTP 402 APIs (x402, MPP) matching a query. Ordered by relevance only; results are keyword matches.",
      inputSchema: { query: z.string().describe("What you are looking for, in words"), limit: z.number().int().min(1).max(50).optional() },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ query, limit }) =>
      toolResult(async () => {
        const { items, matching } = await searchCatalog({ query: validateQuery(query, "/query"), limit: limit ?? 10 });
        // `services`, as /ard/search names the same list (docs/FEEDS.md).
        return { query, order: "relevance", matching, services: items.map((i) => ({ ...feedEntry(i, origin), relevance: i.relevance, match: i.match })) };
      }),
  );

  server.registerTool(
    "select_services",
    {
      title: "Select services for a task",
      description:
        "A shortlist of payable services for a task written as a sentence, best first, each with the endpoint to call, its price, relevance, rankScore, its trust reading in words (verdict, grade, provisional while the evidence is thin), the canary's verification (verified, degraded, unverified) and `why`, one line on the pick. Needs a Tollgate API key with the scope router:select in this MCP request's Authorization header (Bearer tg_…). " +
        "Services whose paid canary call failed (canary_failed), whose trust verdict is avoid (trust_avoid), that charged the canary above their listed price (charged_above_listing) or without delivering (charged_without_delivery), whose 402 asks more than the price the listing states (asks_above_stated), or whose payers are mostly a payment ring's (wash_ring) are left out and listed under `excluded` with the reason; name a reason in `include` to get them back, last and marked. Services graded caution rank below the rest.",
      inputSchema: {
        task: z.string().describe("The task, in words (1–500 characters)"),
        filters: z
          .object({
            network: z.string().optional().describe("The endpoint's price network (CAIP-2, e.g. eip155:8453)"),
            maxPrice: z.union([z.string(), z.number()]).optional().describe("USD per call at most"),
            method: z.string().optional().describe("GET, POST, PUT, PATCH or DELETE"),
            excludeAvoid: z.boolean().optional().describe("Deprecated: avoid is left out by default; false is include: [\"trust_avoid\"]"),
          })
          .optional(),
        include: z.array(z.string()).optional().describe("Reasons to include anyway: canary_failed, trust_avoid, charged_above_listing, charged_without_delivery, asks_above_stated, wash_ring"),
        limit: z.number().int().optional(),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      toolResult(async () => {
        const key = await authenticateApiKey(req.headers.get("authorization"), "router:select");
        // The same budget as POST /router/select (docs/LIMITS.md).
        await takeRateLimit("select", key.id);
        const body = parseSelectRequest(args);
        return { ...(await selectServices(body, { apiVersion: req.headers.get(CATALOG_API_VERSION_HEADER) })) };
      }),
  );
  // The x402 Bazaar MCP's search_resources and proxy_tool_call (docs/DISCOVERY.md "MCP tools").
  registerBazaarTools(server, req);
  registerPreflight(server);
  return server;
}

function parsedOrNull(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

async function handle(incoming: Request): Promise<Response> {
  try {
    // Per client address, then the deployment's ceiling, before a byte of the body (docs/LIMITS.md).
    await takeRateLimit("mcp", clientAddress(incoming.headers, limitsConfig().trustedProxies));
    await takeRateLimit("mcpAll", "*");
    // Read bounded (lib/http.ts) and handed on whole; search_catalog needs no key, so no caller to authenticate first.
    const text = incoming.method === "POST" ? await readBodyText(incoming, BODY_LIMITS.mcp, "an MCP message") : null;
    // Every string must be storable text (a NUL or lone surrogate is a 400); non-JSON is the transport's to answer.
    if (text !== null) assertStorableJson(parsedOrNull(text));
    const req = text !== null ? new Request(incoming.url, { method: "POST", headers: incoming.headers, body: text }) : incoming;
    const server = catalogServer(req);
    // Stateless and JSON-only: the whole answer is in the returned Response, so closing afterwards is safe.
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    try {
      return await transport.handleRequest(req);
    } finally {
      await server.close();
    }
  } catch (e) {
    return toResponse(e);
  }
}

export { handle as GET, handle as POST, handle as DELETE };
