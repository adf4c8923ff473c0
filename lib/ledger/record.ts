/**
 * Writes to the settlement ledger (`router_payments`), the monitor's health samples and the price
 * quotes seen in 402 challenges: the raw facts the rank sweep aggregates (lib/facts/aggregate.ts).
 * Each writer validates its input, so a malformed row never reaches an aggregate.
 */
import { ATOMIC_AMOUNT } from "@/lib/amounts";
import { db } from "@/lib/db";
import { isUniqueViolation, type PrismaLike } from "@/lib/sql";
import { AppError } from "@/lib/errors";
import { HEALTH_CONFIDENCE } from "@/lib/scoring/signals";

export interface PaymentInput {
  listingId: string;
  endpointId?: string | null;
  /** The paying wallet. EVM addresses are compared lower-cased, so one wallet is one payer. */
  payer: string;
  /**
   * `unconfirmed`: relayed, naming a transaction the chain has not been read for yet. `rejected`:
   * refused for the buyer's own fault (its reason says which); it counts against no seller.
   * `unmeasured`: not settled, and neither party's fault could be proven; it moves no gate.
   */
  status: "settled" | "failed" | "unconfirmed" | "rejected" | "unmeasured";
  /** The quote the payment answered: atomic units as integer strings (USDC: 6 decimals). */
  advertisedAmount: string;
  /** Required when settled: what the buyer actually paid. */
  settledAmount?: string | null;
  asset: string;
  network: string;
  transactionId?: string | null;
  at?: Date;
  demo?: boolean;
  /** What a relay records (lib/router/relay-call.ts): the quote's payTo, the seller's answer and its claim. */
  quotedPayTo?: string | null;
  httpStatus?: number | null;
  latencyMs?: number | null;
  paymentResponse?: unknown;
  reason?: string | null;
  /** The catalog's own wallets: never traction or price evidence. */
  house?: boolean;
  /** The EIP-3009 authorization nonce: with the payer, recorded once however often it is replayed. */
  authorizationNonce?: string | null;
  /** Which protocol carried the payment through the relay. */
  protocol?: "x402" | "mpp" | null;
  /** When the relay received the payment (a settlement may not be older). */
  relayedAt?: Date | null;
  /** The reason in words a seller can act on. */
  detail?: string | null;
}

/**
 * Record one payment attempt. `created` is false when the (payer, authorization nonce) was already
 * recorded: a replayed authorization is one row, and `id` is that row's.
 */
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
    // A replayed authorization (or two relays of one at once): the unique (payer, nonce) index keeps
    // one row. Inserting first and reading only on that conflict keeps a new attempt to one statement.
    // (Server Postgres reports it as Prisma's P2002; PGlite's adapter as the raw 23505.)
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
  /** One of HEALTH_CONFIDENCE's values (1.0, 0.6, 0.3, 0). */
  confidence: number;
  challengeKind?: string | null;
  vantage: string;
  demo?: boolean;
}

const CONFIDENCES: readonly number[] = Object.values(HEALTH_CONFIDENCE);

/** Record one health sample; with `client`, inside the caller's transaction (the sweep writes its trust observations with it). */
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
  /** Atomic units as an integer string. */
  amount: string;
  asset: string;
  network: string;
  quotedAt: Date;
  /** Where the quote was seen, e.g. "health-sweep:x402-v2". */
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

/** EVM addresses are case-insensitive; counting `0xAbC…` and `0xabc…` as two payers would let one wallet pass the distinct-buyer floor. */
export function normalisePayer(payer: string): string {
  const p = payer.trim();
  return /^0x[0-9a-fA-F]{40}$/.test(p) ? p.toLowerCase() : p;
}

function invalid(pointer: string, message: string): AppError {
  return new AppError("bad_request", `${pointer} ${message}`, [{ pointer, message }]);
}
