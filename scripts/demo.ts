/**
 * npm run demo: the whole product on the embedded default, nothing to install.
 * Migrate and seed PGlite in .data/, start the local fixture sellers, build (skipped when the
 * sources have not changed since the last build), then serve in production mode with the
 * in-process catalog-monitor worker and the development sign-in, and print where to look.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { openDatabase, setDatabase } from "@/lib/db";
import { parseEnv } from "@/lib/env";
import { migrate } from "@/lib/migrate";
import { DEMO_ACCOUNTS, queueDemoAnalyses, seedDemo } from "@/demo/seed-demo";
import { seedDemoHistory } from "@/demo/seed-history";
import { startFixtureSellers } from "@/sellers";
import { runRankSweep } from "@/lib/rank/sweep-ranks";

const root = process.cwd();

async function main() {
  const started = Date.now();
  const e = parseEnv({ ...process.env, NODE_ENV: "development" });
  const dataDir = e.dataDir;
  fs.mkdirSync(dataDir, { recursive: true });
  const secrets = loadSecrets(path.join(dataDir, "secrets.json"));
  const port = Number(process.env.PORT ?? 3000);
  const host = process.env.HOST ?? "127.0.0.1";
  const origin = `http://${host}:${port}`;

  const sellers = await startFixtureSellers({ port: e.SELLERS_PORT ?? 4020, host: "127.0.0.1" });
  step(`fixture sellers listening at ${sellers.url}`);
  // This process queues the fixture sellers' analyses, so it shares the server's allow-list.
  const allowHosts = `127.0.0.1:${sellers.port}`;
  process.env.TOLLGATE_PROBE_ALLOW_HOSTS = allowHosts;

  const handle = await openDatabase({ pgliteDir: path.join(dataDir, "pglite") });
  // Everything below (seeding included) goes through this one handle; the folder is closed again
  // before the server opens it, because a PGlite folder belongs to one process.
  setDatabase(handle);
  const applied = await migrate(handle);
  step(applied.length ? `applied migrations: ${applied.join(", ")}` : "database schema is up to date");
  const seeded = await seedDemo(handle.prisma, { sellersOrigin: sellers.url });
  await seedDemoHistory(handle.prisma, seeded);
  const queued = await queueDemoAnalyses(handle.prisma, seeded);
  // Rank once now, so the first page served is already in rank order (the server's sweep keeps it so).
  await runRankSweep();
  step(`demo data seeded (idempotent)${queued.length ? `; ${queued.length} fixture-seller analyses queued` : ""}`);
  await handle.close();
  setDatabase(undefined);

  const stamp = sourceStamp();
  const stampFile = path.join(root, ".next", "tollgate-build-stamp");
  if (fs.existsSync(stampFile) && fs.readFileSync(stampFile, "utf8") === stamp && fs.existsSync(path.join(root, ".next", "BUILD_ID"))) {
    step("build is current; skipping next build");
  } else {
    step("building (first run, or sources changed)…");
    const build = spawnSync(process.execPath, [require.resolve("next/dist/bin/next"), "build"], { stdio: "inherit", env: { ...process.env, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1" } });
    if (build.status !== 0) throw new Error("next build failed");
    fs.writeFileSync(stampFile, stamp);
  }

  const server: ChildProcess = spawn(process.execPath, [require.resolve("next/dist/bin/next"), "start", "-p", String(port), "-H", host], {
    stdio: ["ignore", "inherit", "inherit"],
    env: {
      ...process.env,
      NODE_ENV: "production",
      NEXT_TELEMETRY_DISABLED: "1",
      TOLLGATE_DATA_DIR: dataDir,
      TOLLGATE_DEMO_SIGNIN: "1",
      TOLLGATE_INPROCESS_WORKER: "1",
      TOLLGATE_PROBE_ALLOW_HOSTS: allowHosts,
      // The demo reaches its local fixture sellers and nothing else, not even DNS (docs/SSRF.md).
      TOLLGATE_NET_ALLOWLIST_ONLY: "1",
      TOLLGATE_PUBLIC_URL: origin,
      TOLLGATE_WORKER_TOKEN: secrets.workerToken,
      NEXTAUTH_URL: origin,
      NEXTAUTH_SECRET: secrets.nextAuthSecret,
      // Production mode takes the badge key from the environment (lib/badges/keys.ts).
      BADGE_SIGNING_KEY: secrets.badgeSigningKey,
      BADGE_SIGNING_KEY_NOT_BEFORE: secrets.badgeSigningKeyNotBefore,
    },
  });
  const stop = (signal: NodeJS.Signals) => {
    server.kill(signal);
  };
  process.on("SIGINT", () => stop("SIGTERM"));
  process.on("SIGTERM", () => stop("SIGTERM"));
  server.on("exit", async (code) => {
    await sellers.close().catch(() => {});
    process.exit(code ?? 0);
  });

  await waitFor(`${origin}/catalog`, 90_000);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  console.log(`
  Tollgate is running at ${origin}   (ready in ${seconds} s)

  Demo accounts (development sign-in at ${origin}/signin):
${DEMO_ACCOUNTS.map((a) => `    ${a.demoLogin.padEnd(16)} ${a.role.padEnd(10)} ${a.name}`).join("\n")}

  Fixture sellers to submit as a seller:  ${sellers.url}/agent-verdict  ${sellers.url}/validity-check  ${sellers.url}/mpp-seller
  Data lives in ${path.relative(root, dataDir) || dataDir}/ (delete it to start over). Ctrl-C stops.
`);
}

function step(msg: string) {
  console.log(`  · ${msg}`);
}

interface DemoSecrets {
  nextAuthSecret: string;
  workerToken: string;
  /** Ed25519 seed (base64) for signing readiness badges, and when it came into use. */
  badgeSigningKey: string;
  badgeSigningKeyNotBefore: string;
}

