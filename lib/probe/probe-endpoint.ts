/**
 * Probes one endpoint unpaid through safeFetch into EndpointEvidence; whatever a server does ends up as evidence and
 * findings, never a throw.
 */
import type { Resolver, SafeFetchResult } from "@/lib/net";
import { mppRequirement, parseMpp } from "@/lib/mpp";
import { parseX402 } from "@/lib/x402";
import type { DeclaredToken } from "@/lib/x402/assets";
import type { ChallengeEvidence, EndpointEvidence, Finding } from "@/lib/evidence";
import { contentFindings, latencyFinding, tlsFacts, transportFindings } from "./transport";
import { DEFAULT_DEADLINE_MS, DEFAULT_MAX_BODY_BYTES, callUnpaid, reusableAnswer, unpaidRequest, type UnpaidCalls } from "./request";

export interface ProbeTarget {
  method: string;
  path: string;
  url: string;
  requestExample: unknown;
  /** R2 expects a 402 only then. */
  payable: boolean;
}

export interface ProbeNetOptions {
  allowHosts?: string[];
  resolver?: Resolver;
  /** Default 10 s (R1). */
  deadlineMs?: number;
  /** Default 256 KiB: a 402 is small; its body is kept for C4 and S4. */
  maxBodyBytes?: number;
  now?: Date;
  declaredTokens?: readonly DeclaredToken[];
}

export { DEFAULT_DEADLINE_MS, DEFAULT_MAX_BODY_BYTES };
/** The ones the rules or a reader need. */
const KEPT_HEADERS = ["payment-required", "www-authenticate", "content-type", "content-encoding", "content-length", "location", "cache-control", "retry-after", "x-payment-response", "payment-response"];

const NO_CHALLENGE: ChallengeEvidence = { kind: "none", valid: false };

/**
 * `prefetched`: the same request already answered in this run under a compatible deadline and cap (reusableAnswer) is
 * the evidence, not called again.
 */
export async function probeEndpoint(target: ProbeTarget, opts: ProbeNetOptions = {}, prefetched?: UnpaidCalls): Promise<EndpointEvidence> {
  return evidenceFrom(target, await callEndpoint(target, opts, prefetched), opts);
}

/** The unpaid call alone (or the prefetched answer); `evidenceFrom` judges it. */
export async function callEndpoint(target: ProbeTarget, opts: ProbeNetOptions = {}, prefetched?: UnpaidCalls): Promise<SafeFetchResult> {
  const req = unpaidRequest(target.method, target.url, target.requestExample);
  const deadlineMs = opts.deadlineMs ?? DEFAULT_DEADLINE_MS;
  const maxBodyBytes = opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  return reusableAnswer(prefetched, req, deadlineMs, maxBodyBytes) ?? (await callUnpaid(req, { allowHosts: opts.allowHosts, resolver: opts.resolver, deadlineMs }, maxBodyBytes));
}

/** An answer as evidence and findings; never throws. */
export function evidenceFrom(target: ProbeTarget, r: SafeFetchResult, opts: ProbeNetOptions): EndpointEvidence {
  const base = { method: target.method.toUpperCase(), path: target.path, url: target.url };
  const findings: Finding[] = [];

  if (!r.ok && "refusal" in r) {
    // A redirect the guard would not follow is still an answer (R1), a 3xx.
    const lastHop = r.stage === "redirect" ? r.redirects?.[r.redirects.length - 1] : undefined;
    if (lastHop) {
      findings.push({ check: "R1", severity: "pass", code: "ok", message: "The server answered (with a redirect)." });
      findings.push(r2Finding(target, lastHop.status));
      findings.push(...transportFindings(target.url, null, r.redirects));
      if (target.payable) findings.push(noChallenge(lastHop.status));
      return { ...base, reachable: true, refusal: r.refusal, status: lastHop.status, ttfbMs: null, tls: null, contentType: null, headers: { location: lastHop.to }, challenge: NO_CHALLENGE, findings };
    }
    findings.push({ check: "R1", severity: "fail", code: "target_refused", message: `The probe refused to call ${target.url}: ${r.refusal} (${r.detail}).` });
    return { ...base, reachable: false, refusal: r.refusal, ...(r.resolverError ? { resolverError: r.resolverError } : {}), status: null, ttfbMs: null, tls: null, contentType: null, headers: {}, challenge: NO_CHALLENGE, findings };
  }

  if (!r.ok) {
    const headers = keepHeaders(r.headers ?? {});
    const gotHead = r.status !== undefined;
    findings.push(r.error === "timeout"
      ? { check: "R1", severity: "fail", code: "timeout", message: gotHead ? `The response started but did not finish within the deadline (${opts.deadlineMs ?? DEFAULT_DEADLINE_MS} ms).` : `No response within ${opts.deadlineMs ?? DEFAULT_DEADLINE_MS} ms.` }
      : { check: "R1", severity: "fail", code: r.error, message: `The call failed: ${r.error} (${r.detail}).` });
    if (r.error === "tls_failed") findings.push({ check: "S1", severity: "fail", code: "tls_invalid", message: `The TLS handshake failed (${r.detail}).` });
    // A head before the failure still carries the challenge.
    const challenge = gotHead ? readChallenge(r.status!, headers, null, opts, findings, target.payable) : NO_CHALLENGE;
    return { ...base, reachable: false, refusal: null, ...(r.resolverError ? { resolverError: r.resolverError } : {}), status: r.status ?? null, ttfbMs: r.ttfbMs ?? null, tls: tlsFacts(r.tls), contentType: headers["content-type"] ?? null, headers, challenge, findings };
  }

  findings.push({ check: "R1", severity: "pass", code: "ok", message: `Answered ${r.status}.` });
  findings.push(r2Finding(target, r.status));
  findings.push(latencyFinding(r.ttfbMs));
  findings.push(...transportFindings(r.finalUrl, r.tls, r.redirects));
  findings.push(...contentFindings(r));
  const headers = keepHeaders(r.headers);
  const challenge = readChallenge(r.status, r.headers, r.body, opts, findings, target.payable);
  return { ...base, reachable: true, refusal: null, status: r.status, ttfbMs: Math.round(r.ttfbMs * 10) / 10, tls: tlsFacts(r.tls), contentType: r.contentType, headers, challenge, findings };
}

