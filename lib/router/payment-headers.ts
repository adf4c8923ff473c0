/**
 * Reading the payment a buyer sends through the relay, and the seller's claim that it settled, with
 * each protocol's own library (docs/ROUTER.md "Payments the relay reads"):
 *
 * - x402 v2 `PAYMENT-SIGNATURE` (@x402/core's PaymentPayloadV2 schema): payer and nonce from the signed
 *   EIP-3009 authorization, the quote (amount, asset, network, payTo) from the requirement the payment
 *   answered (`accepted`). The claim: `PAYMENT-RESPONSE`.
 * - x402 v1 `X-PAYMENT` (PaymentPayloadV1): `{ x402Version: 1, scheme, network, payload: { signature,
 *   authorization } }`. A v1 payload carries no `accepted`, so the amount and payTo are the signed
 *   authorization's `value` and `to`, and the network's v1 name ("base") becomes CAIP-2 through
 *   @x402/evm's v1 table. It names no asset: the caller supplies one (the listing's price asset on that
 *   network), else it is `unknown`. The claim: `X-PAYMENT-RESPONSE` (or `PAYMENT-RESPONSE`).
 * - MPP `Authorization: Payment <credential>` (or `Payment-Authorization`, mppx's header for servers
 *   that keep `Authorization` for themselves), read with mppx's `Credential.deserialize`: only the EVM
 *   `charge` method (`mppx/evm`): payer and nonce from the EIP-3009 authorization in the payload, the
 *   quote (amount, currency, recipient, chain id) from the challenge the credential answers. The
 *   claim: mppx's `Payment-Receipt`, whose `reference` is the settlement transaction.
 *
 * Anything else (not decodable, another scheme or method) reads as null: the relay records it
 * `failed` `malformed_payment`.
 */
import { decodePaymentResponseHeader, decodePaymentSignatureHeader } from "@x402/core/http";
import { PaymentPayloadV1Schema, PaymentPayloadV2Schema } from "@x402/core/schemas";
import { getEvmChainIdV1 } from "@x402/evm/v1";
import { Credential, Receipt } from "mppx";
import { ChargePayloadSchema, ChargeRequestSchema, networkOf } from "mppx/evm";
import { getAddress, isAddress, type Address, type Hex } from "viem";

export type PaymentProtocol = "x402" | "mpp";

/** The EIP-3009 authorization the buyer signed, as the token will check it. */
export interface SignedAuthorization {
  from: Address;
  to: Address;
  value: bigint;
  validAfter: bigint;
  validBefore: bigint;
  nonce: Hex;
}

export interface DecodedPayment {
  protocol: PaymentProtocol;
  /** x402's payload version (1 or 2); null for MPP. */
  x402Version: 1 | 2 | null;
  authorization: SignedAuthorization;
  signature: Hex;
  /**
   * The requirement the buyer says it answered, whole: x402 v2's `accepted`, MPP's challenge
   * `request`; x402 v1's payload names none (`{ scheme, network }` only).
   */
  requirement: Record<string, unknown>;
  /** x402 v2's `resource.url`, when the payload carries one. */
  resource: string | null;
  payer: string;
  /** The EIP-3009 authorization nonce (0x + 64 hex). */
  nonce: string;
  /** The quote the payment answered, in atomic units. */
  amount: string;
  /** null: the payment does not name its asset (x402 v1). */
  asset: string | null;
  /** CAIP-2. */
  network: string;
  payTo: string;
}

/** A payment header as the buyer sent it: which header, and its value. */
export interface PaymentHeader {
  header: "payment-signature" | "x-payment" | "authorization" | "payment-authorization";
  value: string;
  protocol: PaymentProtocol;
}

const NONCE = /^0x[0-9a-fA-F]{64}$/;
const ATOMIC = /^\d{1,38}$/;
const str = (v: unknown): string | null => (typeof v === "string" && v.length > 0 ? v : null);

/** The MPP credential scheme, as `Authorization` (or `Payment-Authorization`) carries it. */
export function isPaymentScheme(value: string | null): value is string {
  return value !== null && /^Payment\s+\S/i.test(value);
}

/**
 * The one payment header a request carries: x402's (`PAYMENT-SIGNATURE`, then `X-PAYMENT`) before
 * MPP's (`Authorization: Payment …`, then `Payment-Authorization: Payment …`); null without one.
 */
export function findPaymentHeader(headers: Headers): PaymentHeader | null {
  for (const header of ["payment-signature", "x-payment"] as const) {
    const value = headers.get(header);
    if (value !== null) return { header, value, protocol: "x402" };
  }
  for (const header of ["authorization", "payment-authorization"] as const) {
    const value = headers.get(header);
    if (isPaymentScheme(value)) return { header, value, protocol: "mpp" };
  }
  return null;
}

/** What a payment header says, or null when it does not decode to a payer, nonce and quote. */
export function decodePayment(header: PaymentHeader | string): DecodedPayment | null {
  const h = typeof header === "string" ? { header: "payment-signature" as const, value: header, protocol: "x402" as const } : header;
  return h.protocol === "mpp" ? decodeMppCredential(h.value) : decodeX402Payment(h.value);
}

const UINT = /^\d{1,78}$/;
const HEX = /^0x[0-9a-fA-F]+$/;

