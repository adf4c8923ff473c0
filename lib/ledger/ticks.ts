/**
 * The ledger's scheduled work, for the lead's scheduler to run: the health sweep probes every
 * published listing every 5 minutes (an hour of samples is aggregate.ts MIN_UPTIME_SAMPLES), and the
 * rank sweep re-ranks changed listings every 30 seconds (seed 004: "every tick"). Unchanged inputs
 * are skipped by hash, so such a tick writes nothing, but it still reads every listing's facts: at
 * bench:rank's 100,000 listings that is 3–4.5 s on 2 cores (docs/BENCHMARKS.md, "repeat sweep").
 * Each new health sample moves its listing's uptime, so in steady state every listing changes about
 * once per health sweep anyway.
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
  { name: "ledger.rank-sweep", intervalMs: RANK_SWEEP_INTERVAL_MS, run: async () => void (await runRankSweep()) },
];
