/** Confirming a relayed payment on chain (docs/ROUTER.md "Binding"). */
import { getAddress, isAddress, parseEventLogs, TransactionNotFoundError, TransactionReceiptNotFoundError, type Hex, type PublicClient } from "viem";
import { readChain, type RpcSettings } from "@/lib/chain/rpc";
import { db } from "@/lib/db";
import { clientOr, isUniqueViolation, rows } from "@/lib/sql";
import { findAsset } from "@/lib/x402/assets";
import { EIP3009_EVENTS } from "@/lib/x402/eip3009";

export interface ChainSettlement {
  blockNumber: bigint;
  from: string;
  to: string;
  amount: string;
  /** Claimed by one row ever, with the network and transaction. */
  logIndex: number;
}

export type ChainVerdict =
  | { status: "settled"; chain: ChainSettlement }
  | { status: "failed"; reason: "unproven"; detail: string }
  | { status: "unconfirmed"; reason: "chain_unreadable"; detail: string; outage: boolean };

export interface ReadOptions {
  settings?: RpcSettings;
  timeoutMs?: number;
}

export interface Binding {
  transaction: string;
  network: string;
  asset: string;
  payer: string;
  nonce: string | null;
  payTo: string | null;
  amount: string;
  notBefore?: Date | null;
  /**
   * A block read as the latest after the payment reached the router (the relay's arrival block): a
   * transfer mined in a later block settled after the arrival, so its block's time need not be read.
   */
  seenAtOrAfterArrival?: bigint | null;
}

/** Block timestamps are the sequencer's clock, not ours. */
export const CLOCK_SKEW_SECONDS = 15;

const TX_HASH = /^0x[0-9a-fA-F]{64}$/;
const unproven = (detail: string): ChainVerdict => ({ status: "failed", reason: "unproven", detail });
const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

export async function readSettlement(input: Binding, options: ReadOptions = {}): Promise<ChainVerdict> {
  if (!TX_HASH.test(input.transaction)) return unproven(`${JSON.stringify(input.transaction)} is not a transaction hash`);
  if (!isAddress(input.asset) || !isAddress(input.payer)) return unproven("the asset or the payer is not an EVM address, so no EVM transfer can prove it");
  if (!input.nonce || !/^0x[0-9a-fA-F]{64}$/.test(input.nonce)) return unproven("no signed authorization nonce was recorded, so no settlement can be bound to it");
  if (!input.payTo || !isAddress(input.payTo)) return unproven("no quoted payTo was recorded, so no transfer can be bound to it");
  // Nothing moved is no settlement (docs/ROUTER.md "Binding"): a never-funded wallet can sign a transfer of 0.
  if (/^0+$/.test(input.amount)) return unproven("the payment's amount is 0: a transfer of nothing settles no purchase");
  const hash = input.transaction as Hex;
  const read = await readChain(input.network, (client) => bind(client, hash, input), options);
  return read.ok ? read.value : { status: "unconfirmed", reason: "chain_unreadable", detail: read.unmeasured, outage: true };
}

type TokenLog = ReturnType<typeof parseEventLogs<typeof EIP3009_EVENTS>>[number];

/**
 * The Transfer an AuthorizationUsed log belongs to: EIP-3009 (USDC, contracts/TestUSDC.sol) emits it right before
 * the authorization's Transfer, so the first Transfer after it and before the next AuthorizationUsed; a token that
 * emits them the other way round, the last Transfer before it and after the previous one.
 */
function pairedTransfer(logs: readonly TokenLog[], usedAt: number): TokenLog | undefined {
  for (let i = usedAt + 1; i < logs.length && logs[i].eventName !== "AuthorizationUsed"; i++) if (logs[i].eventName === "Transfer") return logs[i];
  for (let i = usedAt - 1; i >= 0 && logs[i].eventName !== "AuthorizationUsed"; i--) if (logs[i].eventName === "Transfer") return logs[i];
  return undefined;
}

