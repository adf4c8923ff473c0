/**
 * Which process runs which ticks: `webTicks` in each web process, `sweepTicks` in the sweep workers or, as the single
 * process, in the web process (docs/ARCHITECTURE.md "Processes").
 */
import { rootTicks } from "@/lib/attest/root-ticks";
import { env } from "@/lib/env";
import { analysisTicks } from "@/lib/queue/ticks";
import { attestTicks } from "@/lib/attest/ticks";
import { canaryTicks } from "@/lib/canary/ticks";
import { ledgerTicks } from "@/lib/ledger/ticks";
import { limitTicks } from "@/lib/limits/ticks";
import { monitorTicks } from "@/lib/health/ticks";
import { rankTicks } from "@/lib/rank/ticks";
import { receiptTicks } from "@/lib/intake/sync-receipts";
import { observationTicks } from "@/lib/trust/observe/ticks";
import { startScheduler, type Scheduler, type Tick } from "@/lib/scheduler";

const holder = globalThis as unknown as { tollgateServerJobs?: { scheduler: Scheduler | null } };

export const webTicks: Tick[] = [...analysisTicks, ...ledgerTicks, ...limitTicks];
export const sweepTicks: Tick[] = [...monitorTicks, ...rankTicks, ...canaryTicks, ...attestTicks, ...rootTicks, ...receiptTicks, ...observationTicks];

/** Only as the single process: on PGlite or with the in-process worker. */
export function sweepsInWeb(e: { DATABASE_URL?: string; TOLLGATE_INPROCESS_WORKER: boolean } = env()): boolean {
  return !e.DATABASE_URL || e.TOLLGATE_INPROCESS_WORKER;
}

export function webProcessTicks(e: { DATABASE_URL?: string; TOLLGATE_INPROCESS_WORKER: boolean; TOLLGATE_SCHEDULER: boolean } = env()): Tick[] {
  if (!e.TOLLGATE_SCHEDULER) return [];
  return sweepsInWeb(e) ? [...webTicks, ...sweepTicks] : webTicks;
}

export async function startServerJobs(): Promise<void> {
  if (holder.tollgateServerJobs) return; // dev-mode reloads call register() again
  const e = env();
  const ticks = webProcessTicks(e);
  if (e.TOLLGATE_SCHEDULER && !sweepsInWeb(e)) console.error("tollgate: the sweeps (health, rank, canary, trust grades, daily root) run in `npm run sweeps` workers, not in this web process");
  holder.tollgateServerJobs = { scheduler: ticks.length ? startScheduler(ticks, { log: (m) => console.error(m) }) : null };
  if (e.TOLLGATE_INPROCESS_WORKER) {
    const { startInProcessWorker } = await import("@/lib/jobs/in-process-worker");
    startInProcessWorker();
  }
}
