/**
 * Request bodies, read once and bounded (docs/LIMITS.md "Request bodies"), and parsed with zod into
 * AppError 400s that name the field (docs/spec/style.md practice 3).
 *
 * Every route that reads a body reads it through readBodyBytes (or the helpers over it), after it has
 * authenticated the caller: a declared Content-Length over the route's limit is refused before a
 * byte is read, and a body without one (chunked) is counted as it streams and the read stops at the
 * first chunk past the limit. Either way the answer is 413 `payload_too_large` naming the limit; at
 * most the limit plus one chunk is ever held.
 *
 * The rest of a refused body is neither read nor cancelled. Cancelling the stream destroys the
 * socket on a Node server, and closing the connection after the 413 (Connection: close) races the
 * client's writes: either way a client still sending sees a reset (EPIPE, ECONNRESET) instead of
 * the 413, which app/api/body-limits.test.ts showed. Left alone, the connection stops receiving
 * (TCP backpressure) and the client reads the 413; the server's request timeout ends a connection
 * nobody closes.
 */
import type { z } from "zod";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { unstorableText } from "@/lib/listing-document/unstorable";

/** Each route's limit, fitted to what it carries (docs/LIMITS.md "Request bodies"). */
export const BODY_LIMITS = {
  /** A listing document (POST /api/listings, PUT /api/listings/:id). */
  listingDocument: 1 << 20,
  /** `{listingId}` or `{url}` (POST /api/analyses). */
  analysisSubmit: 4 << 10,
  /** `{name}` (POST /api/admin/api-keys). */
  apiKeyCreate: 4 << 10,
  /** A task, filters and a limit (POST /router/select). */
  select: 64 << 10,
  /** An x402 payment payload and its requirements (POST /api/facilitator/verify and settle). */
  facilitator: 64 << 10,
  /** A worker's claim, heartbeat or failure (POST /api/ops/leases…). */
  opsSmall: 64 << 10,
  /** A worker's evidence for a listing with many endpoints (POST /api/ops/leases/:id/complete). */
  opsEvidence: 8 << 20,
  /** One MCP JSON-RPC message or batch (POST /mcp). */
  mcp: 256 << 10,
  /** next-auth's form posts: sign-in (a SIWE message and signature), sign-out, CSRF (POST /api/auth/*). */
  auth: 16 << 10,
  /** `{address}` (POST /api/faucet, demo mode only). */
  faucet: 4 << 10,
  /** A server action's form (next.config.mjs serverActions.bodySizeLimit "1mb": the listing editor's document). */
  serverAction: 1 << 20,
} as const;

/** "1 MiB", "64 KiB", "300 bytes": the limit as a person reads it. */
export function formatBytes(n: number): string {
  if (n >= 1 << 20 && n % (1 << 20) === 0) return `${n / (1 << 20)} MiB`;
  if (n >= 1 << 10 && n % (1 << 10) === 0) return `${n / (1 << 10)} KiB`;
  return `${n} bytes`;
}

function tooLarge(maxBytes: number, how: "declared" | "streamed", what: string): AppError {
  const said = how === "declared" ? "Content-Length declares more than" : "the body ran past";
  return new AppError("payload_too_large", `request body is too large: ${said} the ${formatBytes(maxBytes)} (${maxBytes}-byte) limit for ${what}`, [{ pointer: "", message: `over ${maxBytes} bytes` }], {
    reason: "body_too_large",
    limitBytes: maxBytes,
  });
}

/**
 * A body refused from its headers alone, before Next.js reads it (proxy.ts, for server actions): a
 * declared Content-Length over `maxBytes` is a 413 naming the limit, a malformed one a 400, and a
 * body with no length at all (chunked) a 411, since browsers always declare a form's length. Null:
 * the declared body may be read.
 */
