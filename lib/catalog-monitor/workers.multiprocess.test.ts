/**
 * The pipeline across processes: a real ops API (the route handlers behind node:http, in this test
 * process) and catalog-monitor worker processes (`node --import tsx scripts/worker.ts`, the same
 * entry as `npm run worker`) that hold no database credentials. Server Postgres only: PGlite is one
 * process's database, so these run when TEST_DATABASE_URL is set and say why when they skip.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rows } from "@/lib/sql";
import { createTestDatabase, testDatabaseUrl, type TestDatabase } from "@/test/db";
import { configureQueue } from "@/lib/queue/config";
import { startOpsTestServer, type OpsTestServer } from "@/test/ops-server";
import { seedListings, seedOwner, TEST_WORKER_TOKEN } from "@/test/analyses";

// Read by the route handlers' requireWorkerToken (lib/env parses on first use, after this line).
process.env.TOLLGATE_WORKER_TOKEN = TEST_WORKER_TOKEN;

const url = testDatabaseUrl();
const serverOnly = url ? it : it.skip;
if (!url) console.warn("[analyses multi-process] skipped: set TEST_DATABASE_URL to a server Postgres (PGlite belongs to one process)");

const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
const hasPgCtl = spawnSync("sh", ["-c", "command -v pg_ctlcluster"]).status === 0;
const loopbackDb = !!url && /@(127\.0\.0\.1|localhost)(:5432)?\//.test(url);
// Restarting the server cuts every other connection to it, including other test files running in
// parallel: the test runs only when asked for (TOLLGATE_TEST_DB_RESTART=1), which .ci/run does in a
// run of its own after the suite.
const restartAsked = process.env.TOLLGATE_TEST_DB_RESTART === "1";
const canRestart = isRoot && hasPgCtl && loopbackDb && restartAsked;
const restartIt = canRestart ? it : it.skip;
if (url && !canRestart) {
  console.warn(
    `[analyses multi-process] database-restart test skipped: needs TOLLGATE_TEST_DB_RESTART=1 (${restartAsked}), root (${isRoot}), pg_ctlcluster (${hasPgCtl}) and TEST_DATABASE_URL on 127.0.0.1 (${loopbackDb})`,
  );
}
/** The installed cluster's version (the folder under /etc/postgresql), e.g. "15". */
const pgVersion = (() => {
  try {
    return fs.readdirSync("/etc/postgresql")[0] ?? "15";
  } catch {
    return "15";
  }
})();

const ROOT = path.resolve(__dirname, "../..");
let t: TestDatabase;
let api: OpsTestServer;
const children = new Set<ChildProcess>();

interface Worker {
  child: ChildProcess;
  id: string;
  output: () => string;
}

