/**
 * The discovery routes' shared door (docs/DISCOVERY.md): the public rate limits, then the handler; a
 * 400 carries `error` as a non-empty string naming the parameter, as the Bazaar's filter conformance
 * reads it, beside our code and JSON pointers.
 */
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
