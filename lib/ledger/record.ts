/** Writers of the ledger, health samples and price quotes; each validates its input. */
import { ATOMIC_AMOUNT } from "@/lib/amounts";
import { db } from "@/lib/db";
import { isUniqueViolation, type PrismaLike } from "@/lib/sql";
import { AppError } from "@/lib/errors";
import { HEALTH_CONFIDENCE } from "@/lib/scoring/signals";

export interface PaymentInput {
  listingId: string;
  endpointId?: string | null;
  payer: string;
  /** `rejected`: the buyer's own fault; `unmeasured`: no fault proven, moves no gate. */
  status: "settled" | "failed" | "unconfirmed" | "rejected" | "unmeasured";
  advertisedAmount: string;
  settledAmount?: string | null;
  asset: string;
  network: string;
  transactionId?: string | null;
  at?: Date;
  demo?: boolean;
  quotedPayTo?: string | null;
  httpStatus?: number | null;
  latencyMs?: number | null;
  paymentResponse?: unknown;
  reason?: string | null;
  house?: boolean;
  authorizationNonce?: string | null;
  protocol?: "x402" | "mpp" | null;
  relayedAt?: Date | null;
  detail?: string | null;
}

/** A replayed authorization is one row. */
const STATUSES: readonly PaymentInput["status"][] = ["settled", "failed", "unconfirmed", "rejected", "unmeasured"];

export async function recordPayment(input: PaymentInput): Promise<{ id: string; created: boolean }> {
  const payer = normalisePayer(input.payer);
  if (!payer) throw invalid("/payer", "must be a non-empty wallet id");
  if (!STATUSES.includes(input.status)) throw invalid("/status", `must be one of ${STATUSES.join(", ")}`);
  if (input.status === "rejected" && !input.reason) throw invalid("/reason", "a rejected payment names the buyer's fault that refused it");
  if (input.status === "unmeasured" && !input.reason) throw invalid("/reason", "an unmeasured payment names what could not be measured");
  if (!ATOMIC_AMOUNT.test(input.advertisedAmount)) throw invalid("/advertisedAmount", "must be an integer string of atomic units");
  const settledAmount = input.settledAmount ?? null;
  if (input.status === "settled" && (settledAmount === null || !ATOMIC_AMOUNT.test(settledAmount))) {
    throw invalid("/settledAmount", "a settled payment needs the settled amount as an integer string of atomic units");
  }
  if (input.status !== "settled" && settledAmount !== null) throw invalid("/settledAmount", `a${/^[aeiou]/.test(input.status) ? "n" : ""} ${input.status} payment has no settled amount`);
  if (!input.asset) throw invalid("/asset", "must be non-empty");
  if (!input.network) throw invalid("/network", "must be non-empty");
  if (input.protocol !== undefined && input.protocol !== null && input.protocol !== "x402" && input.protocol !== "mpp") throw invalid("/protocol", "must be x402 or mpp");
  const nonce = input.authorizationNonce ?? null;
  if (nonce !== null && !/^0x[0-9a-fA-F]{64}$/.test(nonce)) throw invalid("/authorizationNonce", "must be 0x and 64 hex digits");
  const prisma = await db();
  const data = {
    quotedPayTo: input.quotedPayTo ? normalisePayer(input.quotedPayTo) : null,
    httpStatus: input.httpStatus ?? null,
    latencyMs: input.latencyMs === null || input.latencyMs === undefined ? null : Math.round(input.latencyMs),
    paymentResponse: input.paymentResponse === undefined || input.paymentResponse === null ? undefined : (JSON.parse(JSON.stringify(input.paymentResponse)) as object),
    reason: input.reason ?? null,
    house: input.house ?? false,
    authorizationNonce: nonce === null ? null : nonce.toLowerCase(),
    protocol: input.protocol ?? null,
    relayedAt: input.relayedAt ?? null,
    detail: input.detail ? input.detail.slice(0, 1000) : null,
  };
  try {
    const row = await prisma.routerPayment.create({ data: { ...data, ...base(input, payer, settledAmount) }, select: { id: true } });
    return { id: row.id, created: true };
  } catch (e) {
    // Insert first, read only on the (payer, nonce) conflict (P2002 on a server, 23505 on PGlite).
    if (nonce !== null && isUniqueViolation(e)) {
      const prior = await prisma.routerPayment.findUnique({ where: { payer_authorizationNonce: { payer, authorizationNonce: nonce.toLowerCase() } }, select: { id: true } });
      if (prior) return { id: prior.id, created: false };
    }
    throw e;
  }
}

