/**
 * The local network the built-in facilitator settles on (eip155:31337): chain id, CAIP-2 name, viem chain and
 * polling. Starting that chain is devchain/'s (docs/CHAIN.md).
 */
import { defineChain, type Address, type Chain } from "viem";

export const LOCAL_CHAIN_ID = 31337;
export const LOCAL_NETWORK = `eip155:${LOCAL_CHAIN_ID}` as const;

/** The exact-EVM scheme reads through its `tryAggregate`. */
export const MULTICALL3_ADDRESS: Address = "0xcA11bde05977b3631167028862bE2a173976CA11";

/**
 * anvil answers eth_sendRawTransaction a moment before mining, so viem's default 4 s poll stalled about 1 settlement
 * in 100; 5 ms left some hanging past the relay's deadline.
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
