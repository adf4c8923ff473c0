/**
 * C3's chain read (docs/spec/trust-rubric.md C3: "the EIP-712 extra.name and version match the
 * contract's domain"; "one eth_call through a fixed RPC; an RPC outage leaves it unmeasured, never
 * failed"). One `DOMAIN_SEPARATOR()` call per (network, asset, name, version) a probe quoted, through
 * lib/chain's readChain (operator-configured RPCs only), compared with the separator the quoted name
 * and version give for that chain and contract. Read BEFORE the transaction that stores the
 * observations, so no transaction waits on a chain.
 */
import { domainSeparator, getAddress, isAddress, parseAbi, type PublicClient } from "viem";
import { evmChainId, readChain, type RpcSettings } from "@/lib/chain/rpc";
import type { NormalisedRequirement } from "@/lib/evidence";
import { findAsset } from "@/lib/x402/assets";
import { domainKey } from "./free";

export type DomainRead =
  | { ok: true; matches: boolean; expected: string; onChain: string | null; error?: string }
  | { ok: false; unmeasured: string };

const DOMAIN_ABI = parseAbi(["function DOMAIN_SEPARATOR() view returns (bytes32)"]);

/** The domain separator `name`/`version` give for this contract on this chain (EIP-712, as EIP-3009 tokens build it). */
export function expectedSeparator(network: string, asset: string, name: string, version: string): string | null {
  const chainId = evmChainId(network);
  if (chainId === null || !isAddress(asset, { strict: false })) return null;
  return domainSeparator({ domain: { name, version, chainId, verifyingContract: getAddress(asset) } });
}

/**
 * A contract's EIP-712 domain does not change: an answered read is kept for an hour per process, so a
 * health sweep over many listings on one asset reads the chain once, not once per listing. An
 * unmeasured read is never kept (the RPC may be back next time).
 */
const ANSWERED_TTL_MS = 3_600_000;
const answered = new Map<string, { at: number; read: DomainRead }>();

/** One read per distinct quoted (network, asset, name, version) of a table asset; keyed by domainKey(). */
export async function readAssetDomains(requirements: Iterable<NormalisedRequirement>, options: { settings?: RpcSettings; timeoutMs?: number } = {}): Promise<Map<string, DomainRead>> {
  const out = new Map<string, DomainRead>();
  for (const r of requirements) {
    const name = r.extra?.name;
    const version = r.extra?.version;
    const key = domainKey(r.network, r.asset, name, version);
    if (out.has(key) || typeof name !== "string" || typeof version !== "string") continue;
    if (!findAsset(r.network, r.asset, [])) continue; // only table assets are read (C3's first half decides the rest)
    const expected = expectedSeparator(r.network, r.asset, name, version);
    if (!expected) {
      out.set(key, { ok: false, unmeasured: `no EIP-712 domain to read for ${r.network} ${r.asset}` });
      continue;
    }
    const kept = answered.get(key);
    if (kept && Date.now() - kept.at < ANSWERED_TTL_MS && !options.settings) {
      out.set(key, kept.read);
      continue;
    }
    try {
      const read = await readChain(r.network, (client: PublicClient) => client.readContract({ address: getAddress(r.asset), abi: DOMAIN_ABI, functionName: "DOMAIN_SEPARATOR" }), options);
      const result: DomainRead = read.ok ? { ok: true, matches: read.value.toLowerCase() === expected.toLowerCase(), expected, onChain: read.value } : { ok: false, unmeasured: read.unmeasured };
      out.set(key, result);
      if (result.ok) answered.set(key, { at: Date.now(), read: result });
    } catch (e) {
      // A revert or an undecodable answer is the contract's own answer: it has no such EIP-712 domain.
      const result: DomainRead = { ok: true, matches: false, expected, onChain: null, error: (e instanceof Error ? e.message : String(e)).split("\n")[0].slice(0, 300) };
      out.set(key, result);
      answered.set(key, { at: Date.now(), read: result });
    }
  }
  return out;
}
