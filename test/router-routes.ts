/**
 * The app's money routes mounted for test/route-server.ts's serveRoutes, as Next would call them:
 * the router's relay (`/router/call/<slug>/<path>`, app/router/call/[listing]/[...path]/route.ts) and
 * the facilitator (`/api/facilitator/*`): the router and the facilitator over real loopback HTTP.
 */
import * as routerCall from "@/app/router/call/[listing]/[...path]/route";
import { POST as settleRoute } from "@/app/api/facilitator/settle/route";
import { GET as supportedRoute } from "@/app/api/facilitator/supported/route";
import { POST as verifyRoute } from "@/app/api/facilitator/verify/route";
import type { RouteHandler } from "./route-server";

type CallHandler = (r: Request, c: { params: Promise<{ listing: string; path: string[] }> }) => Promise<Response>;

/** The facilitator's three routes, at /api/facilitator/{supported,verify,settle}. */
export function facilitatorRoutes(): Record<string, RouteHandler> {
  return {
    "GET /api/facilitator/supported": () => supportedRoute(),
    "POST /api/facilitator/verify": (r) => verifyRoute(r),
    "POST /api/facilitator/settle": (r) => settleRoute(r),
  };
}

/** The named facilitator caller the test rigs' sellers hold (docs/CHAIN.md "Who may settle"). */
export const TEST_FACILITATOR_TOKEN = "test-rig-sellers-0123456789abcdefghijklmnopqrstuv";

/**
 * Let the rig's sellers settle through the facilitator's routes: names their token in
 * TOLLGATE_FACILITATOR_TOKENS (read on lib/env's first use, so call it before) and answers the
 * {url, token} the sellers take as their facilitator.
 */
export function rigFacilitator(origin: string): { url: string; token: string } {
  process.env.TOLLGATE_FACILITATOR_TOKENS = `test-sellers=${TEST_FACILITATOR_TOKEN}`;
  return { url: `${origin}/api/facilitator`, token: TEST_FACILITATOR_TOKEN };
}

/** The router's catch-all route for every listing, path and method: its params read from the path. */
export function routerCallRoute(): Record<string, RouteHandler> {
  return {
    "ANY /router/call/*": (r) => {
      const [listing, ...path] = new URL(r.url).pathname.split("/").slice(3).map(decodeURIComponent);
      const handler = (routerCall as unknown as Record<string, CallHandler>)[r.method];
      return handler(r, { params: Promise.resolve({ listing, path }) });
    },
  };
}

/** The router's route for one listing's GET paths only (the benchmark's exact keys). */
export function routerCallRoutes(slug: string, paths: string[]): Record<string, RouteHandler> {
  return Object.fromEntries(
    paths.map((p) => {
      const segments = p.replace(/^\/+/, "").split("/");
      const handler: RouteHandler = (req) => routerCall.GET(req, { params: Promise.resolve({ listing: slug, path: segments }) });
      return [`GET /router/call/${slug}/${segments.join("/")}`, handler];
    }),
  );
}
