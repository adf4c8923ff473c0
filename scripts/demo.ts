/**
 * npm run demo: the whole product on the embedded default, nothing to install.
 * Start the local chain (anvil from its npm package, its state kept in .data/chain/) with the test
 * USDC, the local fixture sellers and the demo market (the listing shapes as live paid sellers);
 * migrate and seed PGlite in .data/; build (skipped when the sources have not changed since the last
 * build); serve in production mode with the in-process catalog-monitor worker, the facilitator on
 * the local chain and the development sign-in; then let the market's buyers pay through the router,
 * so the ledger the catalog is ranked by is real confirmed payments; print where to look.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import crypto from "node:crypto";
import http from "node:http";
import fs from "node:fs";
import path from "node:path";
import { openDatabase, setDatabase } from "@/lib/db";
import { parseEnv } from "@/lib/env";
import { migrate } from "@/lib/migrate";
import { DEMO_ACCOUNTS, queueDemoAnalyses, seedDemo, shapeDocument, SHAPES } from "@/demo/seed-demo";
import { CANARY_HOUSE_FUNDS, CANARY_HOUSE_LABEL, demoKey, demoWallet, fundBuyers, marketExtras, marketPlan, marketSellers, playMarket, productPlan } from "@/demo/market";
import { startFixtureSellers } from "@/sellers";
import { startMarket } from "@/sellers/market";
import { startAgentVerdict } from "@/sellers/agent-verdict/index";
import { startValidityCheck } from "@/sellers/validity-check/service";
import { draftListingFromUrl } from "@/lib/discovery/import";
import type { ListingDocument } from "@/lib/listing-document/document";
import { runRankSweep } from "@/lib/rank/sweep-ranks";
import { createApiKey, listApiKeys, revokeApiKey } from "@/lib/apikeys";
import { startAnvil } from "@/devchain/anvil";
import { LOCAL_DEV_KEYS, LOCAL_USDC_ADDRESS, setupLocalChain } from "@/devchain/local-chain";
import { createFacilitator, supported, type FacilitatorSetup } from "@/lib/chain/facilitator";
import { FAUCET_ADDRESS, FAUCET_RESERVE } from "@/devchain/faucet";

const root = process.cwd();
quietUnknownFormats();
/** The API key the market's buyers call the router with (a fresh one each run; older ones revoked). */
const BUYER_KEY_NAME = "demo market buyers";

/**
 * The market's sellers run @x402/extensions' bazaar check, whose Ajv has no format vocabulary and logs
 * "unknown format … ignored" per format per route; the schemas are the sellers' own, so those lines
 * are noise in the demo's log (lib/ajv-logger.ts drops the same lines from the catalog's own Ajv).
 */
