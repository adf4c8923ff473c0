/**
 * `npm run bench:load -- [--quick] [--clients 200] [--seconds 60] [--listings 2000] [--port 3190] [--class-seconds 8] [--sweep-workers 1] [--hold] [--ungraded]`
 *
 * Many buyers at once against the production build on a server PostgreSQL, loopback only (issue #20
 * item 9, issue #33 "Benchmark"). Needs a production build in .next (`npx next build`; in a worktree
 * whose node_modules is a symlink, `npx next build --webpack`) and DATABASE_URL naming a server
 * PostgreSQL; the bench creates a database of its own beside it (CREATEDB) and drops it at the end.
 * It refuses to start, naming what is missing, without either. `--quick`: 50 clients, 10 s, 200
 * listings, 2 s per class (defaults any flag given overrides). `--hold`: seed and start the server (no sweep workers), then wait for
 * Ctrl-C (the database kept until then) instead of driving load, for profiling a class by hand.
 *
 * 1. Seeds a catalog (the fixture sellers' listings, served on 127.0.0.1 for the run, and --listings
 *    more), each scored the way a worker's result is stored, then one full rank sweep and one attest
 *    sweep (the stored grades the pages read; `--ungraded` leaves them out).
 * 2. Starts `next start` on that database (its own ticks: the queue's, the ledger's, the limits') and
 *    --sweep-workers sweep workers (scripts/sweeps.ts: health, rank, attest, canary, … ticks; 0 for
 *    none), as production runs them (the outbound guard reaches the fixture sellers only).
 * 3. Warms each class, keeps a few answers per class (status, type, bytes), then --clients loops share
 *    one keep-alive agent for --seconds: catalog pages (browse, a category, a sort), search, listing
 *    pages, badge SVGs and feeds. An error is any status outside 2xx/3xx, a network error or no answer
 *    within 120 s.
 * 4. CPU per request by class: each class alone for --class-seconds (a fifth of the clients), the
 *    server's CPU (from /proc) over the requests answered.
 * 5. next start's own floor: the same clients for the same time asking it only for /favicon.ico (a file
 *    from public/, outside the proxy), the least it does for any request.
 * 6. The static floor, in the same run: a plain node:http server answering the kept bytes of the same
 *    class for the same URL mix, driven by the same clients for the same time.
 * Prints per class and overall requests, errors, p50/p95/p99; throughput against the floor's (target
 * ≥ 0.2×); p95 against 1 s; next start's floor against the static one (`RESULT load_next_floor_ratio`);
 * CPU per request by class; the load average; `RESULT load_p95 <ms> ms` last. Exit code 1 when any request failed.
 */
import { spawn, type ChildProcess } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import { Agent, createServer, request, type Server } from "node:http";
import os from "node:os";
import path from "node:path";
import { intFlag, pct } from "./args";
import { mulberry32 } from "@/lib/trust/engine/stats";
import { openDatabase, setDatabase, type DatabaseHandle } from "@/lib/db";
import { migrate } from "@/lib/migrate";
import { configureQueue } from "@/lib/queue/config";
import { claimLeases } from "@/lib/queue/lease";
import { completeLease } from "@/lib/analyses/store-result";
import { fixtureEvidence } from "@/lib/catalog-monitor/probes";
import { MONITOR_RUBRIC_VERSIONS } from "@/lib/probe/capabilities";
import { runRankSweep } from "@/lib/rank/sweep-ranks";
import { runTrustGradeSweep } from "@/lib/attest/sweep";
import { loadKeyring, signerFor } from "@/lib/badges/keys";
import { SORTS } from "@/lib/catalog/sorted";
import { endpointColumns, listingColumns } from "@/lib/listings/document-mapping";
import { loadListingDocuments } from "@/lib/listings/load-listing-documents";
import type { ListingDocument } from "@/lib/listing-document/document";
import { seedListing, seedOwner } from "@/test/analyses";
import { fullListing } from "@/test/readiness";
import { fixtureListings, startFixtureSellers, type FixtureServer } from "@/sellers";
import { printLoadAverage } from "./machine";

