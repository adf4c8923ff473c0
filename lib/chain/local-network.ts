/**
 * The local network the built-in facilitator settles on (eip155:31337, an anvil in the demo and the
 * tests): its chain id, CAIP-2 name, viem chain definition and receipt polling. Facts about a network,
 * not the dev chain itself: starting and stocking that chain is devchain/'s (docs/CHAIN.md).
 */
import { defineChain, type Address, type Chain } from "viem";

export const LOCAL_CHAIN_ID = 31337;
export const LOCAL_NETWORK = `eip155:${LOCAL_CHAIN_ID}` as const;

/** Multicall3's address on every chain that has it (the exact-EVM scheme reads through its `tryAggregate`). */
export const MULTICALL3_ADDRESS: Address = "0xcA11bde05977b3631167028862bE2a173976CA11";

/**
 * How often a client of the local chain polls while it waits (a receipt, a block). anvil's automine
 * answers eth_sendRawTransaction with the hash a moment before the block holding it is mined; a
 * receipt asked for in that moment is null, and viem's default poll (4 s for a chain without a block
 * time) then made about 1 settlement in 100 take over 4 s. On loopback a short poll costs nothing
 * (a 5 ms poll was tried and left some settlements hanging past the relay's 30 s deadline).
 */
export const LOCAL_POLLING_MS = 50;

export function localChain(rpcUrl: string): Chain {
  return defineChain({
    id: LOCAL_CHAIN_ID,
    name: "Local chain (anvil)",
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
    contracts: { multicall3: { address: MULTICALL3_ADDRESS } },
    testnet: true,
  });
}
