/** The analysis pipeline's ticks; each run is idempotent, so two schedulers are harmless. */
import type { Tick } from "@/lib/scheduler";
import { checkRubricRelease, staleSweep } from "./enqueue-analysis";
import { reapExpiredLeases } from "./lease";
import { runRetention } from "./retention";

export const analysisTicks: Tick[] = [
  // Claims reap too; this catches expiries while no worker claims.
  { name: "analyses.reaper", intervalMs: 5_000, run: async () => void (await reapExpiredLeases()) },
  { name: "analyses.staleness-sweep", intervalMs: 10 * 60_000, run: async () => void (await staleSweep(new Date())) },
  { name: "analyses.rubric-release-check", intervalMs: 60 * 60_000, run: async () => void (await checkRubricRelease()) },
  { name: "analyses.retention", intervalMs: 60 * 60_000, run: async () => void (await runRetention()) },
];
