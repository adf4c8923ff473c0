/**
 * The local chain's contents: the test USDC deployed from anvil's first development account as that
 * account's first transaction (so its address is a constant, LOCAL_USDC_ADDRESS, which the asset
 * table in lib/x402/assets.ts holds as data), a Multicall3 stand-in at Multicall3's canonical
 * address (public EVM chains have Multicall3 and the x402 exact-EVM facilitator reads through its
 * `tryAggregate`; anvil has none), and USDC minted to whoever needs it.
 *
 * LOCAL_DEV_KEYS are anvil's default development keys, derived from the published mnemonic
 * "test test test test test test test test test test test junk". They are public: anyone can spend
 * from these addresses on any chain. Use them on the local chain only, never with real funds.
 */
import {
  createPublicClient,
  createWalletClient,
  getAddress,
  getContractAddress,
  http,
  parseAbi,
  publicActions,
  type Account,
  type Address,
  type Chain,
  type Hex,
  type PrivateKeyAccount,
  type PublicClient,
  type Transport,
  type WalletClient,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { LOCAL_CHAIN_ID, LOCAL_NETWORK, LOCAL_POLLING_MS, MULTICALL3_ADDRESS, localChain } from "@/lib/chain/local-network";
import { deployEvidenceRoots } from "./evidence-roots-local";
import { LOCAL_MULTICALL3_ARTIFACT_DATA, TEST_USDC_ABI, TEST_USDC_ARTIFACT_DATA } from "./test-usdc";

export { LOCAL_CHAIN_ID, LOCAL_NETWORK, LOCAL_POLLING_MS, MULTICALL3_ADDRESS, localChain };

/** anvil's ten default development keys (public; local chain only — see the file comment). */
export const LOCAL_DEV_KEYS: readonly Hex[] = [
  "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
  "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
  "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a",
  "0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6",
  "0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a",
  "0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba",
  "0x92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e",
  "0x4bbbf85ce3377467afe5d46f804f221813b2bb87f24d81f60f1fcdbf7cbf4356",
  "0xdbda1821b80551c9d65939329250298aa3472ba22feea921c0cf5d620ea67b97",
  "0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6",
];

/** The deployer and token owner: anvil's account 0. */
export const LOCAL_DEPLOYER: Address = privateKeyToAccount(LOCAL_DEV_KEYS[0]).address;

/**
 * Where the test USDC lives on a fresh local chain: the contract created by account 0's transaction
 * at nonce 0 (CREATE address = keccak256(rlp([sender, nonce]))[12:]). setupLocalChain deploys it
 * first thing and refuses a chain where that address holds anything else.
 */
export const LOCAL_USDC_ADDRESS: Address = "0x5FbDB2315678afecb367f032d93F642f64180aa3";

export const TRY_AGGREGATE_ABI = parseAbi([
  "struct Call { address target; bytes callData; }",
  "struct Result { bool success; bytes returnData; }",
  "function tryAggregate(bool requireSuccess, Call[] calls) payable returns (Result[] returnData)",
  "function getBlockNumber() view returns (uint256 blockNumber)",
]);

/** The test USDC's EIP-712 domain name and version, as FiatToken v2 on mainnet. */
export const LOCAL_USDC_DOMAIN = { name: "USD Coin", version: "2" } as const;

export interface Funding {
  address: Address;
  /** Atomic units (6 decimals: 1_000_000n is 1 USDC). */
  amount: bigint;
}

export interface LocalChain {
  rpcUrl: string;
  chain: Chain;
  network: typeof LOCAL_NETWORK;
  usdc: Address;
  publicClient: PublicClient<Transport, Chain>;
  /** Signs as the deployer (account 0), the token's owner. */
  walletClient: WalletClient<Transport, Chain, PrivateKeyAccount>;
  /** anvil's ten development accounts; index 0 is the deployer. */
  accounts: PrivateKeyAccount[];
  /** Mint test USDC (owner only, so signed by the deployer); resolves once mined. */
  mint(to: Address, amount: bigint): Promise<Hex>;
  balanceOf(address: Address): Promise<bigint>;
}

export class LocalChainError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "LocalChainError";
  }
}

/**
 * Deploy the test USDC (unless this chain already has it at LOCAL_USDC_ADDRESS), place Multicall3,
 * and mint `fund` to the given addresses. Run it against a fresh anvil before any other transaction
 * from account 0, or the token could not land at its constant address (that is refused, not hidden).
 */
