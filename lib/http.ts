/**
 * Request bodies read once and bounded, parsed with zod into 400s naming the field (docs/LIMITS.md "Request bodies").
 */
import type { z } from "zod";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { unstorableText } from "@/lib/listing-document/unstorable";

export const BODY_LIMITS = {
  listingDocument: 1 << 20,
  analysisSubmit: 4 << 10,
  apiKeyCreate: 4 << 10,
  select: 64 << 10,
  facilitator: 64 << 10,
  opsSmall: 64 << 10,
  opsEvidence: 8 << 20,
  mcp: 256 << 10,
  auth: 16 << 10,
  faucet: 4 << 10,
  /** next.config.mjs serverActions.bodySizeLimit. */
  serverAction: 1 << 20,
} as const;

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

/** No length is 411: browsers always declare a form's length. */
export function declaredBodyRefusal(headers: Headers, maxBytes: number, what: string): AppError | null {
  const declared = headers.get("content-length");
  if (declared === null) {
    if (!headers.has("transfer-encoding")) return null;
    return new AppError("length_required", `request body must declare its Content-Length (at most ${formatBytes(maxBytes)} for ${what}); a chunked body is refused`, [{ pointer: "", message: "no Content-Length" }], { reason: "length_required", limitBytes: maxBytes });
  }
  if (!/^\s*\d+\s*$/.test(declared)) return new AppError("bad_request", `Content-Length ${JSON.stringify(declared.slice(0, 40))} is not a byte count`, [{ pointer: "", message: "bad Content-Length" }], { reason: "content_length_invalid" });
  return Number(declared) > maxBytes ? tooLarge(maxBytes, "declared", what) : null;
}

export async function readBodyBytes(req: Request, maxBytes: number, what = "this route"): Promise<Uint8Array<ArrayBuffer>> {
  const declared = req.headers.get("content-length");
  if (declared !== null) {
    if (!/^\s*\d+\s*$/.test(declared)) throw new AppError("bad_request", `Content-Length ${JSON.stringify(declared.slice(0, 40))} is not a byte count`, [{ pointer: "", message: "bad Content-Length" }], { reason: "content_length_invalid" });
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
      // Released, not cancelled (docs/LIMITS.md).
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

export async function readBodyText(req: Request, maxBytes: number, what?: string): Promise<string> {
  const bytes = await readBodyBytes(req, maxBytes, what);
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new AppError("bad_request", "request body is not UTF-8", [{ pointer: "", message: "not UTF-8" }], { reason: "body_not_utf8" });
  }
}

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
 * Why a request path cannot be read as a URL path (null when it can): a `%` escape that is not two hex
 * digits, or escapes that do not decode to UTF-8 (RFC 3986 section 2.1; RFC 3629). Next.js would try to
 * decode such a path for a dynamic route and answer 500, so the request guard refuses it first
 * (lib/action-body-guard.ts).
 */
export function malformedPathProblem(pathname: string): { pointer: string; message: string } | null {
  if (!pathname.includes("%")) return null;
  const segments = pathname.split("/");
  for (let i = 0; i < segments.length; i++) {
    try {
      decodeURIComponent(segments[i]);
    } catch {
      const bad = /%(?![0-9A-Fa-f]{2})/.test(segments[i]) ? "has a % that is not followed by two hex digits" : "has %-escapes that are not UTF-8";
      const shown = segments[i].length > 40 ? `${segments[i].slice(0, 40)}…` : segments[i];
      return { pointer: `/path/${i}`, message: `path segment ${i} ("${shown}") ${bad}` };
    }
  }
  return null;
}

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

export async function readBody<S extends z.ZodType>(req: Request, schema: S, maxBytes: number, what?: string): Promise<z.infer<S>> {
  return parseWith(schema, await readJson(req, maxBytes, what));
}

/** The guard of cookie-authenticated routes (docs/LIMITS.md "Cross-origin requests"). */
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

