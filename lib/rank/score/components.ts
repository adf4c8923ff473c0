/** The rank score's parts (docs/RANK.md "Formulas"), each with its value, facts and reason; `explain = false` leaves reasons empty. */
import { clamp01, isoString, SETTLE_GATE_FACTOR, type SettleGate } from "@/lib/scoring/signals";
import {
  DAY_MS,
  FEATURED_FORCED_WHEN_UNPAYABLE,
  FEATURED_MAX_LEVEL,
  FEATURED_STEP,
  MIN_DISTINCT_PAYERS,
  PRICE_INTEGRITY_ADVERTISED,
  PRICE_INTEGRITY_NO_PRICE,
  QUALITY_WEIGHTS,
  QUOTE_MAX_AGE_DAYS,
  TRACTION_FULL_PAYERS,
  VERIFICATION_FACTOR,
  type VerificationStatus,
} from "./constants";

export interface Component<F> {
  value: number;
  reason: string;
  facts: F;
}

export interface TractionFacts {
  distinctPayers30d: number;
  /** Below it traction is 0 ("Self-pay resistance"). */
  floor: number;
  fullAt: number;
  floored: boolean;
}

/** Distinct payers in 30 days ÷ 50, capped at 1; 0 below 2. */
export function traction(input: { distinctPayers30d: number }, explain = true): Component<TractionFacts> {
  const payers = input.distinctPayers30d;
  assertCount("distinctPayers30d", payers);
  if (payers < MIN_DISTINCT_PAYERS) {
    // One wallet, possibly the owner's, cannot manufacture demand.
    return {
      value: 0,
      reason: explain ? `${payers} distinct payer${payers === 1 ? "" : "s"} in 30 days, below the floor of ${MIN_DISTINCT_PAYERS} (MIN_DISTINCT_PAYERS)` : "",
      facts: tractionFacts(payers, true),
    };
  }
  const value = Math.min(1, payers / TRACTION_FULL_PAYERS);
  return {
    value,
    reason: !explain
      ? ""
      : value === 1
        ? `${payers} distinct payers in 30 days, at or above ${TRACTION_FULL_PAYERS}: full traction`
        : `${payers} distinct payers in 30 days ÷ ${TRACTION_FULL_PAYERS}`,
    facts: tractionFacts(payers, false),
  };
}

// Module-level, not a closure per call: the sweep calls these 100,000 times a tick.
function tractionFacts(payers: number, floored: boolean): TractionFacts {
  return { distinctPayers30d: payers, floor: MIN_DISTINCT_PAYERS, fullAt: TRACTION_FULL_PAYERS, floored };
}

/** Null below MIN_DISTINCT_PAYERS: one wallet paying itself cannot certify a price. */
export function publicSettledPrice(input: { distinctPayers30d: number; medianSettledPrice: number | null }): number | null {
  assertCount("distinctPayers30d", input.distinctPayers30d);
  if (input.distinctPayers30d < MIN_DISTINCT_PAYERS) return null;
  return input.medianSettledPrice;
}

export interface Quote {
  price: number;
  quotedAt: string;
}

export interface PriceIntegrityInput {
  distinctPayers30d: number;
  medianSettledPrice: number | null;
  advertisedPrice: number | null;
  quote: Quote | null;
  priceLabel: string | null;
  now: Date;
}

export type PriceIntegrityBasis = "settled" | "advertised" | "none";

export interface PriceIntegrityFacts {
  distinctPayers30d: number;
  medianSettledPrice: number | null;
  advertisedPrice: number | null;
  quote: Quote | null;
  quoteAgeDays: number | null;
  /** Under QUOTE_MAX_AGE_DAYS and not in the future; only then does it feed price integrity. */
  quoteFresh: boolean;
  priceLabel: string | null;
  referencePrice: number | null;
  referenceSource: "advertisedPrice" | "quote" | null;
  divergence: number | null;
  basis: PriceIntegrityBasis;
  now: string;
}

/**
 * With ≥ 2 payers: 1 − clamp01(|median settled − advertised| ÷ advertised); else 0.7 when a price is
 * advertised (price, label or fresh quote), else 0.3. The readings: docs/RANK.md "Price integrity".
 */
