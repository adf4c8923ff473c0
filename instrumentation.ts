/**
 * Next.js instrumentation hook: runs once when a server instance starts. It starts the scheduler
 * (sweeps, reaper) and, in the embedded default (TOLLGATE_INPROCESS_WORKER on), the catalog-monitor
 * worker loop inside this process; with a server Postgres, workers run as separate processes
 * (`npm run worker`) instead.
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { startServerJobs } = await import("./lib/jobs/server-jobs");
  await startServerJobs();
}
