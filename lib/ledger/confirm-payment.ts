/**
 * Confirming a relayed payment on chain: the ledger's facts come from the chain, never from the
 * seller. A row naming a transaction becomes
 *
 * - `settled` when the chain shows that transaction, succeeded, carrying a `Transfer` of the row's
 *   asset from the row's payer: the amount (the sum of such transfers), recipient (the first one's)
 *   and block are the chain's;
 * - `failed` with reason `unproven` when the chain does not show it (no such transaction), or shows
 *   it reverted, or without a transfer from the payer in that asset;
 * - `unconfirmed` (reason `chain_unreadable`) while the chain cannot be read (lib/chain/rpc.ts
 *   readChain: no RPC configured, the node down or timing out). The ledger tick (ticks.ts) tries
 *   again later: nothing is dropped, and nothing is judged on an outage.
 *
 * A transaction the node knows but has not mined yet stays `unconfirmed` too.
 */
import { getAddress, isAddress, parseAbi, parseEventLogs, TransactionNotFoundError, TransactionReceiptNotFoundError, type Hex, type PublicClient } from "viem";
import { readChain, type RpcSettings } from "@/lib/chain/rpc";
import { db } from "@/lib/db";

const ERC20_TRANSFER = parseAbi(["event Transfer(address indexed from, address indexed to, uint256 value)"]);

export interface ChainSettlement {
  blockNumber: bigint;
  from: string;
  to: string;
  /** Atomic units as an integer string. */
  amount: string;
}

export type ChainVerdict =
  | { status: "settled"; chain: ChainSettlement }
  | { status: "failed"; reason: "unproven"; detail: string }
  /** `outage`: the chain could not be read at all (rather than showing the transaction pending). */
  | { status: "unconfirmed"; reason: "chain_unreadable"; detail: string; outage: boolean };

export interface ReadOptions {
  settings?: RpcSettings;
  timeoutMs?: number;
}

const TX_HASH = /^0x[0-9a-fA-F]{64}$/;

/** What the chain says about `transaction` as a payment of `asset` by `payer` on `network`. */
export async function readSettlement(
  input: { transaction: string; network: string; asset: string; payer: string },
  options: ReadOptions = {},
): Promise<ChainVerdict> {
  if (!TX_HASH.test(input.transaction)) return { status: "failed", reason: "unproven", detail: `${JSON.stringify(input.transaction)} is not a transaction hash` };
  if (!isAddress(input.asset) || !isAddress(input.payer)) {
    return { status: "failed", reason: "unproven", detail: "the asset or the payer is not an EVM address, so no EVM transfer can prove it" };
  }
  const asset = getAddress(input.asset);
  const payer = getAddress(input.payer);
  const hash = input.transaction as Hex;
  const read = await readChain(
    input.network,
    async (client: PublicClient): Promise<ChainVerdict> => {
      let receipt;
      try {
        receipt = await client.getTransactionReceipt({ hash });
      } catch (e) {
        if (!(e instanceof TransactionReceiptNotFoundError)) throw e;
        // Not mined: is it pending, or unknown to the chain?
        try {
          await client.getTransaction({ hash });
          return { status: "unconfirmed", reason: "chain_unreadable", detail: `${hash} is pending`, outage: false };
        } catch (e2) {
          if (e2 instanceof TransactionNotFoundError) return { status: "failed", reason: "unproven", detail: `the chain has no transaction ${hash}` };
          throw e2;
        }
      }
      if (receipt.status !== "success") return { status: "failed", reason: "unproven", detail: `${hash} reverted` };
      const transfers = parseEventLogs({ abi: ERC20_TRANSFER, logs: receipt.logs, eventName: "Transfer", strict: true }).filter(
        (l) => getAddress(l.address) === asset && getAddress(l.args.from) === payer,
      );
      if (transfers.length === 0) return { status: "failed", reason: "unproven", detail: `${hash} carries no transfer of ${asset} from ${payer}` };
      const amount = transfers.reduce((sum, t) => sum + t.args.value, 0n);
      return { status: "settled", chain: { blockNumber: receipt.blockNumber, from: payer.toLowerCase(), to: getAddress(transfers[0].args.to).toLowerCase(), amount: amount.toString() } };
    },
    options,
  );
  return read.ok ? read.value : { status: "unconfirmed", reason: "chain_unreadable", detail: read.unmeasured, outage: true };
}

/**
 * Confirm one ledger row (by id) that names a transaction and has not been confirmed: read the chain
 * and write its verdict. Answers the verdict, or null when the row is not waiting for the chain (no
 * transaction, already confirmed, or gone).
 */
export async function confirmPayment(id: string, options: ReadOptions = {}): Promise<ChainVerdict | null> {
  const prisma = await db();
  const row = await prisma.routerPayment.findUnique({ where: { id }, select: WAITING_ROW });
  if (!row || !row.transactionId || row.confirmedAt) return null;
  return confirmRow({ ...row, id, transactionId: row.transactionId }, options);
}

const WAITING_ROW = { transactionId: true, network: true, asset: true, payer: true, confirmedAt: true } as const;

/** Read the chain for one waiting row and write its verdict (only while the row is still waiting). */
async function confirmRow(row: { id: string; transactionId: string; network: string; asset: string; payer: string }, options: ReadOptions): Promise<ChainVerdict> {
  const prisma = await db();
  const verdict = await readSettlement({ transaction: row.transactionId, network: row.network, asset: row.asset, payer: row.payer }, options);
  const waiting = { id: row.id, confirmedAt: null, transactionId: row.transactionId };
  if (verdict.status === "settled") {
    await prisma.routerPayment.updateMany({
      where: waiting,
      data: {
        status: "settled",
        settledAmount: verdict.chain.amount,
        chainAmount: verdict.chain.amount,
        chainFrom: verdict.chain.from,
        chainTo: verdict.chain.to,
        blockNumber: verdict.chain.blockNumber,
        reason: null,
        confirmedAt: new Date(),
      },
    });
  } else if (verdict.status === "failed") {
    await prisma.routerPayment.updateMany({ where: waiting, data: { status: "failed", settledAmount: null, reason: verdict.reason, confirmedAt: new Date() } });
  } else {
    await prisma.routerPayment.updateMany({ where: waiting, data: { status: "unconfirmed", settledAmount: null, reason: verdict.reason } });
  }
  return verdict;
}

/**
 * Confirm up to `limit` rows still waiting for the chain, oldest first (the ledger tick). A network
 * whose chain cannot be read is asked once per tick: its other rows wait for the next tick rather
 * than each spending the read's timeout on the same outage. Answers how many rows it read, how many
 * of those the chain decided (settled or failed), and how many it left for a network that is down.
 */
export async function confirmWaitingPayments(options: ReadOptions & { limit?: number } = {}): Promise<{ read: number; decided: number; skipped: number }> {
  const prisma = await db();
  const waiting = await prisma.routerPayment.findMany({
    where: { transactionId: { not: null }, confirmedAt: null },
    orderBy: { createdAt: "asc" },
    take: options.limit ?? 200,
    select: { id: true, ...WAITING_ROW },
  });
  const down = new Set<string>();
  let decided = 0;
  let skipped = 0;
  for (const row of waiting) {
    if (down.has(row.network)) {
      skipped++;
      continue;
    }
    const verdict = await confirmRow({ ...row, transactionId: row.transactionId! }, options);
    if (verdict.status !== "unconfirmed") decided++;
    else if (verdict.outage) down.add(row.network);
  }
  return { read: waiting.length, decided, skipped };
}
