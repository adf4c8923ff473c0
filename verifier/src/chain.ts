/**
 * Reads a day's published root from the EvidenceRoots contract (docs/ATTESTATIONS.md): one
 * eth_chainId and one eth_call of rootOf(uint32 day) through the RPC the user names, with viem.
 */
import { createPublicClient, http, parseAbi } from "viem";
import type { Hex } from "./merkle.ts";

const ABI = parseAbi(["function rootOf(uint32 day) view returns (bytes32)"]);

export async function readRoot(rpc: string, contract: Hex, day: number): Promise<{ chainId: number; root: Hex }> {
  const client = createPublicClient({ transport: http(rpc, { timeout: 15_000, retryCount: 1 }) });
  const [chainId, root] = await Promise.all([client.getChainId(), client.readContract({ address: contract, abi: ABI, functionName: "rootOf", args: [day] })]);
  return { chainId, root: root.toLowerCase() as Hex };
}
