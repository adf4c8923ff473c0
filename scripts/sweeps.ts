/**
 * `npm run sweeps -- [--only NAME,NAME] [--initial-delay-ms N]`: a sweep worker (lib/jobs/sweep-worker.ts):
 * the health, rank, canary, trust-grade and daily-root ticks, off the web process. Needs DATABASE_URL
 * (a server PostgreSQL; on PGlite the web process is the only one and runs them). SIGTERM/SIGINT let
 * the sweeps in flight finish, then exit 0. Exit codes: 0 stopped; 2 bad flags or environment.
 */
import { database } from "@/lib/db";
import { env } from "@/lib/env";
import { startSweepWorker, sweepTicksNamed } from "@/lib/jobs/sweep-worker";

function parseArgs(argv: string[]): { only?: string[]; initialDelayMs: number } | string {
  const out: { only?: string[]; initialDelayMs: number } = { initialDelayMs: 1_000 };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].includes("=") ? [argv[i].slice(0, argv[i].indexOf("=")), argv[i].slice(argv[i].indexOf("=") + 1)] : [argv[i], undefined];
    if (flag !== "--only" && flag !== "--initial-delay-ms") return `unknown argument: ${argv[i]}`;
    const v = inline ?? argv[++i];
    if (v === undefined || v === "") return `${flag} needs a value`;
    if (flag === "--only") out.only = v.split(",").map((s) => s.trim()).filter(Boolean);
    else if (flag === "--initial-delay-ms") {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 0 || n > 600_000) return "--initial-delay-ms takes an integer from 0 to 600000";
      out.initialDelayMs = n;
    }
  }
  return out;
}

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  if (typeof args === "string") {
    console.error(`sweeps: ${args}`);
    return 2;
  }
  let e: ReturnType<typeof env>;
  try {
    e = env();
    sweepTicksNamed(args.only);
  } catch (err) {
    console.error(`sweeps: ${(err as Error).message}`);
    return 2;
  }
  if (!e.DATABASE_URL) {
    console.error("sweeps: environment variable DATABASE_URL must name a server PostgreSQL (on the embedded PGlite the web process runs the sweeps itself)");
    return 2;
  }
  const log = (line: string) => console.error(`[sweeps ${process.pid}] ${line}`);
  await database();
  const scheduler = startSweepWorker({ only: args.only, initialDelayMs: args.initialDelayMs, log });
  log(`running ${Object.keys(scheduler.runs()).join(", ")}`);
  // The scheduler's timers are unref'd (a web process must be free to exit): this one keeps the worker up until a signal.
  const alive = setInterval(() => {}, 60_000);
  await new Promise<void>((resolve) => {
    process.once("SIGTERM", resolve);
    process.once("SIGINT", resolve);
  });
  clearInterval(alive);
  await scheduler.stop();
  console.log(JSON.stringify({ pid: process.pid, runs: scheduler.runs() }));
  await (await database()).close();
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
