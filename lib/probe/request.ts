/**
 * The one fetch helper of the catalog's readers (the discovery draft and the probe): a GET of a
 * resource (a discovery document, a logo, a docs page) and the unpaid call of an endpoint, both
 * through lib/net's safeFetch. The unpaid call is built here once, so the draft and the probe send
 * the same request, and a call the draft already made can stand as the probe's first evidence
 * (`UnpaidCalls`, keyed by `unpaidKey`).
 */
import { safeFetch, type Resolver, type SafeFetchResult } from "@/lib/net";

export type Net = { allowHosts?: string[]; resolver?: Resolver; deadlineMs: number };

export const DEFAULT_DEADLINE_MS = 10_000;
/** A 402 is small; its body is kept for C4 and S4. */
export const DEFAULT_MAX_BODY_BYTES = 256 * 1024;
const BODY_METHODS = new Set(["POST", "PUT", "PATCH"]);

/** GET a resource. `accept` is sent when given; the body is capped at maxBodyBytes. */
export function getResource(url: string, net: Net, opts: { maxBodyBytes: number; overflow?: "truncate" | "error"; accept?: string }): Promise<SafeFetchResult> {
  return safeFetch(url, {
    method: "GET",
    ...(opts.accept ? { headers: { accept: opts.accept } } : {}),
    allowHosts: net.allowHosts,
    resolver: net.resolver,
    deadlineMs: net.deadlineMs,
    maxBodyBytes: opts.maxBodyBytes,
    bodyOverflow: opts.overflow ?? "truncate",
  });
}

export interface UnpaidRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | undefined;
}

/** The unpaid request for an endpoint: the documented example as a JSON body for methods that carry one, nothing otherwise. */
export function unpaidRequest(method: string, url: string, requestExample: unknown): UnpaidRequest {
  const m = method.toUpperCase();
  const headers: Record<string, string> = { accept: "application/json, */*;q=0.5" };
  let body: string | undefined;
  if (BODY_METHODS.has(m)) {
    body = JSON.stringify(requestExample ?? {});
    headers["content-type"] = "application/json";
  }
  return { method: m, url, headers, body };
}

/** Two requests with the same key are the same request (method, URL and body; the headers follow from the method). */
export function unpaidKey(r: Pick<UnpaidRequest, "method" | "url" | "body">): string {
  return `${r.method} ${r.url} ${r.body ?? ""}`;
}

/** Unpaid calls already made in this run, by unpaidKey, with the deadline and body cap they were made under. */
export type UnpaidCalls = ReadonlyMap<string, { result: SafeFetchResult; deadlineMs: number; maxBodyBytes: number }>;

/**
 * An earlier answer stands for a new call when it was made under the same deadline and either the
 * same body cap or a body that fits the new cap whole (then the new call would have read the same).
 */
export function reusableAnswer(calls: UnpaidCalls | undefined, req: UnpaidRequest, deadlineMs: number, maxBodyBytes: number): SafeFetchResult | null {
  const seen = calls?.get(unpaidKey(req));
  if (!seen || seen.deadlineMs !== deadlineMs) return null;
  if (seen.maxBodyBytes === maxBodyBytes) return seen.result;
  const r = seen.result;
  return r.ok && !r.bodyTruncated && r.body.length <= maxBodyBytes ? r : null;
}

export function callUnpaid(req: UnpaidRequest, net: Net, maxBodyBytes: number = DEFAULT_MAX_BODY_BYTES): Promise<SafeFetchResult> {
  return safeFetch(req.url, {
    method: req.method,
    headers: req.headers,
    body: req.body,
    allowHosts: net.allowHosts,
    resolver: net.resolver,
    deadlineMs: net.deadlineMs,
    maxBodyBytes,
    bodyOverflow: "truncate",
  });
}
