/** The paid checks (R4–R7, C6, H5–H9, S3) of one completed canary sample; the body's findings only, never the body. Pure. */
import { screenText, type ScreenMatch } from "@/lib/screen";
import type { Draft } from "./free";
import { referenceCheck, type ReferenceResult } from "./reference";

/** lib/canary's canary_samples columns. */
export interface SampleFacts {
  id: string;
  authorizationNonce: string | null;
  quotedAmount: string | null;
  quotedPayTo: string | null;
  quotedAsset: string | null;
  quotedNetwork: string | null;
  paymentId: string | null;
  paymentStatus: string | null;
  transactionId: string | null;
  chainAmount: string | null;
  chainTo: string | null;
  chainNetwork: string | null;
  chainAsset: string | null;
  blockNumber: bigint | number | string | null;
  httpStatus: number | null;
  ttlbMs: number | null;
  responseBytes: number | null;
  contentType: string | null;
  outputSha256: string | null;
  schemaValid: boolean | null;
  replay: string | null;
  replayStatus: number | null;
  outcome: string | null;
  reason: string | null;
}

/** Read while the body was in hand; the body is not kept. */
export interface OutputFacts {
  json: boolean;
  /** S3: the screen's matches. */
  screen: ScreenMatch[];
  /** R6: null where no reference exists. */
  reference: ReferenceResult | null;
}

/** Reads the body once; only the findings leave. */
export function outputFactsOf(body: Uint8Array, request: unknown): OutputFacts {
  const text = Buffer.from(body).toString("utf8");
  let parsed: unknown = undefined;
  let json = false;
  if (text.trim()) {
    try {
      parsed = JSON.parse(text);
      json = true;
    } catch {
      json = false;
    }
  }
  const screen = screenText(text).filter((m) => m.kind !== "secret_ask");
  return { json, screen, reference: json ? referenceCheck(request, parsed) : null };
}

const codes = (reason: string | null) => new Set((reason ?? "").split(",").map((s) => s.trim()).filter(Boolean));

