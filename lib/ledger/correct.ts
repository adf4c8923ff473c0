/**
 * Corrections: a confirmed row is never rewritten (router_payments_written_once); a correction is a new row naming it
 * (`correctsId`) that keeps what was paid with the corrected verdict.
 */
import { ATOMIC_AMOUNT } from "@/lib/amounts";
import { db } from "@/lib/db";
import { AppError } from "@/lib/errors";
import { isUniqueViolation } from "@/lib/sql";

export interface PaymentCorrection {
  /** Final, never `unconfirmed`. */
  status: "settled" | "failed" | "rejected";
  reason: string;
  /** Required when settled (atomic units). */
  settledAmount?: string | null;
  /** Defaults to the corrected row's. */
  transactionId?: string | null;
  chain?: { from: string; to: string; amount: string; blockNumber: bigint } | null;
}

const STATUSES: readonly PaymentCorrection["status"][] = ["settled", "failed", "rejected"];

/** 404 when no such row; 409 while it waits for the chain or once corrected. */
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
        // The router_payments_correction trigger refuses anything else.
        listingId: old.listingId, endpointId: old.endpointId, payer: old.payer, advertisedAmount: old.advertisedAmount, asset: old.asset,
        network: old.network, createdAt: old.createdAt, quotedPayTo: old.quotedPayTo, protocol: old.protocol, house: old.house, demo: old.demo,
        httpStatus: old.httpStatus, latencyMs: old.latencyMs, paymentResponse: old.paymentResponse ?? undefined,
        status: c.status, reason: c.reason, settledAmount: c.settledAmount,
        transactionId: c.transactionId === undefined ? old.transactionId : c.transactionId,
        chainFrom: c.chain?.from.toLowerCase() ?? null, chainTo: c.chain?.to.toLowerCase() ?? null, chainAmount: c.chain?.amount ?? null,
        blockNumber: c.chain?.blockNumber ?? null, confirmedAt: new Date(),
      },
      select: { id: true },
    });
    return row;
  } catch (e) {
    // Two at once: the unique correctsId keeps the first.
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