function startWorker(id: string, extra: string[] = []): Worker {
  let out = "";
  const child = spawn(process.execPath, ["--import", "tsx", "scripts/worker.ts", "--probe=noop-fixture", `--worker-id=${id}`, "--poll-ms=50", ...extra], {
    cwd: ROOT,
    // Deliberately no DATABASE_URL: the worker reaches the data only through the ops API.
    env: { PATH: process.env.PATH, HOME: process.env.HOME, TOLLGATE_API_URL: api.url, TOLLGATE_WORKER_TOKEN: TEST_WORKER_TOKEN } as unknown as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  children.add(child);
  child.on("exit", () => children.delete(child));
  return { child, id, output: () => out };
}

async function stopWorker(w: Worker, signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
  if (w.child.exitCode !== null || w.child.signalCode !== null) return;
  const exited = new Promise<void>((r) => w.child.once("exit", () => r()));
  w.child.kill(signal);
  await exited;
}

async function until(what: string, fn: () => Promise<boolean>, timeoutMs: number, everyMs = 100): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await fn()) return;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

/** Queue one analysis per listing directly (the triggers are tested elsewhere); returns ids. */
async function enqueueFor(listingIds: string[], tag: string): Promise<string[]> {
  const queued = (await rows(t.prisma,
    `INSERT INTO "catalog_scoring_analyses" ("id", "listingId", "submitter", "trigger", "targetUrl", "state", "step", "maxAttempts")
     SELECT $1 || l."id", l."id", $1 || l."id", 'reanalyse', l."baseUrl", 'queued', 'queued', 10 FROM "listings" l WHERE l."id" = ANY($2::text[])
     RETURNING "id"`,
    `${tag}:`,
    listingIds,
  )) as Array<{ id: string }>;
  return queued.map((r) => r.id);
}

async function counts(ids: string[]) {
  const [c] = (await rows(t.prisma,
    `SELECT (count(*) FILTER (WHERE "state" = 'succeeded'))::int AS "succeeded", (count(*) FILTER (WHERE "state" = 'failed'))::int AS "failed", count(*)::int AS "total"
     FROM "catalog_scoring_analyses" WHERE "id" = ANY($1::text[])`,
    ids,
  )) as Array<{ succeeded: number; failed: number; total: number }>;
  return c;
}

/** The append-only log: analyses with more than one successful completion (must be none). */
async function doubleSuccesses(ids: string[]): Promise<number> {
  const [r] = (await rows(t.prisma,
    `SELECT count(*)::int AS "n" FROM (SELECT "analysisId" FROM "catalog_scoring_attempts" WHERE "event" = 'succeeded' AND "analysisId" = ANY($1::text[])
       GROUP BY "analysisId" HAVING count(*) > 1) d`,
    ids,
  )) as Array<{ n: number }>;
  return r.n;
}

beforeAll(async () => {
  if (!url) return;
  t = await createTestDatabase({ poolSize: 12 });
  api = await startOpsTestServer();
  // Short backoff so re-queued jobs come back within the test's time.
  configureQueue({ backoffBaseMs: 50, backoffCapMs: 500, minLeaseMs: 250 });
});

afterAll(async () => {
  for (const c of children) c.kill("SIGKILL");
  await api?.close();
  await t?.close();
}, 120_000);

describe("catalog-monitor workers over the ops API", () => {
  serverOnly(
    "8 worker processes × 2,000 jobs: every job succeeds exactly once, none lost",
    async () => {
      const { org } = await seedOwner(t.prisma);
      const listings = await seedListings(t.prisma, org.id, 2000);
      const ids = await enqueueFor(listings, "load");
      const started = Date.now();
      const workers = Array.from({ length: 8 }, (_, i) => startWorker(`load-${i}`, ["--concurrency=16", "--lease-ms=10000"]));
      try {
        // Correctness, not speed, is asserted here (bench:queue measures speed): generous room for a loaded CI machine.
        await until("2,000 succeeded", async () => (await counts(ids)).succeeded === 2000, 240_000, 250);
      } finally {
        await Promise.all(workers.map((w) => stopWorker(w)));
      }
      const seconds = (Date.now() - started) / 1000;
      console.log(`[analyses multi-process] 2,000 jobs through 8 workers in ${seconds.toFixed(1)} s (including worker start-up)`);
      expect(await counts(ids)).toEqual({ succeeded: 2000, failed: 0, total: 2000 });
      expect(await doubleSuccesses(ids)).toBe(0);
      const [r] = (await rows(t.prisma,
        `SELECT count(*)::int AS "results", count(DISTINCT "analysisId")::int AS "analyses" FROM "catalog_scoring_results" WHERE "analysisId" = ANY($1::text[])`,
        ids,
      )) as Array<{ results: number; analyses: number }>;
      expect(r).toEqual({ results: 2000, analyses: 2000 });
      expect(await t.prisma.listing.count({ where: { id: { in: listings }, currentResultId: null } })).toBe(0);
      // Every worker took part (claims never overlap, but all of them got work).
      const byWorker = (await rows(t.prisma,
        `SELECT "workerId", count(*)::int AS "n" FROM "catalog_scoring_attempts" WHERE "event" = 'succeeded' AND "analysisId" = ANY($1::text[]) GROUP BY "workerId"`,
        ids,
      )) as Array<{ workerId: string; n: number }>;
      expect(byWorker.length).toBeGreaterThan(1);
      for (const w of workers) expect(w.output()).toContain('"completed"');
    },
    300_000,
  );

  serverOnly(
    "a worker killed with SIGKILL mid-job: after the lease expires another worker completes it",
    async () => {
      const { org } = await seedOwner(t.prisma);
      const [listing] = await seedListings(t.prisma, org.id, 1);
      const [id] = await enqueueFor([listing], "kill");
      const doomed = startWorker("doomed", ["--concurrency=1", "--lease-ms=1000", "--probe-delay-ms=600000"]);
      await until("the doomed worker probing", async () => {
        const a = await t.prisma.analysis.findUniqueOrThrow({ where: { id } });
        return a.state === "running" && a.leasedBy === "doomed" && a.step === "probing";
      }, 20_000);
      await stopWorker(doomed, "SIGKILL");
      const rescuer = startWorker("rescuer", ["--concurrency=1", "--lease-ms=2000"]);
      try {
        await until("the rescuer's completion", async () => (await t.prisma.analysis.findUniqueOrThrow({ where: { id } })).state === "succeeded", 20_000);
      } finally {
        await stopWorker(rescuer);
      }
      const log = await t.prisma.analysisAttempt.findMany({ where: { analysisId: id }, orderBy: { id: "asc" } });
      expect(log.map((l) => [l.event, l.workerId])).toEqual([
        ["claimed", "doomed"],
        ["expired_requeued", "doomed"],
        ["claimed", "rescuer"],
        ["succeeded", "rescuer"],
      ]);
      const a = await t.prisma.analysis.findUniqueOrThrow({ where: { id } });
      expect(a).toMatchObject({ attempts: 2, leasedBy: "rescuer", error: null });
    },
    60_000,
  );

  restartIt(
    "the database restarted mid-run: no job lost, none done twice, workers and the API's pool recover",
    async () => {
      const { org } = await seedOwner(t.prisma);
      const listings = await seedListings(t.prisma, org.id, 600);
      const ids = await enqueueFor(listings, "restart");
      const workers = Array.from({ length: 4 }, (_, i) => startWorker(`restart-${i}`, ["--concurrency=4", "--lease-ms=3000", "--probe-delay-ms=20"]));
      try {
        await until("a third done", async () => (await counts(ids)).succeeded >= 200, 60_000, 100);
        const before = (await counts(ids)).succeeded;
        const restarted = spawnSync("pg_ctlcluster", [pgVersion, "main", "restart"], { encoding: "utf8" });
        expect(restarted.status, restarted.stderr).toBe(0);
        console.log(`[analyses multi-process] restarted PostgreSQL with ${before}/600 done`);
        await until("all 600 succeeded after the restart", async () => {
          try {
            return (await counts(ids)).succeeded === 600;
          } catch {
            return false; // this test's own pool reconnects too
          }
        }, 90_000, 250);
      } finally {
        await Promise.all(workers.map((w) => stopWorker(w)));
      }
      expect(await counts(ids)).toEqual({ succeeded: 600, failed: 0, total: 600 });
      expect(await doubleSuccesses(ids)).toBe(0);
      const retried = workers.some((w) => /retrying in/.test(w.output()));
      console.log(`[analyses multi-process] workers retried ops calls during the outage: ${retried}`);
      expect(fs.existsSync(ROOT)).toBe(true);
    },
    180_000,
  );
});