const ROOT = process.cwd();
const argv = process.argv.slice(2);
const QUICK = argv.includes("--quick");
const CLIENTS = intFlag(argv, "--clients", QUICK ? 50 : 200, 1);
const SECONDS = intFlag(argv, "--seconds", QUICK ? 10 : 60, 1);
const LISTINGS = intFlag(argv, "--listings", QUICK ? 200 : 2000, 1);
const CLASS_SECONDS = intFlag(argv, "--class-seconds", QUICK ? 2 : 8, 1);
const SWEEP_WORKERS = intFlag(argv, "--sweep-workers", 1, 0);
/** next start's cheapest answer: a file from public/, which the proxy's matcher leaves out (proxy.ts). */
const NEXT_FLOOR_PATH = "/favicon.ico";

/** Answers kept per class for the static floor. */
const KEPT_PER_CLASS = 12;
/** The targets (issue #33 "Benchmark"). */
const TARGET_P95_MS = 1_000;
const TARGET_VS_STATIC = 0.2;
const PORT = intFlag(argv, "--port", 3190, 1);
/** --hold: seed, start the server (and sweep workers), then wait for Ctrl-C instead of driving load (for profiling one class by hand). */
const HOLD = argv.includes("--hold");
/** --ungraded: seed no stored trust grade (every catalog tile scored live). */
const UNGRADED = argv.includes("--ungraded");
/** The server's and the seeding's one signing key. */
const SIGNING_ENV = { BADGE_SIGNING_KEY: crypto.randomBytes(32).toString("base64"), BADGE_SIGNING_KEY_NOT_BEFORE: new Date(Date.now() - 86_400_000).toISOString() };
/** A request still unanswered after this long counts as an error (a hang, not a slow answer). */
const REQUEST_TIMEOUT_MS = 120_000;

const WORDS = ["weather", "forecast", "translate", "text", "image", "resize", "geocode", "address", "stock", "quotes", "summarise", "documents", "speech", "audio", "search", "web", "email", "verify", "invoice", "parse", "pdf", "ocr", "sentiment", "news", "crypto", "prices", "maps", "routing", "vision", "embeddings"];
const CATEGORIES = ["weather", "language", "images", "location", "finance", "documents", "audio", "search", "identity", "data"];
const STYLES = ["flat", "flat-square", "plastic", "for-the-badge"];

type RouteClass = "catalog" | "search" | "listing" | "badge" | "feed";
/** Share of requests per class (sums to 100). */
const MIX: Record<RouteClass, number> = { catalog: 20, search: 20, listing: 25, badge: 25, feed: 10 };

function refuse(message: string): never {
  console.error(`bench:load: ${message}`);
  process.exit(2);
}

function preflight(): { url: URL } {
  if (!fs.existsSync(path.join(ROOT, ".next", "BUILD_ID"))) {
    refuse("needs a production build in .next (BUILD_ID is missing): run `npx next build` first (`npx next build --webpack` in a worktree whose node_modules is a symlink)");
  }
  const raw = process.env.DATABASE_URL;
  if (!raw || !/^postgres(ql)?:\/\//.test(raw)) {
    refuse(`needs a server PostgreSQL: set DATABASE_URL to a postgresql:// URL (e.g. postgresql://postgres@127.0.0.1:5432/test)${raw ? `; got ${JSON.stringify(raw.slice(0, 40))}` : ""}. The embedded PGlite belongs to one process and is not what this measures.`);
  }
  const url = new URL(raw);
  if (!["127.0.0.1", "localhost", "[::1]"].includes(url.hostname)) refuse(`runs on loopback only: DATABASE_URL's host is ${url.hostname}, not 127.0.0.1 or localhost`);
  return { url };
}