function base(input: PaymentInput, payer: string, settledAmount: string | null) {
  return {
    listingId: input.listingId,
    endpointId: input.endpointId ?? null,
    payer,
    status: input.status,
    advertisedAmount: input.advertisedAmount,
    settledAmount,
    asset: input.asset,
    network: input.network,
    transactionId: input.transactionId ?? null,
    demo: input.demo ?? false,
    ...(input.at ? { createdAt: input.at } : {}),
  };
}

export type HealthOutcome = "up" | "down";

export interface HealthSampleInput {
  listingId: string;
  at?: Date;
  outcome: HealthOutcome;
  httpStatus?: number | null;
  latencyMs?: number | null;
  confidence: number;
  challengeKind?: string | null;
  vantage: string;
  demo?: boolean;
}

const CONFIDENCES: readonly number[] = Object.values(HEALTH_CONFIDENCE);

export async function recordHealthSample(input: HealthSampleInput, client?: PrismaLike): Promise<{ id: string }> {
  if (input.outcome !== "up" && input.outcome !== "down") throw invalid("/outcome", "must be up or down");
  if (!CONFIDENCES.includes(input.confidence)) throw invalid("/confidence", `must be one of ${CONFIDENCES.join(", ")}`);
  if (!input.vantage) throw invalid("/vantage", "must be non-empty");
  const prisma = client ?? (await db());
  return prisma.healthSample.create({
    data: {
      listingId: input.listingId,
      outcome: input.outcome,
      httpStatus: input.httpStatus ?? null,
      latencyMs: input.latencyMs === null || input.latencyMs === undefined ? null : Math.round(input.latencyMs),
      confidence: input.confidence,
      challengeKind: input.challengeKind ?? null,
      vantage: input.vantage,
      demo: input.demo ?? false,
      ...(input.at ? { at: input.at } : {}),
    },
    select: { id: true },
  });
}

export interface QuoteInput {
  listingId: string;
  endpointId?: string | null;
  amount: string;
  asset: string;
  network: string;
  quotedAt: Date;
  source: string;
}

export async function recordQuote(input: QuoteInput): Promise<{ id: string }> {
  if (!ATOMIC_AMOUNT.test(input.amount)) throw invalid("/amount", "must be an integer string of atomic units");
  if (!input.asset) throw invalid("/asset", "must be non-empty");
  if (!input.network) throw invalid("/network", "must be non-empty");
  if (!input.source) throw invalid("/source", "must be non-empty");
  const prisma = await db();
  return prisma.priceQuote.create({
    data: {
      listingId: input.listingId,
      endpointId: input.endpointId ?? null,
      amount: input.amount,
      asset: input.asset,
      network: input.network,
      quotedAt: input.quotedAt,
      source: input.source,
    },
    select: { id: true },
  });
}

/** Two spellings of one wallet must not pass the distinct-buyer floor. */
export function normalisePayer(payer: string): string {
  const p = payer.trim();
  return /^0x[0-9a-fA-F]{40}$/.test(p) ? p.toLowerCase() : p;
}

function invalid(pointer: string, message: string): AppError {
  return new AppError("bad_request", `${pointer} ${message}`, [{ pointer, message }]);
}
