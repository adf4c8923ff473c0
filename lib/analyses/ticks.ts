/**
 * Periodic work of the analysis pipeline. The lead wires ticks from several modules into one
 * scheduler; the in-process loop (in-process.ts) also runs these itself so the pipeline works end
 * to end on its own. Each run is idempotent, so running one twice (two schedulers) is harmless.
 */
import { checkRubricRelease, staleSweep } from "./enqueue";
import { reapExpiredLeases } from "./lease";

export interface Tick {
  name: string;
  intervalMs: number;
  run: () => Promise<void>;
}

export const analysisTicks: Tick[] = [
  // Claims reap too; this catches expiries while no worker is claiming.
  { name: "analyses.reaper", intervalMs: 5_000, run: async () => void (await reapExpiredLeases()) },
  { name: "analyses.staleness-sweep", intervalMs: 10 * 60_000, run: async () => void (await staleSweep(new Date())) },
  { name: "analyses.rubric-release-check", intervalMs: 60 * 60_000, run: async () => void (await checkRubricRelease()) },
];
