/**
 * The buyer's payment and the seller's settlement claim, read with each protocol's own library (docs/ROUTER.md
 * "Payments the relay reads").
 */
import { decodePaymentResponseHeader, decodePaymentSignatureHeader } from "@x402/core/http";
import { PaymentPayloadV1Schema, PaymentPayloadV2Schema } from "@x402/core/schemas";
import { getEvmChainIdV1 } from "@x402/evm/v1";
import { Credential, Receipt } from "mppx";
import { ChargePayloadSchema, ChargeRequestSchema, networkOf } from "mppx/evm";
import { getAddress, isAddress, type Address, type Hex } from "viem";

export type PaymentProtocol = "x402" | "mpp";

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
  x402Version: 1 | 2 | null;
  authorization: SignedAuthorization;
  signature: Hex;
  requirement: Record<string, unknown>;
  resource: string | null;
  payer: string;
  nonce: string;
  amount: string;
  asset: string | null;
  network: string;
  payTo: string;
}

export interface PaymentHeader {
  header: "payment-signature" | "x-payment" | "authorization" | "payment-authorization";
  value: string;
  protocol: PaymentProtocol;
}

const NONCE = /^0x[0-9a-fA-F]{64}$/;
const ATOMIC = /^\d{1,38}$/;
const str = (v: unknown): string | null => (typeof v === "string" && v.length > 0 ? v : null);

export function isPaymentScheme(value: string | null): value is string {
  return value !== null && /^Payment\s+\S/i.test(value);
}

/** x402's before MPP's. */
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

export function decodePayment(header: PaymentHeader | string): DecodedPayment | null {
  const h = typeof header === "string" ? { header: "payment-signature" as const, value: header, protocol: "x402" as const } : header;
  return h.protocol === "mpp" ? decodeMppCredential(h.value) : decodeX402Payment(h.value);
}

const UINT = /^\d{1,78}$/;
const HEX = /^0x[0-9a-fA-F]+$/;

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

export function caip2FromV1(network: string): string {
  if (network.includes(":")) return network;
  try {
    return `eip155:${getEvmChainIdV1(network)}`;
  } catch {
    return network;
  }
}

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
  claim: unknown;
  transaction: string | null;
}

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
