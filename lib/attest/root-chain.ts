/**
 * The daily root's side of the chain: reads of EvidenceRoots (rootOf, the RootPublished event) and
 * the one send, publish(day, root, leaves), from the house signer through a fair send queue (on the
 * local chain the facilitator's own, so settlements and the root share one nonce sequence).
 */
import { createWalletClient, defineChain, getAddress, http, publicActions, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { facilitatorFromEnv } from "@/lib/chain/facilitator";
import { FairSendQueue } from "@/lib/chain/send-queue";
import { env } from "@/lib/env";
import { EVIDENCE_ROOTS_ABI, rootsTarget, type RootsTarget } from "./evidence-roots";

/** The send queue's caller name for the daily root. */
export const ROOTS_CALLER = "evidence-roots";
const ZERO_ROOT = `0x${"00".repeat(32)}` as Hex;

export interface Publication {
  transaction: Hex;
  root: Hex;
  leaves: number;
}

export interface RootChain {
  network: string;
  contract: Address;
  publisher: Address;
  /** The day's root on chain, or null when it has none. */
  rootOf(day: number): Promise<Hex | null>;
  /** The RootPublished event of the day, or null. */
  publication(day: number): Promise<Publication | null>;
  /** Transactions of the publisher the node holds but has not mined. */
  inFlight(): Promise<number>;
  /** Send publish(day, root, leaves); resolves with the hash once the node accepted it. */
  send(day: number, root: Hex, leaves: number): Promise<Hex>;
  /** The mined outcome of a transaction; null while the node has it pending or does not know it (after `timeoutMs`). */
  outcome(transaction: Hex, timeoutMs?: number): Promise<"success" | "reverted" | null>;
}

type Enqueue = <T>(caller: string, send: () => Promise<T>) => Promise<T>;

/** A RootChain for `target`, its sends through `enqueue` (a queue of its own when none is given). */
export function createRootChain(target: Pick<RootsTarget, "network" | "contract" | "rpcUrl" | "key">, enqueue?: Enqueue): RootChain {
  const id = Number(target.network.split(":")[1]);
  if (!target.network.startsWith("eip155:") || !Number.isSafeInteger(id)) throw new Error(`daily roots are published on an EVM network (eip155:<chain id>), not ${target.network}`);
  const chain = defineChain({ id, name: target.network, nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 }, rpcUrls: { default: { http: [target.rpcUrl] } } });
  const account = privateKeyToAccount(target.key);
  const client = createWalletClient({ chain, transport: http(target.rpcUrl), account, pollingInterval: 50 }).extend(publicActions);
  const address = getAddress(target.contract);
  const own = enqueue ? null : new FairSendQueue();
  const queue: Enqueue = enqueue ?? ((caller, send) => own!.enqueue(caller, send));
  return {
    network: target.network,
    contract: target.contract.toLowerCase() as Address,
    publisher: account.address.toLowerCase() as Address,
    async rootOf(day) {
      const root = await client.readContract({ address, abi: EVIDENCE_ROOTS_ABI, functionName: "rootOf", args: [day] });
      return root === ZERO_ROOT ? null : (root.toLowerCase() as Hex);
    },
    async publication(day) {
      const logs = await client.getContractEvents({ address, abi: EVIDENCE_ROOTS_ABI, eventName: "RootPublished", args: { day }, fromBlock: "earliest", strict: true });
      const last = logs.at(-1);
      return last ? { transaction: last.transactionHash.toLowerCase() as Hex, root: last.args.root.toLowerCase() as Hex, leaves: last.args.leaves } : null;
    },
    async inFlight() {
      const [pending, latest] = await Promise.all([client.getTransactionCount({ address: account.address, blockTag: "pending" }), client.getTransactionCount({ address: account.address, blockTag: "latest" })]);
      return Math.max(0, pending - latest);
    },
    send(day, root, leaves) {
      return queue(ROOTS_CALLER, async () => (await client.writeContract({ address, abi: EVIDENCE_ROOTS_ABI, functionName: "publish", args: [day, root, leaves] })).toLowerCase() as Hex);
    },
    async outcome(transaction, timeoutMs = 30_000) {
      try {
        const receipt = await client.waitForTransactionReceipt({ hash: transaction, timeout: timeoutMs });
        return receipt.status;
      } catch {
        return null;
      }
    },
  };
}

let cached: { key: string; chain: RootChain } | undefined;

/** The configured RootChain, or a reason naming what is missing. */
export function rootChainFromEnv(): RootChain | { unconfigured: string } {
  const target = rootsTarget(env());
  if ("unconfigured" in target) return target;
  const key = JSON.stringify(target);
  if (cached?.key !== key) {
    const enqueue: Enqueue | undefined = target.facilitatorSigner ? (caller, send) => facilitatorFromEnv().sends.enqueue(caller, send) : undefined;
    cached = { key, chain: createRootChain(target, enqueue) };
  }
  return cached.chain;
}
