/**
 * A sweep worker: the scheduler with `sweepTicks` in its own process. Run any number: advisory locks and leases keep
 * each sweep's work single.
 */
import { startScheduler, type Scheduler, type Tick } from "@/lib/scheduler";
import { sweepTicks } from "./server-jobs";

export interface SweepWorkerOptions {
  /** Tick names to run (default all); an unknown name is refused. */
  only?: string[];
  initialDelayMs?: number;
  log?: (line: string) => void;
}

export function sweepTicksNamed(only: string[] | undefined): Tick[] {
  if (!only) return sweepTicks;
  const known = new Set(sweepTicks.map((t) => t.name));
  const unknown = only.filter((n) => !known.has(n));
  if (unknown.length) throw new Error(`unknown sweep ${unknown.join(", ")}; the sweeps are ${[...known].join(", ")}`);
  return sweepTicks.filter((t) => only.includes(t.name));
}

export function startSweepWorker(opts: SweepWorkerOptions = {}): Scheduler {
  return startScheduler(sweepTicksNamed(opts.only), { initialDelayMs: opts.initialDelayMs, log: opts.log });
}
