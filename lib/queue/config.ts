/**
 * Queue settings in one place; tests shorten them with configureQueue(). The API owns these numbers: a worker's asked
 * lease length is clamped.
 */
import { env } from "@/lib/env";

export interface QueueConfig {
  /** A heartbeat every third of it keeps a job alive. */
  defaultLeaseMs: number;
  /** Bounds on what a worker may ask for. */
  minLeaseMs: number;
  maxLeaseMs: number;
  maxBatch: number;
  /** base × 2^(attempt−1), capped, with full jitter. */
  backoffBaseMs: number;
  backoffCapMs: number;
  /** Off only in tests that check exact growth. */
  backoffJitter: boolean;
  /** Attempts before `failed`. */
  maxAttempts: number;
  /** docs/spec/scoring-system.md "Trigger": a 7-day-old score is re-queued. */
  staleAfterDays: number;
  /** From the claim (TOLLGATE_ANALYSIS_TIMEOUT_S): the lease never runs past it, whatever the heartbeats ask. */
  jobTimeoutMs: number;
  /** TOLLGATE_QUEUE_RETENTION_DAYS; null keeps all. */
  retentionDays: number | null;
}

export const DEFAULT_QUEUE_CONFIG: QueueConfig = {
  defaultLeaseMs: 60_000,
  minLeaseMs: 250,
  maxLeaseMs: 10 * 60_000,
  maxBatch: 100,
  backoffBaseMs: 2_000,
  backoffCapMs: 5 * 60_000,
  backoffJitter: true,
  maxAttempts: 5,
  staleAfterDays: 7,
  jobTimeoutMs: 15 * 60_000,
  retentionDays: 30,
};

let current: QueueConfig | null = null;

export function queueConfig(): QueueConfig {
  if (!current) {
    const e = env();
    current = {
      ...DEFAULT_QUEUE_CONFIG,
      jobTimeoutMs: e.TOLLGATE_ANALYSIS_TIMEOUT_S * 1000,
      retentionDays: e.TOLLGATE_QUEUE_RETENTION_DAYS === "off" ? null : Number(e.TOLLGATE_QUEUE_RETENTION_DAYS),
    };
  }
  return current;
}

/** Tests and the benchmark; returns the previous settings. */
export function configureQueue(over: Partial<QueueConfig>): QueueConfig {
  const previous = queueConfig();
  current = { ...previous, ...over };
  return previous;
}

/** `attempt` is 1-based: the wait after the first failure is base. */
export function backoffCeilingMs(attempt: number, cfg: QueueConfig = queueConfig()): number {
  const exp = Math.max(0, attempt - 1);
  // min() keeps 2^exp finite.
  return Math.min(cfg.backoffCapMs, cfg.backoffBaseMs * 2 ** Math.min(exp, 52));
}

export function clampLeaseMs(requested: number | undefined, cfg: QueueConfig = queueConfig()): number {
  if (requested === undefined) return cfg.defaultLeaseMs;
  return Math.min(cfg.maxLeaseMs, Math.max(cfg.minLeaseMs, Math.round(requested)));
}