export function priceIntegrity(input: PriceIntegrityInput, explain = true): Component<PriceIntegrityFacts> {
  const { distinctPayers30d, medianSettledPrice, advertisedPrice, quote, now } = input;
  assertCount("distinctPayers30d", distinctPayers30d);
  const priceLabel = input.priceLabel && input.priceLabel.trim() !== "" ? input.priceLabel : null;

  let quoteAgeDays: number | null = null;
  let quoteFresh = false;
  if (quote) {
    quoteAgeDays = (now.getTime() - Date.parse(quote.quotedAt)) / DAY_MS;
    // An unparsable date (NaN) is never fresh.
    quoteFresh = quoteAgeDays >= 0 && quoteAgeDays < QUOTE_MAX_AGE_DAYS && isPositive(quote.price);
  }

  let referencePrice: number | null = null;
  let referenceSource: PriceIntegrityFacts["referenceSource"] = null;
  if (isPositive(advertisedPrice)) {
    referencePrice = advertisedPrice;
    referenceSource = "advertisedPrice";
  } else if (quoteFresh && quote) {
    referencePrice = quote.price;
    referenceSource = "quote";
  }

  // One literal (no spread, no closure: both showed in the sweep), so the key order is the same for every basis.

  if (distinctPayers30d >= MIN_DISTINCT_PAYERS && referencePrice !== null && isNonNegative(medianSettledPrice)) {
    const divergence = clamp01(Math.abs(medianSettledPrice - referencePrice) / referencePrice);
    return {
      value: 1 - divergence,
      reason: explain
        ? `median settled price ${medianSettledPrice} vs ${referenceSource === "quote" ? "quoted" : "advertised"} ${referencePrice} across ${distinctPayers30d} distinct payers: ${fmtPct(divergence)} divergence`
        : "",
      facts: priceIntegrityFacts(input, priceLabel, quoteAgeDays, quoteFresh, referencePrice, referenceSource, divergence, "settled"),
    };
  }

  const why = !explain
    ? ""
    : distinctPayers30d < MIN_DISTINCT_PAYERS
      ? `${distinctPayers30d} distinct payer${distinctPayers30d === 1 ? "" : "s"}, below the floor of ${MIN_DISTINCT_PAYERS}`
      : referencePrice === null
        ? "no numeric advertised price or fresh quote to compare the settled price against"
        : "no settled price to compare";
  const advertised = referencePrice !== null || priceLabel !== null;
  if (advertised) {
    return {
      value: PRICE_INTEGRITY_ADVERTISED,
      reason: explain ? `${why}; a price is advertised (${advertisedBy(referenceSource, quoteAgeDays)})` : "",
      facts: priceIntegrityFacts(input, priceLabel, quoteAgeDays, quoteFresh, referencePrice, referenceSource, null, "advertised"),
    };
  }
  const stale = explain && quote && !quoteFresh ? ` (the only quote is ${fmtDays(quoteAgeDays)} old, not under ${QUOTE_MAX_AGE_DAYS} days)` : "";
  return {
    value: PRICE_INTEGRITY_NO_PRICE,
    reason: explain ? `${why}; no price is advertised${stale}` : "",
    facts: priceIntegrityFacts(input, priceLabel, quoteAgeDays, quoteFresh, referencePrice, referenceSource, null, "none"),
  };
}

function advertisedBy(referenceSource: PriceIntegrityFacts["referenceSource"], quoteAgeDays: number | null): string {
  return referenceSource === "advertisedPrice" ? "the seller's price" : referenceSource === "quote" ? `a quote ${fmtDays(quoteAgeDays)} old` : "the seller's price label";
}

function priceIntegrityFacts(
  input: PriceIntegrityInput,
  priceLabel: string | null,
  quoteAgeDays: number | null,
  quoteFresh: boolean,
  referencePrice: number | null,
  referenceSource: PriceIntegrityFacts["referenceSource"],
  divergence: number | null,
  basis: PriceIntegrityBasis,
): PriceIntegrityFacts {
  return {
    distinctPayers30d: input.distinctPayers30d,
    medianSettledPrice: input.medianSettledPrice,
    advertisedPrice: input.advertisedPrice,
    quote: input.quote,
    quoteAgeDays,
    quoteFresh,
    priceLabel,
    referencePrice,
    referenceSource,
    now: isoString(input.now),
    divergence,
    basis,
  };
}

export interface FeaturedFacts {
  level: number;
  gate: SettleGate;
  forced: boolean;
}

