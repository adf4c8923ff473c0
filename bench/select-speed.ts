/**
 * bench:select-speed — `selectServices` (POST /router/select, docs/SELECTION.md) at 1k, 10k and 100k public
 * listings: 200 sentence tasks per size, p50/p95 and SQL statements per call. Catalogs are bulk-loaded
 * (INSERT … SELECT generate_series, as bench/rank.ts) into a schema of their own on server PostgreSQL
 * (DATABASE_URL, else postgresql://postgres@127.0.0.1:5432/test), dropped afterwards; `--pglite` runs on
 * in-memory PGlite instead (default sizes 1k and 10k there). `--sizes 1000,10000` picks sizes.
 */
import { performance } from "node:perf_hooks";
import { openDatabase, setDatabase, type DatabaseHandle } from "../lib/db";
import { migrate } from "../lib/migrate";
import { parseSelectRequest, selectServices, type SelectResponse } from "../lib/catalog/select";
import { pct } from "./args";
import { CATALOG_NOW, TASKS, loadListings, sentenceTasks } from "../test/select-catalog";
import { printLoadAverage } from "./machine";
import { countStatements } from "./statements";

const argv = process.argv.slice(2);
const PGLITE = argv.includes("--pglite");
const sizesArg = argv.find((a, i) => argv[i - 1] === "--sizes" || a.startsWith("--sizes="));
const SIZES = (sizesArg ? sizesArg.replace(/^--sizes=/, "").split(",").map(Number) : PGLITE ? [1000, 10_000] : [1000, 10_000, 100_000]).filter((n) => n > 0);
const URL_ = process.env.DATABASE_URL || "postgresql://postgres@127.0.0.1:5432/test";
const NOW = CATALOG_NOW;

/** Times the tasks (one warm-up pass first); per call: ms and statements. */
async function timeTasks(): Promise<{ times: number[]; statements: number[]; answers: SelectResponse[]; byKind: Map<string, number> }> {
  const counter = await countStatements();
  const tasks = sentenceTasks();
  const reqs = tasks.map((t) => parseSelectRequest({ ...t, limit: 10 }));
  for (const r of reqs.slice(0, 40)) await selectServices(r, { apiVersion: "1.55", now: NOW });
  const times: number[] = [];
  const statements: number[] = [];
  const answers: SelectResponse[] = [];
  const byKind = new Map<string, number>();
  for (const r of reqs) {
    counter.reset();
    const t0 = performance.now();
    answers.push(await selectServices(r, { apiVersion: "1.55", now: NOW }));
    times.push(performance.now() - t0);
    statements.push(counter.total());
    for (const [k, v] of counter.snapshot()) byKind.set(k, (byKind.get(k) ?? 0) + v.ms);
  }
  return { times, statements, answers, byKind };
}

async function main(): Promise<void> {
  const results: Array<{ size: number; p50: number; p95: number; stmts: number }> = [];
  const schema = `bench_selspeed_${process.pid}`;
  const admin = PGLITE ? null : await openDatabase({ url: URL_, poolSize: 1 });
  const h = PGLITE ? await openDatabase({}) : (await admin!.exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE; CREATE SCHEMA ${schema}`), await openDatabase({ url: URL_, schema, poolSize: 4 }));
  try {
    await migrate(h);
    setDatabase(h);
    let loaded = 0;
    for (const size of [...SIZES].sort((a, b) => a - b)) {
      // Sizes count public listings: 95% of those loaded are published.
      const target = Math.ceil(size / 0.95);
      const t0 = performance.now();
      for (let from = loaded + 1; from <= target; from += 20_000) await loadListings(h, from, Math.min(target, from + 19_999));
      loaded = target;
      await h.exec(`ANALYZE`);
      const [{ n }] = await h.query<{ n: number }>(`SELECT count(*)::int AS n FROM "listings" WHERE "publicationState" = 'published'`);
      console.log(`${n.toLocaleString("en-US")} public listings loaded in ${((performance.now() - t0) / 1000).toFixed(1)} s${PGLITE ? " (PGlite)" : ` (schema ${schema})`}`);
      const { times, statements, answers, byKind } = await timeTasks();
      const picks = answers.filter((a) => a.items.length > 0).length;
      const p50 = pct(times, 50);
      const p95 = pct(times, 95);
      const stmts = pct(statements, 50);
      results.push({ size, p50, p95, stmts });
      console.log(`  select (limit 10, ${TASKS} sentence tasks, a quarter with maxPrice): p50 ${p50.toFixed(1)} ms, p95 ${p95.toFixed(1)} ms, max ${Math.max(...times).toFixed(1)} ms; statements per call p50 ${stmts}, max ${Math.max(...statements)}; ${picks}/${TASKS} tasks with picks`);
      const top = [...byKind].sort((a, b) => b[1] - a[1]).slice(0, 4);
      for (const [k, v] of top) console.log(`    ${(v / TASKS).toFixed(2)} ms/call  ${k}`);
    }
  } finally {
    setDatabase(undefined);
    await h.close();
    if (admin) {
      await admin.exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.close();
    }
  }
  console.log(`size      p50 ms   p95 ms   statements/call`);
  for (const r of results) console.log(`${String(r.size).padEnd(9)} ${r.p50.toFixed(1).padStart(6)}   ${r.p95.toFixed(1).padStart(6)}   ${r.stmts}`);
  printLoadAverage();
  const last = results[results.length - 1];
  console.log(`RESULT select_p95_${last.size >= 1000 ? `${Math.round(last.size / 1000)}k` : last.size}${PGLITE ? "_pglite" : ""} ${last.p95.toFixed(1)} ms`);
}

if (process.argv[1]?.endsWith("select-speed.ts")) {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
    process.exitCode = 1;
  });
}
