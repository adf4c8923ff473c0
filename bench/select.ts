/**
 * `npm run bench:select -- [--sellers N] [--tasks N] [--pay N] [--phrasing sentence|keywords|both] [--seed N] [--concurrency N] [--failures N] [--sweeps N] [--dump FILE]`:
 * task success per dollar of three selectors on a local market with ground truth (issue 32 item 2,
 * docs/BENCHMARKS.md "bench:select"). Defaults 300 sellers, 2,000 tasks, both phrasings (the targets
 * are the sentences'); every task chosen by each selector and paid through the router (--pay N: a seeded sample of N).
 */
import { fork } from "node:child_process";
import os from "node:os";
import { performance } from "node:perf_hooks";
import type { PublicClient } from "viem";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { createApiKey } from "@/lib/apikeys";
import { createFacilitator } from "@/lib/chain/facilitator";
import { confirmationsSettled } from "@/lib/router/confirm-after-answer";
import { rows } from "@/lib/sql";
import { mapBounded } from "@/lib/probe/bounded";
import { LOCAL_DEV_KEYS, LOCAL_USDC_ADDRESS, type LocalChain } from "@/devchain/local-chain";
import { inProcessFacilitator } from "@/sellers/paid";
import { startFundedChain } from "@/test/chain";
import { createTestDatabase } from "@/test/db";
import { serveRoutes } from "@/test/route-server";
import { routerCallRoute } from "@/test/router-routes";
import { intFlag, pct, stringFlag } from "./args";
import { printLoadAverage } from "./machine";
import { ADVERSARIAL, CAPABILITIES, DEFAULT_SEED, buildMarket, buildTasks, expectedSuccess, keywordsOf, ringBelowHonest, rng, solved, type MarketSpec, type Task } from "./select/market";
import { startSelectMarket } from "./select/server";
import { DEFAULT_SWEEPS, benchKey, benchWallet, buildHistory, callUrlOf, payeeOf, type Listed } from "./select/history";
import { routerBuyer } from "./select/buyers";
import { writeDump } from "./select/replay";
import { ROUTER_POOL, selectServices } from "@/lib/catalog/select";
import { searchHits } from "@/lib/catalog/search";
import { SELECTORS, SELECTOR_LABELS, choose, readSignals, type SelectorName } from "./select/selectors";

function args() {
  const a = process.argv.slice(2);
  const phrasing = stringFlag(a, "--phrasing") ?? "both";
  if (!["sentence", "keywords", "both"].includes(phrasing)) throw new Error(`--phrasing takes sentence, keywords or both, got ${JSON.stringify(phrasing)}`);
  const tasks = intFlag(a, "--tasks", 2000, 1);
  return {
    sellers: intFlag(a, "--sellers", 300, 40),
    tasks,
    // Every task by default: paying all 6,000 takes about 3 minutes, and a sample of 200 moved the gap between selectors by a point.
    pay: Math.min(intFlag(a, "--pay", tasks, 0), tasks),
    seed: intFlag(a, "--seed", DEFAULT_SEED, 0),
    concurrency: intFlag(a, "--concurrency", 6, 1),
    failures: intFlag(a, "--failures", 3, 0),
    sweeps: intFlag(a, "--sweeps", DEFAULT_SWEEPS, 1),
    phrasings: (phrasing === "both" ? ["keywords", "sentence"] : [phrasing]) as Phrasing[],
    dump: stringFlag(a, "--dump"),
  };
}

/** The market, in its own process: `--market <rpcUrl> <sellers> <seed>`; sends its URL back. */
async function serveMarket(rpcUrl: string, count: number, seed: number): Promise<void> {
  const spec = buildMarket(count, seed);
  const market = await startSelectMarket({ facilitator: inProcessFacilitator(createFacilitator(rpcUrl, LOCAL_DEV_KEYS[9])), usdc: LOCAL_USDC_ADDRESS, sellers: spec.sellers, payTo: payeeOf(spec) });
  process.send?.({ url: market.url, port: market.port });
  process.on("disconnect", () => void market.close().then(() => process.exit(0)));
}

const pctOf = (n: number, d: number) => (d === 0 ? 0 : (100 * n) / d);
/** A paid-sample figure: NaN when nothing was paid (`--pay 0`), which prints as n/a. */
const paidPct = (x: number) => (Number.isNaN(x) ? "n/a" : x.toFixed(1));
const usdc = (atomic: number) => (atomic / 1e6).toFixed(6);