export function declaredBodyRefusal(headers: Headers, maxBytes: number, what: string): AppError | null {
  const declared = headers.get("content-length");
  if (declared === null) {
    if (!headers.has("transfer-encoding")) return null;
    return new AppError("length_required", `request body must declare its Content-Length (at most ${formatBytes(maxBytes)} for ${what}); a chunked body is refused`, [{ pointer: "", message: "no Content-Length" }], { reason: "length_required", limitBytes: maxBytes });
  }
  if (!/^\s*\d+\s*$/.test(declared)) return new AppError("bad_request", `Content-Length ${JSON.stringify(declared.slice(0, 40))} is not a byte count`, [{ pointer: "", message: "bad Content-Length" }], { reason: "content_length_invalid" });
  return Number(declared) > maxBytes ? tooLarge(maxBytes, "declared", what) : null;
}

/**
 * The body's bytes, at most `maxBytes` of them. Content-Length is checked first (no byte is read
 * when it is over the limit, or malformed); then the stream is counted chunk by chunk and reading
 * stops at the first chunk past the limit. `what` names the body in the error ("a listing document").
 */
export async function readBodyBytes(req: Request, maxBytes: number, what = "this route"): Promise<Uint8Array<ArrayBuffer>> {
  const declared = req.headers.get("content-length");
  if (declared !== null) {
    if (!/^\s*\d+\s*$/.test(declared)) throw new AppError("bad_request", `Content-Length ${JSON.stringify(declared.slice(0, 40))} is not a byte count`, [{ pointer: "", message: "bad Content-Length" }], { reason: "content_length_invalid" });
    // Not a byte is read, and the stream is left as it is (see the header for why).
    if (Number(declared) > maxBytes) throw tooLarge(maxBytes, "declared", what);
  }
  if (!req.body) return new Uint8Array(0);
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      // Stop reading (the header says why the stream is released, not cancelled).
      reader.releaseLock();
      throw tooLarge(maxBytes, "streamed", what);
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

/** The body as UTF-8 text, bounded like readBodyBytes; bytes that are not UTF-8 are a 400. */
export async function readBodyText(req: Request, maxBytes: number, what?: string): Promise<string> {
  const bytes = await readBodyBytes(req, maxBytes, what);
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new AppError("bad_request", "request body is not UTF-8", [{ pointer: "", message: "not UTF-8" }], { reason: "body_not_utf8" });
  }
}

/** Read a JSON request body without trusting it: too large is a 413, empty or not JSON a 400 naming the problem. */
export async function readJson(req: Request, maxBytes: number, what?: string): Promise<unknown> {
  const text = await readBodyText(req, maxBytes, what);
  if (!text.trim()) throw new AppError("bad_request", "request body is empty; expected JSON", [{ pointer: "", message: "empty body" }]);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new AppError("bad_request", `request body is not JSON: ${(e as Error).message}`, [{ pointer: "", message: "not JSON" }]);
  }
  assertStorableJson(value);
  return value;
}

/**
 * A route's path parameters, each segment checked like a body's strings: a NUL or a lone surrogate
 * is a 400 naming the parameter (`/params/<name>`), never a lookup the database refuses with a 500.
 */
export async function routeParams<T extends Record<string, string | string[]>>(params: Promise<T>): Promise<T> {
  const p = await params;
  for (const [name, value] of Object.entries(p)) {
    const segments = Array.isArray(value) ? value : [value];
    segments.forEach((segment, i) => {
      const problem = typeof segment === "string" ? unstorableText(segment) : null;
      const pointer = `/params/${name}${Array.isArray(value) ? `/${i}` : ""}`;
      if (problem) throw new AppError("bad_request", `the path's ${name} ${problem}`, [{ pointer, message: problem }], { reason: "unstorable_text" });
    });
  }
  return p;
}

