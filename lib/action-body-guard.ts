/**
 * Server actions' bodies judged from their headers before Next.js sees the request (docs/LIMITS.md "Request bodies"):
 * over 1 MiB is 413, no length 411, never read. Installed by instrumentation.ts: neither Next.js nor proxy.ts can
 * refuse a body before it is sent.
 */
import http from "node:http";
import { BODY_LIMITS, declaredBodyRefusal } from "@/lib/http";
import { API_CSP, isApiPath } from "@/lib/security-headers";

/** Null lets Next.js serve it. */
export function actionBodyRefusal(method: string | undefined, url: string | undefined, headers: http.IncomingHttpHeaders) {
  if (!method || method === "GET" || method === "HEAD" || method === "OPTIONS") return null;
  const path = (url ?? "/").split("?", 1)[0];
  if (isApiPath(path)) return null;
  const h = new Headers();
  for (const [k, v] of Object.entries(headers)) if (typeof v === "string") h.set(k, v);
  return declaredBodyRefusal(h, BODY_LIMITS.serverAction, "a form (a server action)");
}

let installed = false;

/** The rest of the body is left unread (lib/http.ts). */
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
