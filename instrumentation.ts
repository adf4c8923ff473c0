/**
 * Next.js instrumentation hook: runs once when a server instance starts. It installs the request
 * guard (server actions' bodies, malformed paths), then starts this process's ticks (lib/jobs/server-jobs.ts): the sweeps only
 * when it is the single process (PGlite, `npm run demo`); with a server Postgres they run in
 * `npm run sweeps` and the catalog-monitor in `npm run worker` (docs/ARCHITECTURE.md "Processes").
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  // A server action's oversize or undeclared body, and a path Next.js could not decode, are refused before Next.js reads them (docs/LIMITS.md).
  (await import("./lib/action-body-guard")).installActionBodyGuard();
  const { startServerJobs } = await import("./lib/jobs/server-jobs");
  await startServerJobs();
  if (process.env.DATABASE_URL) {
    // Server mode: warn when this process's database role could switch the history guards off.
    const [{ database }, { warnIfGuardsBypassable }] = await Promise.all([import("./lib/db"), import("./lib/migrate")]);
    void database().then(warnIfGuardsBypassable, (err: Error) => console.error(`tollgate: could not check the database role's privileges: ${err.message}`));
  }
}
