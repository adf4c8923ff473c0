/**
 * The ledger's scheduled work, for the lead's scheduler to run: the health sweep probes every
 * published listing every 5 minutes (an hour of samples is aggregate.ts MIN_UPTIME_SAMPLES), and the
 * rank sweep re-ranks changed listings every 30 seconds (seed 004: "every tick"). The tick is a due
 * sweep: it reads only the listings marked by the rank-input triggers, due by time or never ranked,
 * and every FULL_SWEEP_INTERVAL_MS it reads the whole catalog (docs/RANK.md "The tick"). At
 * bench:rank's 100,000 listings a tick with nothing due takes milliseconds where a full read takes
 * 1.6–2.5 s (docs/BENCHMARKS.md). Each health sweep marks every listing it probed, so the first tick
 * after it reads most of the catalog (a full read, DUE_FULL_SHARE), and the ticks between are cheap.
 */
import { runHealthSweep } from "./health-sweep";
import { runRankSweep } from "./rank-sweep";

export interface LedgerTick {
  name: string;
  intervalMs: number;
  run: () => Promise<void>;
}

export const HEALTH_SWEEP_INTERVAL_MS = 5 * 60_000;
export const RANK_SWEEP_INTERVAL_MS = 30_000;

export const ledgerTicks: LedgerTick[] = [
  { name: "ledger.health-sweep", intervalMs: HEALTH_SWEEP_INTERVAL_MS, run: async () => void (await runHealthSweep()) },
  { name: "ledger.rank-sweep", intervalMs: RANK_SWEEP_INTERVAL_MS, run: async () => void (await runRankSweep({ mode: "due" })) },
];
