/**
 * `npm run sellers -- [--port 4020]`: the fixture sellers on 127.0.0.1 (loopback only), for the
 * demo and for trying the probe by hand. Port: --port, else SELLERS_PORT, else 4020.
 *
 * Beside them, the seed products as working paid services (sellers/validity-check and
 * sellers/agent-verdict) on a local chain this command starts (anvil from its npm package, the test
 * USDC), settling through lib/chain's facilitator in this process: pay them with any x402 client
 * holding test USDC (mint it on the printed RPC; docs/CHAIN.md).
 */
import { startFixtureSellers } from "@/sellers";
import { inProcessFacilitator } from "@/sellers/paid";
import { startAgentVerdict } from "@/sellers/agent-verdict/index";
import { startValidityCheck } from "@/sellers/validity-check/service";
import { startAnvil } from "@/devchain/anvil";
import { createFacilitator } from "@/lib/chain/facilitator";
import { LOCAL_DEV_KEYS, LOCAL_USDC_ADDRESS, setupLocalChain } from "@/devchain/local-chain";

function parsePort(argv: string[]): number | string {
  let port: string | undefined = process.env.SELLERS_PORT;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--port") port = argv[++i];
    else if (a.startsWith("--port=")) port = a.slice("--port=".length);
    else if (a === "--help" || a === "-h") return "usage: npm run sellers -- [--port <1-65535>]   (default SELLERS_PORT or 4020)";
    else return `unknown argument: ${a}`;
  }
  if (port === undefined) return 4020;
  const n = Number(port);
  return Number.isInteger(n) && n >= 1 && n <= 65535 ? n : `invalid port: ${port}`;
}

async function main(): Promise<void> {
  const port = parsePort(process.argv.slice(2));
  if (typeof port === "string") {
    console.error(port);
    process.exit(2);
  }
  const server = await startFixtureSellers({ port, host: "127.0.0.1" });
  console.log(`fixture sellers on ${server.url} (loopback only)`);
  for (const s of server.sellers) console.log(`  ${server.url}/${s.slug}  — ${s.purpose}`);
  console.log(`probe one: npm run probe -- ${server.url}/agent-verdict --allow-host 127.0.0.1:${server.port}`);

  const chain = await startAnvil();
  const local = await setupLocalChain(chain.rpcUrl);
  // anvil's public development keys: account 9 pays the facilitator's gas, 2 and 3 are paid.
  const facilitator = inProcessFacilitator(createFacilitator(chain.rpcUrl, LOCAL_DEV_KEYS[9]));
  const validityCheck = await startValidityCheck({ facilitator, usdc: local.usdc, payTo: local.accounts[2].address });
  const agentVerdict = await startAgentVerdict({ facilitator, usdc: local.usdc, payTo: local.accounts[3].address });
  console.log(`\nthe seed products, paid for real on the local chain ${chain.rpcUrl} (chain 31337, test USDC ${LOCAL_USDC_ADDRESS}):`);
  console.log(`  ${validityCheck.url}/criteria  — validity-check (payer-preflight/v1): POST /precheck free, /upto and /validity $0.01`);
  console.log(`  ${agentVerdict.url}/docs/AGENT_VERDICT.json  — agent-verdict: POST /api/x402/AGENT_VERDICT from $0.04`);
  const stop = () =>
    void Promise.allSettled([server.close(), validityCheck.close(), agentVerdict.close()])
      .then(() => chain.stop())
      .then(() => process.exit(0));
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
