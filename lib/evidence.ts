/**
 * Probe evidence: what the monitor saw calling a listing's endpoints unpaid; written by lib/probe, read by the
 * readiness rules. Check ids are docs/spec/trust-rubric.md's.
 */

export type ChallengeKind = "x402-v2" | "x402-v1" | "mpp" | "none";
export type FindingSeverity = "pass" | "info" | "warn" | "fail";

export interface Finding {
  /** e.g. "C2", or "PROBE". */
  check: string;
  severity: FindingSeverity;
  /** e.g. "payto_not_checksummed". */
  code: string;
  message: string;
  pointer?: string;
}

export interface TlsFacts {
  /** Against the system's trust store. */
  valid: boolean;
  /** Null when not over TLS. */
  daysToExpiry: number | null;
}

/** Normalised across x402 v1/v2; amounts atomic. */
export interface NormalisedRequirement {
  scheme: string;
  network: string;
  amount: string;
  asset: string;
  payTo: string;
  maxTimeoutSeconds: number | null;
  extra: Record<string, unknown> | null;
}

export interface ChallengeEvidence {
  kind: ChallengeKind;
  /** C1 and C2 pass. */
  valid: boolean;
  x402?: unknown;
  bazaarReading?: "coinbase" | "x402-foundation" | null;
  requirements?: NormalisedRequirement[];
  mpp?: Array<{ id: string; realm: string; method: string; intent: string; request: unknown; expires?: string | null }>;
}

export interface EndpointEvidence {
  method: string;
  path: string;
  url: string;
  /** R1: an answer within the deadline. */
  reachable: boolean;
  /** The SSRF guard refused the URL before any request. */
  refusal?: string | null;
  status: number | null;
  ttfbMs: number | null;
  tls: TlsFacts | null;
  contentType: string | null;
  /** Lower-cased names. */
  headers: Record<string, string>;
  challenge: ChallengeEvidence;
  findings: Finding[];
}

export interface ResourceEvidence {
  url: string;
  ok: boolean;
  status: number | null;
  contentType: string | null;
  refusal?: string | null;
  findings: Finding[];
}

/** D3: what the probe found on an endpoint's docs page; the readiness engine judges it. */
export interface EndpointDocsEvidence {
  method: string;
  path: string;
  /** Fragment dropped; null when docsUrl could not be resolved. */
  url: string | null;
  ok: boolean;
  status: number | null;
  contentType: string | null;
  refusal?: string | null;
  /** Only the start was searched. */
  truncated: boolean;
  pathShown: boolean;
  /** Whole-word matches. */
  names: string[];
  /** <pre>, <code>, a ``` fence, a curl command, or a JSON "example" key. */
  example: boolean;
}

/** Trust H4: more are dropped (probe) or ignored (reader). */
export const MAX_OWNERSHIP_PROOFS = 16;

/** 2 adds `endpointDocs`. */
export const PROBE_EVIDENCE_VERSIONS = [1, 2] as const;
export type ProbeEvidenceVersion = (typeof PROBE_EVIDENCE_VERSIONS)[number];
export const PROBE_EVIDENCE_VERSION: ProbeEvidenceVersion = 2;

export interface ProbeEvidence {
  version: ProbeEvidenceVersion;
  probedAt: string;
  /** A region name, or "local". */
  vantage: string;
  baseUrl: string;
  endpoints: EndpointEvidence[];
  /** M4 */
  logo: (ResourceEvidence & { isImage: boolean }) | null;
  /** D1 */
  docs: ResourceEvidence | null;
  /** D4. `ownershipProofs` (H4) only from the operator's own `/.well-known/x402`. */
  discovery: (ResourceEvidence & { kind: "well-known-x402" | "openapi" | null; ownershipProofs?: string[] }) | null;
  /** D3 (version 2 onwards). */
  endpointDocs?: EndpointDocsEvidence[];
  findings: Finding[];
}

/**
 * An analysis stores the probe alone (facts come from the ledger); the demo's fixtures store the whole evidence. Both
 * read back here.
 */
export function splitStoredEvidence(json: unknown): { probe: ProbeEvidence | null; settle: unknown; liveness: unknown } {
  if (json && typeof json === "object" && "probe" in json) {
    const j = json as { probe: ProbeEvidence; settle?: unknown; liveness?: unknown };
    return { probe: j.probe, settle: j.settle, liveness: j.liveness };
  }
  return { probe: (json as ProbeEvidence) ?? null, settle: undefined, liveness: undefined };
}
