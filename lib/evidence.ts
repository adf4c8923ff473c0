/** Probe evidence as lib/probe writes it and the readiness rules read it (check ids: docs/spec/trust-rubric.md). */

export type ChallengeKind = "x402-v2" | "x402-v1" | "mpp" | "none";
export type FindingSeverity = "pass" | "info" | "warn" | "fail";

export interface Finding {
  check: string;
  severity: FindingSeverity;
  code: string;
  message: string;
  pointer?: string;
}

export interface TlsFacts {
  valid: boolean;
  daysToExpiry: number | null;
}

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
  /** R1 */
  reachable: boolean;
  refusal?: string | null;
  /** Resolving the host failed with this code (lib/net/types.ts `resolverError`). */
  resolverError?: string;
  status: number | null;
  ttfbMs: number | null;
  tls: TlsFacts | null;
  contentType: string | null;
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

/** D3 */
export interface EndpointDocsEvidence {
  method: string;
  path: string;
  url: string | null;
  ok: boolean;
  status: number | null;
  contentType: string | null;
  refusal?: string | null;
  truncated: boolean;
  pathShown: boolean;
  names: string[];
  example: boolean;
}

/** Trust H4. */
export const MAX_OWNERSHIP_PROOFS = 16;

export const PROBE_EVIDENCE_VERSIONS = [1, 2] as const;
export type ProbeEvidenceVersion = (typeof PROBE_EVIDENCE_VERSIONS)[number];
export const PROBE_EVIDENCE_VERSION: ProbeEvidenceVersion = 2;

export interface ProbeEvidence {
  version: ProbeEvidenceVersion;
  probedAt: string;
  vantage: string;
  baseUrl: string;
  endpoints: EndpointEvidence[];
  /** M4 */
  logo: (ResourceEvidence & { isImage: boolean }) | null;
  /** D1 */
  docs: ResourceEvidence | null;
  /** D4; `ownershipProofs` (H4) only from the operator's own `/.well-known/x402`. */
  discovery: (ResourceEvidence & { kind: "well-known-x402" | "openapi" | null; ownershipProofs?: string[] }) | null;
  /** D3 */
  endpointDocs?: EndpointDocsEvidence[];
  findings: Finding[];
}

/** Analyses store the probe alone; the demo's fixtures store the whole evidence. */
export function splitStoredEvidence(json: unknown): { probe: ProbeEvidence | null; settle: unknown; liveness: unknown } {
  if (json && typeof json === "object" && "probe" in json) {
    const j = json as { probe: ProbeEvidence; settle?: unknown; liveness?: unknown };
    return { probe: j.probe, settle: j.settle, liveness: j.liveness };
  }
  return { probe: (json as ProbeEvidence) ?? null, settle: undefined, liveness: undefined };
}