interface Outcome {
  task: Task;
  chosen: Listed | null;
  paid: boolean;
  success: boolean;
  ms: number;
}

type Phrasing = "sentence" | "keywords";
const textOf = (phrasing: Phrasing, t: Task) => (phrasing === "sentence" ? t.sentence : keywordsOf(t.capability));

interface Figures {
  successes: number;
  paidTasks: number;
  /** Sampled tasks for which the selector picked a seller (the rest had no pick). */
  called: number;
  successPct: number;
  costPerSuccess: number;
  adversarialPaid: number;
  adversarialPicked: number;
  expectedPct: number;
  unpicked: number;
  chooseP50: number;
}

/** One phrasing of the tasks: every task chosen by each selector, the sample paid, the figures printed. */
async function evaluate(x: {
  phrasing: Phrasing;
  tasks: Task[];
  listed: Listed[];
  signals: Awaited<ReturnType<typeof readSignals>>;
  pay: number;
  seed: number;
  concurrency: number;
  local: LocalChain;
  apiKey: string;
  routerOrigin: string;
  prisma: PrismaClient;
  spec: MarketSpec;
  failuresShown: number;
}): Promise<{ fig: Record<SelectorName, Figures>; targets: Array<[string, boolean]> }> {
  const { phrasing, tasks, listed, signals, pay, seed, concurrency, local, apiKey, routerOrigin, prisma, spec, failuresShown } = x;
  const byId = new Map(listed.map((l) => [l.listingId, l]));
  console.log(`\n=== tasks as ${phrasing === "sentence" ? "sentences" : "keywords"} ===`);
  // Every task chosen by every selector.
  const picks: Record<SelectorName, Array<Listed | null>> = { bazaar: [], volume: [], tollgate: [] };
  const chooseMs: Record<SelectorName, number[]> = { bazaar: [], volume: [], tollgate: [] };
  for (const sel of SELECTORS) {
    for (const task of tasks) {
      const s = performance.now();
      const [first] = await choose(sel, textOf(phrasing, task), signals, 1);
      chooseMs[sel].push(performance.now() - s);
      picks[sel].push(first ? (byId.get(first) ?? null) : null);
    }
  }

  // The same seeded sample of tasks is paid by each selector through the router.
  const r = rng(seed ^ 0xba1d);
  const order = tasks.map((x) => x.index).sort(() => r() - 0.5);
  const sample = new Set(order.slice(0, pay));
  const outcomes: Record<SelectorName, Outcome[]> = { bazaar: [], volume: [], tollgate: [] };
  const spent: Record<SelectorName, number> = { bazaar: 0, volume: 0, tollgate: 0 };
  const payMs: number[] = [];
  for (const sel of SELECTORS) {
    const wallets = Array.from({ length: concurrency }, (_, i) => benchWallet(`${phrasing} ${sel} buyer ${i}`));
    for (const w of wallets) await local.mint(w.address, BigInt(Math.ceil(pay / wallets.length) + 1) * 2_000_000n);
    const buyers = wallets.map((w) => routerBuyer(w, local.publicClient as PublicClient, local.usdc, apiKey));
    const mine = tasks.filter((x) => sample.has(x.index));
    const lanes = buyers.map((_, i) => mine.filter((_, k) => k % buyers.length === i));
    await mapBounded(lanes, lanes.length, async (lane, i) => {
      for (const task of lane) {
        const chosen = picks[sel][task.index];
        if (!chosen) {
          outcomes[sel].push({ task, chosen, paid: false, success: false, ms: 0 });
          continue;
        }
        const s = performance.now();
        const res = await buyers[i](callUrlOf(routerOrigin, chosen), task.input);
        const ms = performance.now() - s;
        if (res.paid) payMs.push(ms);
        outcomes[sel].push({ task, chosen, paid: res.paid, success: solved(task, res.status, res.body), ms });
      }
    });
    await confirmationsSettled();
    const [{ total }] = await rows<{ total: string | null }>(
      prisma,
      `SELECT sum(COALESCE("chainAmount", "settledAmount")::numeric)::text AS total FROM "router_payments" WHERE "status" = 'settled' AND lower("payer") = ANY($1::text[])`,
      wallets.map((w) => w.address.toLowerCase()),
    );
    spent[sel] = Number(total ?? 0);
  }

  // Where the wash ring ranks, for one task of its capability (the first template, in the run's phrasing).
  const washCap = CAPABILITIES.find((c) => c.key === spec.washCapability)!;
  const ringTask: Task = { index: -1, capability: washCap.key, input: washCap.inputs[0].replace("{n}", "7"), sentence: washCap.templates[0].replace("{x}", washCap.inputs[0].replace("{n}", "7")) };
  const ringRank: Record<SelectorName, { ring: number[]; honest: number[]; listedOfCap: number; below: boolean }> = {} as never;
  const ofCap = listed.filter((l) => l.seller.capability === washCap.key);
  for (const sel of SELECTORS) {
    const ranked = (await choose(sel, textOf(phrasing, ringTask), signals, 100)).map((id) => byId.get(id)).filter((l): l is Listed => l?.seller.capability === washCap.key);
    const pos = (l: Listed) => ranked.indexOf(l) + 1 || Infinity;
    const ring = ofCap.filter((l) => l.seller.kind === "wash").map(pos);
    const honest = ofCap.filter((l) => l.seller.kind === "honest" || l.seller.kind === "mediocre").map(pos);
    ringRank[sel] = { ring, honest, listedOfCap: ofCap.length, below: ringBelowHonest(ring, honest) };
  }

  // Figures.
  const fig = Object.fromEntries(
    SELECTORS.map((sel) => {
      const out = outcomes[sel];
      const successes = out.filter((x) => x.success).length;
      const adversarialPaid = out.filter((x) => x.paid && x.chosen && ADVERSARIAL.has(x.chosen.seller.kind)).length;
      const all = picks[sel];
      const adversarialPicked = all.filter((l) => l && ADVERSARIAL.has(l.seller.kind)).length;
      const expected = tasks.reduce((n, task, i) => n + (all[i] && all[i]!.seller.capability === task.capability ? expectedSuccess(all[i]!.seller) : 0), 0);
      const unpicked = all.filter((l) => !l).length;
      return [sel, { successes, paidTasks: out.length, called: out.filter((x) => x.chosen).length, successPct: out.length ? pctOf(successes, out.length) : NaN, costPerSuccess: successes ? spent[sel] / successes : Infinity, adversarialPaid, adversarialPicked, expectedPct: pctOf(expected, tasks.length), unpicked, chooseP50: pct(chooseMs[sel], 50) }];
    }),
  ) as Record<SelectorName, { successes: number; paidTasks: number; called: number; successPct: number; costPerSuccess: number; adversarialPaid: number; adversarialPicked: number; expectedPct: number; unpicked: number; chooseP50: number }>;

  console.log(`\nchoices: every one of the ${tasks.length} tasks by each selector (p50 per choice: ${SELECTORS.map((s) => `${s} ${fig[s].chooseP50.toFixed(1)} ms`).join(", ")})`);
  console.log(`paid: a fixed sample of ${pay} of the ${tasks.length} tasks per selector, through the router (SAMPLED: success, cost and adversarial payments below are over the paid sample; the ground-truth columns cover all ${tasks.length})`);
  const perPay = pct(payMs, 50);
  if (payMs.length === 0) console.log(`a paid call through the router: none made (--pay 0)`);
  else console.log(`a paid call through the router: p50 ${perPay.toFixed(0)} ms, p95 ${pct(payMs, 95).toFixed(0)} ms at ${concurrency} in flight; paying all ${3 * tasks.length} would take about ${((3 * tasks.length * perPay) / concurrency / 60_000).toFixed(1)} min here`);
  console.log(`\n${"selector".padEnd(56)} success   USDC/success  adv.paid  | all tasks: adv.picked  no pick  expected success`);
  for (const sel of SELECTORS) {
    const f = fig[sel];
    console.log(`${SELECTOR_LABELS[sel].padEnd(56)} ${paidPct(f.successPct).padStart(5)} %  ${(Number.isFinite(f.costPerSuccess) ? usdc(f.costPerSuccess) : "—").padStart(12)}  ${String(f.adversarialPaid).padStart(8)}  | ${String(f.adversarialPicked).padStart(10)}  ${String(f.unpicked).padStart(7)}  ${f.expectedPct.toFixed(1).padStart(6)} %`);
  }
  const ceiling = await ceilings(tasks, listed, phrasing);
  console.log(
    `ceilings by ground truth (all ${tasks.length}): the best seller among those the sentence relevance retrieves ${ceiling.retrieved.toFixed(1)} % ` +
      `(${ceiling.noneRetrieved} tasks retrieve none of their capability); a seller of the right capability drawn at random from its honest, non-mediocre ones ${ceiling.honest.toFixed(1)} %`,
  );

  // Where Tollgate's picks lose, by ground truth over all tasks (what the pick was, or none), and its paid failures.
  const lossOf = (task: Task, l: Listed | null) => (!l ? "no pick" : l.seller.capability !== task.capability ? `wrong capability (${l.seller.capability})` : ADVERSARIAL.has(l.seller.kind) ? l.seller.kind : l.seller.kind === "mediocre" ? "mediocre" : null);
  const losses = new Map<string, string[]>();
  tasks.forEach((task, i) => {
    const why = lossOf(task, picks.tollgate[i]);
    if (why) losses.set(why, [...(losses.get(why) ?? []), `"${textOf(phrasing, task)}" → ${picks.tollgate[i]?.slug ?? "—"}`]);
  });
  console.log(`\nTollgate's picks that lose by ground truth (of ${tasks.length}):`);
  for (const [why, xs] of [...losses].sort((a, b) => b[1].length - a[1].length)) console.log(`  ${String(xs.length).padStart(4)}  ${why}${failuresShown > 0 ? `: ${xs.slice(0, failuresShown).join("; ")}` : ""}`);
  for (const [i, task] of tasks.filter((_, i) => !picks.tollgate[i]).slice(0, failuresShown).entries()) {
    const { excluded } = await selectServices({ task: textOf(phrasing, task), limit: 1 }, { apiVersion: null });
    console.log(`  no pick ${i + 1}: "${textOf(phrasing, task)}" (${task.capability}); left out: ${excluded.map((e) => `${e.slug} [${e.reasons.join(",")}]`).join(", ") || "none"}`);
  }
  const paidFails = outcomes.tollgate.filter((o) => o.chosen && !o.success);
  console.log(`  paid sample: ${paidFails.length} failed calls${failuresShown > 0 ? `: ${paidFails.slice(0, failuresShown).map((o) => `${o.chosen!.slug} (${o.chosen!.seller.kind}) for "${textOf(phrasing, o.task)}"`).join("; ")}` : ""}`);

  console.log(`\nwash ring (${ringTask.capability}, ${ringRank.tollgate.listedOfCap} sellers; position among its capability's sellers for "${textOf(phrasing, ringTask)}", ∞ = not returned):`);
  for (const sel of SELECTORS) {
    const rr = ringRank[sel];
    const show = (xs: number[]) => xs.map((x) => (Number.isFinite(x) ? x : "∞")).join(",");
    console.log(`  ${sel.padEnd(9)} ring at ${show(rr.ring)}; honest at ${show(rr.honest)}; ring below every honest seller: ${rr.below ? "yes" : "no"}`);
  }

  const better = Math.max(fig.bazaar.successPct, fig.volume.successPct);
  const betterSel: SelectorName = fig.bazaar.successPct >= fig.volume.successPct ? "bazaar" : "volume";
  const tg = fig.tollgate;
  const targets: Array<[string, boolean]> = [
    [`Tollgate success ≥ 95 % (${paidPct(tg.successPct)} %)`, tg.successPct >= 95],
    [`≥ 15 points above the better baseline, ${betterSel} ${paidPct(better)} % (${paidPct(tg.successPct - better)} points)`, tg.successPct - better >= 15],
    [`USDC per success ≤ 0.6× the better baseline's (${Number.isFinite(tg.costPerSuccess) && Number.isFinite(fig[betterSel].costPerSuccess) ? (tg.costPerSuccess / fig[betterSel].costPerSuccess).toFixed(2) : "—"}×)`, Number.isFinite(tg.costPerSuccess) && tg.costPerSuccess <= 0.6 * fig[betterSel].costPerSuccess],
    [`0 payments to adversarial sellers (${tg.adversarialPaid} in the ${tg.called} sampled tasks that called a seller; ${tg.adversarialPicked} adversarial picks of all ${tasks.length})`, tg.called > 0 && tg.adversarialPaid === 0 && tg.adversarialPicked === 0],
    [`wash ring below every honest seller of its capability`, ringRank.tollgate.below],
  ];
  console.log(`\ntargets:`);
  for (const [what, met] of targets) console.log(`  ${met ? "met    " : "NOT met"}  ${what}`);
  return { fig, targets };
}