async function bind(client: PublicClient, hash: Hex, input: Binding): Promise<ChainVerdict> {
  let receipt;
  try {
    receipt = await client.getTransactionReceipt({ hash });
  } catch (e) {
    if (!(e instanceof TransactionReceiptNotFoundError)) throw e;
    try {
      await client.getTransaction({ hash });
      return { status: "unconfirmed", reason: "chain_unreadable", detail: `${hash} is pending`, outage: false };
    } catch (e2) {
      if (e2 instanceof TransactionNotFoundError) return unproven(`the chain has no transaction ${hash}`);
      throw e2;
    }
  }
  if (receipt.status !== "success") return unproven(`${hash} reverted`);
  const asset = getAddress(input.asset);
  const logs = parseEventLogs({ abi: EIP3009_EVENTS, logs: receipt.logs, strict: true }).filter((l) => getAddress(l.address) === asset);
  const usedAt = logs.findIndex((l) => l.eventName === "AuthorizationUsed" && same(l.args.authorizer, input.payer) && same(l.args.nonce, input.nonce!));
  if (usedAt < 0) return unproven(`${hash} does not spend this payment's authorization (no AuthorizationUsed(${input.payer}, ${input.nonce}) from ${asset}): it settles some other payment`);
  // This authorization's own Transfer, not the first that looks like it: a transaction settling two
  // authorizations of one payer, payee and amount (a batch) holds two such transfers, one for each.
  const transfer = pairedTransfer(logs, usedAt);
  if (!transfer || transfer.eventName !== "Transfer" || !same(transfer.args.from, input.payer) || !same(transfer.args.to, input.payTo!) || transfer.args.value.toString() !== input.amount) {
    const moved = transfer?.eventName === "Transfer" ? `${transfer.args.value} from ${transfer.args.from} to ${transfer.args.to}` : "nothing";
    return unproven(`${hash} moves ${moved} under this authorization, not the quoted ${input.amount} from the payer to the quoted payTo ${input.payTo}`);
  }
  if (input.notBefore && !(input.seenAtOrAfterArrival != null && receipt.blockNumber > input.seenAtOrAfterArrival)) {
    const block = await client.getBlock({ blockNumber: receipt.blockNumber });
    const earliest = Math.floor(input.notBefore.getTime() / 1000) - CLOCK_SKEW_SECONDS;
    if (Number(block.timestamp) < earliest) {
      return unproven(`${hash} settled in block ${receipt.blockNumber} at ${new Date(Number(block.timestamp) * 1000).toISOString()}, before the payment reached the router at ${input.notBefore.toISOString()}`);
    }
  }
  return {
    status: "settled",
    chain: { blockNumber: receipt.blockNumber, from: input.payer.toLowerCase(), to: transfer.args.to.toLowerCase(), amount: transfer.args.value.toString(), logIndex: transfer.logIndex },
  };
}

/** The canary's replay probe; null when the chain cannot say. */
export async function transfersFrom(input: { transaction: string; network: string; asset: string; payer: string }, options: ReadOptions = {}): Promise<boolean | null> {
  if (!TX_HASH.test(input.transaction) || !isAddress(input.asset) || !isAddress(input.payer)) return false;
  const read = await readChain(
    input.network,
    async (client) => {
      const receipt = await client.getTransactionReceipt({ hash: input.transaction as Hex }).catch((e: unknown) => {
        if (e instanceof TransactionReceiptNotFoundError) return null;
        throw e;
      });
      if (!receipt || receipt.status !== "success") return false;
      return parseEventLogs({ abi: EIP3009_EVENTS, logs: receipt.logs, eventName: "Transfer", strict: true }).some((l) => same(l.address, input.asset) && same(l.args.from, input.payer));
    },
    options,
  );
  return read.ok ? read.value : null;
}

async function wrongAsset(row: { listingId: string; endpointId: string | null; asset: string; network: string }, endpointAsset?: string | null): Promise<string | null> {
  if (endpointAsset) return same(endpointAsset, row.asset) ? null : `paid in ${row.asset}, not the listed asset ${endpointAsset}`;
  const prisma = await db();
  const endpoints = await prisma.endpoint.findMany({ where: { listingId: row.listingId, priceNetwork: row.network, priceAsset: { not: null } }, select: { id: true, priceAsset: true } });
  const own = endpoints.find((e) => e.id === row.endpointId);
  const listed = own ? [own.priceAsset!] : [...new Set(endpoints.map((e) => e.priceAsset!))];
  if (listed.length > 0) return listed.some((a) => same(a, row.asset)) ? null : `paid in ${row.asset}, not the listed asset ${listed.join(" or ")}`;
  return findAsset(row.network, row.asset) ? null : `paid in ${row.asset}, which is neither listed for this endpoint nor a known asset on ${row.network}`;
}

