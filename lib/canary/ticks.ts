/**
 * The canary's scheduled work (docs/CANARY.md "Runs"), run by the web server's scheduler
 * (lib/jobs/server-jobs.ts) where the house key is configured:
 *
 * - `canary.schedule` (every minute): queue a `publish` run for each published listing never run,
 *   and a `schedule` run for each whose last run is 24 hours old (one active run per listing);
 * - `canary.runs` (every 10 s): put back runs whose lease expired (a killed worker; the retry
 *   reconciles what it sent), then claim and execute due runs one at a time.
 *
 * Without a house key (TOLLGATE_CANARY_KEY or one per network) neither does anything: nothing can be paid, and every listing stays
 * unverified (a moderator's on-demand run then finishes `unverified: no_house_wallet`).
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