/**
 * What any ordering could reach, by ground truth: per task, the best expected success among the listings
 * the sentence relevance retrieves (the pool every selector orders), and the mean over the honest,
 * non-mediocre sellers of the task's capability (what picking "any good seller" gives).
 */
async function ceilings(tasks: Task[], listed: Listed[], phrasing: Phrasing): Promise<{ retrieved: number; noneRetrieved: number; honest: number }> {
  const byId = new Map(listed.map((l) => [l.listingId, l]));
  const honestMean = new Map(
    CAPABILITIES.map((c) => {
      const good = listed.filter((l) => l.seller.capability === c.key && l.seller.kind === "honest");
      return [c.key, good.reduce((n, l) => n + expectedSuccess(l.seller), 0) / Math.max(1, good.length)];
    }),
  );
  let retrieved = 0;
  let honest = 0;
  let noneRetrieved = 0;
  for (const task of tasks) {
    const { hits } = await searchHits({ query: textOf(phrasing, task), limit: ROUTER_POOL, endpoint: {}, sentence: true });
    const own = hits.map((h) => byId.get(h.listingId)).filter((l): l is Listed => l?.seller.capability === task.capability);
    if (own.length === 0) noneRetrieved++;
    retrieved += Math.max(0, ...own.map((l) => expectedSuccess(l.seller)));
    honest += honestMean.get(task.capability)!;
  }
  return { retrieved: pctOf(retrieved, tasks.length), noneRetrieved, honest: pctOf(honest, tasks.length) };
}