/** Secrets the demo server needs, generated once and kept (0600) in the data folder. */
function loadSecrets(file: string): DemoSecrets {
  const existing: Partial<DemoSecrets> = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, "utf8")) : {};
  const s: DemoSecrets = {
    nextAuthSecret: existing.nextAuthSecret ?? crypto.randomBytes(32).toString("base64url"),
    workerToken: existing.workerToken ?? crypto.randomBytes(24).toString("base64url"),
    badgeSigningKey: existing.badgeSigningKey ?? crypto.randomBytes(32).toString("base64"),
    badgeSigningKeyNotBefore: existing.badgeSigningKeyNotBefore ?? new Date().toISOString(),
  };
  if (JSON.stringify(s) !== JSON.stringify(existing)) fs.writeFileSync(file, JSON.stringify(s, null, 2), { mode: 0o600 });
  return s;
}

/** A cheap fingerprint of everything `next build` reads: paths, sizes and modification times. */
function sourceStamp(): string {
  const h = crypto.createHash("sha256");
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(p);
      else if (!entry.name.endsWith(".test.ts")) {
        const st = fs.statSync(p);
        h.update(`${path.relative(root, p)}:${st.size}:${st.mtimeMs}\n`);
      }
    }
  };
  for (const d of ["app", "components", "lib", "public", "prisma"]) if (fs.existsSync(path.join(root, d))) walk(path.join(root, d));
  for (const f of ["next.config.mjs", "package-lock.json", "tsconfig.json", "postcss.config.mjs", "instrumentation.ts"]) {
    if (fs.existsSync(path.join(root, f))) h.update(`${f}:${fs.statSync(path.join(root, f)).mtimeMs}\n`);
  }
  return h.digest("hex");
}

async function waitFor(url: string, timeoutMs: number) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    try {
      const res = await fetch(url);
      if (res.status < 500) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`${url} did not answer within ${timeoutMs / 1000} s`);
}

main().catch((err) => {
  console.error(`demo failed: ${(err as Error).message}`);
  process.exit(1);
});