/** A listing document from the vocabulary: two or three words, a category, a price. */
function catalogDocument(i: number, sellersUrl: string): ListingDocument {
  const w = (k: number) => WORDS[(i * k) % WORDS.length];
  const title = `${w(7)} ${w(13)}${i % 3 === 0 ? ` ${w(17)}` : ""} API ${i}`.replace(/^./, (c) => c.toUpperCase());
  return fullListing({
    slug: `load-${i}`,
    title,
    shortDescription: `Pay per call ${w(11)} and ${w(19)} for agents`,
    description: `${title} answers ${w(11)}, ${w(19)} and ${w(23)} requests for agents, priced per call in USDC on Base.`,
    category: CATEGORIES[i % CATEGORIES.length],
    // Never reached: the server's outbound guard is allow-list only (the fixture sellers).
    baseUrl: `${sellersUrl}/catalog-${i}`,
  });
}

async function seedCatalog(h: DatabaseHandle, sellers: FixtureServer): Promise<{ slugs: string[]; ms: number }> {
  const started = performance.now();
  const { org } = await seedOwner(h.prisma);
  const ids: string[] = [];
  for (const doc of Object.values(fixtureListings(sellers.url))) ids.push(await seedListing(h.prisma, org.id, doc));
  for (let start = 0; start < LISTINGS; start += 500) {
    const docs = Array.from({ length: Math.min(500, LISTINGS - start) }, (_, k) => catalogDocument(start + k, sellers.url));
    const chunk = docs.map((d) => ({ id: `lst_load_${d.slug}`, doc: d }));
    await h.prisma.listing.createMany({
      data: chunk.map(({ id, doc }) => ({ ...listingColumns(doc), id, slug: doc.slug!, organizationId: org.id, publicationState: "published" as const, publishedAt: new Date() })),
    });
    await h.prisma.endpoint.createMany({ data: chunk.flatMap(({ id, doc }) => doc.endpoints.map((e, i) => ({ ...endpointColumns(e, i), listingId: id }))) });
    ids.push(...chunk.map((c) => c.id));
  }
  // Score every listing the way a worker's result is stored: an analysis each, claimed and completed.
  await h.query(
    `INSERT INTO "catalog_scoring_analyses" ("id", "listingId", "submitter", "trigger", "targetUrl", "state", "step")
     SELECT 'load:' || l."id", l."id", 'load:' || l."id", 'reanalyse', l."baseUrl", 'queued', 'queued' FROM "listings" l WHERE l."id" = ANY($1::text[])`,
    [ids],
  );
  await Promise.all(
    Array.from({ length: 4 }, async (_, w) => {
      for (;;) {
        const got = await claimLeases({ workerId: `bench-load-${w}`, limit: 50, leaseMs: 120_000, client: h, rubricVersions: MONITOR_RUBRIC_VERSIONS });
        if (got.length === 0) return;
        const docs = await loadListingDocuments(h, got.map((j) => j.listingId!));
        for (const job of got) {
          const doc = docs.get(job.listingId!);
          if (!doc) throw new Error(`no document for listing ${job.listingId}`);
          await completeLease(job.id, { leaseToken: job.leaseToken, evidence: fixtureEvidence(doc) }, { client: h });
        }
      }
    }),
  );
  const [{ scored }] = await h.query<{ scored: number }>(`SELECT count(*)::int AS "scored" FROM "listings" WHERE "currentResultId" IS NOT NULL`);
  if (scored !== ids.length) throw new Error(`seeding scored ${scored} of ${ids.length} listings`);
  await runRankSweep({ mode: "full" });
  // The stored grades pages read: in production the sweep workers' attest sweep has graded every observed
  // endpoint within minutes of its listing's publishing, so the steady state is graded tiles (--ungraded:
  // none, every tile scored live, as in the minutes after a mass import).
  if (!UNGRADED) {
    const keys = await loadKeyring({ env: SIGNING_ENV, dataDir: os.tmpdir() });
    if (!keys.ok) throw new Error(`the bench's signing key: ${keys.error.message}`);
    const graded = await runTrustGradeSweep({ signer: signerFor(keys.keyring) });
    if (graded.failed > 0) throw new Error(`grading ${graded.failed} of ${graded.listings} listings failed`);
  }
  await h.exec(`VACUUM ANALYZE`);
  const slugs = (await h.query<{ slug: string }>(`SELECT "slug" FROM "listings" WHERE "publicationState" = 'published' ORDER BY "slug"`)).map((r) => r.slug);
  return { slugs, ms: performance.now() - started };
}

