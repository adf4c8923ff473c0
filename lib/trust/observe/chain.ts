/** C3's chain read: one DOMAIN_SEPARATOR() eth_call per quoted domain, before the storing transaction; an outage is unmeasured, never failed. */
import { domainSeparator, getAddress, isAddress, parseAbi, type PublicClient } from "viem";
import { evmChainId, readChain, type RpcSettings } from "@/lib/chain/rpc";
import type { NormalisedRequirement } from "@/lib/evidence";
import { findAsset } from "@/lib/x402/assets";
import { domainKey } from "./free";

export type DomainRead =
  | { ok: true; matches: boolean; expected: string; onChain: string | null; error?: string }
  | { ok: false; unmeasured: string };

const DOMAIN_ABI = parseAbi(["function DOMAIN_SEPARATOR() view returns (bytes32)"]);

/** EIP-712 domain separator of `name`/`version` for this contract on this chain. */
export function expectedSeparator(network: string, asset: string, name: string, version: string): string | null {
  const chainId = evmChainId(network);
  if (chainId === null || !isAddress(asset, { strict: false })) return null;
  return domainSeparator({ domain: { name, version, chainId, verifyingContract: getAddress(asset) } });
}

// A domain never changes: answers are kept an hour per process; unmeasured reads are not kept.
const ANSWERED_TTL_MS = 3_600_000;
const answered = new Map<string, { at: number; read: DomainRead }>();

/** Keyed by domainKey(). */
export async function readAssetDomains(requirements: Iterable<NormalisedRequirement>, options: { settings?: RpcSettings; timeoutMs?: number } = {}): Promise<Map<string, DomainRead>> {
  const out = new Map<string, DomainRead>();
  for (const r of requirements) {
    const name = r.extra?.name;
    const version = r.extra?.version;
    const key = domainKey(r.network, r.asset, name, version);
    if (out.has(key) || typeof name !== "string" || typeof version !== "string") continue;
    if (!findAsset(r.network, r.asset, [])) continue;
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
      // A revert or undecodable answer is the contract's: no such EIP-712 domain.
      const result: DomainRead = { ok: true, matches: false, expected, onChain: null, error: (e instanceof Error ? e.message : String(e)).split("\n")[0].slice(0, 300) };
      out.set(key, result);
      answered.set(key, { at: Date.now(), read: result });
    }
  }
  return out;
}
