/**
 * The two measured signals that readiness and rank share (docs/spec/scoring-system.md "Readiness score": "H2 Liveness 5 × liveness (same
 * formula as rank)", "H3 Settleability" from the same settle gate). Pure: callers pass the facts, and
 * every function returns its value with the facts it used, so an admin can explain a number.
 */

export const MIN_DISTINCT_FAILING_BUYERS = 2;
export const MIN_SETTLE_ATTEMPTS = 3;
export const SETTLED_WITHIN_DAYS = 30;
const DAY_MS = 86_400_000;

export type SettleGate = "settleable" | "unknown" | "unpayable";
export const SETTLE_GATE_FACTOR: Record<SettleGate, number> = { settleable: 1.0, unknown: 0.85, unpayable: 0.25 };

export interface SettleFacts {
  /** Time of the most recent successful settlement, ISO string, or null if none ever. */
  lastSettledAt: string | null;
  /** Failed settlement attempts since the last success (all time when none). */
  failedAttemptsSinceLastSettle: number;
  /** Distinct payer wallets among those failed attempts. */
  distinctFailingBuyersSinceLastSettle: number;
}

export interface SettleGateResult {
  gate: SettleGate;
  factor: number;
  reason: string;
  facts: SettleFacts & { now: string };
}

/**
 * Unpayable needs ≥ MIN_SETTLE_ATTEMPTS failures from ≥ MIN_DISTINCT_FAILING_BUYERS buyers since the
 * last success (docs/spec/scoring-notes.md "SettleGate"); else settleable when settled within 30 days; else unknown.
 * `explain = false` leaves the reason empty (the rank sweep keeps none).
 */
export function settleGate(facts: SettleFacts, now: Date, explain = true): SettleGateResult {
  // Written out rather than spread: the rank sweep calls this 100,000 times a tick.
  const withNow = {
    lastSettledAt: facts.lastSettledAt,
    failedAttemptsSinceLastSettle: facts.failedAttemptsSinceLastSettle,
    distinctFailingBuyersSinceLastSettle: facts.distinctFailingBuyersSinceLastSettle,
    now: isoString(now),
  };
  if (
    facts.failedAttemptsSinceLastSettle >= MIN_SETTLE_ATTEMPTS &&
    facts.distinctFailingBuyersSinceLastSettle >= MIN_DISTINCT_FAILING_BUYERS
  ) {
    return {
      gate: "unpayable",
      factor: SETTLE_GATE_FACTOR.unpayable,
      reason: explain ? `${facts.failedAttemptsSinceLastSettle} failed attempts from ${facts.distinctFailingBuyersSinceLastSettle} distinct buyers since the last settlement` : "",
      facts: withNow,
    };
  }
  if (facts.lastSettledAt) {
    const age = now.getTime() - Date.parse(facts.lastSettledAt);
    if (age >= 0 && age <= SETTLED_WITHIN_DAYS * DAY_MS) {
      return { gate: "settleable", factor: SETTLE_GATE_FACTOR.settleable, reason: explain ? "a payment settled within 30 days" : "", facts: withNow };
    }
  }
  return { gate: "unknown", factor: SETTLE_GATE_FACTOR.unknown, reason: explain ? "no settlement within 30 days and no ledger-proven failure" : "", facts: withNow };
}

let isoDate: Date | null = null;
let isoMs = Number.NaN;
let isoText = "";
/**
 * `date.toISOString()`, remembered for the last date asked: a sweep scores every listing against
 * the same `now`, and formatting it once per listing and component was a measurable share of the
 * scoring. Throws for an invalid date exactly as toISOString does (NaN never matches the memo).
 */
export function isoString(date: Date): string {
  const ms = date.getTime();
  if (date !== isoDate || ms !== isoMs) {
    isoText = date.toISOString();
    isoDate = date;
    isoMs = ms;
  }
  return isoText;
}

export type HealthStatus = "operational" | "unverified" | "degraded" | "unavailable";
export const HEALTH_BASELINE: Record<HealthStatus, number> = { operational: 0.9, unverified: 0.6, degraded: 0.5, unavailable: 0.1 };

/** Monitor health confidence (docs/spec/scoring-notes.md): it caps liveness. */
export const HEALTH_CONFIDENCE = { validChallenge: 1.0, structured4xx: 0.6, otherAnswer: 0.3, noAnswer: 0 } as const;

/**
 * Samples a window needs before its uptime counts (an hour of the 5-minute sweep); below that the
 * share is noise and the listing is "with no uptime yet" (the health baseline applies).
 */
export const MIN_UPTIME_SAMPLES = 12;

/** Percent of "up" samples in a window, or null below MIN_UPTIME_SAMPLES. (100·up)/n keeps 388 of 400 at exactly 97. */
export function uptimePercent(up: number, samples: number): number | null {
  return samples >= MIN_UPTIME_SAMPLES ? (100 * up) / samples : null;
}

/** The health status a reading of this confidence implies (HEALTH_CONFIDENCE). */
export function healthStatusFor(confidence: number): HealthStatus {
  if (confidence >= 1) return "operational";
  if (confidence > 0) return "degraded";
  return "unavailable";
}

/**
 * The health confidence with no reading in the window: the listing's stored health status is then
 * the baseline, and nothing caps it (the baselines exist for exactly that case).
 */
export const NO_READING_CONFIDENCE = 1;

export interface LivenessFacts {
  /** Percent uptime over 7 and 30 days from monitor samples (uptimePercent); null below MIN_UPTIME_SAMPLES. */
  uptime7d: number | null;
  uptime30d: number | null;
  healthStatus: HealthStatus;
  /** 0–1; the confidence of the monitor's latest reading (NO_READING_CONFIDENCE without one). */
  healthConfidence: number;
  /** Buyers tried to pay (≥ MIN_DISTINCT_FAILING_BUYERS distinct) and none settled: withhold uptime. */
  settlementUnproven: boolean;
}

export interface LivenessResult {
  value: number;
  source: "uptime7d" | "uptime30d" | "baseline";
  cappedByConfidence: boolean;
  uptimeWithheld: boolean;
  facts: LivenessFacts;
}

export function liveness(facts: LivenessFacts): LivenessResult {
  let raw: number;
  let source: LivenessResult["source"];
  const withheld = facts.settlementUnproven && (facts.uptime7d !== null || facts.uptime30d !== null);
  if (!facts.settlementUnproven && facts.uptime7d !== null) {
    raw = facts.uptime7d / 100;
    source = "uptime7d";
  } else if (!facts.settlementUnproven && facts.uptime30d !== null) {
    raw = facts.uptime30d / 100;
    source = "uptime30d";
  } else {
    raw = HEALTH_BASELINE[facts.healthStatus];
    source = "baseline";
  }
  raw = clamp01(raw);
  const cap = clamp01(facts.healthConfidence);
  return { value: Math.min(raw, cap), source, cappedByConfidence: cap < raw, uptimeWithheld: withheld, facts };
}

/** Whether buyers tried and none settled (docs/spec/scoring-system.md "No uptime without a settlement": `settlementUnprovenSince`), from 30-day counts. */
export function settlementUnproven(distinctAttemptingBuyers30d: number, settled30d: number): boolean {
  return settled30d === 0 && distinctAttemptingBuyers30d >= MIN_DISTINCT_FAILING_BUYERS;
}

export function clamp01(x: number): number {
  return x < 0 ? 0 : x > 1 ? 1 : x;
}
