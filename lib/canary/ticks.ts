/**
 * The canary's ticks (docs/CANARY.md "Runs"): `canary.schedule` queues due runs, `canary.runs` reaps and executes
 * them. Without a house key neither does anything.
 */
import type { Tick } from "@/lib/scheduler";
import { reapExpiredRuns } from "./lease";
import { canaryConfigured, queueDueRuns, runDueRuns } from "./runs";

export const CANARY_SCHEDULE_INTERVAL_MS = 60_000;
export const CANARY_RUNS_INTERVAL_MS = 10_000;

export const canaryTicks: Tick[] = [
  { name: "canary.schedule", intervalMs: CANARY_SCHEDULE_INTERVAL_MS, run: async () => void (canaryConfigured() && (await queueDueRuns())) },
  {
    name: "canary.runs",
    intervalMs: CANARY_RUNS_INTERVAL_MS,
    run: async () => {
      if (!canaryConfigured()) return;
      await reapExpiredRuns();
      await runDueRuns();
    },
  },
];
