/**
 * One scheduler for every module's periodic work: each tick on its own interval, never overlapping itself, a failure
 * logged and retried next time. Single-leader work takes an advisory lock itself.
 */
export interface Tick {
  name: string;
  intervalMs: number;
  run: () => Promise<void>;
}

export interface Scheduler {
  stop(): Promise<void>;
  /** For tests and the metrics page. */
  runs(): Record<string, { ok: number; failed: number; lastError: string | null }>;
}

export function startScheduler(ticks: Tick[], opts: { initialDelayMs?: number; log?: (msg: string) => void } = {}): Scheduler {
  const log = opts.log ?? ((m: string) => console.error(m));
  const timers = new Set<NodeJS.Timeout>();
  const running = new Map<string, Promise<void>>();
  const stats: Record<string, { ok: number; failed: number; lastError: string | null }> = {};
  let stopped = false;

  for (const tick of ticks) {
    stats[tick.name] = { ok: 0, failed: 0, lastError: null };
    const fire = () => {
      if (stopped || running.has(tick.name)) return;
      const p = tick
        .run()
        .then(() => void stats[tick.name].ok++)
        .catch((err: unknown) => {
          stats[tick.name].failed++;
          stats[tick.name].lastError = (err as Error)?.message ?? String(err);
          log(`[scheduler] ${tick.name} failed: ${stats[tick.name].lastError}`);
        })
        .finally(() => running.delete(tick.name));
      running.set(tick.name, p);
    };
    const first = setTimeout(() => {
      fire();
      const every = setInterval(fire, tick.intervalMs);
      every.unref();
      timers.add(every);
    }, opts.initialDelayMs ?? 1_000);
    first.unref();
    timers.add(first);
  }

  return {
    async stop() {
      stopped = true;
      for (const t of timers) clearTimeout(t);
      await Promise.allSettled([...running.values()]);
    },
    runs: () => structuredClone(stats),
  };
}