/** Unprobeable: the endpoint validates input before its 402 (docs/PROBE.md). A state, not a failure. */
export const UNPROBEABLE_STATUSES: ReadonlySet<number> = new Set([400, 422]);
export const isUnprobeable = (status: number | null): boolean => status !== null && UNPROBEABLE_STATUSES.has(status);
const UNPROBEABLE_WORDS = (status: number) =>
  `Unprobeable: the unpaid request answers ${status}, so the endpoint validates its input before it answers 402. Answer 402 before validating, or publish a request example the probe may send.`;

/** R2: "status == 402; not 5xx, not 200 without payment", when payable. */
function r2Finding(target: ProbeTarget, status: number): Finding {
  if (!target.payable) {
    return status === 402
      ? { check: "R2", severity: "warn", code: "free_endpoint_charges", message: "The endpoint is listed as free but answers 402." }
      : { check: "R2", severity: "info", code: "not_payable", message: `Listed as free; answered ${status}.` };
  }
  if (status === 402) return { check: "R2", severity: "pass", code: "ok", message: "The unpaid request answers 402." };
  if (status >= 500) return { check: "R2", severity: "fail", code: "server_error", message: `The unpaid request answers ${status} instead of 402.` };
  if (status >= 200 && status < 300) return { check: "R2", severity: "fail", code: "paid_without_payment", message: `The unpaid request answers ${status}: the paid endpoint serves without payment.` };
  if (status >= 300 && status < 400) return { check: "R2", severity: "fail", code: "redirected", message: `The unpaid request answers ${status} (a redirect) instead of 402.` };
  if (isUnprobeable(status)) return { check: "R2", severity: "warn", code: "unprobeable", message: UNPROBEABLE_WORDS(status) };
  return { check: "R2", severity: "fail", code: "client_error", message: `The unpaid request with the documented example answers ${status} instead of 402 (the example or the docs may be at fault).` };
}

function noChallenge(status: number): Finding {
  return { check: "C1", severity: "fail", code: "challenge_missing", message: `No x402 or MPP challenge in the ${status} answer: a caller cannot discover how to pay.` };
}

function readChallenge(status: number, headers: Record<string, string>, body: Uint8Array | null, opts: ProbeNetOptions, findings: Finding[], payable: boolean): ChallengeEvidence {
  const x402 = parseX402({ status, headers, body }, { declaredTokens: opts.declaredTokens });
  const mpp = parseMpp({ headers }, { now: opts.now });
  const hasX402 = x402.kind !== "none";
  const hasMpp = mpp.offered > 0;
  if (hasX402) findings.push(...x402.findings);
  if (hasMpp) findings.push(...mpp.findings);
  if (!hasX402 && !hasMpp) {
    if (status === 402 || (payable && !isUnprobeable(status))) findings.push(noChallenge(status));
    return NO_CHALLENGE;
  }
  const mppList = hasMpp ? mpp.challenges.map((c) => ({ id: c.id, realm: c.realm, method: c.method, intent: c.intent, request: c.request, expires: c.expires ?? null })) : undefined;
  if (hasX402) {
    return {
      kind: x402.kind,
      valid: x402.valid,
      x402: x402.x402 ?? x402.header ?? x402.body,
      bazaarReading: x402.bazaarReading ?? null,
      requirements: x402.requirements ?? [],
      ...(mppList ? { mpp: mppList } : {}),
    };
  }
  return { kind: "mpp", valid: mpp.valid, mpp: mppList, requirements: mpp.challenges.map(mppRequirement) };
}

function keepHeaders(all: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of KEPT_HEADERS) if (all[name] !== undefined) out[name] = all[name].slice(0, 8192);
  return out;
}
