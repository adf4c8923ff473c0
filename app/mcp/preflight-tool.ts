/**
 * The MCP tool `preflight` (docs/ATTESTATIONS.md "The guard"): for agents that pay with their own
 * client, whether Tollgate's signed attestation vouches for paying these exact terms at this URL,
 * with the guard's reason codes. Keyless, like the attestation routes.
 */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { isAppError } from "@/lib/errors";
import { preflight } from "@/lib/attest/preflight";

export function registerPreflight(server: McpServer): void {
  server.registerTool(
    "preflight",
    {
      title: "Check a payment before making it",
      description:
        "Before paying an HTTP 402 endpoint, ask whether Tollgate's latest signed attestation vouches for these exact terms: the resource URL, payTo, network (CAIP-2), asset and amount (base units) from its 402. " +
        "Answers pay: true, or pay: false with a reason code (avoid, down, unlisted, unattested, listing_changed, payto_changed, price_above_listing, price_changed, network_mismatch, asset_mismatch, stale, expired, wrong_endpoint, …) and one sentence.",
      inputSchema: {
        url: z.string().describe("The resource URL about to be paid"),
        method: z.string().optional().describe("GET, POST, PUT, PATCH or DELETE, when several share the URL"),
        payTo: z.string().describe("The payee the 402 names"),
        network: z.string().describe("The 402's network, CAIP-2 (e.g. eip155:8453)"),
        asset: z.string().describe("The token's address"),
        amount: z.string().describe("The amount in the asset's base units"),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args) => {
      try {
        const value = await preflight(args);
        return { content: [{ type: "text" as const, text: JSON.stringify(value) }], structuredContent: value as unknown as Record<string, unknown> };
      } catch (e) {
        if (!isAppError(e)) throw e;
        return { content: [{ type: "text" as const, text: JSON.stringify(e.toJSON()) }], isError: true };
      }
    },
  );
}
