/**
 * A public network's USDC stood in for on a local anvil (the production shape, offline): the test
 * USDC deployed with the public token's EIP-712 name, then its code and state placed at the public
 * token's canonical address with anvil_setCode / anvil_setStorageAt. Tests only; never in production.
 */
import { createPublicClient, createWalletClient, getAddress, http, publicActions, type Address, type Chain, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { LOCAL_DEV_KEYS, placeMulticall3 } from "./local-chain";
import { TEST_USDC_ABI, TEST_USDC_ARTIFACT_DATA } from "./test-usdc";

/** Storage slots the token's state lives in (OpenZeppelin ERC20, EIP712 fallbacks, Ownable): copied as they are. */
const STATE_SLOTS = 12;

export interface StandInToken {
  chain: Chain;
  address: Address;
  /** The wallet that owns the token (anvil's account 0) and may mint. */
  owner: ReturnType<typeof ownerClient>;
  mint(to: Address, amount: bigint): Promise<Hex>;
}

function ownerClient(rpcUrl: string, chain: Chain) {
  return createWalletClient({ chain, transport: http(rpcUrl), account: privateKeyToAccount(LOCAL_DEV_KEYS[0]), pollingInterval: 50 }).extend(publicActions);
}

/** Place a token named `name` (EIP-712 version "2") at `address` on the anvil at `rpcUrl` with chain id `chainId`. */
export async function placeTokenAt(opts: { rpcUrl: string; chainId: number; address: Address; name: string }): Promise<StandInToken> {
  const chain: Chain = { id: opts.chainId, name: `stand-in ${opts.chainId}`, nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 }, rpcUrls: { default: { http: [opts.rpcUrl] } } };
  const owner = ownerClient(opts.rpcUrl, chain);
  const deployed = await owner.deployContract({ abi: TEST_USDC_ABI, bytecode: TEST_USDC_ARTIFACT_DATA.bytecode, args: [owner.account.address, opts.name] });
  const temp = (await owner.waitForTransactionReceipt({ hash: deployed })).contractAddress!;
  const address = getAddress(opts.address);
  const raw = createPublicClient({ chain, transport: http(opts.rpcUrl) });
  const code = await raw.getCode({ address: temp });
  await raw.request({ method: "anvil_setCode" as never, params: [address, code] as never });
  for (let slot = 0; slot < STATE_SLOTS; slot++) {
    const key = `0x${slot.toString(16).padStart(64, "0")}` as Hex;
    const value = await raw.getStorageAt({ address: temp, slot: key });
    await raw.request({ method: "anvil_setStorageAt" as never, params: [address, key, value ?? `0x${"0".repeat(64)}`] as never });
  }
  // Public chains carry Multicall3 at its canonical address; the scheme's diagnosis reads through it.
  await placeMulticall3(raw as never);
  const mint = async (to: Address, amount: bigint) => {
    const hash = await owner.writeContract({ address, abi: TEST_USDC_ABI, functionName: "mint", args: [to, amount] });
    await owner.waitForTransactionReceipt({ hash });
    return hash;
  };
  return { chain, address, owner, mint };
}
