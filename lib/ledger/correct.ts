/**
 * Corrections to the settlement ledger. A confirmed row is never rewritten or deleted (the
 * router_payments_written_once trigger); a correction is a new row naming it (`correctsId`, one per
 * row) that keeps what was paid (listing, endpoint, payer, quote, protocol, time of the attempt; the
 * router_payments_correction trigger holds that) with the corrected verdict. The facts
 * (lib/facts/aggregate.ts) count a corrected row as its correction only.
 */
import { ATOMIC_AMOUNT } from "@/lib/amounts";
import { db } from "@/lib/db";
import { AppError } from "@/lib/errors";
import { isUniqueViolation } from "@/lib/sql";

export interface PaymentCorrection {
  /** The corrected verdict: a correction is final, never `unconfirmed`. */
  status: "settled" | "failed" | "rejected";
  /** Why the row is corrected, kept as the correction's reason. */
  reason: string;
  /** Required when settled (atomic units); none otherwise. */
  settledAmount?: string | null;
  /** The transaction the verdict is about; the corrected row's when left out. */
  transactionId?: string | null;
  /** What the chain shows for it, when read. */
  chain?: { from: string; to: string; amount: string; blockNumber: bigint } | null;
}

const STATUSES: readonly PaymentCorrection["status"][] = ["settled", "failed", "rejected"];

/** Write the correction of ledger row `oldId`: 404 when there is no such row, 409 while it still waits for the chain or once it has a correction. */
export async function correctPayment(oldId: string, correction: PaymentCorrection): Promise<{ id: string }> {
  const c = checked(correction);
  const prisma = await db();
  const old = await prisma.routerPayment.findUnique({ where: { id: oldId }, include: { correctedBy: { select: { id: true } } } });
  if (!old) throw new AppError("not_found", `ledger row ${oldId} does not exist`);
  if (old.status === "unconfirmed" && old.confirmedAt === null) throw new AppError("conflict", `ledger row ${oldId} still waits for the chain: it is confirmed, not corrected`);
  if (old.correctedBy) throw new AppError("conflict", `ledger row ${oldId} is already corrected by ${old.correctedBy.id}: correct that row instead`);
  try {
    const row = await prisma.routerPayment.create({
      data: {
        correctsId: old.id,
        // What was paid, as the corrected row has it (the trigger refuses anything else).
        listingId: old.listingId, endpointId: old.endpointId, payer: old.payer, advertisedAmount: old.advertisedAmount, asset: old.asset,
        network: old.network, createdAt: old.createdAt, quotedPayTo: old.quotedPayTo, protocol: old.protocol, house: old.house, demo: old.demo,
        httpStatus: old.httpStatus, latencyMs: old.latencyMs, paymentResponse: old.paymentResponse ?? undefined,
        // The corrected verdict.
        status: c.status, reason: c.reason, settledAmount: c.settledAmount,
        transactionId: c.transactionId === undefined ? old.transactionId : c.transactionId,
        chainFrom: c.chain?.from.toLowerCase() ?? null, chainTo: c.chain?.to.toLowerCase() ?? null, chainAmount: c.chain?.amount ?? null,
        blockNumber: c.chain?.blockNumber ?? null, confirmedAt: new Date(),
      },
      select: { id: true },
    });
    return row;
  } catch (e) {
    // Two corrections of one row at once: the unique correctsId keeps the first.
    if (isUniqueViolation(e)) throw new AppError("conflict", `ledger row ${oldId} is already corrected: correct that row instead`);
    throw e;
  }
}

function checked(c: PaymentCorrection): Required<Omit<PaymentCorrection, "transactionId" | "chain">> & Pick<PaymentCorrection, "transactionId" | "chain"> {
  if (!STATUSES.includes(c.status)) throw invalid("/status", `must be one of ${STATUSES.join(", ")} (a correction is final)`);
  if (typeof c.reason !== "string" || c.reason.trim() === "") throw invalid("/reason", "a correction says why");
  const settledAmount = c.settledAmount ?? null;
  if (c.status === "settled" && (settledAmount === null || !ATOMIC_AMOUNT.test(settledAmount))) throw invalid("/settledAmount", "a settled correction needs the settled amount as an integer string of atomic units");
  if (c.status !== "settled" && settledAmount !== null) throw invalid("/settledAmount", `a ${c.status} correction has no settled amount`);
  if (c.chain && !ATOMIC_AMOUNT.test(c.chain.amount)) throw invalid("/chain/amount", "must be an integer string of atomic units");
  return { status: c.status, reason: c.reason.trim(), settledAmount, transactionId: c.transactionId, chain: c.chain ?? null };
}

function invalid(pointer: string, message: string): AppError {
  return new AppError("bad_request", `${pointer} ${message}`, [{ pointer, message }]);
}