function quietUnknownFormats() {
  const warn = console.warn.bind(console);
  console.warn = (...args: unknown[]) => {
    if (typeof args[0] === "string" && /^unknown format "/.test(args[0])) return;
    warn(...args);
  };
}

async function main() {
  const started = Date.now();
  const e = parseEnv({ ...process.env, NODE_ENV: "development" });
  const dataDir = e.dataDir;
  fs.mkdirSync(path.join(dataDir, "chain"), { recursive: true });
  const secrets = loadSecrets(path.join(dataDir, "secrets.json"));
  const port = Number(process.env.PORT ?? 3000);
  const host = process.env.HOST ?? "127.0.0.1";
  const origin = `http://${host}:${port}`;

  // The chain keeps its state in the data folder, so the transactions the ledger names outlive a restart.
  // Its JSON-RPC is on a fixed port (TOLLGATE_CHAIN_PORT, default 8545), so a buyer's own client can find it.
  const chainPort = e.TOLLGATE_CHAIN_PORT ?? 8545;
  const chainNode = await startAnvil({
    ...(chainPort ? { port: chainPort } : {}),
    args: ["--state", path.join(dataDir, "chain", "anvil-state.json"), "--state-interval", "5"],
  }).catch((err: Error) => {
    throw new Error(`${err.message}\n  The local chain could not start on port ${chainPort}: stop what holds it, or set TOLLGATE_CHAIN_PORT to a free port (0 picks one).`);
  });
  const local = await setupLocalChain(chainNode.rpcUrl);
  step(`local chain (anvil) at ${chainNode.rpcUrl}, test USDC at ${LOCAL_USDC_ADDRESS}`);
  // The demo faucet (/faucet) sends from anvil's account 8: stock it with test USDC.
  const faucetHas = await local.balanceOf(FAUCET_ADDRESS);
  if (faucetHas < FAUCET_RESERVE) await local.mint(FAUCET_ADDRESS, FAUCET_RESERVE - faucetHas);
  // The canary's house wallet (docs/CANARY.md): funded with test USDC up to the day's default budget.
  const house = demoWallet(CANARY_HOUSE_LABEL);
  const houseHas = await local.balanceOf(house.address);
  if (houseHas < CANARY_HOUSE_FUNDS) await local.mint(house.address, CANARY_HOUSE_FUNDS - houseHas);
  step(`canary house wallet ${house.address} holds ${(Number(await local.balanceOf(house.address)) / 1e6).toFixed(2)} test USDC`);

  const sellers = await startFixtureSellers({ port: e.SELLERS_PORT ?? 4020, host: "127.0.0.1" });
  step(`fixture sellers listening at ${sellers.url}`);
  const plan = marketPlan();
  // The facilitator settles only for callers it knows (docs/CHAIN.md "Who may settle"): the market's
  // sellers and the seed products each hold a named token, so each has its own send queue and budget.
  const facilitatorUrl = `${origin}/api/facilitator`;
  const market = await startMarket({
    facilitator: { url: facilitatorUrl, token: secrets.marketFacilitatorToken },
    usdc: local.usdc,
    sellers: marketSellers(plan, { ...Object.fromEntries(SHAPES.map((s) => [s.key, shapeDocument(s.key)])), ...marketExtras() }),
  });
  step(`demo market (${plan.length} paid sellers, settling through ${origin}/api/facilitator) at ${market.url}`);
  // The seed products as working paid services (sellers/validity-check, sellers/agent-verdict).
  const products = productPlan();
  const payee = (key: string) => products.find((p) => p.key === key)!.payTo;
  const productsFacilitator = { url: facilitatorUrl, token: secrets.productsFacilitatorToken };
  const validityCheck = await startValidityCheck({ facilitator: productsFacilitator, usdc: local.usdc, payTo: payee("003") });
  const agentVerdict = await startAgentVerdict({ facilitator: productsFacilitator, usdc: local.usdc, payTo: payee("002") });
  step(`seed products: validity-check at ${validityCheck.url}, agent-verdict at ${agentVerdict.url}`);
  // This process queues the sellers' analyses, so it shares the server's allow-list.
  const allowHosts = [sellers.port, market.port, validityCheck.port, agentVerdict.port].map((p) => `127.0.0.1:${p}`).join(",");
  process.env.TOLLGATE_PROBE_ALLOW_HOSTS = allowHosts;
  // The products are listed as a seller would list them: drafted from the document each publishes.
  // The draft reads each paid endpoint's live 402, and a seller can only quote once its facilitator
  // has told it what it supports; the app (and its /api/facilitator) starts after seeding, so the
  // facilitator's `supported` answer stands in at the app's own address until then.
  const productDocuments: Record<string, ListingDocument> = {};
  await withSupportedStandIn(host, port, createFacilitator(chainNode.rpcUrl, LOCAL_DEV_KEYS[9]), async () => {
    for (const [key, url] of [["003", `${validityCheck.url}/criteria`], ["002", `${agentVerdict.url}/docs/AGENT_VERDICT.json`]] as const) {
      const drafted = await draftListingFromUrl(url, { allowHosts: allowHosts.split(",") });
      if (!drafted.ok) throw new Error(`the ${key} product's document at ${url} did not draft: ${drafted.detail}`);
      const unpriced = drafted.draft.endpoints.filter((e) => e.payable && !e.pricing?.machine).map((e) => `${e.method} ${e.path}`);
      if (unpriced.length) throw new Error(`the ${key} product's draft has no machine price for ${unpriced.join(", ")}: ${drafted.warnings.join(" ")}`);
      productDocuments[key] = drafted.draft;
    }
  });

  const handle = await openDatabase({ pgliteDir: path.join(dataDir, "pglite") });
  // Everything below (seeding included) goes through this one handle; the folder is closed again
  // before the server opens it, because a PGlite folder belongs to one process.
  setDatabase(handle);
  const applied = await migrate(handle);
  step(applied.length ? `applied migrations: ${applied.join(", ")}` : "database schema is up to date");
  const extras = Object.fromEntries(Object.keys(marketExtras()).map((k) => [k, market.documents[k]]));
  const seeded = await seedDemo(handle.prisma, { sellersOrigin: sellers.url, shapeDocuments: market.documents, marketListings: extras, productDocuments });
  const queued = await queueDemoAnalyses(handle.prisma, seeded);
  // The market plays once per data folder: a listing that already has ledger rows keeps them.
  const toPlay = new Set<string>();
  const productIds = Object.fromEntries(Object.entries(seeded.productListingIds).map(([file, id]) => [file.slice(0, 3), id]));
  for (const [key, id] of Object.entries({ ...seeded.listingIdsByShape, ...seeded.marketListingIds, ...productIds })) {
    if ((await handle.prisma.routerPayment.count({ where: { listingId: id } })) === 0) toPlay.add(key);
  }
  const admin = await handle.prisma.user.findUniqueOrThrow({ where: { demoLogin: "admin@demo" }, select: { id: true } });
  for (const k of await listApiKeys({ actorId: admin.id })) if (k.name === BUYER_KEY_NAME && !k.revokedAt) await revokeApiKey({ actorId: admin.id, id: k.id });
  const buyerKey = (await createApiKey({ actorId: admin.id, name: BUYER_KEY_NAME, scopes: ["router:call"] })).secret;
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
      // The demo reaches its local sellers and nothing else, not even DNS (docs/SSRF.md).
      TOLLGATE_NET_ALLOWLIST_ONLY: "1",
      // The facilitator settles on the local chain, and the ledger confirms payments by reading it
      // (docs/CHAIN.md). Account 9 of anvil's public development keys pays the facilitator's gas.
      TOLLGATE_CHAIN_RPC_URL: chainNode.rpcUrl,
      TOLLGATE_FACILITATOR_KEY: LOCAL_DEV_KEYS[9],
      TOLLGATE_FACILITATOR_TOKENS: `demo-market=${secrets.marketFacilitatorToken},seed-products=${secrets.productsFacilitatorToken}`,
      // The canary pays every published listing's endpoints from the house wallet through the router;
      // its runs set each listing's verification (docs/CANARY.md). A key from a public label: local only.
      TOLLGATE_CANARY_KEY: demoKey(CANARY_HOUSE_LABEL),
      TOLLGATE_PUBLIC_URL: origin,
      TOLLGATE_WORKER_TOKEN: secrets.workerToken,
      NEXTAUTH_URL: origin,
      NEXTAUTH_SECRET: secrets.nextAuthSecret,
      // Production mode takes the badge key from the environment (lib/badges/keys.ts).
      BADGE_SIGNING_KEY: secrets.badgeSigningKey,
      BADGE_SIGNING_KEY_NOT_BEFORE: secrets.badgeSigningKeyNotBefore,
    },
  });
  const closeAll = async () => {
    await Promise.allSettled([sellers.close(), market.close(), validityCheck.close(), agentVerdict.close()]);
    await chainNode.stop().catch(() => {});
  };
  const stop = (signal: NodeJS.Signals) => {
    server.kill(signal);
  };
  process.on("SIGINT", () => stop("SIGTERM"));
  process.on("SIGTERM", () => stop("SIGTERM"));
  server.on("exit", async (code) => {
    await closeAll();
    process.exit(code ?? 0);
  });

  await waitFor(`${origin}/catalog`, 90_000);
  if (toPlay.size > 0) {
    const all = [...plan, ...products];
    const buyers = await fundBuyers(local, all.filter((p) => toPlay.has(p.key)));
    const played = await playMarket({ local, plan: all, documents: { ...market.documents, ...productDocuments }, slugs: seeded.marketSlugs, routerOrigin: origin, apiKey: buyerKey, only: toPlay });
    const calls = played.reduce((n, r) => n + r.calls, 0);
    step(`market played: ${calls} paid calls by ${buyers} buyer wallets through the router (${played.map((r) => `${r.key} ${Object.entries(r.statuses).map(([s, n]) => `${n}×${s}`).join(" ")}`).join("; ")})`);
  } else {
    step("market already played in this data folder; its ledger stands");
  }
  step("the canary runs each published listing within a minute (ticks canary.schedule and canary.runs): its verification comes from those paid runs");
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  console.log(`
  Tollgate is running at ${origin}   (ready in ${seconds} s)

  Demo accounts (development sign-in at ${origin}/signin):
${DEMO_ACCOUNTS.map((a) => `    ${a.demoLogin.padEnd(16)} ${a.role.padEnd(10)} ${a.name}`).join("\n")}

  Local chain: ${chainNode.rpcUrl} (chain 31337), test USDC ${LOCAL_USDC_ADDRESS}
  Pay as a buyer: fund your wallet at ${origin}/faucet (anvil's development accounts 1–7 are free for buyers; README)
  Pay a listing through the router: ${origin}/router/call/<listing>/<path>  (docs/ROUTER.md)
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
  /** The facilitator's named callers (TOLLGATE_FACILITATOR_TOKENS): the demo market's sellers and the seed products. */
  marketFacilitatorToken: string;
  productsFacilitatorToken: string;
}

/** Secrets the demo server needs, generated once and kept (0600) in the data folder. */
function loadSecrets(file: string): DemoSecrets {
  const existing: Partial<DemoSecrets> = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, "utf8")) : {};
  const s: DemoSecrets = {
    nextAuthSecret: existing.nextAuthSecret ?? crypto.randomBytes(32).toString("base64url"),
    workerToken: existing.workerToken ?? crypto.randomBytes(24).toString("base64url"),
    badgeSigningKey: existing.badgeSigningKey ?? crypto.randomBytes(32).toString("base64"),
    badgeSigningKeyNotBefore: existing.badgeSigningKeyNotBefore ?? new Date().toISOString(),
    marketFacilitatorToken: existing.marketFacilitatorToken ?? crypto.randomBytes(32).toString("base64url"),
    productsFacilitatorToken: existing.productsFacilitatorToken ?? crypto.randomBytes(32).toString("base64url"),
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
  for (const f of ["next.config.mjs", "package-lock.json", "tsconfig.json", "postcss.config.mjs", "instrumentation.ts", "proxy.ts"]) {
    if (fs.existsSync(path.join(root, f))) h.update(`${f}:${fs.statSync(path.join(root, f)).mtimeMs}\n`);
  }
  return h.digest("hex");
}

/**
 * Serve `GET /api/facilitator/supported` (lib/chain/facilitator.ts `supported`, what the app's route
 * answers) at the app's own address while `fn` runs, then free the port for the app. Nothing can pay
 * yet, so verify and settle are 503.
 */
async function withSupportedStandIn<T>(host: string, port: number, setup: FacilitatorSetup, fn: () => Promise<T>): Promise<T> {
  const server = http.createServer((req, res) => {
    const ok = req.method === "GET" && req.url === "/api/facilitator/supported";
    // No keep-alive: a pooled socket to the stand-in, reused once the app holds the port, resets.
    res.writeHead(ok ? 200 : 503, { "content-type": "application/json", connection: "close" });
    res.end(JSON.stringify(ok ? supported(setup) : { error: { code: "unavailable", message: "the app is starting" } }));
  });
  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(port, host, resolve));
  try {
    return await fn();
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
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
