/** The Bazaar MCP's `search_resources` and `proxy_tool_call` tools on /mcp (docs/DISCOVERY.md "MCP tools"). */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { AppError, isAppError } from "@/lib/errors";
import { takeRateLimit } from "@/lib/limits";
import { authenticateCaller, relayCall } from "@/lib/router/relay-call";
import { routerCallUrl } from "@/lib/catalog/select";
import { FILTER_NAMES, parseListParams, parseSearchParams } from "@/lib/catalog/discovery-params";
import { listDiscoveryResources, resourceByToolName, searchDiscoveryResources } from "@/lib/catalog/discovery";

type ToolResult = { content: Array<{ type: "text"; text: string }>; structuredContent?: Record<string, unknown>; isError?: boolean; _meta?: Record<string, unknown> };

const text = (value: unknown) => [{ type: "text" as const, text: typeof value === "string" ? value : JSON.stringify(value) }];

function failure(e: unknown): ToolResult {
  if (!isAppError(e)) throw e;
  return { content: text(e.toJSON()), isError: true };
}

/** As the discovery routes' query string, so both validate alike. */
function asQuery(args: Record<string, unknown>): URLSearchParams {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(args)) if (v !== undefined && v !== null) q.set(k, String(v));
  return q;
}

function decodeHeaderJson(value: string | null): Record<string, unknown> | null {
  if (!value) return null;
  try {
    const parsed = JSON.parse(Buffer.from(value, "base64").toString("utf8"));
    return parsed && typeof parsed === "object" ? parsed : null;
  } catch {
    return null;
  }
}

const QUERY_METHODS = new Set(["GET", "HEAD", "DELETE"]);

/** One paid call through the relay as the router's route makes it: API key (router:call), rate limit, payment header. */
export async function proxyToolCall(mcpRequest: Request, args: Record<string, unknown>, payment: unknown): Promise<ToolResult> {
  const { toolName, ...rest } = args;
  if (typeof toolName !== "string" || toolName.length === 0 || toolName.length > 600) {
    throw new AppError("bad_request", "toolName must be a resource's toolName from search_resources", [{ pointer: "/toolName", message: "is not a tool name" }]);
  }
  const row = await resourceByToolName(toolName);
  if (!row) throw new AppError("not_found", "No published resource has this toolName.", [{ pointer: "/toolName", message: "names no published resource" }]);
  const headers: Record<string, string> = { accept: "application/json" };
  const auth = mcpRequest.headers.get("authorization");
  if (auth) headers.authorization = auth;
  if (payment !== undefined) {
    if (!payment || typeof payment !== "object") throw new AppError("bad_request", "_meta x402/payment must be a PaymentPayload object", [{ pointer: "/_meta/x402~1payment", message: "is not an object" }]);
    const encoded = Buffer.from(JSON.stringify(payment)).toString("base64");
    headers[(payment as { x402Version?: unknown }).x402Version === 1 ? "x-payment" : "payment-signature"] = encoded;
  }
  let url = routerCallUrl(row.slug, row.path);
  let body: string | undefined;
  if (QUERY_METHODS.has(row.method)) {
    const q = asQuery(rest).toString();
    if (q) url += `?${q}`;
  } else {
    headers["content-type"] = "application/json";
    body = JSON.stringify(rest);
  }
  const req = new Request(url, { method: row.method, headers, body });
  const caller = await authenticateCaller(req);
  await takeRateLimit("call", `${caller.kind}:${caller.id}`, { lease: true });
  const segments = row.path.split("/").filter(Boolean).map(encodeURIComponent).join("/");
  const res = await relayCall(req, row.slug, segments, { caller });
  const answer = await res.text();
  if (res.status === 402) {
    const required = decodeHeaderJson(res.headers.get("payment-required")) ?? (() => {
      try {
        return JSON.parse(answer) as Record<string, unknown>;
      } catch {
        return null;
      }
    })();
    return { content: text(required ?? answer), structuredContent: required ?? { status: 402, body: answer }, isError: true };
  }
  const settled = decodeHeaderJson(res.headers.get("payment-response") ?? res.headers.get("x-payment-response"));
  let structured: Record<string, unknown> | undefined;
  try {
    const parsed = JSON.parse(answer);
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) structured = parsed;
  } catch {
    structured = undefined;
  }
  return {
    content: text(answer),
    ...(structured ? { structuredContent: structured } : {}),
    ...(res.ok ? {} : { isError: true }),
    _meta: { ...(settled ? { "x402/payment-response": settled } : {}), "tollgate/status": res.status },
  };
}

export function registerBazaarTools(server: McpServer, req: Request): void {
  server.registerTool(
    "search_resources",
    {
      title: "Search x402 resources (Bazaar)",
      description:
        "The x402 Bazaar's search over Tollgate's catalog: payable HTTP resources with their accepts, a quality block from the confirmed ledger and a tollgate block (trust grade, readiness, verification, last paid proof). Without a query, lists resources. Each resource's tollgate.toolName is what proxy_tool_call takes.",
      inputSchema: {
        query: z.string().optional().describe("Free-text search query"),
        ...Object.fromEntries(FILTER_NAMES.map((n) => [n, z.string().optional()])),
        limit: z.number().int().min(1).max(100).optional(),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args) => {
      try {
        const q = asQuery(args);
        const value = q.has("query") ? await searchDiscoveryResources(parseSearchParams(q)) : await listDiscoveryResources(parseListParams(q));
        return { content: text(value), structuredContent: value as unknown as Record<string, unknown> };
      } catch (e) {
        return failure(e);
      }
    },
  );

  server.registerTool(
    "proxy_tool_call",
    {
      title: "Call a resource through Tollgate's router",
      description:
        "Calls a resource found by search_resources: toolName, and the call's arguments beside it (the query for GET, the JSON body otherwise). Paid through Tollgate's router: the first call answers the seller's x402 PaymentRequired (isError, structuredContent); retry with the PaymentPayload in _meta[\"x402/payment\"]. Needs a Tollgate API key with the scope router:call in this MCP request's Authorization header.",
      inputSchema: z.looseObject({ toolName: z.string().describe("The resource's tollgate.toolName from search_resources") }),
      annotations: { readOnlyHint: false, openWorldHint: true },
    },
    async (args, extra) => {
      try {
        return await proxyToolCall(req, args as Record<string, unknown>, extra._meta?.["x402/payment"]);
      } catch (e) {
        return failure(e);
      }
    },
  );
}
