/**
 * Requests judged from their first line and headers before Next.js sees them (installed by instrumentation.ts):
 * server actions' bodies (docs/LIMITS.md "Request bodies": over 1 MiB 413, no length 411, never read) and paths
 * that are not %-encoded UTF-8 (docs/LIMITS.md "Hostile input": 400 where Next.js answers 500). Neither Next.js
 * nor proxy.ts can refuse a request before its body is sent (for the proxy Next.js holds it, cut at 10 MB).
 */
import { createHash } from "node:crypto";
import http from "node:http";
import { AppError } from "@/lib/errors";
import { BODY_LIMITS, declaredBodyRefusal, malformedPathProblem } from "@/lib/http";
import { API_CSP, isApiPath } from "@/lib/security-headers";

/** A path Next.js could not decode into a route's parameters; null when it can. */
export function malformedPathRefusal(url: string | undefined): AppError | null {
  if (!url?.includes("%")) return null; // every request passes here: most have no escape at all
  const problem = malformedPathProblem(url.split("?", 1)[0]);
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

const escapeHtml = (t: string) => t.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const PAGE_STYLE = "body{font-family:system-ui,sans-serif;margin:0;color:#0f172a}main{max-width:40rem;margin:4rem auto;padding:0 1.25rem}h1{font-size:1.5rem;line-height:1.3}p{line-height:1.6;overflow-wrap:anywhere}a{color:#4338ca}";
/** The page's policy: nothing but its own style, by hash. */
const PAGE_CSP = `default-src 'none'; style-src 'sha256-${createHash("sha256").update(PAGE_STYLE).digest("base64")}'; frame-ancestors 'none'`;

/** JSON, or for a browser's navigation (Accept: text/html) a plain page saying the same. */
export function refusalAnswer(refusal: AppError, accept: string | undefined): { type: string; body: string; csp: string } {
  if (!accept?.includes("text/html")) return { type: "application/json", body: JSON.stringify(refusal.toJSON()), csp: API_CSP };
  const title = refusal.code === "bad_request" && refusal.extra.reason === "malformed_path" ? "This address is not a valid URL" : "This request was refused";
  const message = refusal.message.charAt(0).toUpperCase() + refusal.message.slice(1);
  return {
    type: "text/html; charset=utf-8",
    csp: PAGE_CSP,
    body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title} · Tollgate</title><style>${PAGE_STYLE}</style></head><body><main><h1>${title}</h1><p>${escapeHtml(message)}.</p><p><a href="/catalog">Go to the catalog</a></p></main></body></html>`,
  };
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
        const { type, body, csp } = refusalAnswer(refusal, req.headers.accept);
        res.writeHead(refusal.status, { "content-type": type, "content-length": Buffer.byteLength(body), "content-security-policy": csp, "x-content-type-options": "nosniff", "cache-control": "no-store" });
        res.end(body);
        return true;
      }
    }
    return Reflect.apply(emit, this, [event, ...args]) as boolean;
  } as typeof emit;
}
