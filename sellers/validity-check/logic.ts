/**
 * The validity-check computation, pure: a contract-checked artefact (contract.ts) and a stated
 * instant in, the delivery out. Nothing here reads a clock, a network or a store.
 *
 * - The upto statement (docs/spec/products.md "Validity-check computation rule"): the ceiling exactly
 *   as submitted, its exact decimal rendering at the stated asset_decimals (zero-padded, never
 *   trimmed) or NOT-ESTABLISHABLE-FROM-ARTEFACT, the machinery status from the closed list
 *   (docs/spec/products.md "Validity-check machinery statuses"; the rule is docs/VALIDITY-CHECK.md
 *   "Machinery status"), and the one-signature-one-settlement property.
 * - The validity analysis: time remaining at the stated evaluation instant only, the verdict under
 *   docs/spec/products.md "Validity-check tight thresholds", and the guidance text of
 *   docs/spec/products.md "Validity-check guidance", verbatim.
 * - The pre-check's facts (docs/spec/products.md "Validity-check free pre-check"): no ceiling
 *   statement, no time remaining, no verdict.
 *
 * There is no composite score anywhere (docs/spec/products.md "Validity-check honesty line").
 */
import type { Op, PrecheckInput, UptoChallenge, UptoInput, ValidityInput } from "./contract";

export const SERVICE = "validity-check";
export const SERVICE_VERSION = "1.0.0";
export const CRITERIA_ID = "payer-preflight/v1";
export const CRITERIA_REVISION = "1.0.0";
export const NOT_ESTABLISHABLE = "NOT-ESTABLISHABLE-FROM-ARTEFACT";

export const MACHINERY_STATUSES = [
  "ALLOWANCE-ALREADY-SUFFICIENT",
  "APPROVAL-SPONSORED-BY-FACILITATOR",
  "APPROVAL-TRANSACTION-REQUIRED",
  "NOT-ESTABLISHABLE-FROM-ARTEFACT",
  "NO-UPTO-MACHINERY-FOR-NETWORK-IN-RECORD",
] as const;
export type MachineryStatus = (typeof MACHINERY_STATUSES)[number];

export const VERDICTS = ["STALE", "TIGHT", "OK"] as const;
export type Verdict = (typeof VERDICTS)[number];

/** docs/spec/products.md "Validity-check tight thresholds". */
export const THRESHOLDS = {
  evm: { unit: "seconds", tight_max_remaining: 60, rule: "STALE when remaining <= 0; TIGHT when 0 < remaining <= 60; OK when remaining > 60." },
  svm: {
    unit: "slots",
    tight_max_remaining: 150,
    rule: "STALE when slots <= 0; TIGHT when 0 < slots <= 150 (about 60 s at the stated 0.4 s/slot approximation); OK when slots > 150. The verdict is computed in slots; the seconds figure is a labelled approximation only.",
  },
} as const;

/** docs/spec/products.md "Validity-check guidance", verbatim. */
export const GUIDANCE: Record<Verdict, string> = {
  STALE:
    "ABORT — do not submit or settle this payload: it is expired at the stated evaluation instant. Abort and re-quote: obtain a fresh challenge and a fresh payload, then re-check validity before signing or submitting.",
  TIGHT:
    "TIGHT — the remaining window is inside the published tight threshold. Submit immediately, or abort and re-quote: any delay (signing, human approval, a retry) may expire the payload mid-flight.",
  OK: "OK — the payload remains valid at the stated evaluation instant. Submit promptly: validity is still bounded by the printed expiry, and this verdict does not extend it.",
};

/** The property the upto scheme states (docs/VALIDITY-CHECK.md "One signature, one settlement"). */
export const ONE_SIGNATURE_ONE_SETTLEMENT =
  "ONE-SIGNATURE-ONE-SETTLEMENT: under the upto scheme one payer signature authorizes one settlement, of any amount up to maximum_signable_atomic and never more; the signed authorization's nonce is spent by that settlement, so a further settlement needs a new signature.";

export const SVM_APPROXIMATION_LABEL =
  "APPROXIMATION: remaining slots x 0.4 s (the stated slot-time approximation); it does not decide the verdict.";

/** The fields every delivery and pre-check answer carries first. */
export interface Envelope {
  service: typeof SERVICE;
  version: typeof SERVICE_VERSION;
  criteria_id: typeof CRITERIA_ID;
  criteria_revision: typeof CRITERIA_REVISION;
  op: Op | null;
}

export function envelope(op: Op | null): Envelope {
  return { service: SERVICE, version: SERVICE_VERSION, criteria_id: CRITERIA_ID, criteria_revision: CRITERIA_REVISION, op };
}

