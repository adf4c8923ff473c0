/**
 * `npm run bench:canary -- [--listings N] [--block N] [--warmup N] [--statements]`: canary runs (lib/canary) for N
 * listings (default 200) of 3 payable endpoints each, on loopback sellers over anvil, and the same
 * endpoints called by a plain buyer through the router in the same run; prints runs per second and
 * the canary's per-call overhead over that bare paid call (the issue's target: ≤ 1.5×).
 *
 * One run, one of each part:
 * - one anvil (test/chain.ts: the test USDC, a funded buyer); the house wallet minted what the runs cost;
 * - N + warm-up `honest` market sellers (sellers/market, each serving the mature seller's document,
 *   lib/scoring/readiness/fixtures/mature-and-honest.listing.json: GET /v1/geocode and /v1/reverse at
 *   3000, POST /v1/batch at 2000), settling through lib/chain's facilitator in their own process, so
 *   their work is not charged to either leg and is the same for both;
 * - one database (test/db.ts: in-memory PGlite, or a fresh schema in TEST_DATABASE_URL's server);
 * - the router's route handler (app/router/call/[listing]/[...path]/route.ts) behind a loopback HTTP
 *   server (test/route-server.ts) for the bare calls; the canary calls the relay in process, as the
 *   server's canary.runs tick does.
 *
 * A canary run (runCanary: queue, lease, budget reservation, then per endpoint the unpaid call, the
 * quote, the signature, the sample stored with its nonce, the paid call, the router's row read after
 * its on-chain confirmation, the output checked against the schema, the replay probe; then one
 * transaction completes the samples and finishes the run, and the listing is re-ranked) is timed from
 * request to result.
 * A bare paid call is @x402/fetch's wrapFetchWithPayment with the exact EVM client scheme, to
 * `/router/call/<listing>/<path>` with an API key and the endpoint's request example, read to the
 * last byte; a bare block's time includes waiting for the router's on-chain confirmations it left for
 * after the answer (the canary confirms before it judges). Blocks alternate (canary, bare, bare,
 * canary, …) over the same listings, so drift in the machine's load falls on both legs.
 *
 * Per-call overhead = (canary block time ÷ canary calls) ÷ (bare block time ÷ bare calls).
 *
 * A third leg, in the same alternation, is the bare buyer doing what the canary's call does on the
 * wire: the paid call and then the replay probe (the same request with the same payment header
 * again, relayed to the seller, which must refuse it). It measures the floor the call's structure sets (three relay
 * requests against the bare call's two) apart from the canary's own bookkeeping; printed as
 * "bare + replay" and `RESULT canary_replay_floor` (its per-call time over the bare call's).
 *
 * Checks: every run verified, every sample `pass` with the chain's amount; the house paid exactly the
 * listed prices once per endpoint per run; every bare call answered 200 with a successful
 * PAYMENT-RESPONSE and left one `settled` row.
 *
 * `--statements` counts the SQL each canary run sends while the recorded runs go (bench/statements.ts),
 * by statement, with their summed wall time per run.
 *
 * Last lines: RESULT canary_runs_per_second <runs/s>, RESULT canary_call_overhead <×>,
 * RESULT canary_run_p50 <ms> ms, RESULT canary_samples_pass <samples>.
 */