function serverEnv(databaseUrl: string, allowHosts: string): NodeJS.ProcessEnv {
  const origin = `http://127.0.0.1:${PORT}`;
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: "production",
    NEXT_TELEMETRY_DISABLED: "1",
    DATABASE_URL: databaseUrl,
    TOLLGATE_DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), "tollgate-bench-load-")),
    TOLLGATE_PUBLIC_URL: origin,
    NEXTAUTH_URL: origin,
    NEXTAUTH_SECRET: crypto.randomBytes(32).toString("base64url"),
    TOLLGATE_WORKER_TOKEN: crypto.randomBytes(24).toString("base64url"),
    ...SIGNING_ENV,
    TOLLGATE_PROBE_ALLOW_HOSTS: allowHosts,
    TOLLGATE_NET_ALLOWLIST_ONLY: "1",
  } as unknown as NodeJS.ProcessEnv;
}

/** Keep-alive as long as the static floor's (65 s): with Node's 5 s an idle pooled socket can close under a request (ECONNRESET). */
function startServer(env: NodeJS.ProcessEnv): ChildProcess {
  // BENCH_LOAD_PROFILE_DIR: the server writes a V8 CPU profile there when it exits (what dominates a request).
  const profile = process.env.BENCH_LOAD_PROFILE_DIR;
  return spawn(process.execPath, [...(profile ? ["--cpu-prof", `--cpu-prof-dir=${path.resolve(profile)}`] : []), require.resolve("next/dist/bin/next"), "start", "-p", String(PORT), "-H", "127.0.0.1", "--keepAliveTimeout", "65000"], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"], env });
}

/** A sweep worker (`npm run sweeps`) in one process: node with tsx's loader, so its CPU is this pid's. */
function startSweepWorker(env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, ["--import", "tsx", path.join(ROOT, "scripts", "sweeps.ts"), "--initial-delay-ms", "0"], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"], env });
}

interface Answer {
  status: number;
  ms: number;
  error?: string;
  type?: string;
  body?: Buffer;
}

const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS, maxFreeSockets: CLIENTS });

