/**
 * The demo faucet: funds a buyer's wallet on the local chain with test USDC and gas, from anvil's
 * development account 8 (public key; local only), which the demo stocks with FAUCET_RESERVE at start.
 * Bounded: FAUCET_USDC per request, no USDC to a wallet already holding FAUCET_WALLET_CAP, and gas only
 * up to FAUCET_GAS. Sends are serialised in this process, so the faucet's nonces never race.
 */
import { createPublicClient, createWalletClient, formatEther, formatUnits, getAddress, http, isAddress, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { AppError } from "@/lib/errors";
import { LOCAL_CHAIN_ID } from "./anvil";
import { LOCAL_DEV_KEYS, LOCAL_POLLING_MS, LOCAL_USDC_ADDRESS, localChain } from "./local-chain";
import { TEST_USDC_ABI } from "./test-usdc";

/** The faucet's own account: anvil's development account 8 (nothing else in the demo signs with it). */
export const FAUCET_KEY: Hex = LOCAL_DEV_KEYS[8];
export const FAUCET_ADDRESS: Address = privateKeyToAccount(FAUCET_KEY).address;
/** Test USDC one request sends (atomic units, 6 decimals): 10 USDC. */
export const FAUCET_USDC = 10_000_000n;
/** A wallet holding this much test USDC or more gets none: 100 USDC. */
export const FAUCET_WALLET_CAP = 100_000_000n;
/** Gas: a wallet below this much ETH is topped up to it (0.1 ETH). */
export const FAUCET_GAS = 100_000_000_000_000_000n;
/** What the demo stocks the faucet with at start (1,000,000 test USDC). */
export const FAUCET_RESERVE = 1_000_000_000_000n;

export interface FaucetResult {
  address: Address;
  /** Atomic units sent, and the transfer's hash (null when none was sent). */
  usdcSent: string;
  usdcTx: Hex | null;
  gasSent: string;
  gasTx: Hex | null;
  /** Balances after, in USDC and ETH as decimal strings. */
  usdcBalance: string;
  ethBalance: string;
}

/** A 0x address, or the 400 that says what is wrong with it (JSON pointer /address). */
export function parseFaucetAddress(input: unknown): Address {
  const value = typeof input === "object" && input !== null ? (input as { address?: unknown }).address : undefined;
  const bad = (message: string) => new AppError("bad_request", message, [{ pointer: "/address", message }]);
  if (typeof value !== "string" || value.trim() === "") throw bad("address is required: the 0x… address of the wallet to fund");
  const a = value.trim();
  if (!/^0x[0-9a-fA-F]{40}$/.test(a)) throw bad(`address must be 0x followed by 40 hexadecimal characters, got ${JSON.stringify(a.slice(0, 60))}`);
  if (!isAddress(a, { strict: true })) throw bad("address has a wrong checksum (mixed case that is not EIP-55): paste it again, or write it all in lower case");
  if (/^0x0{40}$/.test(a)) throw bad("address is the zero address, which nobody can spend from");
  return getAddress(a);
}

let queue: Promise<unknown> = Promise.resolve();

/** Fund `to` on the local chain at `rpcUrl` (refused with 503 when that is not the local chain). */
export function faucetFund(rpcUrl: string, to: Address): Promise<FaucetResult> {
  const run = queue.then(() => fund(rpcUrl, to));
  queue = run.catch(() => undefined);
  return run;
}

async function fund(rpcUrl: string, to: Address): Promise<FaucetResult> {
  const chain = localChain(rpcUrl);
  const transport = http(rpcUrl);
  const pub = createPublicClient({ chain, transport, pollingInterval: LOCAL_POLLING_MS });
  const wallet = createWalletClient({ chain, transport, account: privateKeyToAccount(FAUCET_KEY), pollingInterval: LOCAL_POLLING_MS });
  const chainId = await pub.getChainId().catch(() => null);
  if (chainId !== LOCAL_CHAIN_ID) throw new AppError("unavailable", chainId === null ? "The local chain does not answer; is the demo running?" : `The configured chain is ${chainId}, not the local chain ${LOCAL_CHAIN_ID}: the faucet funds the local chain only.`);
  const usdcOf = (a: Address) => pub.readContract({ address: LOCAL_USDC_ADDRESS, abi: TEST_USDC_ABI, functionName: "balanceOf", args: [a] });

  let usdcTx: Hex | null = null;
  let usdcSent = 0n;
  if ((await usdcOf(to)) < FAUCET_WALLET_CAP) {
    if ((await usdcOf(FAUCET_ADDRESS)) < FAUCET_USDC) throw new AppError("unavailable", "The faucet has run dry: restart the demo to restock it.");
    usdcTx = await wallet.writeContract({ address: LOCAL_USDC_ADDRESS, abi: TEST_USDC_ABI, functionName: "transfer", args: [to, FAUCET_USDC] });
    await confirmed(pub, usdcTx, "the test USDC transfer");
    usdcSent = FAUCET_USDC;
  }
  let gasTx: Hex | null = null;
  let gasSent = 0n;
  const eth = await pub.getBalance({ address: to });
  if (eth < FAUCET_GAS) {
    gasSent = FAUCET_GAS - eth;
    gasTx = await wallet.sendTransaction({ to, value: gasSent });
    await confirmed(pub, gasTx, "the gas transfer");
  }
  if (!usdcTx && !gasTx) {
    throw new AppError("conflict", `${to} already holds ${formatUnits(await usdcOf(to), 6)} test USDC (the faucet stops at ${formatUnits(FAUCET_WALLET_CAP, 6)}) and enough gas: nothing was sent.`);
  }
  return {
    address: to,
    usdcSent: usdcSent.toString(),
    usdcTx,
    gasSent: gasSent.toString(),
    gasTx,
    usdcBalance: formatUnits(await usdcOf(to), 6),
    ethBalance: formatEther(await pub.getBalance({ address: to })),
  };
}

async function confirmed(pub: { waitForTransactionReceipt(a: { hash: Hex; timeout: number }): Promise<{ status: string }> }, hash: Hex, what: string): Promise<void> {
  const receipt = await pub.waitForTransactionReceipt({ hash, timeout: 30_000 });
  if (receipt.status !== "success") throw new AppError("unavailable", `${what} reverted on the local chain (${hash}).`);
}