export async function setupLocalChain(rpcUrl: string, fund: readonly Funding[] = []): Promise<LocalChain> {
  const chain = localChain(rpcUrl);
  const transport = http(rpcUrl);
  const publicClient = createPublicClient({ chain, transport, pollingInterval: LOCAL_POLLING_MS }) as PublicClient<Transport, Chain>;
  const accounts = LOCAL_DEV_KEYS.map((k) => privateKeyToAccount(k));
  const walletClient = createWalletClient({ chain, transport, account: accounts[0], pollingInterval: LOCAL_POLLING_MS });

  const chainId = await publicClient.getChainId();
  if (chainId !== LOCAL_CHAIN_ID) throw new LocalChainError(`${rpcUrl} is chain ${chainId}, not the local chain ${LOCAL_CHAIN_ID}`);

  await deployUsdc(publicClient, walletClient);
  await placeMulticall3(publicClient);
  await deployEvidenceRoots(publicClient, walletClient);

  const mint = async (to: Address, amount: bigint): Promise<Hex> => {
    const hash = await walletClient.writeContract({ address: LOCAL_USDC_ADDRESS, abi: TEST_USDC_ABI, functionName: "mint", args: [getAddress(to), amount] });
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    if (receipt.status !== "success") throw new LocalChainError(`mint to ${to} reverted (${hash})`);
    return hash;
  };
  for (const f of fund) await mint(f.address, f.amount);

  return {
    rpcUrl,
    chain,
    network: LOCAL_NETWORK,
    usdc: LOCAL_USDC_ADDRESS,
    publicClient,
    walletClient,
    accounts,
    mint,
    balanceOf: (address) => publicClient.readContract({ address: LOCAL_USDC_ADDRESS, abi: TEST_USDC_ABI, functionName: "balanceOf", args: [address] }),
  };
}

async function deployUsdc(publicClient: PublicClient<Transport, Chain>, walletClient: WalletClient<Transport, Chain, Account>): Promise<void> {
  const existing = await publicClient.getCode({ address: LOCAL_USDC_ADDRESS });
  if (existing && existing !== "0x") {
    // Set up before (the same anvil). The runtime code embeds immutables (the EIP-712 domain
    // cache), so it cannot be compared with the artefact byte for byte; the domain can.
    const [name, version] = await Promise.all([
      publicClient.readContract({ address: LOCAL_USDC_ADDRESS, abi: TEST_USDC_ABI, functionName: "name" }).catch(() => null),
      publicClient.readContract({ address: LOCAL_USDC_ADDRESS, abi: TEST_USDC_ABI, functionName: "version" }).catch(() => null),
    ]);
    if (name !== LOCAL_USDC_DOMAIN.name || version !== LOCAL_USDC_DOMAIN.version) {
      throw new LocalChainError(`${LOCAL_USDC_ADDRESS} on this chain holds a contract that is not the test USDC`);
    }
    return;
  }
  const deployer = walletClient.account.address;
  const nonce = await publicClient.getTransactionCount({ address: deployer });
  if (getContractAddress({ from: deployer, nonce: BigInt(nonce) }) !== LOCAL_USDC_ADDRESS) {
    throw new LocalChainError(
      `the test USDC must be the first deployment from ${deployer} (nonce 0), but its nonce is ${nonce}: set up the local chain first thing on a fresh anvil`,
    );
  }
  const hash = await walletClient.deployContract({
    abi: TEST_USDC_ABI,
    bytecode: TEST_USDC_ARTIFACT_DATA.bytecode,
    args: [deployer, LOCAL_USDC_DOMAIN.name],
  });
  const receipt = await publicClient.waitForTransactionReceipt({ hash });
  if (receipt.status !== "success" || !receipt.contractAddress || getAddress(receipt.contractAddress) !== LOCAL_USDC_ADDRESS) {
    throw new LocalChainError(`deploying the test USDC gave ${receipt.status} at ${receipt.contractAddress ?? "no address"}, expected ${LOCAL_USDC_ADDRESS}`);
  }
}

/**
 * Put LocalMulticall3's runtime code (contracts/LocalMulticall3.sol; no immutables, so the artefact's
 * runtime code is exact) at Multicall3's address with anvil_setCode: no transaction, so no nonce is
 * used and the test USDC's address stays constant.
 */
export async function placeMulticall3(publicClient: PublicClient<Transport, Chain>): Promise<void> {
  const existing = await publicClient.getCode({ address: MULTICALL3_ADDRESS });
  if (existing && existing !== "0x") return;
  await publicClient.request({ method: "anvil_setCode" as never, params: [MULTICALL3_ADDRESS, LOCAL_MULTICALL3_ARTIFACT_DATA.deployedBytecode] as never });
  // Prove the code is in place and answers.
  await publicClient.readContract({ address: MULTICALL3_ADDRESS, abi: TRY_AGGREGATE_ABI, functionName: "getBlockNumber" });
}

/** A wallet client for any local account, extended with public actions (what the facilitator signer wants). */
export function localWallet(local: Pick<LocalChain, "chain" | "rpcUrl">, account: PrivateKeyAccount) {
  return createWalletClient({ chain: local.chain, transport: http(local.rpcUrl), account }).extend(publicActions);
}
