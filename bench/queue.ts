/**
 * `npm run bench:queue -- [--jobs N] [--batch N]` (needs a server Postgres: DATABASE_URL, default
 * postgresql://postgres@127.0.0.1:5432/test; creates its own schemas, one per queue-only run,
 * migrated, and drops them after; it never truncates or deletes a guarded table).
 *
 * Claim-and-complete throughput of our queue (lib/analyses) with 1, 4 and 8 workers, then the same
 * job count through pg-boss 12 (the peer) on the same database in the same run.
 * - ours: each worker is an in-process loop with its own connection (a lib/db handle, pool of 1):
 *   claimLeases (one statement, FOR UPDATE SKIP LOCKED; its reaper pass at most every 500 ms per
 *   process, as in production) for up to --batch jobs,
 *   then the fenced running → succeeded transition with its attempt-log rows, either for the whole
 *   batch in one statement (finishLeases: the like-for-like peer of pg-boss's complete(ids[]), the
 *   figure in the RESULT line) or one statement per job (finishLease, what a scoring completion
 *   does). These are the QUEUE ONLY (no scoring); a last line runs the full completion (completeLease: ledger facts, rubric, evidence and
 *   result rows, pointer move, one transaction) at 4 workers for information.
 * - pg-boss: each worker is its own PgBoss instance (maintenance off) in a tight fetch({batchSize})
 *   + complete(ids[]) loop — its fastest use (batch completion, no polling sleep).
 * Each worker count runs --rounds times (default 3), ours batch and pg-boss interleaved and their
 * order alternated per round, so drift in the machine's load falls on both; the table shows medians
 * and the ratio is the median of the per-round ratios (each round: same jobs, same batch size).
 * Last line: RESULT queue_vs_pgboss_ratio <median ours/pg-boss jobs/s at 4 workers>.
 */
import crypto from "node:crypto";
import { pct } from "./args";
import { printLoadAverage } from "./machine";
import { openDatabase, type DatabaseHandle } from "@/lib/db";
import { migrate } from "@/lib/migrate";
import { configureQueue } from "@/lib/queue/config";
import { claimLeases, finishLease, finishLeases } from "@/lib/queue/lease";
import { completeLease } from "@/lib/analyses/store-result";
import { fixtureEvidence } from "@/lib/catalog-monitor/probes";
import { MONITOR_RUBRIC_VERSIONS } from "@/lib/probe/capabilities";
import { seedListings, seedOwner } from "@/test/analyses";
import { fullListing } from "@/test/readiness";

interface Run {
  workers: number;
  jobs: number;
  seconds: number;
  jobsPerSecond: number;
  claimP50: number;
  claimP99: number;
}

function args() {
  const a = process.argv.slice(2);
  const get = (flag: string, dflt: number) => {
    const i = a.findIndex((x) => x === flag || x.startsWith(`${flag}=`));
    if (i < 0) return dflt;
    const v = a[i].includes("=") ? a[i].split("=")[1] : a[i + 1];
    const n = Number(v);
    if (!Number.isInteger(n) || n < 1) throw new Error(`${flag} takes a positive integer`);
    return n;
  };
  return { jobs: get("--jobs", 20_000), batch: get("--batch", 100), rounds: get("--rounds", 3) };
}


async function seedOurs(h: DatabaseHandle, n: number, tag: string): Promise<void> {
  await h.query(
    `INSERT INTO "catalog_scoring_analyses" ("id", "submitter", "trigger", "targetUrl", "state", "step")
     SELECT $1 || g, $1 || g, 'submit', 'https://bench-' || g || '.example.com', 'queued', 'queued' FROM generate_series(1, $2::int) g`,
    [`${tag}:`, n],
  );
}

type Mode = "batch" | "per-job" | "full";

/** Schemas made for single runs, dropped at the end. */
const runSchemas: string[] = [];