/** 1 + 0.1 × level (integer 0–5); 1.00 when unpayable. */
export function featured(input: { level: number; gate: SettleGate }, explain = true): Component<FeaturedFacts> {
  const { level, gate } = input;
  if (!Number.isInteger(level) || level < 0 || level > FEATURED_MAX_LEVEL) {
    throw new RangeError(`featured level must be an integer 0–${FEATURED_MAX_LEVEL}, got ${level}`);
  }
  assertGate(gate);
  if (gate === "unpayable") {
    // Promotion must never lift a listing nobody can pay.
    return {
      value: FEATURED_FORCED_WHEN_UNPAYABLE,
      reason: !explain ? "" : level === 0 ? "level 0" : `level ${level} ignored: forced to ×1.00 because the gate is unpayable`,
      facts: { level, gate, forced: level !== 0 },
    };
  }
  return { value: 1 + FEATURED_STEP * level, reason: explain ? `level ${level}: 1 + ${FEATURED_STEP} × ${level}` : "", facts: { level, gate, forced: false } };
}

export function verification(status: VerificationStatus, explain = true): Component<{ status: VerificationStatus }> {
  if (!Object.hasOwn(VERIFICATION_FACTOR, status)) {
    throw new RangeError(`verification must be one of ${Object.keys(VERIFICATION_FACTOR).join(", ")}, got ${String(status)}`);
  }
  const reason = !explain
    ? ""
    : status === "verified"
      ? "every listable endpoint passes the canary with a proven request example"
      : status === "degraded"
        ? "an endpoint is degraded, broken or hidden in the canary run"
        : "not verified by the canary";
  return { value: VERIFICATION_FACTOR[status], reason, facts: { status } };
}

export interface QualityFacts {
  gate: SettleGate;
  gateFactor: number;
  liveness: number;
  traction: number;
  priceIntegrity: number;
  weights: typeof QUALITY_WEIGHTS;
  weightedSum: number;
}

export function quality(input: { gate: SettleGate; liveness: number; traction: number; priceIntegrity: number }, explain = true): Component<QualityFacts> {
  const { gate, liveness, traction, priceIntegrity } = input;
  assertGate(gate);
  assertUnit("liveness", liveness);
  assertUnit("traction", traction);
  assertUnit("priceIntegrity", priceIntegrity);
  const w = QUALITY_WEIGHTS;
  const weightedSum = w.liveness * liveness + w.traction * traction + w.priceIntegrity * priceIntegrity;
  const gateFactor = SETTLE_GATE_FACTOR[gate];
  return {
    value: gateFactor * weightedSum,
    reason: explain ? `${gate} ×${gateFactor} × (${w.liveness}·${liveness} + ${w.traction}·${traction} + ${w.priceIntegrity}·${priceIntegrity})` : "",
    facts: { gate, gateFactor, liveness, traction, priceIntegrity, weights: w, weightedSum },
  };
}

/** qualityScore × Featured × Verification: a public sort key ≥ 0, may exceed 1. */
export function rank(
  input: { quality: number; featured: number; verification: number },
  explain = true,
): Component<{ quality: number; featured: number; verification: number }> {
  const { quality, featured, verification } = input;
  assertNonNegative("quality", quality);
  assertNonNegative("featured", featured);
  assertNonNegative("verification", verification);
  return {
    value: quality * featured * verification,
    reason: explain ? `quality ${quality} × featured ${featured} × verification ${verification}` : "",
    facts: { quality, featured, verification },
  };
}

/** ×100 half-up for people (stored unrounded); first rounded to 9 decimals, since 0.128125 × 100 = 12.812499999999998. */
export function to100(x: number): number {
  const scaled = Number((x * 100).toFixed(9));
  return Math.floor(scaled + 0.5);
}

function assertUnit(name: string, x: number): void {
  if (typeof x !== "number" || !Number.isFinite(x) || x < 0 || x > 1) throw new RangeError(`${name} must be a number 0–1, got ${x}`);
}

function assertNonNegative(name: string, x: number): void {
  if (!Number.isFinite(x) || x < 0) throw new RangeError(`${name} must be a finite number ≥ 0, got ${x}`);
}

function assertCount(name: string, x: number): void {
  if (!Number.isInteger(x) || x < 0) throw new RangeError(`${name} must be an integer ≥ 0, got ${x}`);
}

function assertGate(gate: SettleGate): void {
  if (!Object.hasOwn(SETTLE_GATE_FACTOR, gate)) throw new RangeError(`gate must be settleable, unknown or unpayable, got ${String(gate)}`);
}

function isPositive(x: number | null | undefined): x is number {
  return typeof x === "number" && Number.isFinite(x) && x > 0;
}

function isNonNegative(x: number | null | undefined): x is number {
  return typeof x === "number" && Number.isFinite(x) && x >= 0;
}

function fmtPct(x: number): string {
  return `${Number((x * 100).toFixed(2))}%`;
}

function fmtDays(days: number | null): string {
  if (days === null || Number.isNaN(days)) return "an unknown time";
  return `${Number(days.toFixed(1))} days`;
}
