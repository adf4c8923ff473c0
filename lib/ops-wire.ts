/**
 * The ops API's wire shapes: a leaf both sides import, the API (lib/ops, lib/queue) and the
 * catalog-monitor worker (lib/catalog-monitor): types, one error class, the prefetched calls' wire form.
 */
import type { ListingDocument } from "@/lib/listing-document/document";
import type { ProbeEvidence } from "@/lib/evidence";
import type { SafeFetchFailure, SafeFetchRefusal, SafeFetchResult, SafeFetchSuccess } from "@/lib/net/types";
/** A claimed lease's own fields, as the queue stores them (lib/queue/lease.ts LeasedRow adds the submitter). */
export interface LeaseFields {
  id: string;
  /** Null for a URL submission: the listing is drafted from targetUrl first. */
  listingId: string | null;
  trigger: string;
  targetUrl: string;
  attempt: number;
  maxAttempts: number;
  leaseToken: string;
  leaseExpiresAt: string;
}

/** A claimed lease as the worker receives it: the lease's fields (never the submitter) and what to probe. */
export interface LeasedJob extends LeaseFields {
  /** The listing document to probe (null for a URL submission). */
  document: ListingDocument | null;
  /** host:port entries the probe may reach over plain http / loopback (TOLLGATE_PROBE_ALLOW_HOSTS). */
  allowHosts: string[];
  /** A publish analysis: the unpaid calls the form door's draft made of these endpoints (lib/queue/draft-calls.ts). */
  prefetched?: PrefetchedCall[];
}

/** An unpaid call already made, as the wire and the database carry it: keyed by unpaidKey, the body in base64. */
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
  /** The rubric versions ("readiness/1.1.0") this monitor's probe supports (lib/probe/capabilities.ts). */
  rubricVersions: readonly string[];
}
export interface ClaimResponse {
  jobs: LeasedJob[];
  /** Set when the monitor supports not the rubric the API serves: it gets no job, and analyses wait in the queue. */
  waiting?: { rubricVersion: string; reason: string };
}
export interface HeartbeatRequest {
  leaseToken: string;
  leaseMs?: number;
  step?: "probing";
  /** The probe's endpoints done of all, for the owner's live progress. */
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
  /** queued again (backoff), dead (attempts used up: the dead letter) or failed (not retryable). */
  state: "queued" | "failed" | "dead";
  attempts: number;
  maxAttempts: number;
  runAfter: string;
}

/** What a worker's transport does: over HTTP (separate processes) or direct calls (in-process). */
export interface OpsClient {
  claim(req: ClaimRequest): Promise<ClaimResponse>;
  heartbeat(id: string, req: HeartbeatRequest): Promise<HeartbeatResponse>;
  complete(id: string, req: CompleteRequest): Promise<CompleteResponse>;
  fail(id: string, req: FailRequest): Promise<FailResponse>;
}

/** A fenced call missed: the lease expired or was re-issued. The worker drops the job. */
export class LeaseLostError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "LeaseLostError";
  }
}
