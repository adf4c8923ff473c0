/**
 * Periodic work of the analysis pipeline. The lead wires ticks from several modules into one
 * scheduler; the in-process loop (lib/jobs/in-process-worker.ts) also runs these itself so the pipeline works end
 * to end on its own. Each run is idempotent, so running one twice (two schedulers) is harmless.
 */
import type { Tick } from "@/lib/scheduler";
import { checkRubricRelease, staleSweep } from "./enqueue-analysis";
import { reapExpiredLeases } from "./lease";
import { runRetention } from "./retention";

export const analysisTicks: Tick[] = [
  // Claims reap too; this catches expiries while no worker is claiming.
  { name: "analyses.reaper", intervalMs: 5_000, run: async () => void (await reapExpiredLeases()) },
  { name: "analyses.staleness-sweep", intervalMs: 10 * 60_000, run: async () => void (await staleSweep(new Date())) },
  { name: "analyses.rubric-release-check", intervalMs: 60 * 60_000, run: async () => void (await checkRubricRelease()) },
  // Finished analyses older than TOLLGATE_QUEUE_RETENTION_DAYS move to the archive tables (lib/queue/retention.ts).
  { name: "analyses.retention", intervalMs: 60 * 60_000, run: async () => void (await runRetention()) },
];
