/**
 * `npm run bench:listed -- [--sellers N] [--concurrency N]`: the time from a settlement to the resource
 * listed (docs/PROBE.md "Receipts"), on the demo's path: @x402/express sellers (as sellers/market) with
 * the bazaar extension, buyers paying with @x402/fetch, settlement through the facilitator's HTTP routes
 * with a seller's API key, each new resource indexed through the intake (probe, draft, writer, publish).
 * Defaults: 40 resources, 4 buyers at a time. The figure per resource is the index receipt's `listedAt`
 * minus its settlement receipt's `settledAt`. Last line: RESULT settlement_to_listed_p95 <ms> ms.
 */
import os from "node:os";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { x402Client } from "@x402/core/client";
import { HTTPFacilitatorClient } from "@x402/core/http";
import { toClientEvmSigner } from "@x402/evm";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { ExactEvmScheme as ServerExactEvmScheme } from "@x402/evm/exact/server";
import { paymentMiddleware, x402ResourceServer } from "@x402/express";
import type { RoutesConfig } from "@x402/core/server";
import { bazaarResourceServerExtension, declareDiscoveryExtension } from "@x402/extensions/bazaar";
import { wrapFetchWithPayment } from "@x402/fetch";
import { LOCAL_DEV_KEYS, LOCAL_NETWORK, LOCAL_USDC_ADDRESS, LOCAL_USDC_DOMAIN } from "@/devchain/local-chain";
import { createApiKey } from "@/lib/apikeys";
import { configureLimits } from "@/lib/limits";
import { indexingSettled } from "@/lib/facilitator";
import { startFundedChain } from "@/test/chain";
import { createTestDatabase } from "@/test/db";
import { serveRoutes } from "@/test/route-server";
import { facilitatorRoutes } from "@/test/router-routes";
import { rows } from "@/lib/sql";
import { intFlag, pct } from "./args";

const load = () => os.loadavg().map((x) => x.toFixed(2)).join(" ");

async function main() {
  const argv = process.argv.slice(2);
  const sellers = intFlag(argv, "--sellers", 40, 1);
  const concurrency = intFlag(argv, "--concurrency", 4, 1);
  console.log(`load average at start: ${load()} (${os.cpus().length} cores)`);
  const { node, local, payer, payTo } = await startFundedChain();
  await local.mint(payer.address, 1_000_000_000n);
  const facilitator = await serveRoutes(facilitatorRoutes());
  let key = "";
  const auth = async () => ({ verify: { Authorization: `Bearer ${key}` }, settle: { Authorization: `Bearer ${key}` }, supported: { Authorization: `Bearer ${key}` } });
  const server = new x402ResourceServer(new HTTPFacilitatorClient({ url: `${facilitator.origin}/api/facilitator`, createAuthHeaders: auth }))
    .register(LOCAL_NETWORK, new ServerExactEvmScheme())
    .registerExtension(bazaarResourceServerExtension);
  const routes: RoutesConfig = {};
  for (let i = 0; i < sellers; i++) {
    routes[`GET /s${i}/quote`] = {
      accepts: { scheme: "exact", network: LOCAL_NETWORK, payTo, price: { amount: String(1000 + i), asset: LOCAL_USDC_ADDRESS, extra: { ...LOCAL_USDC_DOMAIN } }, maxTimeoutSeconds: 300 },
      description: `Quote ${i}`,
      mimeType: "application/json",
      extensions: declareDiscoveryExtension({ input: { symbol: "BTC" }, inputSchema: { properties: { symbol: { type: "string" } }, required: ["symbol"] }, output: { example: { symbol: "BTC", price: i } } }),
    };
  }
  const app = express();
  let middleware: ReturnType<typeof paymentMiddleware> | null = null;
  app.use((req, res, next) => (middleware ??= paymentMiddleware(routes, server))(req, res, next));
  app.get("/:s/quote", (req, res) => void res.json({ symbol: "BTC", price: 1 }));
  const shop = createServer(app);
  await new Promise<void>((r) => shop.listen(0, "127.0.0.1", r));
  const shopOrigin = `http://127.0.0.1:${(shop.address() as AddressInfo).port}`;

  process.env.TOLLGATE_CHAIN_RPC_URL = node.rpcUrl;
  process.env.TOLLGATE_FACILITATOR_KEY = LOCAL_DEV_KEYS[9];
  process.env.TOLLGATE_PROBE_ALLOW_HOSTS = new URL(shopOrigin).host;
  const t = await createTestDatabase();
  configureLimits({ rates: { facilitator: null, facilitatorPayer: null, intake: null, publish: null }, activeAnalyses: null });
  const org = await t.prisma.organization.create({ data: { name: "Bench sellers", slug: "bench-sellers" } });
  const admin = await t.prisma.user.create({ data: { name: "Bench admin", role: "admin", organizationId: org.id } });
  key = (await createApiKey({ actorId: admin.id, name: "bench seller", scopes: ["facilitator:settle"] })).secret;

  const buyer = wrapFetchWithPayment(
    fetch,
    new x402Client().register(LOCAL_NETWORK, new ExactEvmScheme(toClientEvmSigner(payer, local.publicClient))).setSpendControls({ allowedAssets: [{ network: LOCAL_NETWORK, asset: LOCAL_USDC_ADDRESS }] }),
  );
  let next = 0;
  let paid = 0;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < sellers) {
        const i = next++;
        const res = await buyer(`${shopOrigin}/s${i}/quote`);
        if (res.status !== 200) throw new Error(`s${i}: the paid call answered ${res.status}`);
        await res.arrayBuffer();
        paid++;
      }
    }),
  );
  await indexingSettled();
  const spans = await rows<{ ms: number; status: string; code: string | null }>(
    t.prisma,
    `SELECT extract(epoch FROM (i."listedAt" - s."settledAt")) * 1000 AS "ms", i."status", i."rejectedCode" AS "code"
       FROM "bazaar_receipts" s JOIN "bazaar_receipts" i ON i."settlementId" = s."id" AND i."kind" = 'index'
      WHERE s."kind" = 'settle'`,
  );
  const rejected = spans.filter((s) => s.status !== "success");
  if (rejected.length) throw new Error(`${rejected.length} resources were not listed: ${rejected.map((r) => r.code).join(", ")}`);
  const listedPublic = await t.prisma.listing.count({ where: { organizationId: org.id, publicationState: "published" } });
  const ms = spans.map((s) => Number(s.ms));
  console.log(`${paid} paid calls in ${((Date.now() - started) / 1000).toFixed(1)} s, ${ms.length} index receipts, ${listedPublic} listings published`);
  console.log(`settlement → listed: p50 ${pct(ms, 50).toFixed(0)} ms, p95 ${pct(ms, 95).toFixed(0)} ms, max ${Math.max(...ms).toFixed(0)} ms`);
  console.log(`load average at end: ${load()}`);
  await new Promise((r) => shop.close(r));
  await facilitator.close();
  await t.close();
  await node.stop();
  console.log(`RESULT settlement_to_listed_p95 ${pct(ms, 95).toFixed(0)} ms`);
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
