/**
 * The ops API's wire shapes: a leaf both the API (lib/ops, lib/queue) and the worker (lib/catalog-monitor) import.
 */
import type { ListingDocument } from "@/lib/listing-document/document";
import type { ProbeEvidence } from "@/lib/evidence";
import type { SafeFetchFailure, SafeFetchRefusal, SafeFetchResult, SafeFetchSuccess } from "@/lib/net/types";
/** lib/queue/lease.ts LeasedRow adds the submitter. */
export interface LeaseFields {
  id: string;
  /** Null for a URL submission: drafted from targetUrl first. */
  listingId: string | null;
  trigger: string;
  targetUrl: string;
  attempt: number;
  maxAttempts: number;
  leaseToken: string;
  leaseExpiresAt: string;
}

/** Never the submitter. */
export interface LeasedJob extends LeaseFields {
  /** Null for a URL submission. */
  document: ListingDocument | null;
  /** Loopback host:port entries reachable over plain http. */
  allowHosts: string[];
  /** A publish analysis: the form door's draft calls (lib/queue/draft-calls.ts). */
  prefetched?: PrefetchedCall[];
}

/** Keyed by unpaidKey, the body in base64. */
export interface PrefetchedCall {
  key: string;
  deadlineMs: number;
  maxBodyBytes: number;
  result: SafeFetchRefusal | SafeFetchFailure | (Omit<SafeFetchSuccess, "body"> & { body: string });
}

type Calls = ReadonlyMap<string, { result: SafeFetchResult; deadlineMs: number; maxBodyBytes: number }>;

export function callsToWire(calls: Calls): PrefetchedCall[] {
  return [...calls].map(([key, c]) => ({ key, deadlineMs: c.deadlineMs, maxBodyBytes: c.maxBodyBytes, result: c.result.ok ? { ...c.result, body: Buffer.from(c.result.body).toString("base64") } : c.result }));
}

export function callsFromWire(calls: readonly PrefetchedCall[]): Calls {
  return new Map(calls.map((c) => [c.key, { deadlineMs: c.deadlineMs, maxBodyBytes: c.maxBodyBytes, result: c.result.ok ? { ...c.result, body: new Uint8Array(Buffer.from(c.result.body, "base64")) } : c.result }]));
}

export interface ClaimRequest {
  workerId: string;
  limit: number;
  leaseMs?: number;
  /** lib/probe/capabilities.ts. */
  rubricVersions: readonly string[];
}
export interface ClaimResponse {
  jobs: LeasedJob[];
  /** The monitor does not support the served rubric: no job. */
  waiting?: { rubricVersion: string; reason: string };
}
export interface HeartbeatRequest {
  leaseToken: string;
  leaseMs?: number;
  step?: "probing";
  progress?: { done: number; total: number };
}
export interface HeartbeatResponse {
  leaseExpiresAt: string;
  step: string;
}
export interface CompleteRequest {
  leaseToken: string;
  evidence: ProbeEvidence;
  document?: ListingDocument | null;
  probeMs?: number;
}
export interface CompleteResponse {
  analysisId: string;
  listingId: string;
  resultId: string | null;
  total: number | null;
  band: string | null;
  rubricVersion: string;
  alreadyCompleted: boolean;
}
export interface FailRequest {
  leaseToken: string;
  reason: string;
  retryable?: boolean;
}
export interface FailResponse {
  /** Dead: attempts used up; failed: not retryable. */
  state: "queued" | "failed" | "dead";
  attempts: number;
  maxAttempts: number;
  runAfter: string;
}

/** HTTP (separate processes) or direct calls (in-process). */
export interface OpsClient {
  claim(req: ClaimRequest): Promise<ClaimResponse>;
  heartbeat(id: string, req: HeartbeatRequest): Promise<HeartbeatResponse>;
  complete(id: string, req: CompleteRequest): Promise<CompleteResponse>;
  fail(id: string, req: FailRequest): Promise<FailResponse>;
}

/** The lease expired or was re-issued: the worker drops the job. */
export class LeaseLostError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "LeaseLostError";
  }
}
