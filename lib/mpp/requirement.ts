/** An MPP charge normalised like an x402 requirement; chain from `request.methodDetails.chainId` or `chainId`. */
import type { NormalisedRequirement } from "@/lib/evidence";
import { isObject } from "@/lib/x402/json";

export function mppChainId(request: unknown): number | null {
  if (!isObject(request)) return null;
  const details = isObject(request.methodDetails) ? request.methodDetails : null;
  for (const raw of [details?.chainId, request.chainId]) {
    const n = typeof raw === "number" ? raw : typeof raw === "string" && /^\d+$/.test(raw) ? Number(raw) : NaN;
    if (Number.isSafeInteger(n) && n > 0) return n;
  }
  return null;
}

/** Not CAIP-2 when the request names no chain: the method name (`tempo`, `stripe` …). */
export function mppNetwork(method: string, request: unknown): string {
  const id = mppChainId(request);
  return id !== null ? `eip155:${id}` : method;
}

export function mppRequirement(c: { method: string; intent: string; request: unknown }): NormalisedRequirement {
  const req = isObject(c.request) ? c.request : {};
  return {
    scheme: c.intent,
    network: mppNetwork(c.method, c.request),
    amount: typeof req.amount === "string" ? req.amount : typeof req.amount === "number" ? String(req.amount) : "",
    asset: typeof req.currency === "string" ? req.currency : "",
    payTo: typeof req.recipient === "string" ? req.recipient : "",
    maxTimeoutSeconds: null,
    extra: { method: c.method },
  };
}