export async function confirmPayment(id: string, options: ReadOptions = {}, written?: WrittenRow): Promise<ChainVerdict | null> {
  // The guarded update still writes only while the row waits.
  if (written) return confirmRow({ ...written, id }, options, written.endpointAsset, written.arrivalBlock);
  const prisma = await db();
  const row = await prisma.routerPayment.findUnique({ where: { id }, select: WAITING_ROW });
  if (!row || !row.transactionId || row.confirmedAt || row.status !== "unconfirmed") return null;
  return confirmRow({ ...row, id, transactionId: row.transactionId }, options);
}

const WAITING_ROW = {
  status: true, transactionId: true, network: true, asset: true, payer: true, confirmedAt: true, authorizationNonce: true, quotedPayTo: true, advertisedAmount: true, relayedAt: true,
  listingId: true, endpointId: true,
} as const;

export type WrittenRow = Omit<WaitingRow, "id"> & { endpointAsset?: string | null; arrivalBlock?: bigint | null };

export type WaitingRow = { id: string; transactionId: string; network: string; asset: string; payer: string; authorizationNonce: string | null; quotedPayTo: string | null; advertisedAmount: string; relayedAt: Date | null; listingId: string; endpointId: string | null };

/**
 * The guarded write of a waiting row's verdict: only while it is still `unconfirmed`, unconfirmed and
 * naming this transaction. One parameterised UPDATE (the relay's statement after the answer; Prisma's
 * updateMany cost about 1.5 ms more CPU, docs/ROUTER.md "The hot path").
 */
async function settleWaiting(row: WaitingRow, set: Record<string, unknown>): Promise<void> {
  const casts: Record<string, string> = { status: '::"PaymentStatus"', blockNumber: "::bigint", transferLogIndex: "::int", confirmedAt: "::timestamptz AT TIME ZONE 'UTC'" };
  const columns = Object.keys(set);
  const params = columns.map((c) => {
    const v = set[c];
    return v instanceof Date ? v.toISOString() : typeof v === "bigint" ? v.toString() : v;
  });
  await rows(
    await clientOr(),
    `UPDATE "router_payments" SET ${columns.map((c, i) => `"${c}" = ($${i + 3}${casts[c] ?? ""})`).join(", ")}
      WHERE "id" = $1 AND "status" = 'unconfirmed' AND "confirmedAt" IS NULL AND "transactionId" = $2`,
    row.id,
    row.transactionId,
    ...params,
  );
}

async function confirmRow(row: WaitingRow, options: ReadOptions, endpointAsset?: string | null, arrivalBlock?: bigint | null): Promise<ChainVerdict> {
  const notListed = await wrongAsset(row, endpointAsset);
  const verdict = notListed
    ? unproven(notListed)
    : await readSettlement({ transaction: row.transactionId, network: row.network, asset: row.asset, payer: row.payer, nonce: row.authorizationNonce, payTo: row.quotedPayTo, amount: row.advertisedAmount, notBefore: row.relayedAt, seenAtOrAfterArrival: arrivalBlock }, options);
  if (verdict.status === "settled") {
    const c = verdict.chain;
    try {
      await settleWaiting(row, { status: "settled", settledAmount: c.amount, chainAmount: c.amount, chainFrom: c.from, chainTo: c.to, blockNumber: c.blockNumber, transferLogIndex: c.logIndex, reason: null, detail: null, confirmedAt: new Date() });
      return verdict;
    } catch (e) {
      if (!isUniqueViolation(e)) throw e;
      const prisma = await db();
      const claimed = await prisma.routerPayment.findFirst({ where: { network: row.network, transactionId: row.transactionId, transferLogIndex: c.logIndex }, select: { id: true } });
      const taken = unproven(`the transfer at log ${c.logIndex} of ${row.transactionId} is already claimed by ledger row ${claimed?.id ?? "another row"}`);
      await settleWaiting(row, { status: "failed", settledAmount: null, reason: "unproven", detail: taken.status === "failed" ? taken.detail : null, confirmedAt: new Date() });
      return taken;
    }
  }
  if (verdict.status === "failed") {
    await settleWaiting(row, { status: "failed", settledAmount: null, reason: verdict.reason, detail: verdict.detail, confirmedAt: new Date() });
  } else {
    await settleWaiting(row, { status: "unconfirmed", settledAmount: null, reason: verdict.reason, detail: verdict.detail });
  }
  return verdict;
}

/** A network whose chain cannot be read is asked once per tick. */
export async function confirmWaitingPayments(options: ReadOptions & { limit?: number } = {}): Promise<{ read: number; decided: number; skipped: number }> {
  const prisma = await db();
  const waiting = await prisma.routerPayment.findMany({
    where: { status: "unconfirmed", transactionId: { not: null }, confirmedAt: null },
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
