/**
 * The catalog-monitor worker loop: no database credentials, everything through an OpsClient (HTTP, or direct calls
 * in-process). A job whose lease was lost is dropped: another worker owns it.
 */
import crypto from "node:crypto";
import os from "node:os";
import { LeaseLostError, type ClaimRequest, type ClaimResponse, type CompleteRequest, type CompleteResponse, type FailRequest, type FailResponse, type HeartbeatRequest, type HeartbeatResponse, type LeasedJob, type OpsClient } from "@/lib/ops-wire";
import { abortableSleep, type ProbeFn } from "./probes";
import { MONITOR_RUBRIC_VERSIONS } from "@/lib/probe/capabilities";

export interface WorkerOptions {
  ops: OpsClient;
  probe: ProbeFn;
  workerId?: string;
  /** Default 4. */
  concurrency?: number;
  /** Default 60 s. */
  leaseMs?: number;
  /** Default 1 s. */
  idlePollMs?: number;
  signal?: AbortSignal;
  log?: (line: string) => void;
}

export interface WorkerStats {
  claimed: number;
  completed: number;
  failed: number;
  leaseLost: number;
}

export function defaultWorkerId(): string {
  return `${os.hostname()}:${process.pid}:${crypto.randomBytes(3).toString("hex")}`;
}

export async function runWorker(opts: WorkerOptions): Promise<WorkerStats> {
  const workerId = opts.workerId ?? defaultWorkerId();
  const concurrency = Math.max(1, opts.concurrency ?? 4);
  const leaseMs = opts.leaseMs ?? 60_000;
  const idlePollMs = opts.idlePollMs ?? 1_000;
  const log = opts.log ?? (() => {});
  const signal = opts.signal ?? new AbortController().signal;
  const stats: WorkerStats = { claimed: 0, completed: 0, failed: 0, leaseLost: 0 };
  const inflight = new Set<Promise<void>>();
  let lastWaiting: string | null = null;

  while (!signal.aborted) {
    const free = concurrency - inflight.size;
    let jobs: LeasedJob[] = [];
    if (free > 0) {
      try {
        const claimed = await opts.ops.claim({ workerId, limit: free, leaseMs, rubricVersions: MONITOR_RUBRIC_VERSIONS });
        jobs = claimed.jobs;
        if (claimed.waiting && claimed.waiting.reason !== lastWaiting) log(claimed.waiting.reason);
        lastWaiting = claimed.waiting?.reason ?? null;
      } catch (e) {
        // The HTTP client already retried; keep the loop alive.
        log(`claim failed: ${(e as Error).message}`);
        await abortableSleep(idlePollMs, signal);
      }
    }
    stats.claimed += jobs.length;
    for (const job of jobs) {
      const p: Promise<void> = runJob(job, { ...opts, workerId, leaseMs, signal, log }, stats).finally(() => inflight.delete(p));
      inflight.add(p);
    }
    if (jobs.length === 0) {
      await Promise.race([abortableSleep(idlePollMs, signal), ...inflight]);
    } else if (inflight.size >= concurrency) {
      await Promise.race([...inflight]);
    }
  }
  await Promise.allSettled([...inflight]);
  return stats;
}

async function runJob(job: LeasedJob, opts: WorkerOptions & { workerId: string; leaseMs: number; signal: AbortSignal; log: (l: string) => void }, stats: WorkerStats): Promise<void> {
  const { ops, log, leaseMs } = opts;
  const lost = new AbortController();
  const markLost = (why: string) => {
    if (!lost.signal.aborted) {
      stats.leaseLost++;
      log(`lease lost on ${job.id}: ${why}`);
      lost.abort();
    }
  };
  // Progress goes on the next heartbeat; a change sends one early (at most every PROGRESS_BEAT_MS).
  let progress: { done: number; total: number } | undefined;
  let lastSent = "";
  let progressTimer: ReturnType<typeof setTimeout> | null = null;
  let probing = true;
  const onProgress = (done: number, total: number) => {
    progress = { done, total };
    if (!probing || progressTimer || lost.signal.aborted) return;
    progressTimer = setTimeout(() => {
      progressTimer = null;
      if (probing && !lost.signal.aborted && JSON.stringify(progress) !== lastSent) void beat();
    }, PROGRESS_BEAT_MS);
  };
  const beat = async () => {
    try {
      const sent = progress;
      await ops.heartbeat(job.id, { leaseToken: job.leaseToken, leaseMs, step: "probing", ...(sent ? { progress: sent } : {}) });
      if (sent) lastSent = JSON.stringify(sent);
    } catch (e) {
      if (e instanceof LeaseLostError) markLost(e.message);
      else log(`heartbeat on ${job.id} failed: ${(e as Error).message}`);
    }
  };
  const timer = setInterval(beat, Math.max(50, Math.floor(leaseMs / 3)));
  try {
    await beat();
    if (lost.signal.aborted) return;
    const started = performance.now();
    const outcome = await opts.probe(job, lost.signal, onProgress).catch((e: Error) => ({ ok: false as const, reason: `probe crashed: ${e.message}`, retryable: true }));
    const probeMs = Math.round(performance.now() - started);
    if (lost.signal.aborted) return;
    clearInterval(timer);
    probing = false;
    if (progressTimer) clearTimeout(progressTimer);
    progressTimer = null;
    try {
      if (outcome.ok) {
        await ops.complete(job.id, { leaseToken: job.leaseToken, evidence: outcome.evidence, document: outcome.document ?? undefined, probeMs });
        stats.completed++;
      } else {
        await ops.fail(job.id, { leaseToken: job.leaseToken, reason: outcome.reason, retryable: outcome.retryable });
        stats.failed++;
      }
    } catch (e) {
      if (e instanceof LeaseLostError) return markLost(e.message);
      // Evidence refused (4xx) or the API down past the retries: give the job back if we still can.
      log(`completing ${job.id} failed: ${(e as Error).message}`);
      await ops.fail(job.id, { leaseToken: job.leaseToken, reason: `completion refused: ${(e as Error).message}`.slice(0, 2000), retryable: true }).then(
        () => void stats.failed++,
        () => {}, // the lease expires and the reaper re-queues it
      );
    }
  } finally {
    clearInterval(timer);
    if (progressTimer) clearTimeout(progressTimer);
  }
}

