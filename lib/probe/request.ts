/**
 * The one fetch helper of the discovery draft and the probe: resource GETs and the unpaid call, built once so both
 * send the same request and the draft's call can stand as the probe's evidence.
 */
import { safeFetch, type Resolver, type SafeFetchResult } from "@/lib/net";

export type Net = { allowHosts?: string[]; resolver?: Resolver; deadlineMs: number };

export const DEFAULT_DEADLINE_MS = 10_000;
/** A 402 is small; its body is kept for C4 and S4. */
export const DEFAULT_MAX_BODY_BYTES = 256 * 1024;
const BODY_METHODS = new Set(["POST", "PUT", "PATCH"]);

/** `accept` sent when given; body capped. */
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

/** The example as a JSON body for methods that carry one, nothing otherwise. */
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

/** Method, URL and body; the headers follow from the method. */
export function unpaidKey(r: Pick<UnpaidRequest, "method" | "url" | "body">): string {
  return `${r.method} ${r.url} ${r.body ?? ""}`;
}

/** By unpaidKey, with their deadline and body cap. */
export type UnpaidCalls = ReadonlyMap<string, { result: SafeFetchResult; deadlineMs: number; maxBodyBytes: number }>;

/** Same deadline, and the same cap or a body that fits the new cap whole. */
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