import { fork } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { x402Client } from "@x402/core/client";
import { decodePaymentResponseHeader } from "@x402/core/http";
import { toClientEvmSigner } from "@x402/evm";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { wrapFetchWithPayment } from "@x402/fetch";
import { keccak256, toHex, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { createApiKey } from "@/lib/apikeys";
import { runCanary } from "@/lib/canary/runs";
import type { CanaryStage } from "@/lib/canary/run";
import { createFacilitator } from "@/lib/chain/facilitator";
import { LOCAL_DEV_KEYS, LOCAL_NETWORK, LOCAL_USDC_ADDRESS } from "@/devchain/local-chain";
import type { ListingDocument, ListingEndpoint } from "@/lib/listing-document/document";
import { validateListingDocument } from "@/lib/listing-document/validate";
import { writeListing } from "@/lib/listings/save";
import { confirmationsSettled } from "@/lib/router/confirm-after-answer";
import { startMarket } from "@/sellers/market";
import { inProcessFacilitator } from "@/sellers/paid";
import { startFundedChain } from "@/test/chain";
import { createTestDatabase } from "@/test/db";
import { createTestOrganization } from "@/test/ledger";
import { serveRoutes } from "@/test/route-server";
import { countStatements, printStatements } from "./statements";
import { intFlag, pct } from "./args";
import { routerCallRoute } from "@/test/router-routes";
import { printLoadAverage } from "./machine";

const HOUSE_KEY = keccak256(toHex("tollgate bench canary house wallet")) as Hex;
const FIXTURE = path.join(process.cwd(), "lib", "scoring", "readiness", "fixtures", "mature-and-honest.listing.json");
/** The three payable endpoints' listed prices, one run's cost. */
const RUN_COST = 8000n;
const CAPS = { day: 10n ** 15n, listing: 10n ** 12n };

function args() {
  const a = process.argv.slice(2);
  const get = (flag: string, dflt: number, min: number) => intFlag(a, flag, dflt, min);
  const listings = get("--listings", 200, 1);
  return { listings, block: Math.min(get("--block", 20, 1), listings), warmup: get("--warmup", 5, 0), statements: a.includes("--statements") };
}

const ms = (x: number) => x.toFixed(2);
const slugOf = (i: number) => `bench-${String(i).padStart(4, "0")}`;

function matureDocument(): ListingDocument {
  const v = validateListingDocument(JSON.parse(fs.readFileSync(FIXTURE, "utf8")));
  if (!v.ok) throw new Error(`${FIXTURE}: ${v.errors[0].pointer} ${v.errors[0].message}`);
  return v.value;
}

/** The sellers, in their own process: `--sellers <rpcUrl> <count>`; sends their documents back. */
async function serveSellers(rpcUrl: string, count: number): Promise<void> {
  const doc = matureDocument();
  const market = await startMarket({
    facilitator: inProcessFacilitator(createFacilitator(rpcUrl, LOCAL_DEV_KEYS[9])),
    usdc: LOCAL_USDC_ADDRESS,
    sellers: Array.from({ length: count }, (_, i) => ({
      slug: slugOf(i),
      document: { ...doc, slug: slugOf(i) },
      behaviour: "honest" as const,
      payTo: privateKeyToAccount(keccak256(toHex(`bench canary payee ${i}`))).address,
    })),
  });
  process.send?.({ port: market.port, documents: market.documents });
  process.on("disconnect", () => void market.close().then(() => process.exit(0)));
}

/** The endpoint's request example as the canary sends it (lib/canary/run.ts requestOf): a GET's flat example as its query, else a JSON body. */
function bareRequest(e: ListingEndpoint): { query: string; init: RequestInit } {
  const ex = e.requestExample as Record<string, unknown> | null | undefined;
  if (e.method === "GET" || e.method === "DELETE") {
    const flat = Object.entries(ex ?? {}).filter(([, v]) => ["string", "number", "boolean"].includes(typeof v));
    return { query: flat.length ? `?${new URLSearchParams(flat.map(([k, v]) => [k, String(v)])).toString()}` : "", init: { method: e.method } };
  }
  return { query: "", init: { method: e.method, body: JSON.stringify(ex ?? {}), headers: { "content-type": "application/json" } } };
}

async function main(): Promise<void> {
  const { listings: N, block, warmup, statements } = args();
  const counter = statements ? await countStatements() : null;
  counter?.counting(false);
  const t0 = performance.now();
  const { node, local, payer } = await startFundedChain();
  const house = privateKeyToAccount(HOUSE_KEY);
  const total = N + warmup;
  const child = fork(process.argv[1], ["--sellers", node.rpcUrl, String(total)], { execArgv: process.execArgv, stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const cleanups: Array<() => Promise<unknown>> = [async () => child.kill(), () => node.stop()];
  try {
    const sellers = await new Promise<{ port: number; documents: Record<string, ListingDocument> }>((resolve, reject) => {
      child.once("message", (m: { port: number; documents: Record<string, ListingDocument> }) => resolve(m));
      child.once("exit", (code) => reject(new Error(`the sellers' process exited (${code})`)));
    });
    await local.mint(house.address, BigInt(total) * RUN_COST);
    await local.mint(payer.address, BigInt(total) * RUN_COST);

    // Read on first use of lib/env (after this).
    process.env.TOLLGATE_PROBE_ALLOW_HOSTS = `127.0.0.1:${sellers.port}`;
    process.env.TOLLGATE_CHAIN_RPC_URL = node.rpcUrl;
    process.env.TOLLGATE_CANARY_KEY = HOUSE_KEY;
    // The bare buyer calls far faster than the per-key limit allows (docs/LIMITS.md "call"); the
    // limit stays on, with a window wide enough for a benchmark's burst.
    process.env.TOLLGATE_LIMIT_CALL ??= "1000000/1m";
    const t = await createTestDatabase();
    cleanups.unshift(() => t.close());
    const org = await createTestOrganization(t.prisma);
    const admin = (await t.prisma.user.create({ data: { name: "Bench admin", role: "admin" } })).id;
    const secret = (await createApiKey({ actorId: admin, name: "bench bare buyer", scopes: ["router:call"] })).secret;
    const listings: Array<{ id: string; slug: string; endpoints: ListingEndpoint[] }> = [];
    for (let i = 0; i < total; i++) {
      const doc = sellers.documents[slugOf(i)];
      const { id, slug } = await writeListing({ ...doc, slug: slugOf(i) }, { organizationId: org, publicationState: "published" });
      listings.push({ id, slug, endpoints: doc.endpoints.filter((e) => e.payable) });
    }
    const router = await serveRoutes(routerCallRoute());
    cleanups.unshift(() => router.close());

    const client = new x402Client()
      .register(LOCAL_NETWORK, new ExactEvmScheme(toClientEvmSigner(payer, local.publicClient)))
      .setSpendControls({ allowedAssets: [{ network: LOCAL_NETWORK, asset: LOCAL_USDC_ADDRESS }] });
    const pay = wrapFetchWithPayment(fetch, client);
    // The replay leg's buyer: the same client, its last request kept so the paid one can be sent again.
    let lastSent: Request | null = null;
    const payKeeping = wrapFetchWithPayment((input: RequestInfo | URL, init?: RequestInit) => {
      const req = input instanceof Request && !init ? input : new Request(input, init);
      lastSent = req.clone();
      return fetch(req);
    }, client);
    const auth = `Bearer ${secret}`;

    // Where a canary call's time goes: the stages lib/canary/run.ts reports, per endpoint.
    const stageMs: Record<string, number[]> = { "unpaid call + quote + sign + sample stored": [], "paid call": [], "confirm + judge + replay": [] };
    let mark = 0;
    let runStart = 0;
    let current: string | null = null;
    const onStage = (stage: CanaryStage, e: { method: string; path: string }) => {
      const now = performance.now();
      const key = `${e.method} ${e.path}`;
      if (stage === "signed") {
        if (current !== null) stageMs["confirm + judge + replay"].push(now - mark);
        stageMs["unpaid call + quote + sign + sample stored"].push(now - (current === null ? runStart : mark));
      } else stageMs["paid call"].push(now - mark);
      current = key;
      mark = now;
    };
    /** The last endpoint's confirm, judge and replay, then the run's finish (one transaction) and re-rank. */
    const finishMs: number[] = [];

    type Leg = "canary" | "bare" | "replay";
    const wall: Record<Leg, number> = { canary: 0, bare: 0, replay: 0 };
    const calls: Record<Leg, number> = { canary: 0, bare: 0, replay: 0 };
    const cpu: Record<Leg, number> = { canary: 0, bare: 0, replay: 0 };
    const replayStatuses = new Map<number, number>();
    const runMs: number[] = [];
    const bareMs: number[] = [];
    const runIds: string[] = [];

    const canaryBlock = async (ls: typeof listings, record: boolean) => {
      counter?.counting(record);
      const started = performance.now();
      const cpuStarted = process.cpuUsage();
      for (const l of ls) {
        runStart = performance.now();
        current = null;
        const r = await runCanary(l.id, { trigger: "schedule", requestedBy: "system:bench" }, { caps: CAPS, onStage: record ? onStage : undefined });
        const now = performance.now();
        if (record && current !== null) finishMs.push(now - mark);
        if (r.state !== "done" || r.outcome !== "verified") throw new Error(`canary run on ${l.slug}: ${r.state} ${r.outcome}: ${r.reason}`);
        if (record) {
          runMs.push(now - runStart);
          runIds.push(r.runId);
        }
      }
      counter?.counting(false);
      if (record) {
        wall.canary += performance.now() - started;
        const used = process.cpuUsage(cpuStarted);
        cpu.canary += (used.user + used.system) / 1000;
        calls.canary += ls.length * 3;
      }
    };
    /** `replay`: after each paid call the same request with the same payment header again, as the canary's replay probe. */
    const bareBlock = async (ls: typeof listings, record: boolean, replay = false) => {
      const leg: Leg = replay ? "replay" : "bare";
      const started = performance.now();
      const cpuStarted = process.cpuUsage();
      for (const l of ls) {
        for (const e of l.endpoints) {
          const { query, init } = bareRequest(e);
          const s = performance.now();
          const res = await (replay ? payKeeping : pay)(`${router.origin}/router/call/${l.slug}${e.path}${query}`, { ...init, headers: { ...(init.headers as Record<string, string>), authorization: auth } });
          const body = await res.text();
          const took = performance.now() - s;
          const header = res.headers.get("payment-response");
          const settlement = header ? decodePaymentResponseHeader(header) : null;
          if (res.status !== 200 || !settlement?.success) throw new Error(`bare call ${e.method} ${l.slug}${e.path} answered ${res.status}: ${body.slice(0, 300)}`);
          if (record && !replay) bareMs.push(took);
          if (replay) {
            const sent = lastSent as Request | null;
            if (!sent?.headers.get("payment-signature") && !sent?.headers.get("x-payment")) throw new Error("the replay leg kept no paid request");
            const again = await fetch(sent);
            await again.arrayBuffer();
            if (again.status >= 200 && again.status < 300) throw new Error(`the replay of ${e.method} ${l.slug}${e.path} was answered ${again.status}, not refused`);
            if (record) replayStatuses.set(again.status, (replayStatuses.get(again.status) ?? 0) + 1);
          }
        }
      }
      // The router confirms after its answer; the block owns that work.
      await confirmationsSettled();
      if (record) {
        wall[leg] += performance.now() - started;
        const used = process.cpuUsage(cpuStarted);
        cpu[leg] += (used.user + used.system) / 1000;
        calls[leg] += ls.reduce((n, l) => n + l.endpoints.length, 0);
      }
    };

    console.log(`setup ${((performance.now() - t0) / 1000).toFixed(1)} s; ${os.cpus().length} cores, Node ${process.version}, load ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}; database ${t.url ? "server PostgreSQL (TEST_DATABASE_URL)" : "PGlite in memory"}`);
    const warm = listings.slice(N);
    await canaryBlock(warm, false);
    await bareBlock(warm, false);
    await bareBlock(warm, false, true);
    const houseBefore = await local.balanceOf(house.address);

    const measured = listings.slice(0, N);
    const tRun = performance.now();
    for (let done = 0, round = 0; done < N; round++) {
      const ls = measured.slice(done, done + block);
      const order: Leg[] = round % 2 === 0 ? ["canary", "bare", "replay"] : ["replay", "bare", "canary"];
      for (const leg of order) await (leg === "canary" ? canaryBlock(ls, true) : bareBlock(ls, true, leg === "replay"));
      done += ls.length;
      if (round % 2 === 1 || done === N) console.log(`  ${done}/${N} listings, ${((performance.now() - tRun) / 1000).toFixed(1)} s`);
    }

    // What the runs left: every sample passed with the chain's amount, the house paid each price once.
    const samples = await t.prisma.canarySample.findMany({ where: { runId: { in: runIds } }, select: { outcome: true, chainAmount: true, quotedAmount: true } });
    const passed = samples.filter((s) => s.outcome === "pass" && s.chainAmount !== null && s.chainAmount === s.quotedAmount).length;
    const houseSpent = houseBefore - (await local.balanceOf(house.address));
    const listingIds = measured.map((l) => l.id);
    const bareRows = await t.prisma.routerPayment.groupBy({ by: ["status"], where: { listingId: { in: listingIds }, house: false }, _count: true });
    const bareSettled = bareRows.find((r) => r.status === "settled")?._count ?? 0;
    // Both bare legs pay once a call; a refused replay leaves no row of its own.
    const ok = passed === N * 3 && houseSpent === BigInt(N) * RUN_COST && bareSettled === calls.bare + calls.replay && bareRows.length === 1;

    const perCall = (leg: Leg) => wall[leg] / calls[leg];
    const overhead = perCall("canary") / perCall("bare");
    const runsPerSecond = runMs.length / (wall.canary / 1000);
    console.log(`listings       ${N} × 3 endpoints, blocks of ${block} (+ ${warmup} warm-up listings), load ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}`);
    console.log(`canary runs    ${runMs.length} in ${(wall.canary / 1000).toFixed(1)} s: ${runsPerSecond.toFixed(2)} runs/s; a run p50 ${ms(pct(runMs, 50))} ms, p95 ${ms(pct(runMs, 95))} ms`);
    console.log(`               ${ms(perCall("canary"))} ms per call; this process's CPU ${ms(cpu.canary / calls.canary)} ms per call`);
    console.log(`bare calls     ${calls.bare} in ${(wall.bare / 1000).toFixed(1)} s (confirmations included): ${ms(perCall("bare"))} ms per call; a call p50 ${ms(pct(bareMs, 50))} ms, p95 ${ms(pct(bareMs, 95))} ms; this process's CPU ${ms(cpu.bare / calls.bare)} ms per call`);
    console.log(`bare + replay  ${calls.replay} paid calls each replayed (refused: ${[...replayStatuses].map(([st, n]) => `${n} × ${st}`).join(", ")}) in ${(wall.replay / 1000).toFixed(1)} s: ${ms(perCall("replay"))} ms per call, ${(perCall("replay") / perCall("bare")).toFixed(3)}× the bare call; this process's CPU ${ms(cpu.replay / calls.replay)} ms per call`);
    console.log(`overhead       ${overhead.toFixed(3)}× per call (target ≤ 1.5×); over the bare buyer's paid call and replay ${(perCall("canary") / perCall("replay")).toFixed(3)}×`);
    console.log(`where a canary call's time goes (p50 per endpoint):`);
    for (const [k, xs] of Object.entries(stageMs)) console.log(`    ${k.padEnd(44)} ${ms(pct(xs, 50))} ms (mean ${ms(xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length))} ms)`);
    console.log(`    ${"per run: last confirm + judge + replay, finish".padEnd(44)} ${ms(pct(finishMs, 50))} ms (mean ${ms(finishMs.reduce((a, b) => a + b, 0) / Math.max(1, finishMs.length))} ms)`);
    if (counter) {
      printStatements(counter.snapshot(), runMs.length, { by: "time", top: 30, heading: (total, wall) => `SQL statements per canary run (${total} in all, ${wall} ms of summed wall time; by summed time):` });
    }
    console.log(`checks         samples pass ${passed}/${N * 3}; house paid ${houseSpent} (expected ${BigInt(N) * RUN_COST}); bare rows settled ${bareSettled}/${calls.bare + calls.replay}${bareRows.length > 1 ? ` (${JSON.stringify(bareRows)})` : ""}`);
    if (!ok) process.exitCode = 1;
    printLoadAverage();
    console.log(`RESULT canary_runs_per_second ${runsPerSecond.toFixed(2)}`);
    console.log(`RESULT canary_call_overhead ${overhead.toFixed(3)}`);
    console.log(`RESULT canary_replay_floor ${(perCall("replay") / perCall("bare")).toFixed(3)}`);
    console.log(`RESULT canary_run_p50 ${ms(pct(runMs, 50))} ms`);
    console.log(`RESULT canary_samples_pass ${passed}`);
  } finally {
    for (const c of cleanups) await c().catch((e: unknown) => console.error(e));
  }
}

const at = process.argv.indexOf("--sellers");
if (at >= 0) {
  const [rpcUrl, count] = process.argv.slice(at + 1, at + 3);
  serveSellers(rpcUrl, Number(count)).catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
} else
  main().catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  });

