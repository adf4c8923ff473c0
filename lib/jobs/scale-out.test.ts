/**
 * Scale-out, proven: two web instances (`next start` on the production build, which on a server
 * PostgreSQL run no sweep) behind a loopback round-robin balancer, two separate catalog-monitor
 * workers (`scripts/worker.ts`, the real SSRF-guarded probe, no database credentials), two sweep
 * workers (`scripts/sweeps.ts`, the rank tick) and one server PostgreSQL. 500 sellers each submit an analysis of their listing
 * through the web door (POST /api/analyses with a session cookie); the listings point at the
 * loopback fixture sellers, which the workers probe for real. Mid-run one web instance and one sweep
 * worker are killed with SIGKILL. Asserted: every analysis done exactly once (one analysis per listing, one success in
 * the append-only attempt log, one result row, the pointer moved), nothing lost (all 500 succeed),
 * both workers took part, and one rank leader at a time (rank_sweep_runs: every run a sweep worker's,
 * none a web instance's; no two runs overlap on the database's clock; the killed sweep worker's open
 * run, if any, overlaps no other; the survivor leads after the kill; every listing ranked).
 *
 * Runs only when asked (TOLLGATE_TEST_SCALE_OUT=1), on a server PostgreSQL (TEST_DATABASE_URL), with
 * a production build in .next: `.ci/run` runs it in its own section after the e2e suite has built.
 * It takes about 2–4 minutes on 2 cores. It makes a database of its own and drops it after.
 */
import { spawn, type ChildProcess } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { encode } from "next-auth/jwt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, setDatabase, type DatabaseHandle } from "@/lib/db";
import { migrate } from "@/lib/migrate";
import { endpointColumns, listingColumns } from "@/lib/listings/document-mapping";
import { testDatabaseUrl } from "@/test/db";
import { freePort } from "@/test/net-servers";
import { fixtureListings, startFixtureSellers, type FixtureServer } from "@/sellers";

const ROOT = path.resolve(__dirname, "../..");
const url = testDatabaseUrl();
const asked = process.env.TOLLGATE_TEST_SCALE_OUT === "1";
const built = fs.existsSync(path.join(ROOT, ".next", "BUILD_ID"));
const runIt = url && asked && built ? it : it.skip;
if (!(url && asked && built)) {
  console.warn(
    `[scale-out] skipped: needs TOLLGATE_TEST_SCALE_OUT=1 (${asked}), TEST_DATABASE_URL naming a server PostgreSQL (${!!url}; PGlite belongs to one process) and a production build in .next (${built}); .ci/run runs it after the e2e build`,
  );
}

const ANALYSES = Number(process.env.TOLLGATE_SCALE_OUT_ANALYSES ?? 500);
/** Fixture sellers that answer a probe as a working seller does (the broken ones are the probe's own tests). */
const SELLERS = ["agent-verdict", "validity-check", "mpp-seller"];
const SECRET = crypto.randomBytes(32).toString("base64url");
const WORKER_TOKEN = crypto.randomBytes(24).toString("base64url");

interface Proc {
  name: string;
  child: ChildProcess;
  out: () => string;
}

const procs: Proc[] = [];
let dbName: string;
let h: DatabaseHandle | undefined;
let sellers: FixtureServer | undefined;
let balancer: Balancer | undefined;

function start(name: string, args: string[], env: Record<string, string>): Proc {
  let out = "";
  // Its own process group, so a kill reaches whatever `next start` runs under it.
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env } as unknown as NodeJS.ProcessEnv, stdio: ["ignore", "pipe", "pipe"], detached: true });
  child.stdout!.on("data", (d) => (out = (out + d).slice(-200_000)));
  child.stderr!.on("data", (d) => (out = (out + d).slice(-200_000)));
  const p = { name, child, out: () => out };
  procs.push(p);
  return p;
}