/** The signed EIP-3009 authorization and its signature, or null when any field is missing or malformed. */
function authorizationOf(payload: unknown): { authorization: SignedAuthorization; signature: Hex } | null {
  const p = payload as { authorization?: Record<string, unknown>; signature?: unknown } | null;
  const a = p?.authorization ?? (p as Record<string, unknown> | null);
  if (!a || typeof a !== "object") return null;
  const sig = p?.signature ?? (a as { signature?: unknown }).signature;
  const [from, to, nonce] = [str(a.from), str(a.to), str(a.nonce)];
  const uint = (v: unknown) => (typeof v === "string" && UINT.test(v) ? BigInt(v) : typeof v === "number" && Number.isSafeInteger(v) && v >= 0 ? BigInt(v) : null);
  const [value, validAfter, validBefore] = [uint(a.value), uint(a.validAfter), uint(a.validBefore)];
  if (!from || !isAddress(from) || !to || !isAddress(to) || !nonce || !NONCE.test(nonce)) return null;
  if (value === null || validAfter === null || validBefore === null || typeof sig !== "string" || !HEX.test(sig)) return null;
  return { authorization: { from: getAddress(from), to: getAddress(to), value, validAfter, validBefore, nonce: nonce.toLowerCase() as Hex }, signature: sig as Hex };
}

/** An x402 payment (v2 `PAYMENT-SIGNATURE` or v1 `X-PAYMENT`; the payload's own version decides). */
export function decodeX402Payment(value: string): DecodedPayment | null {
  let raw: unknown;
  try {
    raw = decodePaymentSignatureHeader(value);
  } catch {
    return null;
  }
  const v2 = PaymentPayloadV2Schema.safeParse(raw);
  if (v2.success) {
    const signed = authorizationOf(v2.data.payload);
    const a = v2.data.accepted;
    if (!signed || !ATOMIC.test(a.amount)) return null;
    const resource = (v2.data as { resource?: { url?: unknown } }).resource?.url;
    return {
      protocol: "x402", x402Version: 2, ...signed, requirement: a as unknown as Record<string, unknown>, resource: typeof resource === "string" ? resource : null,
      payer: signed.authorization.from, nonce: signed.authorization.nonce, amount: a.amount, asset: a.asset, network: a.network, payTo: a.payTo,
    };
  }
  const v1 = PaymentPayloadV1Schema.safeParse(raw);
  if (v1.success) {
    const signed = authorizationOf(v1.data.payload);
    if (!signed) return null;
    const network = caip2FromV1(v1.data.network);
    const { authorization: auth } = signed;
    return {
      protocol: "x402", x402Version: 1, ...signed, requirement: { scheme: v1.data.scheme, network: v1.data.network }, resource: null,
      payer: auth.from, nonce: auth.nonce, amount: auth.value.toString(), asset: null, network, payTo: auth.to,
    };
  }
  return null;
}

/** x402 v1's network names ("base", "base-sepolia", …) as CAIP-2; a CAIP-2 id or an unknown name stays as it is. */
export function caip2FromV1(network: string): string {
  if (network.includes(":")) return network;
  try {
    return `eip155:${getEvmChainIdV1(network)}`;
  } catch {
    return network;
  }
}

/** An MPP credential for mppx's EVM charge: payer and nonce from the payload, the quote from its challenge. */
export function decodeMppCredential(value: string): DecodedPayment | null {
  let credential: ReturnType<typeof Credential.deserialize>;
  try {
    credential = Credential.deserialize(value.trim());
  } catch {
    return null;
  }
  const challenge = credential.challenge;
  if (challenge.method !== "evm" || challenge.intent !== "charge") return null;
  const request = ChargeRequestSchema.safeParse(challenge.request);
  const payload = ChargePayloadSchema.safeParse(credential.payload);
  if (!request.success || !payload.success) return null;
  const signed = authorizationOf(payload.data);
  const { amount, currency, recipient, methodDetails } = request.data;
  if (!signed || !ATOMIC.test(amount) || !isAddress(currency) || !isAddress(recipient)) return null;
  return {
    protocol: "mpp", x402Version: null, ...signed, requirement: request.data as unknown as Record<string, unknown>, resource: null,
    payer: signed.authorization.from, nonce: signed.authorization.nonce, amount, asset: currency, network: networkOf(methodDetails.chainId), payTo: recipient,
  };
}

export interface SettlementClaim {
  /** The seller's decoded claim, kept as evidence (or `{ undecodable }`); null when it sent none. */
  claim: unknown;
  /** The transaction it names when the claim is a success; null otherwise. */
  transaction: string | null;
}

/** The seller's settlement claim for a payment of `protocol`, from its response headers (lower-case names). */
export function decodeSettlement(protocol: PaymentProtocol, headers: Record<string, string>): SettlementClaim {
  if (protocol === "mpp") {
    const header = headers["payment-receipt"];
    if (!header) return { claim: null, transaction: null };
    try {
      const receipt = Receipt.deserialize(header.trim());
      return { claim: receipt, transaction: receipt.status === "success" && receipt.reference ? receipt.reference : null };
    } catch {
      return { claim: { undecodable: header.slice(0, 512) }, transaction: null };
    }
  }
  const header = headers["payment-response"] ?? headers["x-payment-response"];
  if (!header) return { claim: null, transaction: null };
  try {
    const claim = decodePaymentResponseHeader(header) as { success?: unknown; transaction?: unknown };
    const transaction = claim?.success === true && typeof claim.transaction === "string" && claim.transaction ? claim.transaction : null;
    return { claim, transaction };
  } catch {
    return { claim: { undecodable: header.slice(0, 512) }, transaction: null };
  }
}