/** [] when nothing was paid (no signed authorization sent). */
export function paidObservations(s: SampleFacts, output: OutputFacts | null): Draft[] {
  if (!s.authorizationNonce) return [];
  const why = codes(s.reason);
  // Interrupted before the answer, or no ledger row: nothing paid can be judged.
  if (!s.paymentStatus || s.paymentStatus === "rejected" || s.paymentStatus === "unmeasured" || [...why].some((c) => c.startsWith("interrupted_"))) {
    const reason = !s.paymentStatus
      ? `no ledger row for the payment (${s.reason ?? "unknown"})`
      : s.paymentStatus === "rejected"
        ? `the router refused the house's own payment (${s.reason})`
        : s.paymentStatus === "unmeasured"
          ? `neither party's fault could be proven (${s.reason})`
          : (s.reason ?? "interrupted");
    return PAID_CHECKS.map((check) => ({ check, outcome: check === "H9" ? "na" : "unmeasured", value: null, receipt: { sample: s.id, reason: check === "H9" ? NO_REFUND_RULE : reason } }));
  }
  const drafts: Draft[] = [];
  const put = (check: string, outcome: Draft["outcome"], receipt: Record<string, unknown>, value: number | null = null) => drafts.push({ check, outcome, value, receipt: { sample: s.id, ...receipt } });
  const settled = s.paymentStatus === "settled";
  const unconfirmed = s.paymentStatus === "unconfirmed";
  const delivered = s.httpStatus !== null && s.httpStatus >= 200 && s.httpStatus < 300;
  const relayFailure = [...why].find((c) => c === "timeout" || c.startsWith("seller_")) ?? null;
  const tx = { transaction: s.transactionId, block: s.blockNumber === null ? null : String(s.blockNumber), paymentStatus: s.paymentStatus };
  const answer = { httpStatus: s.httpStatus, responseBytes: s.responseBytes, contentType: s.contentType, outputSha256: s.outputSha256 };

  // R4: 2xx after settlement.
  if (unconfirmed) put("R4", "unmeasured", { ...tx, reason: "the chain could not be read: settlement unknown" });
  else put("R4", settled && delivered ? "pass" : "fail", { ...tx, ...answer, ...(relayFailure ? { relayFailure } : {}) });

  // R5: validates against the declared output schema; without one, non-empty (and JSON where declared).
  let r5: Draft["outcome"];
  let r5receipt: Record<string, unknown>;
  if (!delivered) [r5, r5receipt] = ["fail", { ...answer, reason: "no 2xx output" }];
  else if (s.schemaValid === true) [r5, r5receipt] = ["pass", { ...answer, rule: "validates against the declared response schema" }];
  else if (s.schemaValid === false) [r5, r5receipt] = ["fail", { ...answer, rule: "validates against the declared response schema", reason: "invalid_output" }];
  else if (!output) [r5, r5receipt] = ["unmeasured", { ...answer, reason: "the body was not in hand (a reconciled sample)" }];
  else if (!s.responseBytes) [r5, r5receipt] = ["fail", { ...answer, rule: "no declared schema: non-empty", reason: "empty output" }];
  else if (/json/i.test(s.contentType ?? "") && !output.json) [r5, r5receipt] = ["fail", { ...answer, rule: "no declared schema: JSON where JSON is declared", reason: "the body does not parse as JSON" }];
  else [r5, r5receipt] = ["pass", { ...answer, rule: "no declared schema: non-empty, and JSON where JSON is declared" }];
  put("R5", r5, r5receipt);

  // R7: request with payment to the last byte.
  if (relayFailure === "timeout") put("R7", "fail", { reason: "the relay's deadline passed: no last byte (no latency value)" });
  else if (s.ttlbMs === null) put("R7", "unmeasured", { reason: "no time to the last byte recorded" });
  else put("R7", "pass", { ttlbMs: s.ttlbMs, measure: "request with payment to the last byte, as the relay timed the seller's call" }, s.ttlbMs);

  // C6: PAYMENT-RESPONSE decodes to a settlement whose transaction the chain shows.
  if (unconfirmed) put("C6", "unmeasured", { ...tx, reason: "the chain could not be read" });
  else if (settled) put("C6", "pass", tx);
  else put("C6", "fail", { ...tx, reason: why.has("unproven") ? "the claimed transaction is not on chain" : "no settlement claimed" });

  // H5, H6: from the settled transaction.
  const quote = { amount: s.quotedAmount, payTo: s.quotedPayTo, network: s.quotedNetwork, asset: s.quotedAsset };
  const chain = { amount: s.chainAmount, to: s.chainTo, network: s.chainNetwork, asset: s.chainAsset };
  if (unconfirmed) {
    put("H5", "unmeasured", { ...tx, reason: "the chain could not be read" });
    put("H6", "unmeasured", { ...tx, reason: "the chain could not be read" });
  } else if (!settled) {
    put("H5", "na", { ...tx, reason: "no transfer: nothing was charged" });
    put("H6", "na", { ...tx, reason: "no transfer: nothing was paid" });
  } else {
    put("H5", s.chainAmount !== null && s.chainAmount === s.quotedAmount ? "pass" : "fail", { ...tx, quote, chain });
    const lc = (x: string | null) => x?.toLowerCase() ?? null;
    const toOk = !!s.chainTo && lc(s.chainTo) === lc(s.quotedPayTo) && s.chainNetwork === s.quotedNetwork && lc(s.chainAsset) === lc(s.quotedAsset);
    put("H6", toOk ? "pass" : "fail", { ...tx, quote, chain });
  }

  // H7: the same payment sent again is refused or idempotent.
  if (s.replay === "refused" || s.replay === "idempotent") put("H7", "pass", { replay: s.replay, replayStatus: s.replayStatus });
  else if (s.replay === "charged_twice") put("H7", "fail", { replay: s.replay, replayStatus: s.replayStatus });
  else put("H7", "unmeasured", { replay: s.replay, reason: "no replay was sent" });

  // H8: a settled transaction with a non-2xx, empty or invalid output fails.
  if (unconfirmed) put("H8", "unmeasured", { ...tx, reason: "the chain could not be read" });
  else if (!settled) put("H8", "na", { ...tx, reason: "nothing was charged" });
  else if (!delivered) put("H8", "fail", { ...tx, ...answer, reason: "charged_without_delivery: non-2xx" });
  else if (r5 === "fail") put("H8", "fail", { ...tx, ...answer, reason: `charged_without_delivery: ${String(r5receipt.reason ?? "invalid output")}` });
  else if (r5 === "unmeasured") put("H8", "unmeasured", { ...tx, ...answer, reason: "the output was not judged" });
  else put("H8", "pass", { ...tx, ...answer });

  // H9: shown, not weighted; no listing states a refund rule yet.
  put("H9", "na", { reason: NO_REFUND_RULE });

  // S3: the paid output's screen.
  if (!output) put("S3", "unmeasured", { reason: "the body was not in hand (a reconciled sample)" });
  else if (!s.responseBytes) put("S3", "na", { reason: "no output text" });
  else put("S3", output.screen.length ? "fail" : "pass", { outputSha256: s.outputSha256, matches: output.screen, screen: "pattern screen (lib/screen): it has an error rate" });

  // R6: against an independent reference, where one exists.
  if (output?.reference) put("R6", output.reference.outcome, { reference: output.reference.reference, compared: output.reference.compared });
  else if (!output && delivered) put("R6", "unmeasured", { reason: "the body was not in hand (a reconciled sample)" });
  else put("R6", "na", { reason: "no independent reference for this output" });

  return drafts;
}

const NO_REFUND_RULE = "the listing states no refund rule (the listing document has no refund field)";
export const PAID_CHECKS = ["R4", "R5", "R6", "R7", "C6", "H5", "H6", "H7", "H8", "H9", "S3"] as const;
