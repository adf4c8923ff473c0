/**
 * Probe evidence for the trust observations' tests, built as lib/probe/probe-endpoint.ts builds it:
 * findings from the real parser (parseX402) and the real transport and content checks over a crafted
 * 402 answer, so a change in what the probe reports shows in the tests that use it.
 */
import { encodePaymentRequiredHeader } from "@x402/core/http";
import type { PaymentRequired } from "@x402/core/types";
import { declareDiscoveryExtension } from "@x402/extensions/bazaar";
import type { EndpointEvidence, Finding } from "@/lib/evidence";
import { contentFindings, transportFindings } from "@/lib/probe/transport";
import { parseX402 } from "@/lib/x402/parse";

export const USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";
export const PAY_TO = "0x63aA5960943865e7d57FDdF0D899eE36B6D2046E";
export const OTHER = "0x1111111111111111111111111111111111111111";
export const NOW = "2026-12-03T12:00:00.000Z";
export const daysAgo = (d: number) => new Date(Date.parse(NOW) - d * 86_400_000).toISOString();

export function challenge(mutate: (pr: Record<string, any>) => void = () => {}): Record<string, any> {
  const pr: Record<string, any> = {
    x402Version: 2,
    resource: { url: "https://api.example.com/v1/x", description: "Geocode an address", mimeType: "application/json" },
    accepts: [{ scheme: "exact", network: "eip155:8453", amount: "10000", asset: USDC, payTo: PAY_TO, maxTimeoutSeconds: 60, extra: { name: "USD Coin", version: "2" } }],
    extensions: declareDiscoveryExtension({ bodyType: "json", input: { q: "a" }, inputSchema: { type: "object", properties: { q: { type: "string" } } }, output: { example: { a: 1 }, schema: { type: "object" } } }),
  };
  pr.extensions.bazaar.info.input.method = "POST";
  mutate(pr);
  return pr;
}

export interface Answer {
  pr?: Record<string, any>;
  where?: "header" | "body" | "both";
  status?: number;
  url?: string;
  ttfbMs?: number | null;
  tls?: { valid: boolean; daysToExpiry: number | null } | null;
  contentType?: string;
  sniffed?: string;
  refusal?: string;
  reachable?: boolean;
}

/** EndpointEvidence as lib/probe/probe-endpoint.ts assembles it. */
export function probed(a: Answer = {}, target: { method?: string; path?: string } = {}): EndpointEvidence {
  const url = a.url ?? "https://api.example.com/v1/x";
  if (a.refusal) {
    return { method: target.method ?? "POST", path: target.path ?? "/v1/x", url, reachable: false, refusal: a.refusal, status: null, ttfbMs: null, tls: null, contentType: null, headers: {}, challenge: { kind: "none", valid: false }, findings: [{ check: "R1", severity: "fail", code: "target_refused", message: "refused" }] };
  }
  const status = a.status ?? 402;
  const pr = a.pr ?? challenge();
  const where = a.where ?? "header";
  const headers: Record<string, string> = { "content-type": a.contentType ?? "application/json" };
  if (where !== "body") headers["payment-required"] = encodePaymentRequiredHeader(pr as PaymentRequired);
  const body = where === "header" ? "{}" : JSON.stringify(pr);
  const findings: Finding[] = [];
  const reachable = a.reachable ?? true;
  findings.push(reachable ? { check: "R1", severity: "pass", code: "ok", message: "" } : { check: "R1", severity: "fail", code: "timeout", message: "" });
  findings.push(status === 402 ? { check: "R2", severity: "pass", code: "ok", message: "" } : { check: "R2", severity: "fail", code: status >= 500 ? "server_error" : "paid_without_payment", message: "" });
  const tls = a.tls === undefined ? (url.startsWith("https:") ? { valid: true, daysToExpiry: 80 } : null) : a.tls;
  findings.push(...transportFindings(url, tls ? { ...tls, authorizationError: null } as any : null, []));
  findings.push(...contentFindings({ contentType: headers["content-type"], sniffedType: (a.sniffed ?? "json") as any, contentTypeMatches: (a.sniffed ?? "json") === "json", bodyTruncated: false }));
  let chall: EndpointEvidence["challenge"] = { kind: "none", valid: false };
  if (status === 402) {
    const p = parseX402({ status, headers, body });
    findings.push(...p.findings);
    chall = { kind: p.kind, valid: p.valid, x402: p.x402, requirements: p.requirements, bazaarReading: p.bazaarReading };
  }
  return { method: target.method ?? "POST", path: target.path ?? "/v1/x", url, reachable, refusal: null, status, ttfbMs: a.ttfbMs === undefined ? 180 : a.ttfbMs, tls, contentType: headers["content-type"], headers, challenge: chall, findings };
}