function get(url: string, keep = false): Promise<Answer> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    const req = request(url, { agent, headers: { accept: "*/*" }, timeout: REQUEST_TIMEOUT_MS }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (d: Buffer) => keep && chunks.push(d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - t0, type: String(res.headers["content-type"] ?? ""), body: keep ? Buffer.concat(chunks) : undefined }));
      res.on("error", (e) => resolve({ status: 0, ms: performance.now() - t0, error: e.message }));
    });
    req.on("timeout", () => req.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS} ms`)));
    req.on("error", (e) => resolve({ status: 0, ms: performance.now() - t0, error: e.message }));
    req.end();
  });
}

async function waitForServer(origin: string, server: ChildProcess, output: () => string): Promise<void> {
  const until = Date.now() + 120_000;
  while (Date.now() < until) {
    if (server.exitCode !== null) throw new Error(`next start exited with ${server.exitCode}:\n${output().slice(-2000)}`);
    const a = await get(`${origin}/catalog`);
    if (a.status === 200) return;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`${origin}/catalog did not answer 200 within 120 s:\n${output().slice(-2000)}`);
}

/** The next request of a class, drawn at random. */
function pathFor(cls: RouteClass, slugs: readonly string[], rnd: () => number): string {
  const pick = <T,>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)];
  const word = () => pick(WORDS);
  switch (cls) {
    case "catalog": {
      const r = rnd();
      if (r < 0.5) return "/catalog";
      if (r < 0.8) return `/catalog?category=${pick(CATEGORIES)}`;
      return `/catalog?sort=${pick(SORTS)}`;
    }
    case "search":
      return rnd() < 0.5 ? `/catalog?search=${encodeURIComponent(`${word()} ${word()}`)}` : `/ard/search?q=${encodeURIComponent(word())}`;
    case "listing":
      return `/listings/${encodeURIComponent(pick(slugs))}`;
    case "badge":
      return `/badges/${encodeURIComponent(pick(slugs))}.svg?style=${pick(STYLES)}`;
    case "feed": {
      const r = rnd();
      if (r < 0.5) return "/ard";
      if (r < 0.85) return "/ai-catalog.json";
      return "/.well-known/tollgate-badge-keys.json";
    }
  }
}

/** The class of a path pathFor made (the static floor sees only the URL). */
function classOfPath(p: string): RouteClass {
  if (p.startsWith("/catalog?search=") || p.startsWith("/ard/search")) return "search";
  if (p.startsWith("/catalog")) return "catalog";
  if (p.startsWith("/listings/")) return "listing";
  if (p.startsWith("/badges/")) return "badge";
  return "feed";
}

type Kept = Record<RouteClass, Answer[]>;

/** The static floor: each URL answered with one of the kept answers of its class (the same one for the same URL), bytes as they were. */
function startStaticFloor(kept: Kept): Promise<{ server: Server; origin: string }> {
  const server = createServer((req, res) => {
    const p = req.url ?? "/";
    const answers = kept[classOfPath(p)];
    const a = answers[crypto.createHash("sha1").update(p).digest().readUInt32BE(0) % answers.length];
    res.writeHead(a.status, { "content-type": a.type ?? "application/octet-stream", "content-length": a.body!.length });
    res.end(a.body);
  });
  server.keepAliveTimeout = 65_000;
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ server, origin: `http://127.0.0.1:${(server.address() as { port: number }).port}` })));
}

interface Run {
  lat: Record<RouteClass, number[]>;
  errs: Record<RouteClass, number>;
  samples: string[];
  elapsed: number;
}

/** `clients` loops for `seconds` against `origin`, each drawing its classes from `draw`. */
async function drive(origin: string, clients: number, seconds: number, slugs: readonly string[], draw: (rnd: () => number) => RouteClass, only?: string): Promise<Run> {
  const lat: Record<RouteClass, number[]> = { catalog: [], search: [], listing: [], badge: [], feed: [] };
  const errs: Record<RouteClass, number> = { catalog: 0, search: 0, listing: 0, badge: 0, feed: 0 };
  const samples: string[] = [];
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      const rnd = mulberry32(1000 + c);
      while (performance.now() < deadline) {
        const cls = draw(rnd);
        const p = only ?? pathFor(cls, slugs, rnd);
        const a = await get(`${origin}${p}`);
        lat[cls].push(a.ms);
        if (a.error || a.status < 200 || a.status >= 400) {
          errs[cls]++;
          if (samples.length < 10) samples.push(`${p} → ${a.error ?? a.status}`);
        }
      }
    }),
  );
  return { lat, errs, samples, elapsed: (performance.now() - started) / 1000 };
}

function classFor(x: number): RouteClass {
  let acc = 0;
  for (const [cls, share] of Object.entries(MIX) as [RouteClass, number][]) {
    acc += share;
    if (x * 100 < acc) return cls;
  }
  return "feed";
}

/**
 * CPU time in ms (user + system, from /proc/<pid>/stat, 100 ticks a second) of the processes a test
 * picks by name and parent: the server (`next start` and any child of it) and PostgreSQL's processes
 * (backends, WAL writer, checkpointer, and the exited backends the postmaster has reaped). Null where
 * /proc cannot be read.
 */