export type NetworkKind = "evm" | "svm" | "other";

/** The kind of a CAIP-2 network id: eip155:* is EVM, solana:* is SVM, anything else is other. */
export function networkKind(network: string): NetworkKind {
  if (/^eip155:[0-9]+$/.test(network)) return "evm";
  if (/^solana:[1-9A-HJ-NP-Za-km-z]+$/.test(network)) return "svm";
  return "other";
}

/**
 * An atomic amount at `decimals`: the integer part, then (for decimals > 0) a point and exactly
 * `decimals` fractional digits, zero-padded and never trimmed. Exact: no rounding anywhere.
 */
export function decimalRendering(atomic: bigint, decimals: number): string {
  if (atomic < 0n) throw new RangeError("decimalRendering: a negative amount");
  if (decimals === 0) return atomic.toString();
  const scale = 10n ** BigInt(decimals);
  return `${atomic / scale}.${(atomic % scale).toString().padStart(decimals, "0")}`;
}

/** The machinery status of an upto challenge (docs/VALIDITY-CHECK.md "Machinery status"). */
export function machineryStatus(c: Pick<UptoChallenge, "network" | "permit2_allowance_sufficient" | "facilitator_sponsors_approval">): MachineryStatus {
  if (networkKind(c.network) !== "evm") return "NO-UPTO-MACHINERY-FOR-NETWORK-IN-RECORD";
  if (c.permit2_allowance_sufficient === true) return "ALLOWANCE-ALREADY-SUFFICIENT";
  if (c.facilitator_sponsors_approval === true) return "APPROVAL-SPONSORED-BY-FACILITATOR";
  if (c.permit2_allowance_sufficient === false && c.facilitator_sponsors_approval === false) return "APPROVAL-TRANSACTION-REQUIRED";
  return "NOT-ESTABLISHABLE-FROM-ARTEFACT";
}

export interface UptoStatement extends Envelope {
  op: "upto";
  issued_at_unix: number;
  issued_at: string;
  scheme: "upto";
  network: string;
  network_kind: NetworkKind;
  payTo: string;
  asset: string;
  maximum_signable_atomic: string;
  asset_decimals: number | typeof NOT_ESTABLISHABLE;
  maximum_signable_decimal: string;
  permit2_allowance_sufficient: boolean | typeof NOT_ESTABLISHABLE;
  facilitator_sponsors_approval: boolean | typeof NOT_ESTABLISHABLE;
  machinery_status: MachineryStatus;
  settlement_property: string;
  not_establishable: string[];
}

/** The ceiling-exposure statement for one upto challenge, issued at `issuedAtUnix`. */
export function uptoStatement(input: UptoInput, issuedAtUnix: number): UptoStatement {
  const c = input.challenge;
  const submitted = typeof c.max_amount_required === "number" ? String(c.max_amount_required) : c.max_amount_required;
  const notEstablishable: string[] = [];
  let decimal: string;
  if (c.asset_decimals === undefined) {
    decimal = NOT_ESTABLISHABLE;
    notEstablishable.push("asset_decimals", "maximum_signable_decimal");
  } else {
    decimal = decimalRendering(BigInt(submitted), c.asset_decimals);
  }
  const flag = (v: boolean | undefined, name: string) => {
    if (v !== undefined) return v;
    notEstablishable.push(name);
    return NOT_ESTABLISHABLE;
  };
  const permit2 = flag(c.permit2_allowance_sufficient, "permit2_allowance_sufficient");
  const sponsors = flag(c.facilitator_sponsors_approval, "facilitator_sponsors_approval");
  const status = machineryStatus(c);
  if (status === "NOT-ESTABLISHABLE-FROM-ARTEFACT") notEstablishable.push("machinery_status");
  return {
    ...envelope("upto"),
    op: "upto",
    issued_at_unix: issuedAtUnix,
    issued_at: isoOf(issuedAtUnix),
    scheme: "upto",
    network: c.network,
    network_kind: networkKind(c.network),
    payTo: c.payTo,
    asset: c.asset,
    maximum_signable_atomic: submitted,
    asset_decimals: c.asset_decimals ?? NOT_ESTABLISHABLE,
    maximum_signable_decimal: decimal,
    permit2_allowance_sufficient: permit2,
    facilitator_sponsors_approval: sponsors,
    machinery_status: status,
    settlement_property: ONE_SIGNATURE_ONE_SETTLEMENT,
    not_establishable: notEstablishable,
  };
}

