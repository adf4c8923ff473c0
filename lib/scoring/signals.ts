/** The measured signals readiness and rank share: liveness (H2) and the settle gate (H3), each with the facts it used. Pure. */

export const MIN_DISTINCT_FAILING_BUYERS = 2;
export const MIN_SETTLE_ATTEMPTS = 3;
export const SETTLED_WITHIN_DAYS = 30;
const DAY_MS = 86_400_000;

export type SettleGate = "settleable" | "unknown" | "unpayable";
export const SETTLE_GATE_FACTOR: Record<SettleGate, number> = { settleable: 1.0, unknown: 0.85, unpayable: 0.25 };

export interface SettleFacts {
  lastSettledAt: string | null;
  failedAttemptsSinceLastSettle: number;
  distinctFailingBuyersSinceLastSettle: number;
}

export interface SettleGateResult {
  gate: SettleGate;
  factor: number;
  reason: string;
  facts: SettleFacts & { now: string };
}

/** Unpayable, settleable or unknown (docs/spec/scoring-notes.md "SettleGate"); `explain = false` leaves the reason empty. */
export function settleGate(facts: SettleFacts, now: Date, explain = true): SettleGateResult {
  // Written out, not spread: the rank sweep calls this 100,000 times a tick.
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
/** `date.toISOString()` memoised for the last date (a sweep formats one `now` per listing); throws like toISOString. */
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

export const HEALTH_CONFIDENCE = { validChallenge: 1.0, structured4xx: 0.6, otherAnswer: 0.3, noAnswer: 0 } as const;

/** An hour of the 5-minute sweep; below it the share is noise and the health baseline applies. */
export const MIN_UPTIME_SAMPLES = 12;

/** Null below MIN_UPTIME_SAMPLES; (100·up)/n keeps 388 of 400 at exactly 97. */
export function uptimePercent(up: number, samples: number): number | null {
  return samples >= MIN_UPTIME_SAMPLES ? (100 * up) / samples : null;
}

export function healthStatusFor(confidence: number): HealthStatus {
  if (confidence >= 1) return "operational";
  if (confidence > 0) return "degraded";
  return "unavailable";
}

/** No reading in the window: the stored health status is the baseline, uncapped. */
export const NO_READING_CONFIDENCE = 1;

export interface LivenessFacts {
  uptime7d: number | null;
  uptime30d: number | null;
  healthStatus: HealthStatus;
  healthConfidence: number;
  /** Buyers tried (≥ MIN_DISTINCT_FAILING_BUYERS) and none settled: withhold uptime. */
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

/** docs/spec/scoring-system.md "No uptime without a settlement", from 30-day counts. */
export function settlementUnproven(distinctAttemptingBuyers30d: number, settled30d: number): boolean {
  return settled30d === 0 && distinctAttemptingBuyers30d >= MIN_DISTINCT_FAILING_BUYERS;
}

export function clamp01(x: number): number {
  return x < 0 ? 0 : x > 1 ? 1 : x;
}
