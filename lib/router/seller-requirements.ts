/**
 * Did the buyer sign what the seller asks? The seller's unpaid challenge compared field by field with the payment's
 * requirement; used only when a payment did not settle.
 */
import { decodePaymentRequiredHeader } from "@x402/core/http";
import { Challenge } from "mppx";
import type { DecodedPayment } from "./payment-headers";

/**
 * `unstable`: the payment answers one of the seller's requirements in every field the buyer's authorization signs
 * (scheme, network, amount, asset, payTo) and differs only in what it does not sign (`extra`, `maxTimeoutSeconds`,
 * the resource): the seller's challenge moved between the buyer's request and ours, which blames neither party.
 */
export type RequirementMatch = { match: true } | { match: false; detail: string } | { unstable: string } | { unreadable: string };

/** Header names lower-case. */
export interface UnpaidAnswer {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array;
}

const sameAddress = (a: unknown, b: unknown) => typeof a === "string" && typeof b === "string" && a.toLowerCase() === b.toLowerCase();

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** The fields of one of the seller's `accepts` the buyer's authorization signs; the first that differs. */
function signedMiss(offered: Record<string, unknown>, signed: Record<string, unknown>): string | null {
  for (const key of ["scheme", "network", "amount"]) if (String(offered[key]) !== String(signed[key])) return `${key} ${JSON.stringify(signed[key])} is not the seller's ${JSON.stringify(offered[key])}`;
  for (const key of ["asset", "payTo"]) if (!sameAddress(offered[key], signed[key])) return `${key} ${JSON.stringify(signed[key])} is not the seller's ${JSON.stringify(offered[key])}`;
  return null;
}

/** The rest of its fields, which no signature covers. */
function unsignedMiss(offered: Record<string, unknown>, signed: Record<string, unknown>): string | null {
  if (String(offered.maxTimeoutSeconds) !== String(signed.maxTimeoutSeconds)) return `maxTimeoutSeconds ${JSON.stringify(signed.maxTimeoutSeconds)} is not the seller's ${JSON.stringify(offered.maxTimeoutSeconds)}`;
  if (canonical(offered.extra ?? {}) !== canonical(signed.extra ?? {})) return "extra is not the seller's";
  return null;
}

function closest(misses: string[]): RequirementMatch {
  return { match: false, detail: misses.length ? `the payment answers none of the seller's requirements (${misses.join("; ")})` : "the seller offers no requirement for this payment's scheme" };
}

function matchX402V2(answer: UnpaidAnswer, payment: DecodedPayment): RequirementMatch {
  const header = answer.headers["payment-required"];
  if (!header) return { unreadable: `the seller's unpaid answer (${answer.status}) carries no PAYMENT-REQUIRED challenge` };
  let challenge: { accepts?: unknown[]; resource?: { url?: unknown } };
  try {
    challenge = decodePaymentRequiredHeader(header) as typeof challenge;
  } catch {
    return { unreadable: "the seller's PAYMENT-REQUIRED challenge does not decode" };
  }
  const resourceMiss = payment.resource !== null && typeof challenge.resource?.url === "string" && challenge.resource.url !== payment.resource ? `the payment names the resource ${payment.resource}, the seller ${challenge.resource.url}` : null;
  const misses: string[] = [];
  let unstable: string | null = null;
  for (const offered of challenge.accepts ?? []) {
    const signed = signedMiss(offered as Record<string, unknown>, payment.requirement);
    if (signed) {
      misses.push(signed);
      continue;
    }
    const unsigned = resourceMiss ?? unsignedMiss(offered as Record<string, unknown>, payment.requirement);
    if (!unsigned) return { match: true };
    unstable ??= unsigned;
  }
  if (unstable) return { unstable: `the payment answers the seller's requirement in every signed field, but ${unstable}` };
  return closest(misses);
}

function matchX402V1(answer: UnpaidAnswer, payment: DecodedPayment): RequirementMatch {
  let body: { accepts?: Record<string, unknown>[] };
  try {
    body = JSON.parse(Buffer.from(answer.body).toString("utf8")) as typeof body;
  } catch {
    return { unreadable: `the seller's unpaid answer (${answer.status}) is not an x402 v1 challenge body` };
  }
  if (!Array.isArray(body?.accepts)) return { unreadable: "the seller's x402 v1 challenge has no accepts" };
  const a = payment.authorization;
  const misses: string[] = [];
  for (const offered of body.accepts) {
    if (offered.scheme !== payment.requirement.scheme || offered.network !== payment.requirement.network) continue;
    if (String(offered.maxAmountRequired) !== a.value.toString()) misses.push(`value ${a.value} is not the seller's ${String(offered.maxAmountRequired)}`);
    else if (!sameAddress(offered.payTo, a.to)) misses.push(`to ${a.to} is not the seller's payTo ${String(offered.payTo)}`);
    else return { match: true };
  }
  return closest(misses);
}

function matchMpp(answer: UnpaidAnswer, payment: DecodedPayment): RequirementMatch {
  let challenges: ReturnType<typeof Challenge.fromHeadersList>;
  try {
    challenges = Challenge.fromHeadersList(new Headers(answer.headers));
  } catch {
    return { unreadable: `the seller's unpaid answer (${answer.status}) carries no MPP challenge that decodes` };
  }
  const signed = payment.requirement as { amount?: unknown; currency?: unknown; recipient?: unknown; methodDetails?: { chainId?: unknown } };
  const misses: string[] = [];
  for (const c of challenges) {
    if (c.method !== "evm" || c.intent !== "charge") continue;
    const r = c.request as typeof signed;
    if (String(r.amount) !== String(signed.amount)) misses.push(`amount ${String(signed.amount)} is not the seller's ${String(r.amount)}`);
    else if (!sameAddress(r.currency, signed.currency) || !sameAddress(r.recipient, signed.recipient)) misses.push("currency or recipient is not the seller's");
    else if (r.methodDetails?.chainId !== signed.methodDetails?.chainId) misses.push(`chain ${String(signed.methodDetails?.chainId)} is not the seller's ${String(r.methodDetails?.chainId)}`);
    else return { match: true };
  }
  return closest(misses);
}

export function matchRequirements(answer: UnpaidAnswer, payment: DecodedPayment): RequirementMatch {
  if (answer.status !== 402) return { unreadable: `the seller answered an unpaid request with ${answer.status}, not 402` };
  if (payment.protocol === "mpp") return matchMpp(answer, payment);
  return payment.x402Version === 1 ? matchX402V1(answer, payment) : matchX402V2(answer, payment);
}
