/** Writers of the ledger, health samples and price quotes; each validates its input. */
import { ATOMIC_AMOUNT } from "@/lib/amounts";
import { db } from "@/lib/db";
import { clientOr, rows, sortableRowId, type PrismaLike } from "@/lib/sql";
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
  // One parameterised INSERT, not Prisma's create: it is the relay's one statement before the answer,
  // and the query builder was 1–1.4 ms of CPU of it (docs/ROUTER.md "The hot path"). The same columns, the
  // same values; a (payer, nonce) already written answers that row.
  const client = await clientOr();
  const written = await rows<{ id: string }>(
    client,
    `INSERT INTO "router_payments" ("id", "listingId", "endpointId", "payer", "status", "advertisedAmount", "settledAmount", "asset", "network", "transactionId", "demo", "createdAt",
                                    "quotedPayTo", "httpStatus", "latencyMs", "paymentResponse", "reason", "house", "authorizationNonce", "protocol", "relayedAt", "detail")
     VALUES ($1, $2, $3, $4, $5::"PaymentStatus", $6, $7, $8, $9, $10, $11, (COALESCE($12::timestamptz, now()) AT TIME ZONE 'UTC'),
             $13, $14::int, $15::int, $16::jsonb, $17, $18, $19, $20, ($21::timestamptz AT TIME ZONE 'UTC'), $22)
     ON CONFLICT ("payer", "authorizationNonce") DO NOTHING
     RETURNING "id"`,
    sortableRowId(),
    input.listingId,
    input.endpointId ?? null,
    payer,
    input.status,
    input.advertisedAmount,
    settledAmount,
    input.asset,
    input.network,
    input.transactionId ?? null,
    input.demo ?? false,
    input.at ? input.at.toISOString() : null,
    input.quotedPayTo ? normalisePayer(input.quotedPayTo) : null,
    input.httpStatus ?? null,
    input.latencyMs === null || input.latencyMs === undefined ? null : Math.round(input.latencyMs),
    input.paymentResponse === undefined || input.paymentResponse === null ? null : JSON.stringify(input.paymentResponse),
    input.reason ?? null,
    input.house ?? false,
    nonce === null ? null : nonce.toLowerCase(),
    input.protocol ?? null,
    input.relayedAt ? input.relayedAt.toISOString() : null,
    input.detail ? input.detail.slice(0, 1000) : null,
  );
  if (written.length > 0) return { id: written[0].id, created: true };
  const prior = await heldAuthorization(payer, nonce!);
  if (prior === null) throw new Error(`router_payments: the insert for (${payer}, ${nonce}) wrote nothing and no row holds that nonce`);
  return { id: prior, created: false };
}

/** The row that already holds this (payer, authorization nonce), if any: a replay of it writes nothing. */
export async function heldAuthorization(payer: string, nonce: string): Promise<string | null> {
  const prisma = await db();
  const prior = await prisma.routerPayment.findUnique({ where: { payer_authorizationNonce: { payer: normalisePayer(payer), authorizationNonce: nonce.toLowerCase() } }, select: { id: true } });
  return prior?.id ?? null;
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
