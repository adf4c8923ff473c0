/**
 * GET /api/ops/metrics: prom-client on its own Registry. The depth gauge is read at scrape time, so it is right
 * whichever process changed the rows.
 */
import { Counter, Gauge, Histogram, Registry } from "prom-client";

export const PROBE_OUTCOME_KINDS = ["x402-v2", "x402-v1", "mpp", "none", "refused"] as const;
export type ProbeOutcomeKind = (typeof PROBE_OUTCOME_KINDS)[number];
const STATES = ["deferred", "queued", "running", "succeeded", "failed", "dead"] as const;

export interface AnalysisMetrics {
  registry: Registry;
  claims: Counter;
  leaseExpiries: Counter;
  retries: Counter<"cause">;
  completions: Counter<"outcome">;
  probeOutcomes: Counter<"kind">;
  probeSeconds: Histogram;
  scoringSeconds: Histogram;
  queueDepth: Gauge<"state">;
}

/** Set by the route module, so this file needs no database. */
type DepthReader = () => Promise<Record<string, number>>;
let depthReader: DepthReader | null = null;
export function setQueueDepthReader(fn: DepthReader): void {
  depthReader = fn;
}

function build(): AnalysisMetrics {
  const registry = new Registry();
  const m: AnalysisMetrics = {
    registry,
    claims: new Counter({ name: "tollgate_analysis_claims_total", help: "Jobs leased to catalog-monitor workers.", registers: [registry] }),
    leaseExpiries: new Counter({ name: "tollgate_analysis_lease_expiries_total", help: "Leases that expired without completion (reaped).", registers: [registry] }),
    retries: new Counter({ name: "tollgate_analysis_retries_total", help: "Jobs re-queued with backoff, by cause.", labelNames: ["cause"], registers: [registry] }),
    completions: new Counter({ name: "tollgate_analysis_completions_total", help: "Analyses that reached a terminal state, by outcome.", labelNames: ["outcome"], registers: [registry] }),
    probeOutcomes: new Counter({
      name: "tollgate_probe_outcomes_total",
      help: "Probed endpoints by payment challenge kind; refused counts probes the SSRF guard refused.",
      labelNames: ["kind"],
      registers: [registry],
    }),
    probeSeconds: new Histogram({
      name: "tollgate_probe_duration_seconds",
      help: "Probe duration as reported by the worker with its completion.",
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
    scoringSeconds: new Histogram({
      name: "tollgate_scoring_duration_seconds",
      help: "Completion transaction time: ledger facts, rubric, evidence and result rows, pointer move.",
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
      registers: [registry],
    }),
    queueDepth: new Gauge({
      name: "tollgate_analysis_queue_depth",
      help: "Analyses by state, read from the database at scrape time.",
      labelNames: ["state"],
      registers: [registry],
      async collect() {
        if (!depthReader) return;
        const counts = await depthReader();
        for (const s of STATES) this.set({ state: s }, counts[s] ?? 0);
      },
    }),
  };
  // Zero series from the start: "none yet" differs from "not exported".
  for (const k of PROBE_OUTCOME_KINDS) m.probeOutcomes.inc({ kind: k }, 0);
  for (const o of ["succeeded", "failed", "dead"]) m.completions.inc({ outcome: o }, 0);
  for (const c of ["lease_expired", "worker_failure"]) m.retries.inc({ cause: c }, 0);
  return m;
}

const holder = globalThis as unknown as { tollgateAnalysisMetrics?: AnalysisMetrics };
/** On globalThis: Next's dev server re-evaluates modules. */
export function analysisMetrics(): AnalysisMetrics {
  return (holder.tollgateAnalysisMetrics ??= build());
}
