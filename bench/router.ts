/**
 * `npm run bench:router -- [--calls N] [--block N] [--warmup N] [--sync]`: what the router's paying
 * relay adds to a paid call. Defaults: 1,000 paid calls direct and 1,000 through the router, in
 * blocks of 50, 20 warm-up calls each first (not counted). `--sync` adds a third leg, the relay
 * confirming on chain before it answers (relayCall without afterAnswer), for comparison.
 *
 * One run, one of each part:
 * - one anvil (devchain/anvil.ts through test/chain.ts: the test USDC, a funded payer);
 * - one `honest` paid seller (sellers/paid: @x402/express over lib/chain's facilitator in process,
 *   every paid call a real EIP-3009 transfer mined by anvil's automine), in a child process so its
 *   work is not charged to the router and is the same for both legs;
 * - one database (test/db.ts: in-memory PGlite, or a fresh schema in TEST_DATABASE_URL's server);
 * - the router's route handler (app/router/call/[listing]/[...path]/route.ts) behind a real
 *   loopback HTTP server (test/route-server.ts), in this process, with an API key and a listing
 *   whose base URL is the seller.
 *
 * The buyer is @x402/fetch's `wrapFetchWithPayment` with @x402/evm's exact client scheme, as a real
 * buyer's agent: each paid call is the unpaid request (the seller's 402), the signature, and the
 * paid retry. Direct calls go to the seller's URL; routed calls go to `/router/call/<listing>/weather`
 * with the API key. One call's latency is from the first request to the last byte of the paid answer.
 * Calls run one at a time, in alternating blocks (direct, routed, routed, direct, …) so drift in the
 * machine's load falls on both legs. A routed block's time includes waiting until the ledger has
 * confirmed every row the block wrote (whatever the router leaves for after the answer is charged
 * to it). Throughput is calls ÷ the summed block time of the leg.
 *
 * Checks: every call answered 200 with a successful PAYMENT-RESPONSE, the payee's balance grew by
 * every payment, and every routed call left exactly one `settled` ledger row.
 *
 * A fourth leg, `cold` (on by default, `--no-cold` leaves it out), is the route's path as it was
 * before its hot path was cached and pooled, in the same run; `--statements` counts the SQL each
 * routed leg sends per call (bench/statements.ts).
 *
 * Last lines: RESULT router_added_p50 <ms> ms, RESULT router_added_p95 <ms> ms,
 * RESULT router_throughput_ratio <routed ÷ direct calls/s>, RESULT router_ledger_settled <rows>, and the
 * binding's own cost per call timed apart: RESULT router_binding_{signature,buyer_side,read}_p50.
 */
