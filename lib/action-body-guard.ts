/**
 * Server actions' bodies judged from their headers before Next.js sees the request (docs/LIMITS.md
 * "Request bodies"): a page POST (a server action) declaring more than 1 MiB is 413, one with no
 * length (chunked) 411, answered at once and never read. Installed by instrumentation.ts on the
 * Node server: neither Next.js (its action reader answers 500 past its limit) nor proxy.ts (Next.js
 * answers a proxy only once the whole body has arrived) can refuse a body before it is sent.
 */
import http from "node:http";
import { BODY_LIMITS, declaredBodyRefusal } from "@/lib/http";
import { API_CSP, isApiPath } from "@/lib/security-headers";

/** The refusal of a page POST's body from its headers, or null to let Next.js serve it. */
export function actionBodyRefusal(method: string | undefined, url: string | undefined, headers: http.IncomingHttpHeaders) {
  if (!method || method === "GET" || method === "HEAD" || method === "OPTIONS") return null;
  const path = (url ?? "/").split("?", 1)[0];
  if (isApiPath(path)) return null;
  const h = new Headers();
  for (const [k, v] of Object.entries(headers)) if (typeof v === "string") h.set(k, v);
  return declaredBodyRefusal(h, BODY_LIMITS.serverAction, "a form (a server action)");
}

let installed = false;

/**
 * Wrap http.Server's "request" event so a refused page POST is answered before Next.js's handler
 * runs. The rest of the body is left unread (lib/http.ts says why it is neither read nor cancelled).
 */
export function installActionBodyGuard(): void {
  if (installed) return;
  installed = true;
  const emit = http.Server.prototype.emit;
  http.Server.prototype.emit = function guardedEmit(this: http.Server, event: string | symbol, ...args: unknown[]): boolean {
    if (event === "request") {
      const [req, res] = args as [http.IncomingMessage, http.ServerResponse];
      const refusal = actionBodyRefusal(req.method, req.url, req.headers);
      if (refusal) {
        const body = JSON.stringify(refusal.toJSON());
        res.writeHead(refusal.status, { "content-type": "application/json", "content-length": Buffer.byteLength(body), "content-security-policy": API_CSP, "x-content-type-options": "nosniff", "cache-control": "no-store" });
        res.end(body);
        return true;
      }
    }
    return Reflect.apply(emit, this, [event, ...args]) as boolean;
  } as typeof emit;
}