async function main(): Promise<void> {
  const o = args();
  const t0 = performance.now();
  const log = (line: string) => console.log(line);
  const spec = buildMarket(o.sellers, o.seed);
  const tasks = buildTasks(o.tasks, o.seed);
  const { node, local } = await startFundedChain();
  const child = fork(process.argv[1], ["--market", node.rpcUrl, String(o.sellers), String(o.seed)], { execArgv: process.execArgv, stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const cleanups: Array<() => Promise<unknown>> = [async () => child.kill(), () => node.stop()];
  try {
    const market = await new Promise<{ url: string; port: number }>((resolve, reject) => {
      child.once("message", (m: { url: string; port: number }) => resolve(m));
      child.once("exit", (code) => reject(new Error(`the market's process exited (${code})`)));
    });
    // Read on first use of lib/env (after this).
    process.env.TOLLGATE_PROBE_ALLOW_HOSTS = `127.0.0.1:${market.port}`;
    process.env.TOLLGATE_CHAIN_RPC_URL = node.rpcUrl;
    process.env.TOLLGATE_CANARY_KEY = benchKey("canary house");
    // One user per seller makes one intake, one publish and one listing each; buyers call far faster than a minute's 600.
    process.env.TOLLGATE_LIMIT_CALL ??= "1000000/1m";
    process.env.TOLLGATE_LIMIT_SELECT ??= "1000000/1m";
    const t = await createTestDatabase();
    cleanups.unshift(() => t.close());
    const admin = (await t.prisma.user.create({ data: { name: "Bench admin", role: "admin" } })).id;
    const apiKey = (await createApiKey({ actorId: admin, name: "bench:select buyers", scopes: ["router:call"] })).secret;
    const router = await serveRoutes(routerCallRoute());
    cleanups.unshift(() => router.close());
    const house = benchWallet("canary house");
    await local.mint(house.address, 10n ** 12n);

    console.log(`bench:select: ${o.sellers} sellers (${spec.sellers.filter((s) => ADVERSARIAL.has(s.kind)).length} adversarial; wash ring in "${spec.washCapability}"), ${o.tasks} tasks as ${o.phrasings.join(" and as ")}, pay sample ${o.pay}, seed ${o.seed}; ${os.cpus().length} cores, Node ${process.version}; database ${t.url ? "server PostgreSQL (TEST_DATABASE_URL)" : "PGlite in memory"}`);
    console.log(`history (the product's machinery; only the monitor's clock is simulated):`);
    const { listed, figures } = await buildHistory({ prisma: t.prisma, local, spec, sellerUrl: (s) => `${market.url}/${s.slug}`, apiKey, routerOrigin: router.origin, log, concurrency: o.concurrency, sweeps: o.sweeps });
    const signals = await readSignals(t.prisma);
    if (o.dump) {
      await writeDump(o.dump, t.prisma, listed, tasks);
      console.log(`  wrote Tollgate's full answer to each of the ${tasks.length} sentence tasks to ${o.dump} (npm run bench:select-replay -- ${o.dump})`);
    }
    // What the catalog's evidence says of each adversarial seller (listed price, canary, grade, wash).
    const adv = listed.filter((l) => ADVERSARIAL.has(l.seller.kind));
    const evidence = await rows<{ id: string; price: string | null; verification: string; canary: string | null; verdict: string | null; grade: string | null; ring: unknown }>(
      t.prisma,
      `SELECT l.id, e."priceAmount" || ' ($' || COALESCE(e."priceUsd", '?') || ')' AS price, l."verificationStatus"::text AS verification,
              (SELECT r."reason" FROM "canary_runs" r WHERE r."listingId" = l.id AND r."state" = 'done' ORDER BY r."finishedAt" DESC LIMIT 1) AS canary,
              g."verdict" AS verdict, g."grade" AS grade, w."ring" AS ring
         FROM "listings" l JOIN "endpoints" e ON e."listingId" = l.id
         LEFT JOIN "trust_grade_latest" p ON p."listingId" = l.id AND p."method" = e."method"::text AND p."path" = e."trustPath"
         LEFT JOIN "trust_grades" g ON g."id" = p."gradeId"
         LEFT JOIN "listing_wash" w ON w."listingId" = l.id
        WHERE l.id = ANY($1::text[])`,
      adv.map((l) => l.listingId),
    );
    console.log(`adversarial sellers as the catalog's evidence reads them:`);
    for (const l of adv) {
      const e = evidence.find((x) => x.id === l.listingId);
      console.log(`  ${l.slug.padEnd(44)} ${l.seller.kind.padEnd(11)} listed ${e?.price} (spec ${l.seller.price}, 402 asks ${l.seller.chargedPrice}); canary ${e?.verification} (${e?.canary}); grade ${e?.grade ?? "—"} ${e?.verdict ?? ""}; ring ${e?.ring ? JSON.stringify((e.ring as { flagged: boolean }).flagged) : "none"}`);
    }

    const runs: Array<{ phrasing: Phrasing; fig: Record<SelectorName, Figures>; targets: Array<[string, boolean]> }> = [];
    for (const phrasing of o.phrasings) runs.push({ phrasing, ...(await evaluate({ phrasing, tasks, listed, signals, pay: o.pay, seed: o.seed, concurrency: o.concurrency, local, apiKey, routerOrigin: router.origin, prisma: t.prisma, spec, failuresShown: o.failures })) });
    console.log(`\nhistory: ${figures.listed} listed; ${figures.organicPayments} organic + ${figures.washPayments} wash payments; ${figures.probeSweeps} probe sweeps; canary ${JSON.stringify(figures.canaryRuns)}; ${figures.gradesWritten} grades. wall ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    printLoadAverage();
    // The issue's figures are the sentences'; the keyword run's carry a suffix.
    const ordered = [...runs].sort((a, b) => (a.phrasing === "sentence" ? 1 : 0) - (b.phrasing === "sentence" ? 1 : 0));
    for (const { phrasing, fig, targets } of ordered) {
      const sfx = phrasing === "sentence" ? "" : "_keywords";
      for (const sel of SELECTORS) {
        console.log(`RESULT select_success_${sel}${sfx} ${paidPct(fig[sel].successPct)} %`);
        console.log(`RESULT select_usdc_per_success_${sel}${sfx} ${Number.isFinite(fig[sel].costPerSuccess) ? usdc(fig[sel].costPerSuccess) : "inf"} USDC`);
        console.log(`RESULT select_adversarial_payments_${sel}${sfx} ${fig[sel].adversarialPaid}`);
      }
      console.log(`RESULT select_targets_met${sfx} ${targets.filter(([, m]) => m).length} of ${targets.length}`);
    }
    const last = ordered[ordered.length - 1];
    console.log(`RESULT select_success_tollgate${last.phrasing === "sentence" ? "" : "_keywords"} ${paidPct(last.fig.tollgate.successPct)} %`);
  } finally {
    for (const c of cleanups) await c().catch((e: unknown) => console.error(e));
  }
}

const at = process.argv.indexOf("--market");
if (at >= 0) {
  const [rpcUrl, count, seed] = process.argv.slice(at + 1, at + 4);
  serveMarket(rpcUrl, Number(count), Number(seed)).catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
} else
  main().catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  });