function cpuMs(serverPid: number, sweepPids: readonly number[] = []): { server: number; postgres: number; sweeps: number } | null {
  let server = 0;
  let postgres = 0;
  let sweeps = 0;
  let pids: string[];
  try {
    pids = fs.readdirSync("/proc").filter((p) => /^\d+$/.test(p));
  } catch {
    return null;
  }
  for (const pid of pids) {
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    } catch {
      continue; // exited meanwhile
    }
    const close = stat.lastIndexOf(")");
    const name = stat.slice(stat.indexOf("(") + 1, close);
    const f = stat.slice(close + 2).split(" "); // fields from the 3rd (state) on
    const ticks = Number(f[11]) + Number(f[12]);
    if (Number(pid) === serverPid || Number(f[1]) === serverPid) server += ticks * 10;
    else if (sweepPids.includes(Number(pid))) sweeps += ticks * 10;
    // With its reaped children's (cutime, cstime): a backend that exits between two readings is in the postmaster's
    // count at the second, so the difference never goes negative.
    else if (name.startsWith("postgres")) postgres += (ticks + Number(f[13]) + Number(f[14])) * 10;
  }
  return { server, postgres, sweeps };
}

const f1 = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : "–");

async function main(): Promise<void> {
  const { url } = preflight();
  const dbName = `tollgate_bench_load_${process.pid}`;
  const dbUrl = new URL(url.toString());
  dbUrl.pathname = `/${dbName}`;
  const admin = await openDatabase({ url: url.toString(), poolSize: 1 });
  await admin.exec(`CREATE DATABASE ${dbName}`);
  let server: ChildProcess | null = null;
  const workers: ChildProcess[] = [];
  let sellers: FixtureServer | null = null;
  let h: DatabaseHandle | null = null;
  let failed = 0;
  try {
    h = await openDatabase({ url: dbUrl.toString(), poolSize: 6 });
    setDatabase(h);
    await migrate(h);
    configureQueue({ maxBatch: 100 });
    sellers = await startFixtureSellers({ host: "127.0.0.1", port: 0 });
    const seeded = await seedCatalog(h, sellers);
    console.log(`bench:load  ${seeded.slugs.length} published listings seeded and scored in ${(seeded.ms / 1000).toFixed(1)} s (database ${dbName} on ${url.host}); Node ${process.version}, ${os.availableParallelism()} CPUs`);
    setDatabase(undefined);
    await h.close();
    h = null;

    let out = "";
    const serverLog = path.join(os.tmpdir(), `tollgate-bench-load-${process.pid}.log`);
    const logFile = fs.createWriteStream(serverLog);
    const env = serverEnv(dbUrl.toString(), `127.0.0.1:${sellers.port}`);
    server = startServer(env);
    server.stdout!.on("data", (d) => {
      out = (out + d).slice(-20_000);
      logFile.write(d);
    });
    server.stderr!.on("data", (d) => {
      out = (out + d).slice(-20_000);
      logFile.write(d);
    });
    console.log(`server output: ${serverLog}`);
    const origin = `http://127.0.0.1:${PORT}`;
    const bootStarted = performance.now();
    await waitForServer(origin, server, () => out);
    console.log(`next start answered on ${origin} after ${((performance.now() - bootStarted) / 1000).toFixed(1)} s`);
    if (HOLD) {
      console.log(`holding (--hold): ${origin}, database ${dbUrl}, server pid ${server.pid}, e.g. ${origin}/listings/${seeded.slugs[0]}; Ctrl-C ends and drops the database`);
      // Every later signal is taken too (a terminal and a wrapper such as tsx may both send one), so the cleanup below finishes.
      await new Promise<void>((r) => ["SIGINT", "SIGTERM"].forEach((sig) => process.on(sig, () => r())));
      return;
    }

    // Warm-up, not counted: each class's routes, keeping a few answers per class for the static floor.
    const warm = mulberry32(1); // seeded, so each client's sequence is reproducible
    const kept: Kept = { catalog: [], search: [], listing: [], badge: [], feed: [] };
    for (const cls of Object.keys(MIX) as RouteClass[]) {
      for (let i = 0; i < KEPT_PER_CLASS; i++) {
        const a = await get(`${origin}${pathFor(cls, seeded.slugs, warm)}`, true);
        if (a.status >= 200 && a.status < 400) kept[cls].push(a);
      }
      if (kept[cls].length === 0) throw new Error(`no ${cls} answer during warm-up`);
    }
    for (let i = 0; i < SWEEP_WORKERS; i++) {
      const worker = startSweepWorker(env);
      worker.stdout!.on("data", (d) => logFile.write(d));
      worker.stderr!.on("data", (d) => logFile.write(d));
      workers.push(worker);
    }
    const sweepPids = workers.map((w) => w.pid!);
    console.log(`sweeps: ${SWEEP_WORKERS} sweep worker process(es) (scripts/sweeps.ts: health, rank, attest, canary, … ticks), started now; next start runs only its own ticks`);

    const loads: number[] = [os.loadavg()[0]];
    const loadTimer = setInterval(() => loads.push(os.loadavg()[0]), 5_000);
    const cpu0 = cpuMs(server.pid!, sweepPids);
    const client0 = process.cpuUsage();
    const run = await drive(origin, CLIENTS, SECONDS, seeded.slugs, (rnd) => classFor(rnd()));
    const cpu1 = cpuMs(server.pid!, sweepPids);
    const client1 = process.cpuUsage(client0);
    const { lat, errs, samples, elapsed } = run;
    const all = Object.values(lat).flat();
    failed = Object.values(errs).reduce((x, y) => x + y, 0);

    // CPU per request by class: each class alone, a fifth of the clients.
    const perClass: Array<[RouteClass, number, number, number]> = [];
    for (const cls of Object.keys(MIX) as RouteClass[]) {
      const c0 = cpuMs(server.pid!);
      const r = await drive(origin, Math.max(1, Math.round(CLIENTS / 5)), CLASS_SECONDS, seeded.slugs, () => cls);
      const c1 = cpuMs(server.pid!);
      const n = r.lat[cls].length;
      failed += r.errs[cls];
      if (c0 && c1) perClass.push([cls, n, (c1.server - c0.server) / Math.max(1, n), (c1.postgres - c0.postgres) / Math.max(1, n)]);
    }

    // next start's own floor: the same clients for the same time, every request the cheapest answer it gives (a
    // 173-byte file from public/, outside the proxy: no rendering, no database). No page can be served faster.
    const nextFloor = await drive(origin, CLIENTS, SECONDS, seeded.slugs, () => "feed", NEXT_FLOOR_PATH);
    const nextFloorAll = Object.values(nextFloor.lat).flat();
    failed += Object.values(nextFloor.errs).reduce((x, y) => x + y, 0);

    // The static floor: same clients, same mix, same time, the kept bytes.
    const floor = await startStaticFloor(kept);
    const staticRun = await drive(floor.origin, CLIENTS, SECONDS, seeded.slugs, (rnd) => classFor(rnd()));
    await new Promise((r) => floor.server.close(() => r(undefined)));
    floor.server.closeAllConnections();
    clearInterval(loadTimer);
    loads.push(os.loadavg()[0]);
    const staticAll = Object.values(staticRun.lat).flat();

    const throughput = all.length / elapsed;
    const staticThroughput = staticAll.length / staticRun.elapsed;
    console.log(`\n${CLIENTS} clients for ${SECONDS} s (${elapsed.toFixed(1)} s measured), mix ${Object.entries(MIX).map(([k, v]) => `${k} ${v}%`).join(", ")}`);
    console.log("class | requests | errors | p50 ms | p95 ms | p99 ms | static p50 ms | static p95 ms");
    for (const cls of Object.keys(MIX) as RouteClass[]) {
      console.log(`${cls} | ${lat[cls].length} | ${errs[cls]} | ${f1(pct(lat[cls], 50))} | ${f1(pct(lat[cls], 95))} | ${f1(pct(lat[cls], 99))} | ${f1(pct(staticRun.lat[cls], 50))} | ${f1(pct(staticRun.lat[cls], 95))}`);
    }
    console.log(`all | ${all.length} | ${failed} | ${f1(pct(all, 50))} | ${f1(pct(all, 95))} | ${f1(pct(all, 99))} | ${f1(pct(staticAll, 50))} | ${f1(pct(staticAll, 95))}`);
    const ratio = throughput / staticThroughput;
    console.log(`throughput ${throughput.toFixed(1)} requests/s; the static floor ${staticThroughput.toFixed(1)} requests/s (${staticAll.length} in ${staticRun.elapsed.toFixed(1)} s, ${Object.values(staticRun.errs).reduce((x, y) => x + y, 0)} errors): ${ratio.toFixed(3)}× the floor (target ≥ ${TARGET_VS_STATIC}×: ${ratio >= TARGET_VS_STATIC ? "met" : "not met"})`);
    console.log(`p95 ${f1(pct(all, 95))} ms (target ≤ ${TARGET_P95_MS} ms: ${pct(all, 95) <= TARGET_P95_MS ? "met" : "not met"})`);
    const nextFloorThroughput = nextFloorAll.length / nextFloor.elapsed;
    const nextFloorRatio = nextFloorThroughput / staticThroughput;
    console.log(
      `next start's own floor (${NEXT_FLOOR_PATH} only, same clients and time): ${nextFloorThroughput.toFixed(1)} requests/s, ${nextFloorRatio.toFixed(3)}× the static floor, p50 ${f1(pct(nextFloorAll, 50))} ms, p95 ${f1(pct(nextFloorAll, 95))} ms; the mix is ${(throughput / nextFloorThroughput).toFixed(3)}× it`,
    );
    const mean = loads.reduce((x, y) => x + y, 0) / loads.length;
    console.log(`load average (1 min) during the runs: mean ${mean.toFixed(2)}, max ${Math.max(...loads).toFixed(2)}, on ${os.availableParallelism()} CPUs (the client loops and the floor run on the same machine as the server and PostgreSQL)`);
    if (cpu0 && cpu1) {
      const share = (ms: number) => `${(ms / 1000).toFixed(1)} s (${(ms / 1000 / elapsed).toFixed(2)} CPUs)`;
      console.log(
        `CPU time during the mixed run: server ${share(cpu1.server - cpu0.server)}, PostgreSQL ${share(cpu1.postgres - cpu0.postgres)}, sweep workers ${share(cpu1.sweeps - cpu0.sweeps)}, the client loops ${share((client1.user + client1.system) / 1000)}; server CPU per request ${((cpu1.server - cpu0.server) / all.length).toFixed(1)} ms`,
      );
    }
    if (perClass.length) {
      console.log(`CPU per request by class (each class alone for ${CLASS_SECONDS} s, ${Math.max(1, Math.round(CLIENTS / 5))} clients; PostgreSQL's includes the sweeps' statements):`);
      for (const [cls, n, server, pg] of perClass) console.log(`  ${cls}: ${n} requests, server ${server.toFixed(1)} ms, PostgreSQL ${pg.toFixed(1)} ms`);
    }
    if (samples.length) console.log(`first errors:\n  ${samples.join("\n  ")}`);
    console.log(`load errors ${failed} of ${all.length} requests`);
    printLoadAverage();
    console.log(`RESULT load_next_floor_ratio ${nextFloorRatio.toFixed(3)}`);
    console.log(`RESULT load_p95 ${f1(pct(all, 95))} ms`);
  } finally {
    agent.destroy();
    for (const worker of workers) if (worker.exitCode === null) worker.kill("SIGTERM");
    if (server && server.exitCode === null) {
      const exited = new Promise<void>((r) => server!.once("exit", () => r()));
      server.kill("SIGTERM");
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
      if (server.exitCode === null) server.kill("SIGKILL");
    }
    await sellers?.close();
    if (h) {
      setDatabase(undefined);
      await h.close();
    }
    await admin.exec(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.close();
  }
  if (failed > 0) process.exit(1);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