async function runOurs(url: string, schema: string, workers: number, jobs: number, batch: number, mode: Mode, listingIds: string[] = []): Promise<Run> {
  const tag = `b${workers}${mode}${crypto.randomBytes(2).toString("hex")}`;
  // Each queue-only run starts from empty queue tables in a schema of its own, freshly migrated, as
  // pg-boss gets a fresh schema per run; nothing is truncated or deleted (the attempt log is
  // append-only and an analysis with a log cannot be deleted: their guards stay on). The
  // full-completion run uses the seeded schema, with its listings.
  if (mode !== "full") {
    schema = `${schema}_${tag.replace(/[^a-z0-9]/g, "")}`;
    runSchemas.push(schema);
    const admin = await openDatabase({ url, poolSize: 1 });
    await admin.exec(`CREATE SCHEMA ${schema}`);
    await admin.close();
  }
  const main = await openDatabase({ url, schema, poolSize: 2 });
  if (mode !== "full") {
    await migrate(main);
    await seedOurs(main, jobs, tag);
  }
  else
    await main.query(
      `INSERT INTO "catalog_scoring_analyses" ("id", "listingId", "submitter", "trigger", "targetUrl") SELECT $1 || id, id, $1 || id, 'reanalyse', "baseUrl" FROM "listings" WHERE "id" = ANY($2::text[])`,
      [`${tag}:`, listingIds],
    );
  const handles = await Promise.all(Array.from({ length: workers }, () => openDatabase({ url, schema, poolSize: 1 })));
  const evidence = fixtureEvidence(fullListing());
  const claimMs: number[] = [];
  let done = 0;
  const started = performance.now();
  await Promise.all(
    handles.map(async (h, w) => {
      for (;;) {
        const t0 = performance.now();
        // A full completion of a batch of 100 outlived a 60 s lease on a loaded machine: the lease is the
        // batch's, so the full run gets ten minutes.
        const got = await claimLeases({ workerId: `bench-${w}`, limit: batch, leaseMs: mode === "full" ? 600_000 : 60_000, client: h, rubricVersions: MONITOR_RUBRIC_VERSIONS });
        claimMs.push(performance.now() - t0);
        if (got.length === 0) return;
        if (mode === "batch") {
          const moved = await finishLeases(h, got);
          if (moved.length !== got.length) throw new Error(`lost ${got.length - moved.length} leases`);
          done += moved.length;
          continue;
        }
        for (const job of got) {
          if (mode === "per-job") {
            if (!(await finishLease(h, job.id, job.leaseToken))) throw new Error(`lost lease on ${job.id}`);
          } else await completeLease(job.id, { leaseToken: job.leaseToken, evidence }, { client: h });
          done++;
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const [{ n }] = await main.query<{ n: number }>(`SELECT count(*)::int AS n FROM "catalog_scoring_analyses" WHERE "id" LIKE $1 AND "state" = 'succeeded'`, [`${tag}:%`]);
  if (n !== jobs || done !== jobs) throw new Error(`ours: expected ${jobs} succeeded, got ${n} (counted ${done})`);
  await Promise.all([...handles, main].map((h) => h.close()));
  return { workers, jobs, seconds, jobsPerSecond: jobs / seconds, claimP50: pct(claimMs, 50), claimP99: pct(claimMs, 99) };
}

const pgBossSchemas: string[] = [];

async function runPgBoss(url: string, schema: string, workers: number, jobs: number, batch: number): Promise<Run> {
  const { PgBoss } = await import("pg-boss");
  // A fresh pg-boss schema per run: its queues share one job table, and without maintenance
  // (supervise: false) earlier runs' completed jobs stay in it; with 15,000 of them its 4-worker fetch
  // went to a 700 ms p50 and the ratio to 15. Ours likewise starts each run from empty tables.
  schema = `${schema}_${crypto.randomBytes(3).toString("hex")}`;
  pgBossSchemas.push(schema);
  const queue = `bench-${workers}`;
  const admin = new PgBoss({ connectionString: url, schema, supervise: false, schedule: false, max: 2 });
  admin.on("error", (e: Error) => console.error("pg-boss:", e.message));
  await admin.start();
  await admin.createQueue(queue);
  for (let i = 0; i < jobs; i += 1000) {
    await admin.insert(queue, Array.from({ length: Math.min(1000, jobs - i) }, (_, k) => ({ data: { url: `https://bench-${i + k}.example.com` } })));
  }
  const bosses = await Promise.all(
    Array.from({ length: workers }, async () => {
      const b = new PgBoss({ connectionString: url, schema, supervise: false, schedule: false, migrate: false, max: 1 });
      b.on("error", (e: Error) => console.error("pg-boss:", e.message));
      await b.start();
      return b;
    }),
  );
  const claimMs: number[] = [];
  let done = 0;
  const started = performance.now();
  await Promise.all(
    bosses.map(async (b) => {
      for (;;) {
        const t0 = performance.now();
        const got = await b.fetch(queue, { batchSize: batch });
        claimMs.push(performance.now() - t0);
        if (!got || got.length === 0) return;
        await b.complete(queue, got.map((j: { id: string }) => j.id));
        done += got.length;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  if (done !== jobs) throw new Error(`pg-boss: expected ${jobs} completed, got ${done}`);
  await Promise.all([...bosses, admin].map((b) => b.stop({ graceful: false })));
  return { workers, jobs, seconds, jobsPerSecond: jobs / seconds, claimP50: pct(claimMs, 50), claimP99: pct(claimMs, 99) };
}

const f = (x: number, d = 0) => x.toLocaleString("en-US", { minimumFractionDigits: d, maximumFractionDigits: d });

async function main(): Promise<void> {
  const { jobs, batch, rounds: rounds_ } = args();
  const url = process.env.DATABASE_URL || "postgresql://postgres@127.0.0.1:5432/test";
  const suffix = `${process.pid}_${crypto.randomBytes(3).toString("hex")}`;
  const ours = `bench_queue_${suffix}`;
  const peer = `bench_pgboss_${suffix}`;
  const admin = await openDatabase({ url, poolSize: 1 });
  await admin.exec(`CREATE SCHEMA ${ours}`);
  console.log(`bench:queue  ${jobs} jobs per run, batch ${batch}, ${rounds_} rounds, Node ${process.version}, database ${new URL(url).host}${new URL(url).pathname}`);
  const ratios = new Map<number, number>();
  try {
    const setup = await openDatabase({ url, schema: ours, poolSize: 2 });
    await migrate(setup);
    configureQueue({ maxBatch: Math.max(batch, 100) });
    const { org } = await seedOwner(setup.prisma);
    const listingIds = await seedListings(setup.prisma, org.id, Math.min(jobs, 2000));
    await setup.close();

    console.log("\nqueue only. ours batch = claimLeases + finishLeases(batch); ours per-job = claimLeases + finishLease per job; pg-boss = fetch + complete(ids[]); medians over the rounds");
    console.log("workers | ours batch jobs/s | claim p50/p99 ms | ours per-job jobs/s | pg-boss jobs/s | claim p50/p99 ms | ours batch/pg-boss | ours per-job/pg-boss");
    const rounds: string[] = [];
    for (const w of [1, 4, 8]) {
      const as: Run[] = [];
      const bs: Run[] = [];
      const rs: number[] = [];
      for (let r = 0; r < rounds_; r++) {
        let a: Run, b: Run;
        if (r % 2 === 0) {
          a = await runOurs(url, ours, w, jobs, batch, "batch");
          b = await runPgBoss(url, peer, w, jobs, batch);
        } else {
          b = await runPgBoss(url, peer, w, jobs, batch);
          a = await runOurs(url, ours, w, jobs, batch, "batch");
        }
        as.push(a);
        bs.push(b);
        rs.push(a.jobsPerSecond / b.jobsPerSecond);
      }
      const p = await runOurs(url, ours, w, jobs, batch, "per-job");
      const med = (xs: number[]) => pct(xs, 50);
      const bJps = med(bs.map((x) => x.jobsPerSecond));
      ratios.set(w, med(rs));
      rounds.push(`${w} workers: ours ${as.map((x) => f(x.jobsPerSecond)).join(" / ")}; pg-boss ${bs.map((x) => f(x.jobsPerSecond)).join(" / ")}; ratio ${rs.map((x) => f(x, 2)).join(" / ")}`);
      console.log(
        `${w} | ${f(med(as.map((x) => x.jobsPerSecond)))} | ${f(med(as.map((x) => x.claimP50)), 1)}/${f(med(as.map((x) => x.claimP99)), 1)} | ${f(p.jobsPerSecond)} | ${f(bJps)} | ${f(med(bs.map((x) => x.claimP50)), 1)}/${f(med(bs.map((x) => x.claimP99)), 1)} | ${f(ratios.get(w)!, 2)} | ${f(p.jobsPerSecond / bJps, 2)}`,
      );
    }
    console.log(`\nper round (${rounds_} rounds, ours/pg-boss order alternated):\n${rounds.join("\n")}`);
    const full = await runOurs(url, ours, 4, listingIds.length, batch, "full", listingIds);
    console.log(`\nfull completion (completeLease: ledger facts + rubric + evidence/result rows + pointer), 4 workers, ${f(full.jobs)} jobs: ${f(full.jobsPerSecond)} jobs/s, claim p50/p99 ${f(full.claimP50, 1)}/${f(full.claimP99, 1)} ms`);
  } finally {
    await admin.exec(`DROP SCHEMA IF EXISTS ${ours} CASCADE`);
    for (const s of [...pgBossSchemas, ...runSchemas]) await admin.exec(`DROP SCHEMA IF EXISTS ${s} CASCADE`);
    await admin.close();
  }
  printLoadAverage();
  console.log(`RESULT queue_vs_pgboss_ratio ${ratios.get(4)!.toFixed(2)}`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