function killGroup(p: Proc, signal: NodeJS.Signals): void {
  if (p.child.exitCode !== null || p.child.signalCode !== null) return;
  try {
    process.kill(-p.child.pid!, signal);
  } catch {
    /* already gone */
  }
}

/** The pids in a process group (read from /proc): the holders a killed web instance may have written. */
function groupPids(pgid: number): number[] {
  const pids: number[] = [];
  for (const d of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[2]) === pgid) pids.push(Number(d));
    } catch {
      /* exited */
    }
  }
  return pids;
}

interface Balancer {
  url: string;
  close(): Promise<void>;
}

/**
 * A loopback TCP balancer, as a load balancer in front of stateless web instances: each connection
 * goes to the next backend round-robin; a backend that refuses the connection is skipped for that
 * connection. A connection to a backend that dies is cut, and its client reconnects to the other.
 */
function startBalancer(backends: number[]): Promise<Balancer> {
  let next = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    sockets.add(client);
    client.on("close", () => sockets.delete(client));
    client.on("error", () => {});
    const tryBackend = (left: number) => {
      const port = backends[next++ % backends.length];
      const upstream = net.connect(port, "127.0.0.1");
      let connected = false;
      sockets.add(upstream);
      upstream.on("close", () => {
        sockets.delete(upstream);
        if (connected) client.destroy();
      });
      upstream.once("connect", () => {
        connected = true;
        client.pipe(upstream);
        upstream.pipe(client);
        client.on("close", () => upstream.destroy());
      });
      upstream.on("error", () => {
        upstream.destroy();
        if (connected) return; // its close cuts the client
        if (left > 1) tryBackend(left - 1);
        else client.destroy();
      });
    };
    tryBackend(backends.length);
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as net.AddressInfo).port;
      resolve({
        url: `http://127.0.0.1:${port}`,
        close: () =>
          new Promise<void>((r) => {
            for (const s of sockets) s.destroy();
            server.close(() => r());
          }),
      });
    }),
  );
}

/** One HTTP request on a fresh connection (no agent: a connection must not outlive a killed backend). */
function send(target: string, opts: { method: string; headers?: Record<string, string>; body?: string }): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(target, { method: opts.method, headers: opts.headers, agent: false, timeout: 30_000 }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (d) => (body += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      res.on("error", reject);
    });
    req.on("timeout", () => req.destroy(new Error("no answer within 30 s")));
    req.on("error", reject);
    req.end(opts.body);
  });
}

async function until(what: string, fn: () => Promise<boolean>, timeoutMs: number, everyMs = 250): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await fn()) return;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

async function query<T>(sql: string, ...params: unknown[]): Promise<T[]> {
  return h!.query<T>(sql, params);
}

