/**
 * Requests judged from their first line and headers before Next.js sees them (installed by instrumentation.ts):
 * server actions' bodies (docs/LIMITS.md "Request bodies": over 1 MiB 413, no length 411, never read) and paths
 * that are not %-encoded UTF-8 (docs/LIMITS.md "Hostile input": 400 where Next.js answers 500). Neither Next.js
 * nor proxy.ts can refuse a request before its body is sent (for the proxy Next.js holds it, cut at 10 MB).
 */
import http from "node:http";
import { AppError } from "@/lib/errors";
import { BODY_LIMITS, declaredBodyRefusal, malformedPathProblem } from "@/lib/http";
import { API_CSP, isApiPath } from "@/lib/security-headers";

/** A path Next.js could not decode into a route's parameters; null when it can. */
export function malformedPathRefusal(url: string | undefined): AppError | null {
  const problem = malformedPathProblem((url ?? "/").split("?", 1)[0]);
  return problem ? new AppError("bad_request", `the request path is not a valid URL path: ${problem.message}`, [problem], { reason: "malformed_path" }) : null;
}

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
      const refusal = malformedPathRefusal(req.url) ?? actionBodyRefusal(req.method, req.url, req.headers);
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
