/**
 * bench:rank — the rank sweep at catalog scale, next to the floor of a bare aggregate scan.
 *
 * In its own schema of a server PostgreSQL (DATABASE_URL, else postgresql://postgres@127.0.0.1:5432/test),
 * dropped afterwards: 100,000 listings (one payable endpoint each), 1,000,000 router_payments rows and
 * 1,000,000 monitor_health_samples rows over 40 days, bulk-loaded with INSERT … SELECT generate_series.
 * Then, in the same run:
 *   - floor: one bare aggregate scan over the same rows (GROUP BY listing over payments and samples);
 *   - the full rank sweep (every listing's inputs new, so every listing aggregated, scored and written),
 *     in ROUNDS rounds of (floor, sweep) from the same starting state, the ratio taken of the medians;
 *     then a full sweep with nothing changed (hash-skipped), and two ticks (due sweeps): one with
 *     nothing marked or due, one after 1,000 payments on as many listings;
 *   - browseCatalog p50/p95 (first pages and pages deep in a cursor chain, with and without filters);
 *   - selectServices p50/p95 (the /router/select lib function, keyword tasks).
 * Target: sweep ÷ floor ≤ 3; browse p95 < 50 ms; select p95 < 100 ms. When the server runs on this
 * machine, each round also counts CPU time (this bench's PostgreSQL backends and this process), and the
 * summary says how many cores the sweep needs for its CPU time to fit in 3 × the floor's time.
 *
 *   npm run bench:rank [-- --listings 100000 --rows 1000000 --payers 10 --rounds 3]
 *
 * The last line is always `RESULT rank_sweep_floor_ratio <ratio>`.
 */
import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { performance } from "node:perf_hooks";
import { openDatabase, setDatabase, type DatabaseHandle } from "../lib/db";
import { migrate } from "../lib/migrate";
import { runRankSweep } from "@/lib/rank/sweep-ranks";
import { browseCatalog } from "../lib/catalog/browse";
import { parseSelectRequest, selectServices } from "../lib/catalog/select";
import { printLoadAverage } from "./machine";

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? Number(process.argv[i + 1]) : NaN;
  return Number.isFinite(v) && v > 0 ? Math.floor(v) : fallback;
}

const LISTINGS = arg("listings", 100_000);
const ROWS = arg("rows", 1_000_000);
/**
 * Distinct payers per listing (at most rows ÷ listings). Before 2026-12-02 evening every listing had
 * exactly one (payer and listing both followed from i mod 100,000); `--payers 1` reproduces that.
 */
const PAYERS = arg("payers", 10);
/** Rounds of (floor, full sweep) whose medians give the ratio. */
const ROUNDS = arg("rounds", 3);
const URL_ = process.env.DATABASE_URL || "postgresql://postgres@127.0.0.1:5432/test";
const SCHEMA = `bench_rank_${process.pid}`;
/** --load-only: load, print the schema name and stop without dropping it (for reading query plans). */
const LOAD_ONLY = process.argv.includes("--load-only");
/** --only select: skip the floor, the sweep and browse (rank scores from one UPDATE instead) and time select alone. */
const ONLY_SELECT = process.argv.join(" ").includes("--only select");
const NOW = new Date("2026-12-02T12:00:00.000Z");
const NOW_SQL = `TIMESTAMP '2026-12-02 12:00:00'`;

const WORDS = ["weather", "forecast", "translate", "text", "image", "resize", "geocode", "address", "stock", "quotes", "summarise", "documents", "speech", "audio", "search", "web", "email", "verify", "invoice", "parse", "pdf", "ocr", "sentiment", "news", "crypto", "prices", "maps", "routing", "vision", "embeddings"];

const ms = (x: number) => `${x.toFixed(1)} ms`;
const s = (x: number) => `${(x / 1000).toFixed(2)} s`;
const pct = (xs: number[], p: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};
async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const t0 = performance.now();
  const r = await fn();
  return [r, performance.now() - t0];
}

/**
 * CPU time, in ms, of this bench's own PostgreSQL backends (those whose application_name is
 * APP_NAME, read from pg_stat_activity): /proc/<pid>/stat utime + stime, in USER_HZ ticks (100 a
 * second on Linux), per pid. On a server shared with other work, every postgres process's CPU (as
 * counted before 2026-12-05) also counted theirs, more of it the longer a measured step ran. Null
 * when /proc shows none of them (a server on another host): the CPU lines are then left out.
 */
