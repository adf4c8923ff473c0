/** Where daily roots go (docs/CHAIN.md "Evidence roots"); the contract's deployment is devchain/'s. */
import { parseAbi, type Address, type Hex } from "viem";
import type { Env } from "@/lib/env";

export const EVIDENCE_ROOTS_ABI = parseAbi([
  "constructor(address initialOwner)",
  "function publish(uint32 day, bytes32 root, uint32 leaves)",
  "function rootOf(uint32 day) view returns (bytes32)",
  "function leavesOf(uint32 day) view returns (uint32)",
  "function owner() view returns (address)",
  "event RootPublished(uint32 indexed day, bytes32 root, uint32 leaves)",
  "error DayAlreadyPublished(uint32 day, bytes32 root)",
  "error EmptyRoot(uint32 day)",
  "error OwnableUnauthorizedAccount(address account)",
]);

export const LOCAL_ROOTS_NETWORK = "eip155:31337";

/** CREATE2 through anvil's deterministic deployer, salt 0 (a test compares). */
export const LOCAL_EVIDENCE_ROOTS_ADDRESS: Address = "0xF5c9816Afff7644c2F7e76a000d0E287d31d546A";

export interface RootsTarget {
  network: string;
  contract: Address;
  rpcUrl: string;
  key: Hex;
  facilitatorSigner: boolean;
}

/** Or a reason naming the missing setting. */
export function rootsTarget(e: Pick<Env, "evidenceRoots" | "rpcUrls" | "TOLLGATE_CHAIN_RPC_URL" | "TOLLGATE_FACILITATOR_KEY" | "TOLLGATE_EVIDENCE_ROOTS_KEY">): RootsTarget | { unconfigured: string } {
  const configured = Object.entries(e.evidenceRoots);
  const [network, contract] = configured.length > 0 ? configured[0] : [LOCAL_ROOTS_NETWORK, LOCAL_EVIDENCE_ROOTS_ADDRESS];
  const rpcUrl = e.rpcUrls[network] ?? (network === LOCAL_ROOTS_NETWORK ? e.TOLLGATE_CHAIN_RPC_URL : undefined);
  if (!rpcUrl) {
    return { unconfigured: configured.length > 0 ? `no RPC URL for ${network}: set TOLLGATE_RPC_URL_${network.replace(":", "_")}` : "no chain: set TOLLGATE_EVIDENCE_ROOTS_<network> and its RPC URL, or TOLLGATE_CHAIN_RPC_URL for the local chain" };
  }
  const key = e.TOLLGATE_EVIDENCE_ROOTS_KEY ?? e.TOLLGATE_FACILITATOR_KEY;
  if (!key) return { unconfigured: "no publisher key: set TOLLGATE_EVIDENCE_ROOTS_KEY (or TOLLGATE_FACILITATOR_KEY)" };
  const facilitatorSigner = network === LOCAL_ROOTS_NETWORK && rpcUrl === e.TOLLGATE_CHAIN_RPC_URL && key.toLowerCase() === e.TOLLGATE_FACILITATOR_KEY?.toLowerCase();
  return { network, contract: contract.toLowerCase() as Address, rpcUrl, key: key as Hex, facilitatorSigner };
}
