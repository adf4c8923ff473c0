/**
 * The catalog-monitor worker inside the web server (PGlite's folder belongs to one process): the same runWorker loop
 * with direct calls into the ops functions.
 */
import { opsDirectClient } from "@/lib/ops/handlers";
import { realProbe } from "@/lib/catalog-monitor/probes";
import { runWorker, type WorkerStats } from "@/lib/catalog-monitor/run-worker";

export interface InProcessHandle {
  stop(): Promise<WorkerStats>;
}

const holder = globalThis as unknown as { tollgateInProcessWorker?: InProcessHandle };

export function startInProcessWorker(opts: { concurrency?: number; log?: (l: string) => void } = {}): InProcessHandle {
  // Dev-mode reloads call register() again: one loop per process.
  if (holder.tollgateInProcessWorker) return holder.tollgateInProcessWorker;
  const log = opts.log ?? ((l: string) => console.log(`[catalog-monitor] ${l}`));
  const controller = new AbortController();
  const done = runWorker({ ops: opsDirectClient(), probe: realProbe({ vantage: "in-process" }), concurrency: opts.concurrency ?? 2, signal: controller.signal, log });
  const handle: InProcessHandle = {
    stop: async () => {
      controller.abort();
      holder.tollgateInProcessWorker = undefined;
      return done;
    },
  };
  holder.tollgateInProcessWorker = handle;
  return handle;
}
