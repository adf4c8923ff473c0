/**
 * Queue settings in one place. Defaults suit production; tests shorten the lease and backoff with
 * configureQueue() (the API process owns these numbers; a worker only asks for a lease length and
 * the API clamps it).
 */
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
};

let current: QueueConfig = { ...DEFAULT_QUEUE_CONFIG };

export function queueConfig(): QueueConfig {
  return current;
}

/** Override settings for this process (tests, the benchmark); returns the previous ones. */
export function configureQueue(over: Partial<QueueConfig>): QueueConfig {
  const previous = current;
  current = { ...current, ...over };
  return previous;
}

/** The largest wait before retry `attempt` (1-based: the wait after the first failed attempt is base). */
export function backoffCeilingMs(attempt: number, cfg: QueueConfig = current): number {
  const exp = Math.max(0, attempt - 1);
  // 2^exp overflows to Infinity long after the cap bites; min() keeps it finite.
  return Math.min(cfg.backoffCapMs, cfg.backoffBaseMs * 2 ** Math.min(exp, 52));
}

export function clampLeaseMs(requested: number | undefined, cfg: QueueConfig = current): number {
  if (requested === undefined) return cfg.defaultLeaseMs;
  return Math.min(cfg.maxLeaseMs, Math.max(cfg.minLeaseMs, Math.round(requested)));
}
