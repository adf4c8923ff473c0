/** The discovery routes' door: rate limits, then the handler; a 400's `error` names the parameter (Bazaar conformance). */
import { isAppError, toResponse } from "@/lib/errors";
import { clientAddress, limitsConfig, takeRateLimit } from "@/lib/limits";

export async function takeDiscoveryLimits(req: Request): Promise<void> {
  await takeRateLimit("discovery", clientAddress(req.headers, limitsConfig().trustedProxies));
  await takeRateLimit("discoveryAll", "*");
}

export function discoveryRoute(answer: (q: URLSearchParams) => Promise<object>, cacheSeconds = 60): (req: Request) => Promise<Response> {
  return async (req) => {
    try {
      await takeDiscoveryLimits(req);
      const body = await answer(new URL(req.url).searchParams);
      return Response.json(body, { headers: { "cache-control": `public, max-age=${cacheSeconds}`, "access-control-allow-origin": "*" } });
    } catch (e) {
      if (isAppError(e) && e.code === "bad_request") {
        const j = e.toJSON().error;
        return Response.json({ error: j.message, code: j.code, ...(e.extra.parameter ? { parameter: e.extra.parameter } : {}), details: j.details }, { status: 400, headers: { "access-control-allow-origin": "*" } });
      }
      return toResponse(e);
    }
  };
}
