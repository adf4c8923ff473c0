/**
 * The router's relay route (`GET /router/call/<slug>/<path>`, app/router/call/[listing]/[...path]/route.ts)
 * mounted for one listing's GET paths as Next would call it, for test/route-server.ts's serveRoutes:
 * the router over real loopback HTTP.
 */
import * as routerCall from "@/app/router/call/[listing]/[...path]/route";
import type { RouteHandler } from "./route-server";

export function routerCallRoutes(slug: string, paths: string[]): Record<string, RouteHandler> {
  return Object.fromEntries(
    paths.map((p) => {
      const segments = p.replace(/^\/+/, "").split("/");
      const handler: RouteHandler = (req) => routerCall.GET(req, { params: Promise.resolve({ listing: slug, path: segments }) });
      return [`GET /router/call/${slug}/${segments.join("/")}`, handler];
    }),
  );
}
