/**
 * Next.js instrumentation hook: runs once when a server instance starts. It starts the scheduler
 * (sweeps, reaper) and, in the embedded default (TOLLGATE_INPROCESS_WORKER on), the catalog-monitor
 * worker loop inside this process; with a server Postgres, workers run as separate processes
 * (`npm run worker`) instead. First it installs the guard on server actions' bodies.
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  // A server action's oversize or undeclared body is refused before Next.js reads it (docs/LIMITS.md).
  (await import("./lib/action-body-guard")).installActionBodyGuard();
  const { startServerJobs } = await import("./lib/jobs/server-jobs");
  await startServerJobs();
  if (process.env.DATABASE_URL) {
    // Server mode: warn when this process's database role could switch the history guards off.
    const [{ database }, { warnIfGuardsBypassable }] = await Promise.all([import("./lib/db"), import("./lib/migrate")]);
    void database().then(warnIfGuardsBypassable, (err: Error) => console.error(`tollgate: could not check the database role's privileges: ${err.message}`));
  }
}
