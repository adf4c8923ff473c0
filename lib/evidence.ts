/**
 * Probe evidence: what the catalog-monitor saw when it called a listing's endpoints without paying.
 * Produced by lib/probe (the only code that fetches), consumed by the readiness rules (which never
 * fetch). Check ids are those of docs/spec/trust-rubric.md (R1–R3, C1–C5, S1, S4, S5) so a finding can be held against it.
 */

export type ChallengeKind = "x402-v2" | "x402-v1" | "mpp" | "none";
export type FindingSeverity = "pass" | "info" | "warn" | "fail";

export interface Finding {
  /** docs/spec/trust-rubric.md check id (e.g. "C2", "S1") or a probe-level id ("PROBE"). */
  check: string;
  severity: FindingSeverity;
  /** Stable machine code, e.g. "payto_not_checksummed". */
  code: string;
  /** Plain words for the seller. */
  message: string;
  /** JSON pointer into the decoded challenge when the finding is about one field. */
  pointer?: string;
}

export interface TlsFacts {
  /** The chain verified against the system's trust store. */
  valid: boolean;
  /** Days until the leaf certificate expires; null when not over TLS. */
  daysToExpiry: number | null;
}

/** One accepted payment option, normalised across x402 v1/v2 (amount in atomic units). */
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
  /** The challenge decoded and well-formed enough to pay (C1 and C2 pass). */
  valid: boolean;
  /** The decoded x402 PaymentRequired (header or body) as received, for the report. */
  x402?: unknown;
  /** Which bazaar reading the seller used, when the extension is present. */
  bazaarReading?: "coinbase" | "x402-foundation" | null;
  /** Normalised x402 accepts entries. */
  requirements?: NormalisedRequirement[];
  /** Parsed MPP challenges from WWW-Authenticate: Payment. */
  mpp?: Array<{ id: string; realm: string; method: string; intent: string; request: unknown; expires?: string | null }>;
}

export interface EndpointEvidence {
  method: string;
  path: string;
  url: string;
  /** R1: a response arrived within the deadline. */
  reachable: boolean;
  /** Set when the SSRF guard refused the URL before any request. */
  refusal?: string | null;
  status: number | null;
  ttfbMs: number | null;
  tls: TlsFacts | null;
  contentType: string | null;
  /** Selected response headers, lower-cased names (PAYMENT-REQUIRED, WWW-Authenticate …). */
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

/**
 * D3 (readiness/1.1.0 reading "endpoint-docs"): what the probe found on one endpoint's docs page. The
 * probe only records; the readiness engine decides whether that shows the endpoint's schemas and an example.
 */
export interface EndpointDocsEvidence {
  method: string;
  path: string;
  /** The page fetched (fragment dropped), or null when the endpoint's docsUrl could not be resolved. */
  url: string | null;
  /** The page answered 2xx within the bounds. */
  ok: boolean;
  status: number | null;
  contentType: string | null;
  refusal?: string | null;
  /** The body was longer than the probe reads; only its start was searched. */
  truncated: boolean;
  /** The page contains the endpoint's path. */
  pathShown: boolean;
  /** Property names of the endpoint's request and response schemas the page contains as whole words. */
  names: string[];
  /** An example: an HTML <pre> or <code> element, a ``` fence, a curl command, or an "example" key in a JSON page. */
  example: boolean;
}

/** Trust H4: the ownership proofs kept from one `/.well-known/x402`; more are dropped (the probe) or ignored (the reader). */
export const MAX_OWNERSHIP_PROOFS = 16;

/** Probe evidence formats this code reads. 2 adds `endpointDocs` (D3 in readiness/1.1.0). */
export const PROBE_EVIDENCE_VERSIONS = [1, 2] as const;
export type ProbeEvidenceVersion = (typeof PROBE_EVIDENCE_VERSIONS)[number];
/** The format lib/probe writes. */
export const PROBE_EVIDENCE_VERSION: ProbeEvidenceVersion = 2;

export interface ProbeEvidence {
  version: ProbeEvidenceVersion;
  probedAt: string;
  /** Where the probe ran from (a region name, or "local"). */
  vantage: string;
  baseUrl: string;
  endpoints: EndpointEvidence[];
  /** M4: the logo was fetched and its bytes are an image. */
  logo: (ResourceEvidence & { isImage: boolean }) | null;
  /** D1 */
  docs: ResourceEvidence | null;
  /**
   * D4: the first machine-readable discovery document found. `ownershipProofs` (trust H4) is set only
   * when that document is the operator's own `/.well-known/x402` (its path at the baseUrl's origin):
   * its `ownershipProofs` strings that are hex signatures, as written ([] when it lists none).
   */
  discovery: (ResourceEvidence & { kind: "well-known-x402" | "openapi" | null; ownershipProofs?: string[] }) | null;
  /** D3: one entry per endpoint that declares a docsUrl (version 2 onwards). */
  endpointDocs?: EndpointDocsEvidence[];
  findings: Finding[];
}

/**
 * A `probe_evidence.evidence` value, read back. An analysis stores the probe evidence alone (its settle
 * and liveness facts come from the ledger at scoring time); the demo's fixture shapes store the whole
 * readiness evidence they were scored with, facts included. Both read back the same way here.
 */
export function splitStoredEvidence(json: unknown): { probe: ProbeEvidence | null; settle: unknown; liveness: unknown } {
  if (json && typeof json === "object" && "probe" in json) {
    const j = json as { probe: ProbeEvidence; settle?: unknown; liveness?: unknown };
    return { probe: j.probe, settle: j.settle, liveness: j.liveness };
  }
  return { probe: (json as ProbeEvidence) ?? null, settle: undefined, liveness: undefined };
}
