/**
 * What a web server process runs besides serving requests: the scheduler with every module's ticks
 * (analysis reaper, staleness and rubric sweeps, health sweep, rank sweep, confirming relayed
 * payments on chain, sweeping ended rate-limit windows and spent sign-in nonces, storing signed trust
 * grades, publishing the daily evidence root, re-syncing listings indexed by receipts) and, in the embedded default, the catalog-monitor worker loop. Started once per process
 * from instrumentation.ts.
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
import { startScheduler, type Scheduler } from "@/lib/scheduler";

const holder = globalThis as unknown as { tollgateServerJobs?: { scheduler: Scheduler | null } };

export const serverTicks = [...analysisTicks, ...monitorTicks, ...rankTicks, ...ledgerTicks, ...limitTicks, ...canaryTicks, ...attestTicks, ...rootTicks, ...receiptTicks];

export async function startServerJobs(): Promise<void> {
  if (holder.tollgateServerJobs) return; // dev-mode reloads call register() again
  const e = env();
  holder.tollgateServerJobs = { scheduler: e.TOLLGATE_SCHEDULER ? startScheduler(serverTicks, { log: (m) => console.error(m) }) : null };
  if (e.TOLLGATE_INPROCESS_WORKER) {
    const { startInProcessWorker } = await import("@/lib/jobs/in-process-worker");
    startInProcessWorker();
  }
}