const APP_NAME = `bench_rank_${process.pid}`;
async function backendTicks(h: DatabaseHandle): Promise<Map<number, number> | null> {
  const pids = await h.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE application_name = $1`, [APP_NAME]);
  const out = new Map<number, number>();
  for (const { pid } of pids) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    } catch {
      continue; // another host's server, or exited meanwhile
    }
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" "); // fields from the 3rd (state) on
    out.set(pid, Number(f[11]) + Number(f[12]));
  }
  return out.size > 0 ? out : null;
}

/** CPU ms spent while fn ran: this process's and its PostgreSQL backends' (null when not measurable here). */
async function cpuOf<T>(h: DatabaseHandle, fn: () => Promise<T>): Promise<{ result: T; ms: number; node: number; pg: number | null }> {
  const pg0 = await backendTicks(h);
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const result = await fn();
  const ms = performance.now() - t0;
  const c = process.cpuUsage(c0);
  const pg1 = await backendTicks(h);
  let pg: number | null = null;
  if (pg0 !== null && pg1 !== null) {
    // A backend opened meanwhile counts from zero; one closed meanwhile is not seen (the pool keeps them while in use).
    pg = 0;
    for (const [pid, t] of pg1) pg += (t - (pg0.get(pid) ?? 0)) * 10;
  }
  return { result, ms, node: (c.user + c.system) / 1000, pg };
}

async function load(h: DatabaseHandle): Promise<void> {
  // Secondary indexes are built once after the load (as a restore does) rather than row by row.
  const indexes = await h.query<{ indexname: string; indexdef: string }>(
    `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = $1
        AND tablename IN ('listings', 'listing_ranks', 'endpoints', 'router_payments', 'monitor_health_samples', 'price_quotes') AND indexname NOT LIKE '%_pkey'`,
    [SCHEMA],
  );
  for (const i of indexes) await h.exec(`DROP INDEX "${SCHEMA}"."${i.indexname}"`);
  // The page cache's per-row triggers (page_mark/page_flush) collect every touched listing's tag in one
  // growing setting per transaction, which a bulk load of 100,000 listings turns quadratic (over 15
  // minutes for the listings alone): they are off during the load, as a restore would have them, and
  // on again for everything measured.
  const pageTriggers = await h.query<{ tbl: string; tgname: string }>(
    `SELECT c.relname AS tbl, t.tgname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 AND NOT t.tgisinternal AND (t.tgname LIKE '%page_mark%' OR t.tgname LIKE '%page_flush%')`,
    [SCHEMA],
  );
  for (const t of pageTriggers) await h.exec(`ALTER TABLE "${SCHEMA}"."${t.tbl}" DISABLE TRIGGER "${t.tgname}"`);
  // So is the count of public listings kept per listing_search row (one row updated 100,000 times in
  // one transaction, each update scanning every version before it): it is counted once after the load.
  await h.exec(`ALTER TABLE "listing_search" DISABLE TRIGGER "listing_search_stats"`);
  const words = `ARRAY[${WORDS.map((w) => `'${w}'`).join(",")}]`;
  await h.exec(`INSERT INTO "organizations" ("id", "slug", "name") VALUES ('org-bench', 'bench', 'Bench Seller')`);
  // Titles of two or three vocabulary words; 95 % published; a few curated tiers and weights.
  await h.exec(`
    INSERT INTO "listings" ("id", "slug", "organizationId", "title", "shortDescription", "category", "baseUrl", "protocols", "networks",
                            "tier", "sortWeight", "featuredLevel", "verificationStatus", "publicationState", "publishedAt", "updatedAt")
    SELECT 'l' || lpad(i::text, 7, '0'), 'listing-' || i, 'org-bench',
           initcap(w[1 + (i * 7) % 30] || ' ' || w[1 + (i * 13) % 30] || CASE WHEN i % 3 = 0 THEN ' ' || w[1 + (i * 17) % 30] ELSE '' END) || ' API ' || i,
           'Pay per call ' || w[1 + (i * 11) % 30] || ' and ' || w[1 + (i * 19) % 30] || ' for agents',
           w[1 + i % 30], 'https://api' || i || '.example.com', ARRAY['x402'], ARRAY['eip155:8453'],
           CASE WHEN i % 100 = 0 THEN 1 ELSE 2 END, CASE WHEN i % 250 = 0 THEN 5 ELSE 0 END, (i % 23) % 6,
           (ARRAY['verified','unverified','unverified','degraded'])[1 + i % 4]::"VerificationStatus",
           CASE WHEN i % 20 = 0 THEN 'draft' ELSE 'published' END::"PublicationState", ${NOW_SQL}, ${NOW_SQL}
      FROM generate_series(1, ${LISTINGS}) AS i, (SELECT ${words} AS w) v`);
  // The endpoint trigger re-derives a listing's search vector per endpoint row; at bulk-load time the
  // listing rows were just written, so it is switched off for this insert only.
  await h.exec(`ALTER TABLE "endpoints" DISABLE TRIGGER "endpoints_search"`);
  await h.exec(`
    INSERT INTO "endpoints" ("id", "listingId", "position", "method", "path", "payable", "priceUsd", "priceLabel", "priceAmount", "priceAsset", "priceNetwork", "priceDecimals", "priceMode")
    SELECT 'e' || lpad(i::text, 7, '0'), 'l' || lpad(i::text, 7, '0'), 0, 'POST', '/run', true,
           to_char((1 + i % 50) / 1000.0, 'FM0.000'), '$' || to_char((1 + i % 50) / 1000.0, 'FM0.000') || ' per call',
           ((1 + i % 50) * 1000)::text, '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', 'eip155:8453', 6, 'fixed'
      FROM generate_series(1, ${LISTINGS}) AS i`);
  await h.exec(`ALTER TABLE "endpoints" ENABLE TRIGGER "endpoints_search"`);
  // Payments over 40 days (so the 30-day window cuts), 5,000 wallets, 90 % settled near the price.
  // A listing's payments are the i ≡ its index (mod listings); their round i ÷ listings picks one of
  // PAYERS wallet offsets, so each listing has PAYERS distinct payers (some of whose payments fail).
  await h.exec(`
    INSERT INTO "router_payments" ("id", "payer", "listingId", "endpointId", "advertisedAmount", "settledAmount", "asset", "network", "status", "createdAt")
    SELECT 'p' || i, '0x' || lpad(to_hex(1 + ((i * 7919) % 5000 + ((i / ${LISTINGS}) % ${PAYERS}) * 337) % 5000), 40, '0'), 'l' || lpad(li::text, 7, '0'), 'e' || lpad(li::text, 7, '0'),
           ((1 + li % 50) * 1000)::text,
           CASE WHEN i % 10 <> 0 THEN ((1 + li % 50) * 1000 + (i % 7) * 10)::text END,
           '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', 'eip155:8453',
           CASE WHEN i % 10 <> 0 THEN 'settled' ELSE 'failed' END::"PaymentStatus",
           ${NOW_SQL} - ((i * 2654435761::bigint) % (40 * 86400)) * interval '1 second'
      FROM (SELECT i, 1 + (i * 48271) % ${LISTINGS} AS li FROM generate_series(1::bigint, ${ROWS}) AS i) g`);
  await h.exec(`
    INSERT INTO "monitor_health_samples" ("id", "listingId", "at", "outcome", "httpStatus", "latencyMs", "confidence", "challengeKind", "vantage")
    SELECT 'h' || i, 'l' || lpad((1 + (i * 69621) % ${LISTINGS})::text, 7, '0'),
           ${NOW_SQL} - ((i * 40503::bigint) % (35 * 86400)) * interval '1 second',
           CASE WHEN i % 15 = 0 THEN 'down' ELSE 'up' END, CASE WHEN i % 15 = 0 THEN NULL ELSE 402 END, 50 + i % 200,
           CASE WHEN i % 15 = 0 THEN 0 WHEN i % 31 = 0 THEN 0.6 ELSE 1 END, 'x402-v2', 'bench'
      FROM generate_series(1::bigint, ${ROWS}) AS i`);
  await h.exec(`
    INSERT INTO "price_quotes" ("id", "listingId", "endpointId", "amount", "asset", "network", "quotedAt", "source")
    SELECT 'q' || i, 'l' || lpad(i::text, 7, '0'), 'e' || lpad(i::text, 7, '0'), ((1 + i % 50) * 1000)::text,
           '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', 'eip155:8453', ${NOW_SQL} - (i % 45) * interval '1 day', 'bench'
      FROM generate_series(1, ${LISTINGS}) AS i`);
  for (const i of indexes) await h.exec(i.indexdef);
  for (const t of pageTriggers) await h.exec(`ALTER TABLE "${SCHEMA}"."${t.tbl}" ENABLE TRIGGER "${t.tgname}"`);
  await h.exec(`ALTER TABLE "listing_search" ENABLE TRIGGER "listing_search_stats"`);
  await h.exec(`UPDATE "listing_search_stats" SET "publicListings" = (SELECT count(*) FILTER (WHERE "publicationState" = 'published') FROM "listing_search"), "generation" = "generation" + 1 WHERE "id" = 1`);
  await h.exec(`VACUUM ANALYZE`);
}

async function main(): Promise<void> {
  const admin = await openDatabase({ url: URL_, poolSize: 1 });
  await admin.exec(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE; CREATE SCHEMA ${SCHEMA}`);
  // As many connections as the sweep uses at once (its lock, a range's three fact statements, two
  // batch writes), so none of them queues for a connection; the app's pool is 10.
  const h = await openDatabase({ url: URL_, schema: SCHEMA, poolSize: 8, applicationName: APP_NAME });
  try {
    await migrate(h);
    setDatabase(h);
    const [, loadMs] = await timed(() => load(h));
    console.log(`loaded ${LISTINGS.toLocaleString("en-US")} listings, ${ROWS.toLocaleString("en-US")} payments (${PAYERS} payers a listing), ${ROWS.toLocaleString("en-US")} health samples in ${s(loadMs)} (schema ${SCHEMA})`);
    if (LOAD_ONLY) return;
    if (ONLY_SELECT) {
      await h.exec(`UPDATE "listing_ranks" SET "rankScore" = (('x' || substr(md5("listingId"), 1, 8))::bit(32)::int & 1023) / 1023.0 * 1.2, "gate" = 'settleable'`);
      await h.exec(`VACUUM ANALYZE "listing_ranks"`);
      const times: number[] = [];
      for (let i = 0; i < 100; i++) {
        const req = parseSelectRequest({ task: `${WORDS[i % WORDS.length]} ${WORDS[(i * 7) % WORDS.length]}`, limit: 10, ...(i % 3 === 0 ? { filters: { maxPrice: "0.02" } } : {}) });
        times.push((await timed(() => selectServices(req, { apiVersion: "1.55" })))[1]);
      }
      console.log(`selectServices (limit 10, 100 tasks; --only select, no sweep): p50 ${ms(pct(times, 50))}, p95 ${ms(pct(times, 95))}`);
      return;
    }

    // The floor: one bare aggregate scan over the same rows the sweep reads.
    const floorSql = `SELECT (SELECT count(*) FROM (SELECT "listingId", count(*) FROM "router_payments" GROUP BY 1) a)
                           + (SELECT count(*) FROM (SELECT "listingId", count(*) FROM "monitor_health_samples" GROUP BY 1) b) AS n`;
    await h.query(floorSql); // warm the cache for both sides alike

    // A sweep that is not the leader does nothing and would be reported as 0.00 s (it happened once,
    // while the lock was still database-wide; commit 14accc6 keys it by schema too). Such a run
    // measures nothing, so wait and retry rather than report it.
    const sweepOnce = async () => {
      for (let attempt = 1; ; attempt++) {
        const [r, t] = await timed(() => runRankSweep({ now: NOW }));
        if (r.leader) return [r, t] as const;
        if (attempt >= 30) throw new Error("the rank sweep lock stayed held by another process; nothing measured");
        console.log(`sweep lock held elsewhere (attempt ${attempt}); retrying in 2 s`);
        await new Promise((ok) => setTimeout(ok, 2000));
      }
    };
    // Back to the state the load left: every rank row unranked, the table rewritten without the
    // last sweep's dead rows.
    const unrank = async () => {
      await h.exec(`UPDATE "listing_ranks" SET "qualityScore" = NULL, "rankScore" = NULL, "gate" = NULL, "components" = NULL, "facts" = NULL, "inputsHash" = NULL, "rankedAt" = NULL`);
      await h.exec(`VACUUM FULL "listing_ranks"`);
      await h.exec(`ANALYZE "listing_ranks"`);
    };

    // Three rounds, each a floor and then a full sweep from the same starting state (after a
    // checkpoint, so each sweep pays the same full-page writes): on 2 shared cores either figure
    // alone moved by ±20 % from run to run, so the ratio is taken of the medians.
    // Each round also counts CPU time (PostgreSQL's processes and this one), when the server runs on
    // this machine: the floor is one statement on one core, the sweep spreads over every core, so the
    // ratio of their CPU times says how many cores the sweep needs to come within 3 × the floor.
    const floors: number[] = [];
    const sweeps: number[] = [];
    const floorCpu: number[] = [];
    const sweepCpu: number[] = [];
    let full: Awaited<ReturnType<typeof sweepOnce>>[0] | undefined;
    for (let round = 1; round <= ROUNDS; round++) {
      if (round > 1) await unrank();
      await h.exec("CHECKPOINT");
      const floorRun = await cpuOf(h, () => h.query(floorSql));
      floors.push(floorRun.ms);
      const sweepRun = await cpuOf(h, sweepOnce);
      const [r, sweepMs] = sweepRun.result;
      sweeps.push(sweepMs);
      full = r;
      let cpu = "";
      if (floorRun.pg !== null && sweepRun.pg !== null) {
        floorCpu.push(floorRun.pg + floorRun.node);
        sweepCpu.push(sweepRun.pg + sweepRun.node);
        cpu = `; CPU: floor ${s(floorRun.pg + floorRun.node)}, sweep ${s(sweepRun.pg + sweepRun.node)} (PostgreSQL ${s(sweepRun.pg)}, this process ${s(sweepRun.node)})`;
      }
      console.log(`round ${round}: floor ${s(floorRun.ms)}; full rank sweep ${s(sweepMs)} — scanned ${r.scanned.toLocaleString("en-US")}, updated ${r.updated.toLocaleString("en-US")}, ${r.batches} batches (facts read ${s(r.factsMs)}, scoring ${s(r.scoreMs)}, waiting for writes ${s(r.writeWaitMs)})${cpu}`);
      if (r.updated !== LISTINGS) throw new Error(`round ${round}: expected ${LISTINGS} listings written, got ${r.updated}`);
    }
    const floor = pct(floors, 50);
    const sweepMs = pct(sweeps, 50);
    const range = (xs: number[]) => `${s(Math.min(...xs))}–${s(Math.max(...xs))}`;
    console.log(`floor (bare GROUP BY scan of payments + samples), median of ${ROUNDS}: ${s(floor)} (${range(floors)})`);
    console.log(`full rank sweep, median of ${ROUNDS}: ${s(sweepMs)} (${range(sweeps)}); last round's facts read ${s(full!.factsMs)}, scoring ${s(full!.scoreMs)}, waiting for writes ${s(full!.writeWaitMs)}`);
    if (sweepCpu.length === ROUNDS) {
      const cpuRatio = pct(sweepCpu, 50) / pct(floorCpu, 50);
      console.log(
        `CPU, median of ${ROUNDS}: sweep ${s(pct(sweepCpu, 50))} against the floor's ${s(pct(floorCpu, 50))}, ${cpuRatio.toFixed(2)}×; ` +
          `on ${availableParallelism()} cores the sweep can take no less than ${(cpuRatio / availableParallelism()).toFixed(2)} × the floor's time, ` +
          `and comes within 3 × only with ${Math.ceil(cpuRatio / 3)} cores or more, all busy`,
      );
      // The writes' own floor: every ranked row rewritten with the values it holds (the same columns and
      // sizes, the page cache's triggers on), as a full sweep must write once every listing's inputs are
      // new. What the sweep could cost if reading and scoring were free.
      const writeCpu: number[] = [];
      for (let round = 1; round <= ROUNDS; round++) {
        await h.exec("CHECKPOINT");
        const w = await cpuOf(h, () =>
          h.exec(`UPDATE "listing_ranks" SET "qualityScore" = "qualityScore", "rankScore" = "rankScore", "gate" = "gate", "components" = "components",
                         "facts" = "facts", "inputsHash" = "inputsHash", "rankedAt" = "rankedAt", "rankDueAt" = "rankDueAt" WHERE "rankedAt" IS NOT NULL`),
        );
        writeCpu.push(w.pg! + w.node);
      }
      const writeRatio = pct(writeCpu, 50) / pct(floorCpu, 50);
      console.log(
        `the writes' floor (every ranked row rewritten as it is), median of ${ROUNDS}: CPU ${s(pct(writeCpu, 50))} (${range(writeCpu)}), ${writeRatio.toFixed(2)}× the floor's; ` +
          `the sweep's CPU less it ${(cpuRatio - writeRatio).toFixed(2)}× the floor's`,
      );
      console.log(`RESULT rank_write_floor_ratio ${writeRatio.toFixed(2)}`);
    } else console.log("CPU: no PostgreSQL process visible on this machine; not counted");
    const [again, againMs] = await sweepOnce();
    console.log(`repeat sweep, nothing changed: ${s(againMs)} — updated ${again.updated}, unchanged ${again.unchanged.toLocaleString("en-US")} (facts read ${s(again.factsMs)}, hashing ${s(again.scoreMs)})`);
    // The 30-second tick is a due sweep: it reads only the listings marked by the rank-input triggers
    // or due by time. Nothing is marked or due right after a full sweep; then 1,000 payments on 1,000
    // listings (one statement, so one trigger call) mark exactly those.
    const tick = async () => {
      const [r, t] = await timed(() => runRankSweep({ now: NOW, mode: "due" }));
      if (!r.leader || r.mode !== "due") throw new Error(`the tick ran as ${r.leader ? r.mode : "no leader"}, not as a due sweep`);
      return [r, t] as const;
    };
    const [idleTick, idleTickMs] = await tick();
    console.log(`tick (due sweep), nothing marked or due: ${ms(idleTickMs)} — marked ${idleTick.marked}, due ${idleTick.due}, scanned ${idleTick.scanned}`);
    const TICK_PAYMENTS = Math.min(1000, LISTINGS);
    await h.exec(`
      INSERT INTO "router_payments" ("id", "payer", "listingId", "endpointId", "advertisedAmount", "settledAmount", "asset", "network", "status", "createdAt")
      SELECT 'tick-' || i, '0x' || lpad(to_hex(90000 + i), 40, '0'), 'l' || lpad((i * 97 % ${LISTINGS} + 1)::text, 7, '0'), NULL,
             '10000', '10000', '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', 'eip155:8453', 'settled', ${NOW_SQL} - interval '1 hour'
        FROM generate_series(1, ${TICK_PAYMENTS}) AS i`);
    const [busyTick, busyTickMs] = await tick();
    console.log(`tick after ${TICK_PAYMENTS.toLocaleString("en-US")} payments on as many listings: ${ms(busyTickMs)} — marked ${busyTick.marked}, scanned ${busyTick.scanned}, updated ${busyTick.updated} (facts read ${ms(busyTick.factsMs)}, scoring ${ms(busyTick.scoreMs)})`);
    if (busyTick.scanned !== TICK_PAYMENTS) throw new Error(`the tick read ${busyTick.scanned} listings, not the ${TICK_PAYMENTS} marked`);

    const ranked = await h.query<{ n: number }>(`SELECT count(*)::int AS n FROM "listing_ranks" WHERE "rankScore" IS NOT NULL AND "rankedAt" IS NOT NULL`);
    if (ranked[0].n !== LISTINGS) throw new Error(`expected ${LISTINGS} ranked listings, got ${ranked[0].n}`);

    // The first sweep rewrote every rank row; measure reads in the steady state autovacuum reaches.
    await h.exec(`VACUUM ANALYZE "listings"`);
    await h.exec(`VACUUM ANALYZE "listing_ranks"`);
    // Browse: 40 first pages (with and without a filter) and 80 pages deep in cursor chains.
    const browse: number[] = [];
    for (let i = 0; i < 40; i++) {
      const filters = i % 2 ? { category: WORDS[i % WORDS.length] } : undefined;
      browse.push((await timed(() => browseCatalog({ limit: 24, now: NOW, filters })))[1]);
    }
    let cursor: string | null = null;
    for (let i = 0; i < 80; i++) {
      const [page, t] = await timed(() => browseCatalog({ limit: 24, now: NOW, cursor }));
      browse.push(t);
      cursor = page.nextCursor;
    }
    console.log(`browseCatalog (24 per page, 120 requests): p50 ${ms(pct(browse, 50))}, p95 ${ms(pct(browse, 95))}`);

    const select: number[] = [];
    for (let i = 0; i < 100; i++) {
      const task = `${WORDS[i % WORDS.length]} ${WORDS[(i * 7) % WORDS.length]}`;
      const req = parseSelectRequest({ task, limit: 10, ...(i % 3 === 0 ? { filters: { maxPrice: "0.02" } } : {}) });
      select.push((await timed(() => selectServices(req, { apiVersion: "1.55" })))[1]);
    }
    console.log(`selectServices (limit 10, 100 tasks): p50 ${ms(pct(select, 50))}, p95 ${ms(pct(select, 95))}`);

    const ratio = sweepMs / floor;
    console.log(`targets: sweep/floor ≤ 3 (${ratio.toFixed(2)}), browse p95 < 50 ms, select p95 < 100 ms`);
    printLoadAverage();
    console.log(`RESULT rank_sweep_floor_ratio ${ratio.toFixed(2)}`);
  } finally {
    setDatabase(undefined);
    await h.close();
    if (!LOAD_ONLY) await admin.exec(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
    await admin.close();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
  process.exitCode = 1;
});