beforeAll(async () => {
  if (!(url && asked && built)) return;
  const admin = await openDatabase({ url, poolSize: 1 });
  dbName = `tollgate_scale_out_${process.pid}`;
  await admin.exec(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  await admin.exec(`CREATE DATABASE ${dbName}`);
  await admin.close();
}, 60_000);

afterAll(async () => {
  for (const p of procs) killGroup(p, "SIGKILL");
  await balancer?.close();
  await sellers?.close();
  if (h) {
    setDatabase(undefined);
    await h.close();
  }
  if (url && dbName) {
    const admin = await openDatabase({ url, poolSize: 1 });
    await admin.exec(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.close();
  }
}, 60_000);

describe("scale-out: two web instances, two workers, two sweep workers, one server PostgreSQL", () => {
  runIt(
    `${ANALYSES} analyses through the web door and rank ticks; a web instance and a sweep worker killed mid-run lose nothing, double nothing, and one rank leader at a time`,
    async () => {
      const dbUrl = new URL(url!);
      dbUrl.pathname = `/${dbName}`;
      h = await openDatabase({ url: dbUrl.toString(), poolSize: 4 });
      setDatabase(h);
      await migrate(h);

      // Sellers: one organisation, user and listing each, their listings served by the fixture sellers.
      sellers = await startFixtureSellers({ host: "127.0.0.1", port: 0 });
      const docs = fixtureListings(sellers.url);
      const users = Array.from({ length: ANALYSES }, (_, i) => ({ org: `org_so_${i}`, user: `usr_so_${i}`, listing: `lst_so_${i}`, doc: docs[SELLERS[i % SELLERS.length]] }));
      await h.prisma.organization.createMany({ data: users.map((u, i) => ({ id: u.org, slug: `scale-out-${i}`, name: `Scale-out seller ${i}` })) });
      await h.prisma.user.createMany({ data: users.map((u, i) => ({ id: u.user, name: `Seller ${i}`, role: "seller" as const, organizationId: u.org })) });
      await h.prisma.listing.createMany({
        data: users.map((u, i) => ({ ...listingColumns(u.doc), id: u.listing, slug: `scale-out-${i}`, organizationId: u.org, publicationState: "published" as const, publishedAt: new Date() })),
      });
      await h.prisma.endpoint.createMany({ data: users.flatMap((u) => u.doc.endpoints.map((e, k) => ({ ...endpointColumns(e, k), listingId: u.listing }))) });
      const listingIds = users.map((u) => u.listing);

      // Two web instances behind the balancer; the public origin is the balancer's.
      const ports = [await freePort(), await freePort()];
      balancer = await startBalancer(ports);
      const origin = balancer.url;
      const webEnv = {
        NODE_ENV: "production",
        NEXT_TELEMETRY_DISABLED: "1",
        DATABASE_URL: dbUrl.toString(),
        TOLLGATE_PUBLIC_URL: origin,
        NEXTAUTH_URL: origin,
        NEXTAUTH_SECRET: SECRET,
        TOLLGATE_WORKER_TOKEN: WORKER_TOKEN,
        BADGE_SIGNING_KEY: crypto.randomBytes(32).toString("base64"),
        BADGE_SIGNING_KEY_NOT_BEFORE: new Date(Date.now() - 86_400_000).toISOString(),
        TOLLGATE_PROBE_ALLOW_HOSTS: `127.0.0.1:${sellers.port}`,
        TOLLGATE_NET_ALLOWLIST_ONLY: "1",
        // 500 sellers submitting at once, each once: the per-seller caps are not what is under test.
        TOLLGATE_LIMIT_ACTIVE_ANALYSES: "off",
        TOLLGATE_LIMIT_REANALYSE: "off",
      };
      const next = path.join(ROOT, "node_modules", "next", "dist", "bin", "next");
      const webs = ports.map((port, i) =>
        start(`web-${i}`, [next, "start", "-p", String(port), "-H", "127.0.0.1"], { ...webEnv, TOLLGATE_DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), `tollgate-scale-out-web${i}-`)) }),
      );
      for (const [i, port] of ports.entries()) {
        await until(`web-${i} answering`, async () => {
          if (webs[i].child.exitCode !== null) throw new Error(`web-${i} exited ${webs[i].child.exitCode}:\n${webs[i].out().slice(-3000)}`);
          return send(`http://127.0.0.1:${port}/ard?limit=1`, { method: "GET" }).then((r) => r.status === 200, () => false);
        }, 120_000, 500);
      }
      const startedAt = Date.now();

      // Two sweep workers with a rank tick every second, so they contend for the leader all run long.
      const sweepers = [0, 1].map((i) =>
        start(`sweeps-${i}`, ["--import", "tsx", "scripts/sweeps.ts", "--only=rank.sweep", "--initial-delay-ms=200"], { DATABASE_URL: dbUrl.toString(), TOLLGATE_RANK_TICK_S: "1" }),
      );

      // Two separate workers: the ops API through the balancer, the real probe, no database credentials.
      const workers = [0, 1].map((i) =>
        start(`worker-${i}`, ["--import", "tsx", "scripts/worker.ts", `--worker-id=so-worker-${i}`, "--concurrency=8", "--lease-ms=6000", "--poll-ms=200"], {
          TOLLGATE_API_URL: origin,
          TOLLGATE_WORKER_TOKEN: WORKER_TOKEN,
          // The probe reaches the fixture sellers and nothing else, not even DNS.
          TOLLGATE_PROBE_ALLOW_HOSTS: `127.0.0.1:${sellers!.port}`,
          TOLLGATE_NET_ALLOWLIST_ONLY: "1",
        }),
      );

      // Submissions: each seller once, signed in (a next-auth session cookie), 16 at a time. A lost
      // answer (the instance killed under it) is retried; the one-active-per-submitter index answers a
      // retry whose first try was stored with 409 and the analysis it already has.
      const analysisOf = new Map<string, string>();
      let submitted = 0;
      let retried = 0;
      const submit = async (u: (typeof users)[number]) => {
        const cookie = `next-auth.session-token=${await encode({ token: { uid: u.user, sub: u.user }, secret: SECRET, maxAge: 3600 })}`;
        for (let attempt = 1; ; attempt++) {
          let r: { status: number; body: string } | null = null;
          try {
            r = await send(`${origin}/api/analyses`, {
              method: "POST",
              headers: { cookie, origin, "content-type": "application/json" },
              body: JSON.stringify({ listingId: u.listing }),
            });
          } catch {
            r = null;
          }
          if (r && r.status === 202) {
            analysisOf.set(u.listing, (JSON.parse(r.body) as { id: string }).id);
            break;
          }
          if (r && r.status === 409) {
            const active = (JSON.parse(r.body) as { error: { activeAnalysisId?: string } }).error.activeAnalysisId;
            expect(active, r.body).toBeTruthy();
            analysisOf.set(u.listing, active!);
            break;
          }
          if (r && r.status < 500) throw new Error(`POST /api/analyses for ${u.listing} answered ${r.status}: ${r.body.slice(0, 300)}`);
          if (attempt >= 20) throw new Error(`POST /api/analyses for ${u.listing} kept failing (${r ? r.status : "connection lost"})`);
          retried++;
          await new Promise((res) => setTimeout(res, 200 * attempt));
        }
        submitted++;
      };

      // The kill: once a tenth of the analyses are done (so submissions, claims, heartbeats and
      // completions are all going through both instances), web-0 goes with SIGKILL (its whole process group).
      const succeeded = async () => (await query<{ n: number }>(`SELECT count(*)::int AS n FROM "catalog_scoring_analyses" WHERE "listingId" = ANY($1::text[]) AND "state" = 'succeeded'`, listingIds))[0].n;
      let killedAtDb: Date | null = null;
      let killSentAtDb: Date | null = null;
      let killedPids: number[] = [];
      let doneAtKill = 0;
      let submittedAtKill = 0;
      const killer = (async () => {
        await until("a tenth of the analyses done", async () => (await succeeded()) >= ANALYSES / 10, 240_000, 100);
        submittedAtKill = submitted;
        killedPids = [...groupPids(webs[0].child.pid!), ...groupPids(sweepers[0].child.pid!)];
        const exited = [webs[0], sweepers[0]].map((p) => new Promise<void>((r) => p.child.once("exit", () => r())));
        // The database's clock just before the signal: a killed leader held its lock at least until then.
        killSentAtDb = (await query<{ now: Date }>(`SELECT clock_timestamp()::timestamp(3) AS "now"`))[0].now;
        killGroup(webs[0], "SIGKILL");
        killGroup(sweepers[0], "SIGKILL");
        await Promise.all(exited);
        await until("web-0's and sweeps-0's processes gone", async () => groupPids(webs[0].child.pid!).length + groupPids(sweepers[0].child.pid!).length === 0, 10_000, 50);
        killedAtDb = (await query<{ now: Date }>(`SELECT clock_timestamp()::timestamp(3) AS "now"`))[0].now;
        doneAtKill = await succeeded();
      })();

      let nextIndex = 0;
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          while (nextIndex < users.length) await submit(users[nextIndex++]);
        }),
      );
      await killer;
      const submitSeconds = (Date.now() - startedAt) / 1000;

      await until(
        `all ${ANALYSES} analyses finished`,
        async () => (await query<{ n: number }>(`SELECT count(*)::int AS n FROM "catalog_scoring_analyses" WHERE "listingId" = ANY($1::text[]) AND "state" IN ('succeeded', 'failed', 'dead')`, listingIds))[0].n >= ANALYSES,
        240_000,
        500,
      );
      const finishedSeconds = (Date.now() - startedAt) / 1000;
      // The rank tick ranks every listing (a never-ranked listing is due) and keeps running on the survivor.
      await until("every listing ranked", async () => (await query<{ n: number }>(`SELECT count(*)::int AS n FROM "listing_ranks" WHERE "listingId" = ANY($1::text[]) AND "inputsHash" IS NOT NULL`, listingIds))[0].n === ANALYSES, 60_000, 500);
      const lastCompletion = (await query<{ at: Date }>(`SELECT max("finishedAt") AS "at" FROM "catalog_scoring_analyses" WHERE "listingId" = ANY($1::text[])`, listingIds))[0].at;
      await until("a rank sweep after the last completion", async () => (await query<{ n: number }>(`SELECT count(*)::int AS n FROM "rank_sweep_runs" WHERE "startedAt" > $1 AND "finishedAt" IS NOT NULL`, lastCompletion))[0].n > 0, 30_000, 500);
      for (const w of workers) killGroup(w, "SIGTERM");
      await Promise.all(workers.map((w) => new Promise<void>((r) => (w.child.exitCode !== null ? r() : w.child.once("exit", () => r())))));
      killGroup(webs[1], "SIGTERM");
      killGroup(sweepers[1], "SIGTERM");

      // Every seller's submission came back with one analysis, and it is the only one of its listing.
      expect(analysisOf.size).toBe(ANALYSES);
      const analyses = await query<{ id: string; listingId: string; state: string; attempts: number }>(
        `SELECT "id", "listingId", "state"::text AS "state", "attempts" FROM "catalog_scoring_analyses" WHERE "listingId" = ANY($1::text[])`,
        listingIds,
      );
      expect(analyses).toHaveLength(ANALYSES);
      expect(new Set(analyses.map((a) => a.listingId)).size).toBe(ANALYSES);
      for (const a of analyses) expect(analysisOf.get(a.listingId)).toBe(a.id);
      // Nothing lost: all succeeded.
      expect(analyses.filter((a) => a.state !== "succeeded").map((a) => `${a.id} ${a.state}`)).toEqual([]);
      const ids = analyses.map((a) => a.id);
      // Done once: one success in the append-only log, one immutable result, the pointer on it.
      const [log] = await query<{ successes: number; analyses: number }>(
        `SELECT count(*)::int AS "successes", count(DISTINCT "analysisId")::int AS "analyses" FROM "catalog_scoring_attempts" WHERE "event" = 'succeeded' AND "analysisId" = ANY($1::text[])`,
        ids,
      );
      expect(log).toEqual({ successes: ANALYSES, analyses: ANALYSES });
      const [results] = await query<{ results: number; analyses: number }>(
        `SELECT count(*)::int AS "results", count(DISTINCT "analysisId")::int AS "analyses" FROM "catalog_scoring_results" WHERE "analysisId" = ANY($1::text[])`,
        ids,
      );
      expect(results).toEqual({ results: ANALYSES, analyses: ANALYSES });
      const [pointers] = await query<{ n: number }>(
        `SELECT count(*)::int AS n FROM "listings" l JOIN "catalog_scoring_results" r ON r."id" = l."currentResultId" AND r."analysisId" = ANY($2::text[]) WHERE l."id" = ANY($1::text[])`,
        listingIds,
        ids,
      );
      expect(pointers.n).toBe(ANALYSES);
      // Both workers did real probes (no fixture evidence) and both took part.
      const byWorker = await query<{ workerId: string; n: number }>(
        `SELECT "workerId", count(*)::int AS n FROM "catalog_scoring_attempts" WHERE "event" = 'succeeded' AND "analysisId" = ANY($1::text[]) GROUP BY "workerId" ORDER BY "workerId"`,
        ids,
      );
      expect(byWorker.map((w) => w.workerId)).toEqual(["so-worker-0", "so-worker-1"]);
      const [fixture] = await query<{ n: number }>(
        `SELECT count(*)::int AS n FROM "probe_evidence" e JOIN "catalog_scoring_results" r ON r."evidenceId" = e."id" WHERE r."analysisId" = ANY($1::text[]) AND e."vantage" LIKE 'fixture:%'`,
        ids,
      );
      expect(fixture.n).toBe(0);

      // One rank leader at a time, on the database's clock.
      expect(killedAtDb).not.toBeNull();
      const killedHolders = new Set(killedPids.map((pid) => `${os.hostname()}:${pid}`));
      const runs = await query<{ holder: string; startedAt: Date; finishedAt: Date | null; error: string | null }>(
        `SELECT "holder", "startedAt", "finishedAt", "error" FROM "rank_sweep_runs" ORDER BY "startedAt", "id"`,
      );
      // The sweeps ran in the sweep workers, never in a web instance.
      const sweeperHolders = new Set(sweepers.map((p) => `${os.hostname()}:${p.child.pid}`));
      expect(runs.filter((r) => !sweeperHolders.has(r.holder)).map((r) => r.holder)).toEqual([]);
      const ended = (r: (typeof runs)[number]) => {
        if (r.finishedAt) return r.finishedAt.getTime();
        // An open run is the killed leader's: its leadership ended with its connection, some time between
        // the signal and the moment its processes were seen gone. PostgreSQL frees the lock as soon as the
        // backend sees the socket close, which can come before the test reads the clock again; a run
        // starting after the signal is the survivor taking a lock that was freed, so the signal is the bound.
        expect(killedHolders.has(r.holder), `open rank sweep run of ${r.holder}, which was not killed`).toBe(true);
        return killSentAtDb!.getTime();
      };
      const overlaps: string[] = [];
      for (let i = 1; i < runs.length; i++) {
        const prev = runs[i - 1];
        if (runs[i].startedAt.getTime() < ended(prev)) overlaps.push(`${prev.holder} ${prev.startedAt.toISOString()}–${prev.finishedAt?.toISOString() ?? "open"} and ${runs[i].holder} from ${runs[i].startedAt.toISOString()}`);
      }
      expect(overlaps).toEqual([]);
      expect(runs.filter((r) => r.error).map((r) => r.error)).toEqual([]);
      const holders = [...new Set(runs.map((r) => r.holder))];
      const survivorRuns = runs.filter((r) => !killedHolders.has(r.holder) && r.startedAt.getTime() >= killedAtDb!.getTime());
      expect(survivorRuns.length).toBeGreaterThan(0);
      const killedRuns = runs.filter((r) => killedHolders.has(r.holder)).length;

      console.log(
        `[scale-out] ${ANALYSES} analyses: submitted in ${submitSeconds.toFixed(1)} s (${retried} submissions retried), all finished ${finishedSeconds.toFixed(1)} s after the web instances answered; ` +
          `web-0 killed with ${submittedAtKill} submitted and ${doneAtKill} done; per worker ${byWorker.map((w) => `${w.workerId} ${w.n}`).join(", ")}; ` +
          `${runs.length} rank sweeps by ${holders.length} holders (${killedRuns} by the killed sweep worker, ${survivorRuns.length} by the survivor after the kill), none overlapping`,
      );
    },
    600_000,
  );
});
