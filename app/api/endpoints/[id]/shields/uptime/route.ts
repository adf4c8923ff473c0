/**
 * GET /api/endpoints/:id/shields/uptime → Shields.io endpoint JSON (schemaVersion 1) for the endpoint's
 * uptime; paste https://img.shields.io/endpoint?url=<this URL, encoded> into a README (docs/DISCOVERY.md "Shields").
 */
import { checkEndpointId } from "@/lib/attest/read";
import { toResponse } from "@/lib/errors";
import { takeDiscoveryLimits } from "@/lib/catalog/discovery-route";
import { uptimeShield, SHIELDS_CACHE_SECONDS } from "@/lib/catalog/shields";

export const dynamic = "force-dynamic";

export async function GET(req: Request, ctx: { params: Promise<{ id: string }> }): Promise<Response> {
  try {
    await takeDiscoveryLimits(req);
    const body = await uptimeShield(checkEndpointId((await ctx.params).id));
    return Response.json(body, { headers: { "cache-control": `public, max-age=${SHIELDS_CACHE_SECONDS}`, "access-control-allow-origin": "*" } });
  } catch (e) {
    return toResponse(e);
  }
}