import { fork } from "node:child_process";
import { performance } from "node:perf_hooks";
import os from "node:os";
import { x402Client } from "@x402/core/client";
import { decodePaymentResponseHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import { toClientEvmSigner } from "@x402/evm";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { wrapFetchWithPayment } from "@x402/fetch";
import type { Address } from "viem";
import { createApiKey } from "@/lib/apikeys";
import { createFacilitator } from "@/lib/chain/facilitator";
import { toResponse } from "@/lib/errors";
import { authenticateCaller, relayCall } from "@/lib/router/relay-call";
import { takeRateLimit } from "@/lib/limits";
import { judgeBuyerSide, signedDomain } from "@/lib/router/buyer-side";
import { decodePayment } from "@/lib/router/payment-headers";
import { readSettlement } from "@/lib/ledger/confirm-payment";
import { LOCAL_DEV_KEYS, LOCAL_NETWORK, LOCAL_USDC_ADDRESS } from "@/devchain/local-chain";
import { inProcessFacilitator, startPaidSellers } from "@/sellers/paid";
import { startFundedChain } from "@/test/chain";
import { createTestDatabase } from "@/test/db";
import { createTestListing } from "@/test/ledger";
import { serveRoutes } from "@/test/route-server";
import { intFlag, pct } from "./args";
import { printLoadAverage } from "./machine";
import { countStatements, printStatements } from "./statements";
import { routerCallRoutes } from "@/test/router-routes";

const PRICE = 10_000n; // 0.01 USDC, the paid sellers' default

function args() {
  const a = process.argv.slice(2);
  const get = (flag: string, dflt: number, min: number) => intFlag(a, flag, dflt, min);
  const calls = get("--calls", 1000, 1);
  const block = get("--block", 50, 1);
  return { calls, block: Math.min(block, calls), warmup: get("--warmup", 20, 0), sync: a.includes("--sync"), cold: !a.includes("--no-cold"), statements: a.includes("--statements") };
}

const ms = (x: number) => x.toFixed(2);

/** The seller, in its own process: `--seller <rpcUrl> <payTo> <otherPayTo>`; sends its port back. */
async function serveSeller(rpcUrl: string, payTo: Address, otherPayTo: Address): Promise<void> {
  const sellers = await startPaidSellers({ facilitator: inProcessFacilitator(createFacilitator(rpcUrl, LOCAL_DEV_KEYS[9])), usdc: LOCAL_USDC_ADDRESS, payTo, otherPayTo });
  process.send?.({ port: sellers.port, url: sellers.resource("honest") });
  process.on("disconnect", () => void sellers.close().then(() => process.exit(0)));
}

async function main(): Promise<void> {
  const { calls, block, warmup, sync, cold, statements } = args();
  const counter = statements ? await countStatements() : null;
  const t0 = performance.now();
  const { node, local, payer, payTo, otherPayTo } = await startFundedChain();
  const child = fork(process.argv[1], ["--seller", node.rpcUrl, payTo, otherPayTo], { execArgv: process.execArgv, stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const cleanups: Array<() => Promise<unknown>> = [async () => child.kill(), () => node.stop()];
  try {
    const seller = await new Promise<{ port: number; url: string }>((resolve, reject) => {
      child.once("message", (m: { port: number; url: string }) => resolve(m));
      child.once("exit", (code) => reject(new Error(`the seller process exited (${code})`)));
    });
    const totalPaid = BigInt((2 + (sync ? 1 : 0) + (cold ? 1 : 0)) * (calls + warmup)) * PRICE;
    await local.mint(payer.address, totalPaid);

    // Read by the relay (the loopback seller through the probe allow-list) and the ledger's chain
    // reader; lib/env.ts parses the environment on first use, which is after this.
    process.env.TOLLGATE_PROBE_ALLOW_HOSTS = `127.0.0.1:${seller.port}`;
    // The bench calls far faster than the per-key limit allows (docs/LIMITS.md "call": 600 a minute).
    // The limit stays on, so each routed request still pays for taking its token, but its window is
    // wide enough for a benchmark's burst.
    process.env.TOLLGATE_LIMIT_CALL ??= "1000000/1m";
    process.env.TOLLGATE_CHAIN_RPC_URL = node.rpcUrl;
    const t = await createTestDatabase();
    cleanups.unshift(() => t.close());
    const admin = (await t.prisma.user.create({ data: { name: "Bench admin", role: "admin" } })).id;
    const secret = (await createApiKey({ actorId: admin, name: "bench buyer", scopes: ["router:call"] })).secret;
    const makeListing = async (title: string) => {
      const id = await createTestListing(t.prisma, {
        title,
        baseUrl: seller.url.replace(/\/weather$/, ""),
        networks: [LOCAL_NETWORK],
        endpoints: [{ method: "GET", path: "/weather", priceAmount: PRICE.toString(), priceAsset: LOCAL_USDC_ADDRESS, priceNetwork: LOCAL_NETWORK, priceUsd: "0.01" }],
      });
      return { id, slug: (await t.prisma.listing.findUniqueOrThrow({ where: { id }, select: { slug: true } })).slug };
    };
    const listing = await makeListing("honest weather");
    const router = await serveRoutes(routerCallRoutes(listing.slug, ["weather"]));
    cleanups.unshift(() => router.close());
    // --sync: a third leg, the relay confirming before it answers (relayCall without afterAnswer, as
    // the route did before), on a listing of its own, for a same-run comparison.
    const syncListing = sync ? await makeListing("honest weather, confirmed before the answer") : null;
    const syncRouter = syncListing
      ? await serveRoutes({ [`GET /router/call/${syncListing.slug}/weather`]: (req) => relayCall(req, syncListing.slug, "weather").catch(toResponse) })
      : null;
    if (syncRouter) cleanups.unshift(() => syncRouter.close());
    // The cold leg (default; --no-cold leaves it out): the same route as it was before its hot path was
    // cached, in the same run: the key and the listing read on every request, one rate-limit token
    // per statement, a fresh seller connection per request, the row read back to confirm.
    const coldListing = cold ? await makeListing("honest weather, cold path") : null;
    const coldRouter = coldListing
      ? await serveRoutes({
          [`GET /router/call/${coldListing.slug}/weather`]: async (req) => {
            try {
              const caller = await authenticateCaller(req, { fresh: true });
              await takeRateLimit("call", `${caller.kind}:${caller.id}`);
              return await relayCall(req, coldListing.slug, "weather", { caller, cold: true, afterAnswer: (task) => void task() });
            } catch (e) {
              return toResponse(e);
            }
          },
        })
      : null;
    if (coldRouter) cleanups.unshift(() => coldRouter.close());

    const client = new x402Client()
      .register(LOCAL_NETWORK, new ExactEvmScheme(toClientEvmSigner(payer, local.publicClient)))
      .setSpendControls({ allowedAssets: [{ network: LOCAL_NETWORK, asset: LOCAL_USDC_ADDRESS }] });
    type Leg = "direct" | "routed" | "sync" | "cold";
    const legNames: Leg[] = ["direct", "routed", ...(sync ? (["sync"] as const) : []), ...(cold ? (["cold"] as const) : [])];
    // Each leg's two requests timed apart: the unpaid one (the seller's 402) and the paid retry.
    const requests = Object.fromEntries(legNames.map((l) => [l, { unpaid: [] as number[], paid: [] as number[] }])) as Record<Leg, { unpaid: number[]; paid: number[] }>;
    let recording = false;
    const paying = (leg: Leg) =>
      wrapFetchWithPayment(async (input: RequestInfo | URL, init?: RequestInit) => {
        const paid = new Request(input, init).headers.has("payment-signature");
        const s = performance.now();
        const res = await fetch(input, init);
        if (recording) requests[leg][paid ? "paid" : "unpaid"].push(performance.now() - s);
        return res;
      }, client);
    const auth = { headers: { authorization: `Bearer ${secret}` } };
    const [payDirect, payRouted, paySync, payCold] = [paying("direct"), paying("routed"), paying("sync"), paying("cold")];
    const legs: Record<Leg, () => Promise<Response>> = {
      direct: () => payDirect(seller.url),
      routed: () => payRouted(`${router.origin}/router/call/${listing.slug}/weather`, auth),
      sync: () => paySync(`${syncRouter?.origin}/router/call/${syncListing?.slug}/weather`, auth),
      cold: () => payCold(`${coldRouter?.origin}/router/call/${coldListing?.slug}/weather`, auth),
    };

    const countRows = async (listingId: string) => {
      const grouped = await t.prisma.routerPayment.groupBy({ by: ["status"], where: { listingId }, _count: true });
      const by = Object.fromEntries(grouped.map((g) => [g.status, g._count])) as Record<string, number>;
      return { settled: by.settled ?? 0, unconfirmed: by.unconfirmed ?? 0, failed: by.failed ?? 0 };
    };
    /** Until every row the router wrote is confirmed (or ten seconds pass: a finding, reported below). */
    const drain = async (listingId: string) => {
      const until = performance.now() + 10_000;
      while ((await countRows(listingId)).unconfirmed > 0 && performance.now() < until) await new Promise((r) => setTimeout(r, 1));
    };

    const latencies = Object.fromEntries(legNames.map((l) => [l, [] as number[]])) as Record<Leg, number[]>;
    const wall = Object.fromEntries(legNames.map((l) => [l, 0])) as Record<Leg, number>;
    /** This process's CPU (user + system) in the leg's blocks: the buyer's alone on the direct leg; buyer, router and PGlite on a routed one. */
    const cpu = Object.fromEntries(legNames.map((l) => [l, 0])) as Record<Leg, number>;
    const perLegStatements = Object.fromEntries(legNames.map((l) => [l, new Map<string, { n: number; ms: number }>()])) as Record<Leg, Map<string, { n: number; ms: number }>>;
    const runBlock = async (leg: Leg, n: number, record: boolean) => {
      counter?.reset();
      counter?.counting(record && leg !== "direct");
      const started = performance.now();
      const cpuStarted = process.cpuUsage();
      for (let i = 0; i < n; i++) {
        const s = performance.now();
        const res = await legs[leg]();
        const body = await res.text();
        const took = performance.now() - s;
        const header = res.headers.get("payment-response");
        const settlement = header ? decodePaymentResponseHeader(header) : null;
        if (res.status !== 200 || !settlement?.success) throw new Error(`${leg} call ${i + 1} of ${n} (${record ? "measured" : "warm-up"}) answered ${res.status} (${settlement ? JSON.stringify(settlement) : "no PAYMENT-RESPONSE"}): ${body.slice(0, 300)}`);
        if (record) latencies[leg].push(took);
      }
      counter?.counting(false);
      for (const [sql, x] of counter?.snapshot() ?? []) {
        const sum = perLegStatements[leg].get(sql) ?? { n: 0, ms: 0 };
        perLegStatements[leg].set(sql, { n: sum.n + x.n, ms: sum.ms + x.ms });
      }
      if (leg === "routed") await drain(listing.id);
      if (leg === "cold" && coldListing) await drain(coldListing.id);
      if (record) {
        wall[leg] += performance.now() - started;
        const used = process.cpuUsage(cpuStarted);
        cpu[leg] += (used.user + used.system) / 1000;
      }
    };

    const balanceBefore = await local.balanceOf(payTo);
    console.log(`setup ${((performance.now() - t0) / 1000).toFixed(1)} s; ${os.cpus().length} cores, Node ${process.version}, load ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}; database ${t.url ? "server PostgreSQL (TEST_DATABASE_URL)" : "PGlite in memory"}`);
    for (const leg of legNames) await runBlock(leg, warmup, false);
    const before = await countRows(listing.id);

    recording = true;
    counter?.reset();
    const tRun = performance.now();
    for (let done = 0, round = 0; done < calls; round++) {
      const n = Math.min(block, calls - done);
      // Rotate the order each round (2 legs: d r, r d; 3 legs: d r s, r s d, s d r).
      const order = legNames.map((_, i) => legNames[(i + round) % legNames.length]);
      for (const leg of order) await runBlock(leg, n, true);
      done += n;
      if (round % 4 === 3 || done === calls) console.log(`  ${done}/${calls} calls per leg, ${((performance.now() - tRun) / 1000).toFixed(1)} s`);
    }

    const after = await countRows(listing.id);
    const balanceAfter = await local.balanceOf(payTo);
    const paidCalls = BigInt(legNames.length * (calls + warmup));
    if (balanceAfter - balanceBefore !== paidCalls * PRICE) throw new Error(`the payee received ${balanceAfter - balanceBefore}, not ${paidCalls * PRICE} for ${paidCalls} calls`);

    const d = latencies.direct;
    const rate = (leg: Leg) => latencies[leg].length / (wall[leg] / 1000);
    const mean = (xs: number[]) => xs.reduce((x, y) => x + y, 0) / xs.length;
    const spread = (xs: number[]) => [10, 25, 50, 75, 90, 99].map((q) => `p${q} ${ms(pct(xs, q))}`).join(", ");
    const label: Record<Leg, string> = { direct: "direct", routed: "routed", sync: "routed, confirmed before the answer", cold: "routed on the cold path (before: nothing cached or pooled)" };
    console.log(`paid calls     ${calls} per leg (${legNames.join(", ")}), one at a time, blocks of ${block} (+ ${warmup} warm-up each), load ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}`);
    for (const leg of legNames) {
      const x = latencies[leg];
      console.log(`${label[leg]}: p50 ${ms(pct(x, 50))} ms  p95 ${ms(pct(x, 95))} ms  mean ${ms(mean(x))} ms  max ${ms(Math.max(...x))} ms  ${rate(leg).toFixed(1)} calls/s`);
      console.log(`    spread ${spread(x)} ms; this process's CPU ${ms(cpu[leg] / x.length)} ms per call${leg === "direct" ? " (the buyer)" : ` (buyer + router${t.url ? "" : " + PGlite"}: ${ms((cpu[leg] - cpu.direct) / x.length)} ms more than direct)`}`);
      if (leg === "direct") continue;
      console.log(`    added p50 ${ms(pct(x, 50) - pct(d, 50))} ms  p95 ${ms(pct(x, 95) - pct(d, 95))} ms  mean ${ms(mean(x) - mean(d))} ms; throughput ratio ${(rate(leg) / rate("direct")).toFixed(3)}`);
      for (const part of ["unpaid", "paid"] as const) {
        const [dd, xx] = [requests.direct[part], requests[leg][part]];
        console.log(`    ${part === "unpaid" ? "unpaid request (402)" : "paid retry (200)    "}  direct p50 ${ms(pct(dd, 50))} ms, this leg p50 ${ms(pct(xx, 50))} ms, added p50 ${ms(pct(xx, 50) - pct(dd, 50))} ms`);
      }
    }
    if (counter) {
      for (const leg of legNames.filter((l) => l !== "direct")) {
        printStatements(perLegStatements[leg], calls, { by: "count", heading: (total) => `SQL statements per ${leg} call, sent while the calls ran (${total} in all; summed wall time per call):` });
      }
    }
    console.log(`(a routed block's time includes waiting for the ledger's confirmations; throughput is calls ÷ the leg's summed block time)`);
    console.log(`ledger  settled ${after.settled - before.settled} of ${calls} routed calls (unconfirmed ${after.unconfirmed}, failed ${after.failed}); payee received ${balanceAfter - balanceBefore} for ${paidCalls} calls`);
    const settledOk = after.settled - before.settled === calls && after.unconfirmed === 0 && after.failed === 0;
    if (!settledOk) process.exitCode = 1;
    // The binding's own cost per call, timed apart in this process: the buyer-side check the relay
    // runs as a payment arrives (signature in the asset table's domain, then the scheme's verify
    // pinned to the arrival block), and the confirmation's read of the logs that bind a settlement.
    const bound = await t.prisma.routerPayment.findMany({ where: { listingId: listing.id, status: "settled" }, take: 100, orderBy: { createdAt: "desc" } });
    const timeEach = async <T>(items: T[], fn: (x: T) => Promise<unknown>) => {
      const times: number[] = [];
      const c0 = process.cpuUsage();
      for (const x of items) {
        const s = performance.now();
        await fn(x);
        times.push(performance.now() - s);
      }
      const c = process.cpuUsage(c0);
      return { p50: pct(times, 50), cpu: (c.user + c.system) / 1000 / items.length };
    };
    const requirement = { scheme: "exact", network: LOCAL_NETWORK, amount: PRICE.toString(), asset: LOCAL_USDC_ADDRESS, payTo, maxTimeoutSeconds: 300, extra: { name: "USD Coin", version: "2" } } as const;
    const fresh = await Promise.all(bound.map(async () => decodePayment(encodePaymentSignatureHeader(await client.createPaymentPayload({ x402Version: 2, resource: { url: seller.url }, accepts: [requirement] })))!));
    const terms = { asset: LOCAL_USDC_ADDRESS, network: LOCAL_NETWORK, maxTimeoutSeconds: 300 };
    const sig = await timeEach(fresh, (p) => signedDomain(p, terms));
    const side = await timeEach(fresh, (p) => judgeBuyerSide(p, terms));
    const read = await timeEach(bound, (b) => readSettlement({ transaction: b.transactionId!, network: b.network, asset: b.asset, payer: b.payer, nonce: b.authorizationNonce, payTo: b.quotedPayTo, amount: b.advertisedAmount, notBefore: b.relayedAt }));
    console.log(`binding (per call, ${bound.length} calls, timed apart): signature p50 ${ms(sig.p50)} ms (CPU ${ms(sig.cpu)} ms); buyer-side verify (signature + scheme verify at the arrival block; run only for a payment the seller did not settle) p50 ${ms(side.p50)} ms (CPU ${ms(side.cpu)} ms); settlement read (receipt, logs, block) p50 ${ms(read.p50)} ms (CPU ${ms(read.cpu)} ms, after the answer)`);
    const r = latencies.routed;
    printLoadAverage();
    console.log(`RESULT router_binding_signature_p50 ${ms(sig.p50)} ms`);
    console.log(`RESULT router_binding_buyer_side_p50 ${ms(side.p50)} ms`);
    console.log(`RESULT router_binding_read_p50 ${ms(read.p50)} ms`);
    console.log(`RESULT router_added_p50 ${ms(pct(r, 50) - pct(d, 50))} ms`);
    console.log(`RESULT router_added_p95 ${ms(pct(r, 95) - pct(d, 95))} ms`);
    console.log(`RESULT router_throughput_ratio ${(rate("routed") / rate("direct")).toFixed(3)}`);
    if (cold) {
      console.log(`RESULT router_cold_added_p50 ${ms(pct(latencies.cold, 50) - pct(d, 50))} ms`);
      console.log(`RESULT router_cold_throughput_ratio ${(rate("cold") / rate("direct")).toFixed(3)}`);
    }
    console.log(`RESULT router_ledger_settled ${after.settled - before.settled}`);
  } finally {
    for (const c of cleanups) await c().catch((e: unknown) => console.error(e));
  }
}

const at = process.argv.indexOf("--seller");
if (at >= 0) {
  const [rpcUrl, payTo, otherPayTo] = process.argv.slice(at + 1, at + 4);
  serveSeller(rpcUrl, payTo as Address, otherPayTo as Address).catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
} else
  main().catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  });
