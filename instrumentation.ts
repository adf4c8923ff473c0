/**
 * Next.js instrumentation hook: runs once when a server instance starts. In the embedded default
 * (TOLLGATE_INPROCESS_WORKER on) it starts the catalog-monitor worker loop inside this process;
 * with a server Postgres, workers run as separate processes (`npm run worker`) instead.
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { env } = await import("./lib/env");
  if (!env().TOLLGATE_INPROCESS_WORKER) return;
  const { startInProcessWorker } = await import("./lib/analyses/in-process");
  startInProcessWorker();
}
