/**
 * `npm run worker -- [--concurrency N] [--lease-ms N] [--poll-ms N] [--worker-id ID] [--vantage NAME]
 *                    [--probe=real|noop-fixture] [--probe-delay-ms N]`
 *
 * A catalog-monitor worker process. It holds no database credentials: it needs only
 *   TOLLGATE_API_URL       the API origin, e.g. http://127.0.0.1:3000
 *   TOLLGATE_WORKER_TOKEN  the bearer token the ops API expects
 * Run as many as you like; claims never overlap (FOR UPDATE SKIP LOCKED behind the ops API).
 * `--probe=noop-fixture` builds evidence without any network (load and crash tests only); the
 * default is the real SSRF-guarded probe. SIGTERM/SIGINT finish the jobs in flight, then exit 0.
 * Exit codes: 0 stopped; 2 bad flags or environment.
 */
import { z } from "zod";
import { fixtureProbe, realProbe } from "@/lib/catalog-monitor/probes";
import { defaultWorkerId, httpOpsClient, runWorker } from "@/lib/catalog-monitor/run-worker";

interface Args {
  concurrency: number;
  leaseMs: number;
  pollMs: number;
  workerId: string;
  vantage: string;
  probe: "real" | "noop-fixture";
  probeDelayMs: number;
}

function parseArgs(argv: string[]): Args | string {
  const args: Args = { concurrency: 4, leaseMs: 60_000, pollMs: 1_000, workerId: defaultWorkerId(), vantage: "local", probe: "real", probeDelayMs: 0 };
  const int = (flag: string, v: string, min: number, max: number) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${flag} takes an integer from ${min} to ${max}`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const [flag, inline] = a.includes("=") ? [a.slice(0, a.indexOf("=")), a.slice(a.indexOf("=") + 1)] : [a, undefined];
    const value = () => {
      const v = inline ?? argv[++i];
      if (v === undefined || v === "") throw new Error(`${flag} needs a value`);
      return v;
    };
    try {
      if (flag === "--concurrency") args.concurrency = int(flag, value(), 1, 256);
      else if (flag === "--lease-ms") args.leaseMs = int(flag, value(), 250, 600_000);
      else if (flag === "--poll-ms") args.pollMs = int(flag, value(), 10, 60_000);
      else if (flag === "--worker-id") args.workerId = value();
      else if (flag === "--vantage") args.vantage = value();
      else if (flag === "--probe-delay-ms") args.probeDelayMs = int(flag, value(), 0, 600_000);
      else if (flag === "--probe") {
        const v = value();
        if (v !== "real" && v !== "noop-fixture") return `--probe takes real or noop-fixture, got ${v}`;
        args.probe = v;
      } else return `unknown argument: ${a}`;
    } catch (e) {
      return (e as Error).message;
    }
  }
  return args;
}

const WorkerEnv = z.object({
  TOLLGATE_API_URL: z.string().url("must be an absolute URL such as http://127.0.0.1:3000"),
  TOLLGATE_WORKER_TOKEN: z.string().min(24, "must be at least 24 characters"),
});

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  if (typeof args === "string") {
    console.error(`worker: ${args}`);
    return 2;
  }
  const parsed = WorkerEnv.safeParse(process.env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    console.error(`worker: environment variable ${String(issue.path[0])} ${issue.message}`);
    return 2;
  }
  const log = (line: string) => console.error(`[worker ${args.workerId}] ${line}`);
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
  const probe = args.probe === "noop-fixture" ? fixtureProbe({ delayMs: args.probeDelayMs }) : realProbe({ vantage: args.vantage });
  if (args.probe === "noop-fixture") log("using the noop fixture probe: no request reaches any seller");
  const stats = await runWorker({
    ops: httpOpsClient({ apiUrl: parsed.data.TOLLGATE_API_URL, token: parsed.data.TOLLGATE_WORKER_TOKEN, log }),
    probe,
    workerId: args.workerId,
    concurrency: args.concurrency,
    leaseMs: args.leaseMs,
    idlePollMs: args.pollMs,
    signal: controller.signal,
    log,
  });
  console.log(JSON.stringify({ workerId: args.workerId, ...stats }));
  return 0;
}

main().then(
  (code) => process.exit(code),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