const PROGRESS_BEAT_MS = 200;

export class OpsHttpError extends Error {
  constructor(public readonly status: number, public readonly body: unknown, message: string) {
    super(message);
    this.name = "OpsHttpError";
  }
}

export interface HttpOpsOptions {
  apiUrl: string;
  token: string;
  /** Full-jitter backoff on connection errors, 5xx and 429. */
  retry?: { baseMs?: number; capMs?: number; maxElapsedMs?: number };
  fetch?: typeof fetch;
  log?: (line: string) => void;
}

/**
 * The ops API over HTTP: connection errors and 5xx retried with capped backoff, 409 lease_lost → LeaseLostError,
 * other 4xx thrown.
 */
export function httpOpsClient(o: HttpOpsOptions): OpsClient {
  const base = o.apiUrl.replace(/\/+$/, "");
  const doFetch = o.fetch ?? fetch;
  const baseMs = o.retry?.baseMs ?? 100;
  const capMs = o.retry?.capMs ?? 5_000;
  const maxElapsedMs = o.retry?.maxElapsedMs ?? 5 * 60_000;

  async function call<T>(path: string, body: unknown): Promise<T> {
    const started = Date.now();
    for (let attempt = 1; ; attempt++) {
      let retryable: string;
      try {
        const res = await doFetch(`${base}${path}`, {
          method: "POST",
          headers: { authorization: `Bearer ${o.token}`, "content-type": "application/json" },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(30_000),
        });
        const text = await res.text();
        const json = text ? safeJson(text) : null;
        if (res.ok) return json as T;
        const code = (json as { error?: { code?: string; message?: string } } | null)?.error;
        if (res.status === 409 && code?.code === "lease_lost") throw new LeaseLostError(code.message ?? "lease lost");
        if (res.status < 500 && res.status !== 429) throw new OpsHttpError(res.status, json, `${path} answered ${res.status}: ${code?.message ?? text.slice(0, 200)}`);
        retryable = `${res.status} ${code?.message ?? ""}`.trim();
      } catch (e) {
        if (e instanceof LeaseLostError || e instanceof OpsHttpError) throw e;
        retryable = (e as Error).message + ((e as { cause?: Error }).cause ? `: ${(e as { cause?: Error }).cause?.message}` : "");
      }
      const wait = Math.random() * Math.min(capMs, baseMs * 2 ** (attempt - 1));
      if (Date.now() - started + wait > maxElapsedMs) throw new Error(`${path} still failing after ${attempt} attempts: ${retryable}`);
      o.log?.(`${path} attempt ${attempt} failed (${retryable}); retrying in ${Math.round(wait)} ms`);
      await new Promise((r) => setTimeout(r, wait));
    }
  }
  const enc = encodeURIComponent;
  return {
    claim: (r: ClaimRequest) => call<ClaimResponse>("/api/ops/leases", r),
    heartbeat: (id: string, r: HeartbeatRequest) => call<HeartbeatResponse>(`/api/ops/leases/${enc(id)}/heartbeat`, r),
    complete: (id: string, r: CompleteRequest) => call<CompleteResponse>(`/api/ops/leases/${enc(id)}/complete`, r),
    fail: (id: string, r: FailRequest) => call<FailResponse>(`/api/ops/leases/${enc(id)}/fail`, r),
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
