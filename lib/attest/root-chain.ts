/**
 * The daily root's chain side: EvidenceRoots reads and the one send, through a fair send queue (the facilitator's on
 * the local chain: one nonce sequence).
 */
import { createWalletClient, defineChain, getAddress, http, publicActions, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { facilitatorFromEnv } from "@/lib/chain/facilitator";
import { FairSendQueue } from "@/lib/chain/send-queue";
import { env } from "@/lib/env";
import { EVIDENCE_ROOTS_ABI, rootsTarget, type RootsTarget } from "./evidence-roots";

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
  rootOf(day: number): Promise<Hex | null>;
  publication(day: number): Promise<Publication | null>;
  /** Held by the node, not mined. */
  inFlight(): Promise<number>;
  /** Resolves once the node accepted it. */
  send(day: number, root: Hex, leaves: number): Promise<Hex>;
  /** Null while pending or unknown (after `timeoutMs`). */
  outcome(transaction: Hex, timeoutMs?: number): Promise<"success" | "reverted" | null>;
}

type Enqueue = <T>(caller: string, send: () => Promise<T>) => Promise<T>;

/** A queue of its own when `enqueue` is not given. */
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

/** Or a reason naming what is missing. */
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