const pointerToken = (k: string | number) => String(k).replace(/~/g, "~0").replace(/\//g, "~1");

/**
 * Every string of a parsed JSON body, keys included, can be stored as text: no NUL and no lone
 * surrogate (lib/listing-document/unstorable.ts), else a 400 naming where one is (a JSON pointer).
 * Such a string used to reach the database (a task, a key's name, a URL) and come back as a 500.
 */
export function assertStorableJson(value: unknown, at = ""): void {
  const stack: Array<[unknown, string]> = [[value, at]];
  while (stack.length) {
    const [v, pointer] = stack.pop()!;
    if (typeof v === "string") {
      const problem = unstorableText(v);
      if (problem) throw new AppError("bad_request", `request body is invalid at ${pointer || "/"}: ${problem}`, [{ pointer, message: problem }], { reason: "unstorable_text" });
    } else if (Array.isArray(v)) {
      v.forEach((x, i) => stack.push([x, `${pointer}/${i}`]));
    } else if (v && typeof v === "object") {
      for (const [k, x] of Object.entries(v)) {
        const problem = unstorableText(k);
        if (problem) throw new AppError("bad_request", `request body has an invalid field name at ${pointer || "/"}: ${problem}`, [{ pointer: `${pointer}/${pointerToken(k)}`, message: `field name ${problem}` }], { reason: "unstorable_text" });
        stack.push([x, `${pointer}/${pointerToken(k)}`]);
      }
    }
  }
}

export function parseWith<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const details = parsed.error.issues.map((i) => ({ pointer: "/" + i.path.map((p) => String(p).replace(/~/g, "~0").replace(/\//g, "~1")).join("/"), message: i.message }));
  throw new AppError("bad_request", `request body is invalid at ${details[0].pointer}: ${details[0].message}`, details);
}

/** A JSON body, bounded, parsed with `schema`. */
export async function readBody<S extends z.ZodType>(req: Request, schema: S, maxBytes: number, what?: string): Promise<z.infer<S>> {
  return parseWith(schema, await readJson(req, maxBytes, what));
}

/**
 * The guard of every route a browser's session cookie authenticates (docs/LIMITS.md "Cross-origin
 * requests"). A browser attaches the cookie to a request another site starts, and an HTML form or a
 * `no-cors` fetch may POST `text/plain` without a preflight, so the cookie alone proves nothing
 * about who asked (issue #20 item 6). Called after the session check and before the body is read:
 *
 * - `Sec-Fetch-Site`, when the browser sends it, must be `same-origin` (or `none`: typed by the user);
 * - `Origin`, when sent, must be exactly the configured public origin (TOLLGATE_PUBLIC_URL, else
 *   NEXTAUTH_URL, lib/env.ts), never one read from Host; `Origin: null` is refused too;
 * - with `json: true` (a route that reads a JSON body), the Content-Type must be `application/json`
 *   (parameters such as charset allowed): the types a cross-site form can send without a preflight
 *   (`text/plain`, `application/x-www-form-urlencoded`, `multipart/form-data`) never reach the body.
 *
 * A request with neither header is not a browser's cross-site request (browsers send Origin on every
 * POST, PUT, PATCH and DELETE) and passes: curl and scripts with a session cookie still work.
 * Refusals: 403 `forbidden` with `reason: "cross_origin"`, 415 `unsupported_media_type` with
 * `reason: "content_type"`.
 */
export function assertSameOriginRequest(req: Request, opts: { json: boolean; publicOrigin?: string }): void {
  const expected = opts.publicOrigin ?? env().publicOrigin;
  const site = req.headers.get("sec-fetch-site");
  if (site !== null && site !== "same-origin" && site !== "none") {
    throw new AppError("forbidden", `cross-origin request refused: Sec-Fetch-Site is ${JSON.stringify(site.slice(0, 40))}; this route takes requests from ${expected} only`, [], { reason: "cross_origin" });
  }
  const origin = req.headers.get("origin");
  if (origin !== null && origin !== expected) {
    throw new AppError("forbidden", `cross-origin request refused: Origin ${JSON.stringify(origin.slice(0, 200))} is not ${expected}`, [], { reason: "cross_origin" });
  }
  if (opts.json) {
    const type = req.headers.get("content-type");
    const media = type?.split(";", 1)[0].trim().toLowerCase() ?? "";
    if (media !== "application/json") {
      throw new AppError("unsupported_media_type", `request body must be sent as Content-Type: application/json${type ? `, not ${JSON.stringify(type.slice(0, 100))}` : " (none was sent)"}`, [{ pointer: "", message: "Content-Type must be application/json" }], { reason: "content_type" });
    }
  }
}

