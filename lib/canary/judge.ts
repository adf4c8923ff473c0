/**
 * The canary's judgement (docs/CANARY.md "Outcomes"): an endpoint's outcome, its output against the declared schema,
 * the listing's verification. Pure.
 */
import { SchemaRefused, sellerSchemas, type ValidateFunction } from "@/lib/seller-schema";

export type SampleOutcome = "pass" | "degraded" | "broken";
export type Verification = "verified" | "degraded" | "unverified";
export type ReplayResult = "refused" | "idempotent" | "charged_twice" | "skipped";

/** Read to its last byte. */
export interface Relayed {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  ttlbMs: number;
}

export type LedgerRow = {
  id: string;
  status: string;
  reason: string | null;
  transactionId: string | null;
  chainAmount: string | null;
  chainTo: string | null;
  network: string;
  asset: string;
  blockNumber: bigint | null;
  httpStatus: number | null;
  latencyMs: number | null;
  house: boolean;
};

export function rowFacts(row: LedgerRow | null) {
  if (!row) return {};
  return {
    paymentId: row.id,
    paymentStatus: row.status,
    transactionId: row.transactionId,
    chainAmount: row.chainAmount,
    chainTo: row.chainTo,
    chainNetwork: row.status === "settled" ? row.network : null,
    chainAsset: row.status === "settled" ? row.asset.toLowerCase() : null,
    blockNumber: row.blockNumber,
  };
}

/** A 502 the relay answered for the seller. */
export function relayErrorCode(r: Relayed): string | null {
  if (r.status !== 502 || !/json/.test(r.headers["content-type"] ?? "")) return null;
  try {
    const code = (JSON.parse(r.body.toString("utf8")) as { error?: { code?: unknown } }).error?.code;
    return typeof code === "string" && code.startsWith("seller_") ? code : null;
  } catch {
    return null;
  }
}

/** Null when no schema is declared. */
export function checkOutput(schema: unknown, body: Buffer, contentType: string | null): { valid: boolean | null; errors: unknown } {
  if (!schema || typeof schema !== "object") return { valid: null, errors: null };
  let fn: ValidateFunction;
  try {
    fn = sellerSchemas.compile(schema);
  } catch (e) {
    if (!(e instanceof SchemaRefused)) throw e;
    const why = e.code === "schema_does_not_compile" ? "does not compile" : "is refused";
    return { valid: null, errors: [{ message: `the declared response schema ${why}: ${e.message}`, code: e.code }] };
  }
  if (contentType && !/json/i.test(contentType)) return { valid: false, errors: [{ message: `content type ${contentType} is not JSON` }] };
  let value: unknown;
  try {
    value = JSON.parse(body.toString("utf8"));
  } catch {
    return { valid: false, errors: [{ message: "the body is not JSON" }] };
  }
  const valid = fn(value);
  return { valid, errors: valid ? null : (fn.errors ?? []).slice(0, 10).map((x) => ({ instancePath: x.instancePath, keyword: x.keyword, message: x.message })) };
}

/** All passed → verified; any degraded or broken → degraded; else unverified. */
export function verificationOf(outcomes: Array<SampleOutcome | null>): Verification {
  if (outcomes.some((o) => o === "degraded" || o === "broken")) return "degraded";
  if (outcomes.length > 0 && outcomes.every((o) => o === "pass")) return "verified";
  return "unverified";
}

export interface JudgeInput {
  row: LedgerRow | null;
  httpStatus: number;
  quoted: { quotedAmount: string; quotedPayTo: string };
  schemaValid: boolean | null;
  ttlbMs: number | null;
  slowMs: number;
  replay: ReplayResult;
  relayError: string | null;
}

/** The worst finding, with every code of that grade. */
export function judge(x: JudgeInput): { outcome: SampleOutcome | null; reason: string } {
  const broken: string[] = [];
  const degraded: string[] = [];
  const none: string[] = [];
  const delivered = x.httpStatus >= 200 && x.httpStatus < 300;
  if (x.relayError === "seller_timeout") broken.push("timeout");
  else if (x.relayError) broken.push(x.relayError);
  if (!x.row) broken.push("unrecorded");
  else if (x.row.status === "rejected") none.push(`house_${x.row.reason ?? "rejected"}`);
  else if (x.row.status === "unconfirmed") none.push("chain_unreadable");
  else if (x.row.status === "unmeasured") none.push(x.row.reason ?? "unmeasured");
  else if (x.row.status === "failed") broken.push(x.row.reason === "unproven" ? "unproven" : "not_settled");
  else if (x.row.status === "settled") {
    if (!delivered && !x.relayError) broken.push("charged_without_delivery");
    if (x.row.chainAmount !== x.quoted.quotedAmount) degraded.push("charged_other_amount");
    if (x.row.chainTo?.toLowerCase() !== x.quoted.quotedPayTo.toLowerCase()) degraded.push("paid_other_payto");
  }
  if (!delivered && !x.relayError && x.row?.status !== "settled") broken.push(`http_${x.httpStatus}`);
  if (x.replay === "charged_twice") broken.push("charged_twice");
  if (delivered && x.schemaValid === false) degraded.push("invalid_output");
  if (delivered && x.ttlbMs !== null && x.ttlbMs > x.slowMs) degraded.push("slow");
  if (broken.length) return { outcome: "broken", reason: broken.join(",") };
  if (degraded.length) return { outcome: "degraded", reason: degraded.join(",") };
  if (none.length) return { outcome: null, reason: none.join(",") };
  return { outcome: "pass", reason: "pass" };
}

