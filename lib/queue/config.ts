/**
 * Queue settings in one place. Defaults suit production; tests shorten the lease and backoff with
 * configureQueue() (the API process owns these numbers; a worker only asks for a lease length and
 * the API clamps it).
 */
import { env } from "@/lib/env";

export interface QueueConfig {
  /** Lease length when the worker asks for none. A heartbeat every third of it keeps a job alive. */
  defaultLeaseMs: number;
  /** Bounds on what a worker may ask for. */
  minLeaseMs: number;
  maxLeaseMs: number;
  /** Most jobs one claim may take. */
  maxBatch: number;
  /** Retry backoff: base × 2^(attempt−1), capped, with full jitter (AWS "Exponential Backoff and Jitter"). */
  backoffBaseMs: number;
  backoffCapMs: number;
  /** Full jitter on (production) or off (tests that check exact growth). */
  backoffJitter: boolean;
  /** Attempts before an analysis ends in `failed`. */
  maxAttempts: number;
  /** docs/spec/scoring-system.md "Trigger": "the staleness sweep re-queues a 7-day-old score". */
  staleAfterDays: number;
  /**
   * Hard timeout of one attempt, from its claim (TOLLGATE_ANALYSIS_TIMEOUT_S): the lease never runs
   * past claim + this, whatever the heartbeats ask, and the attempt is then reaped as timed out.
   */
  jobTimeoutMs: number;
  /** Retention (TOLLGATE_QUEUE_RETENTION_DAYS): finished analyses older than this are archived; null keeps all. */
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

/** The settings: the defaults, with the timeout and retention from the environment (lib/env.ts), unless configured. */
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

/** Override settings for this process (tests, the benchmark); returns the previous ones. */
export function configureQueue(over: Partial<QueueConfig>): QueueConfig {
  const previous = queueConfig();
  current = { ...previous, ...over };
  return previous;
}

/** The largest wait before retry `attempt` (1-based: the wait after the first failed attempt is base). */
export function backoffCeilingMs(attempt: number, cfg: QueueConfig = queueConfig()): number {
  const exp = Math.max(0, attempt - 1);
  // 2^exp overflows to Infinity long after the cap bites; min() keeps it finite.
  return Math.min(cfg.backoffCapMs, cfg.backoffBaseMs * 2 ** Math.min(exp, 52));
}

export function clampLeaseMs(requested: number | undefined, cfg: QueueConfig = queueConfig()): number {
  if (requested === undefined) return cfg.defaultLeaseMs;
  return Math.min(cfg.maxLeaseMs, Math.max(cfg.minLeaseMs, Math.round(requested)));
}
