/**
 * The one asset table for C3. Sources: ARCH = docs/spec/architecture.md "Canonical USDC"; EVM = @x402/evm 2.27.0
 * `DEFAULT_ASSETS`. Where they disagree both domains are accepted.
 */

export interface Eip712Domain {
  name: string;
  version: string | null;
  source: string;
}

export interface KnownAsset {
  network: string;
  networkName: string;
  symbol: string;
  address: string;
  decimals: number;
  domains: Eip712Domain[];
  source: string;
  /** Real on the local chain only. */
  local?: true;
}

/** Source: @x402/extensions 2.27.0 `V1_SOLANA_NETWORKS`. */
export const SOLANA_MAINNET = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp";
export const SOLANA_DEVNET = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1";
export const SOLANA_TESTNET = "solana:4uhcVJyU9pJkvQyS88uRDiswHXSCkY3z";

export const KNOWN_ASSETS: readonly KnownAsset[] = [
  {
    network: "eip155:8453", networkName: "Base", symbol: "USDC",
    address: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", decimals: 6,
    domains: [{ name: "USD Coin", version: "2", source: "ARCH; EVM agrees" }],
    source: "ARCH; EVM agrees",
  },
  {
    network: "eip155:84532", networkName: "Base Sepolia", symbol: "USDC",
    address: "0x036CbD53842c5426634e7929541eC2318f3dCF7e", decimals: 6,
    domains: [{ name: "USDC", version: "2", source: "ARCH; EVM agrees" }],
    source: "ARCH; EVM agrees",
  },
  {
    network: "eip155:137", networkName: "Polygon", symbol: "USDC",
    address: "0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359", decimals: 6,
    domains: [{ name: "USD Coin", version: "2", source: "ARCH; EVM agrees" }],
    source: "ARCH; EVM agrees",
  },
  {
    network: "eip155:42161", networkName: "Arbitrum One", symbol: "USDC",
    address: "0xaf88d065e77c8cC2239327C5EDb3A432268e5831", decimals: 6,
    domains: [{ name: "USD Coin", version: "2", source: "ARCH; EVM agrees" }],
    source: "ARCH; EVM agrees",
  },
  {
    network: "eip155:43114", networkName: "Avalanche C-Chain", symbol: "USDC",
    address: "0xB97EF9Ef8734C71904D8002F8b6Bc66Dd9c48a6E", decimals: 6,
    // ARCH names the domain "USD Coin" without a version; EVM gives version "2".
    domains: [{ name: "USD Coin", version: "2", source: "name: ARCH; version: EVM (ARCH gives none)" }],
    source: "ARCH (address, name); EVM (version)",
  },
  {
    network: "eip155:143", networkName: "Monad", symbol: "USDC",
    address: "0x754704Bc059F8C67012fEd69BC8A327a5aafb603", decimals: 6,
    // The sources disagree on the name: ARCH says "USD Coin", @x402/evm 2.27 says "USDC".
    domains: [
      { name: "USD Coin", version: "2", source: "ARCH" },
      { name: "USDC", version: "2", source: "EVM (disagrees with ARCH; unverified on chain)" },
    ],
    source: "ARCH; EVM (name disputed)",
  },
  {
    network: "eip155:1", networkName: "Ethereum", symbol: "USDC",
    address: "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48", decimals: 6,
    domains: [{ name: "USD Coin", version: "2", source: "EVM" }],
    source: "EVM (not in ARCH)",
  },
  {
    // contracts/TestUSDC.sol's first deployment by anvil account 0 (devchain/local-chain.test.ts checks it).
    network: "eip155:31337", networkName: "Local chain (anvil)", symbol: "USDC",
    address: "0x5FbDB2315678afecb367f032d93F642f64180aa3", decimals: 6,
    domains: [{ name: "USD Coin", version: "2", source: "contracts/TestUSDC.sol" }],
    source: "contracts/TestUSDC.sol (local only)",
    local: true,
  },
  {
    network: SOLANA_MAINNET, networkName: "Solana", symbol: "USDC",
    address: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v", decimals: 6,
    domains: [],
    source: "ARCH (mint); CAIP-2 id: @x402/extensions (SOLANA_MAINNET)",
  },
];

/** Source: @x402/evm 2.27.0 `EVM_NETWORK_CHAIN_ID_MAP`, @x402/extensions 2.27.0 `V1_SOLANA_NETWORKS`. */
export const V1_NETWORK_NAMES: Readonly<Record<string, string>> = {
  ethereum: "eip155:1",
  sepolia: "eip155:11155111",
  base: "eip155:8453",
  "base-sepolia": "eip155:84532",
  avalanche: "eip155:43114",
  "avalanche-fuji": "eip155:43113",
  polygon: "eip155:137",
  "polygon-amoy": "eip155:80002",
  abstract: "eip155:2741",
  "abstract-testnet": "eip155:11124",
  iotex: "eip155:4689",
  sei: "eip155:1329",
  "sei-testnet": "eip155:1328",
  peaq: "eip155:3338",
  story: "eip155:1514",
  educhain: "eip155:41923",
  monad: "eip155:143",
  celo: "eip155:42220",
  flare: "eip155:14",
  solana: SOLANA_MAINNET,
  "solana-devnet": SOLANA_DEVNET,
  "solana-testnet": SOLANA_TESTNET,
};

export type DeclaredToken = Pick<KnownAsset, "network" | "address" | "decimals"> & Partial<Pick<KnownAsset, "symbol" | "domains">>;

function sameAddress(network: string, a: string, b: string): boolean {
  // Solana mints are case-sensitive.
  return network.startsWith("eip155:") ? a.toLowerCase() === b.toLowerCase() : a === b;
}

export function assetsOnNetwork(network: string): KnownAsset[] {
  return KNOWN_ASSETS.filter((a) => a.network === network);
}

export function findAsset(network: string, address: string, declared: readonly DeclaredToken[] = []): (KnownAsset | DeclaredToken) | null {
  return (
    KNOWN_ASSETS.find((a) => a.network === network && sameAddress(network, a.address, address)) ??
    declared.find((d) => d.network === network && sameAddress(network, d.address, address)) ??
    null
  );
}

export function canonicalUsdc(network: string): KnownAsset | null {
  return KNOWN_ASSETS.find((a) => a.network === network && a.symbol === "USDC") ?? null;
}

export function toCaip2(network: string): string | null {
  if (isCaip2(network)) return network;
  return V1_NETWORK_NAMES[network] ?? null;
}

export function isCaip2(network: string): boolean {
  return /^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$/.test(network);
}

/** A known USD stablecoin (USDC and the like) on its network. */
export const isUsdToken = (network: string | null, asset: string | null) => network !== null && asset !== null && /USD/.test(findAsset(network, asset)?.symbol ?? "");
