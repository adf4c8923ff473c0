/**
 * The ledger's scheduled work, for the lead's scheduler to run: the health sweep probes every
 * published listing every 5 minutes (an hour of samples is aggregate.ts MIN_UPTIME_SAMPLES), and the
 * rank sweep re-ranks changed listings every 30 seconds (seed 004: "every tick"; cheap when nothing
 * changed, since unchanged inputs are skipped by hash).
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