interface ValidityCommon extends Envelope {
  op: "validity";
  evaluation_instant_unix: number;
  evaluation_instant: string;
  evaluation_instant_source: "submitted" | "server-time";
  verdict: Verdict;
  guidance: string;
}
export interface EvmValidityAnalysis extends ValidityCommon {
  rail: "evm";
  valid_before: number;
  remaining_seconds: number;
  threshold: typeof THRESHOLDS.evm;
}
export interface SvmValidityAnalysis extends ValidityCommon {
  rail: "svm";
  last_valid_block_height: number;
  current_block_height: number;
  remaining_slots: number;
  approximate_remaining_seconds: string;
  approximate_remaining_seconds_label: string;
  threshold: typeof THRESHOLDS.svm;
}
export type ValidityAnalysis = EvmValidityAnalysis | SvmValidityAnalysis;

/** The evaluation instant a validity body states (body level first, then inside the payload), or null. */
export function statedInstant(input: ValidityInput): number | null {
  return input.evaluation_at_unix ?? input.payload.evaluation_at_unix ?? null;
}

/** STALE at or below zero, TIGHT up to and including the tight maximum, OK above it. */
export function verdictOf(remaining: number, tightMax: number): Verdict {
  if (remaining <= 0) return "STALE";
  if (remaining <= tightMax) return "TIGHT";
  return "OK";
}

/** Slots x 0.4 s as an exact one-place decimal string (slots x 4 tenths). */
export function approximateSeconds(slots: number): string {
  const tenths = BigInt(slots) * 4n;
  const sign = tenths < 0n ? "-" : "";
  const abs = tenths < 0n ? -tenths : tenths;
  return `${sign}${abs / 10n}.${abs % 10n}`;
}

/**
 * The validity analysis of one payload at the stated evaluation instant: the caller's
 * evaluation_at_unix when it states one, else `serverNowUnix` (printed as such).
 */
export function validityAnalysis(input: ValidityInput, serverNowUnix: number): ValidityAnalysis {
  const stated = statedInstant(input);
  const at = stated ?? serverNowUnix;
  const common = {
    ...envelope("validity"),
    op: "validity" as const,
    evaluation_instant_unix: at,
    evaluation_instant: isoOf(at),
    evaluation_instant_source: stated === null ? ("server-time" as const) : ("submitted" as const),
  };
  const p = input.payload;
  if (p.rail === "evm") {
    const validBefore = p.valid_before as number;
    const remaining = validBefore - at; // both exact (contract.ts), so the difference is too
    const verdict = verdictOf(remaining, THRESHOLDS.evm.tight_max_remaining);
    return { ...common, rail: "evm", valid_before: validBefore, remaining_seconds: remaining, threshold: THRESHOLDS.evm, verdict, guidance: GUIDANCE[verdict] };
  }
  const last = p.last_valid_block_height as number;
  const current = p.current_block_height as number;
  const slots = last - current;
  const verdict = verdictOf(slots, THRESHOLDS.svm.tight_max_remaining);
  return {
    ...common,
    rail: "svm",
    last_valid_block_height: last,
    current_block_height: current,
    remaining_slots: slots,
    approximate_remaining_seconds: approximateSeconds(slots),
    approximate_remaining_seconds_label: SVM_APPROXIMATION_LABEL,
    threshold: THRESHOLDS.svm,
    verdict,
    guidance: GUIDANCE[verdict],
  };
}

export type PrecheckFacts =
  | { scheme: "upto"; network_kind: NetworkKind; ceiling_present: boolean; decimals_present: boolean }
  | { rail: "evm" | "svm"; evaluation_instant_submitted: boolean };

/** The artefact facts a pre-check may state, and nothing more. */
export function precheckFacts(checked: PrecheckInput): PrecheckFacts {
  if (checked.op === "upto") {
    const c = checked.input.challenge;
    return { scheme: c.scheme, network_kind: networkKind(c.network), ceiling_present: c.max_amount_required !== undefined, decimals_present: c.asset_decimals !== undefined };
  }
  return { rail: checked.input.payload.rail, evaluation_instant_submitted: statedInstant(checked.input) !== null };
}

/**
 * The ledger's verdict line for a delivery: closed-form (a verdict or a machinery status from the
 * closed lists), never any artefact content.
 */
export function verdictLine(delivery: UptoStatement | ValidityAnalysis): string {
  return delivery.op === "upto" ? `upto ${delivery.machinery_status}` : `validity ${delivery.rail} ${delivery.verdict}`;
}

function isoOf(unix: number): string {
  return new Date(unix * 1000).toISOString();
}
