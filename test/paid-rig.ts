/**
 * The paid-call rig the anvil tests share: a real anvil with the test USDC, the facilitator's own
 * route handlers on loopback, live sellers of the demo market (sellers/market) and, when asked, the
 * two seed products (sellers/validity-check, sellers/agent-verdict), the process environment the
 * router, the chain reader and the canary read on first use (lib/env.ts), and a house wallet funded on
 * the chain. Each test file still opens its own database (test/db.ts) after the rig, so lib/env reads
 * the variables set here.
 */
import { keccak256, toHex, type Address, type Hex } from "viem";
import { privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { startAnvil, type AnvilNode } from "@/devchain/anvil";
import { LOCAL_DEV_KEYS, setupLocalChain, type LocalChain } from "@/devchain/local-chain";
import type { ListingDocument } from "@/lib/listing-document/document";
import { startMarket, type Market, type MarketBehaviour } from "@/sellers/market";
import { startAgentVerdict, type AgentVerdictService } from "@/sellers/agent-verdict/index";
import { startValidityCheck, type ValidityCheck } from "@/sellers/validity-check/service";
import { facilitatorRoutes, rigFacilitator } from "@/test/router-routes";
import { serveRoutes, type RouteServer } from "@/test/route-server";

export interface RigSeller {
  slug: string;
  document: ListingDocument;
  behaviour: MarketBehaviour;
}

export interface PaidRigOptions {
  /** Names this file's keys and payees apart from every other file's ("canary test", …). */
  label: string;
  /** Market sellers to serve live; none starts no market. */
  sellers?: RigSeller[];
  /** Also start the two seed products. */
  products?: boolean;
  /** Atomic USDC minted to the house wallet. */
  houseFunds?: bigint;
  /**
   * The house key's variable: the default TOLLGATE_CANARY_KEY (the default), or one network's own
   * TOLLGATE_CANARY_KEY_<namespace>_<reference> with no default set.
   */
  houseKeyFor?: "default" | { network: string };
}

export interface PaidRig {
  node: AnvilNode;
  local: LocalChain;
  routes: RouteServer;
  market: Market | null;
  validity: ValidityCheck | null;
  verdict: AgentVerdictService | null;
  /** host:port of every seller started, as the probe's allow list. */
  hosts: string[];
  houseKey: Hex;
  house: PrivateKeyAccount;
  /** A payee address derived from the file's label and a name. */
  payee(name: string): Address;
  close(): Promise<void>;
}

export async function startPaidRig(opts: PaidRigOptions): Promise<PaidRig> {
  const derive = (what: string) => keccak256(toHex(`${opts.label} ${what}`)) as Hex;
  const payee = (name: string) => privateKeyToAccount(derive(`payee ${name}`)).address;
  const houseKey = derive("house wallet");
  const house = privateKeyToAccount(houseKey);
  const node = await startAnvil();
  const closers: (() => Promise<void>)[] = [() => node.stop()];
  const close = async () => {
    for (const c of closers.reverse()) await c().catch(() => undefined);
  };
  try {
    const local = await setupLocalChain(node.rpcUrl);
    const routes = await serveRoutes(facilitatorRoutes());
    closers.push(() => routes.close());
    const facilitator = rigFacilitator(routes.origin);
    let market: Market | null = null;
    if (opts.sellers?.length) {
      market = await startMarket({ facilitator, usdc: local.usdc, sellers: opts.sellers.map((s) => ({ ...s, payTo: payee(s.slug) })) });
      closers.push(() => market!.close());
    }
    let validity: ValidityCheck | null = null;
    let verdict: AgentVerdictService | null = null;
    if (opts.products) {
      validity = await startValidityCheck({ facilitator, usdc: local.usdc, payTo: payee("validity-check") });
      closers.push(() => validity!.close());
      verdict = await startAgentVerdict({ facilitator, usdc: local.usdc, payTo: payee("agent-verdict") });
      closers.push(() => verdict!.close());
    }
    const hosts = [market?.port, validity?.port, verdict?.port].filter((p): p is number => p !== undefined).map((p) => `127.0.0.1:${p}`);
    process.env.TOLLGATE_PROBE_ALLOW_HOSTS = hosts.join(",");
    process.env.TOLLGATE_CHAIN_RPC_URL = node.rpcUrl;
    process.env.TOLLGATE_FACILITATOR_KEY = LOCAL_DEV_KEYS[9];
    const keyFor = opts.houseKeyFor ?? "default";
    if (keyFor === "default") process.env.TOLLGATE_CANARY_KEY = houseKey;
    else {
      delete process.env.TOLLGATE_CANARY_KEY;
      process.env[`TOLLGATE_CANARY_KEY_${keyFor.network.replace(":", "_")}`] = houseKey;
    }
    if (opts.houseFunds) await local.mint(house.address, opts.houseFunds);
    return { node, local, routes, market, validity, verdict, hosts, houseKey, house, payee, close };
  } catch (err) {
    await close();
    throw err;
  }
}
