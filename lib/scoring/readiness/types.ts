import type { ProbeEvidence } from "@/lib/evidence";
import type { LivenessFacts, SettleFacts } from "../signals";
import type { CapId, DimensionId, Effort, RuleId } from "./rubric";

/** Everything a non-provisional run reads besides the listing: the probe, the ledger and the monitor. */
export interface ReadinessEvidence {
  probe: ProbeEvidence;
  settle: SettleFacts;
  liveness: LivenessFacts;
}

export type RuleStatus = "pass" | "partial" | "fail" | "not_observed";

export interface RuleResult {
  id: RuleId;
  dimension: DimensionId;
  /** Unrounded; the seed's own example is E4 = 3.75 of 5. */
  earned: number;
  max: number;
  status: RuleStatus;
  /** Plain words for the seller. */
  reason: string;
  /** Affected endpoints as "METHOD path" (the ones that fall short). */
  endpoints: string[];
  /** JSON pointer into {listing, probe, settle, liveness} of what was read; null when nothing was observed. */
  evidence: string | null;
}

export interface DimensionResult {
  id: DimensionId;
  earned: number;
  max: number;
}

export interface TriggeredCap {
  id: CapId;
  value: number;
  reason: string;
}

export interface Improvement {
  ruleId: RuleId;
  /** Points recoverable by fixing the rule fully. */
  points: number;
  endpoints: string[];
  effort: Effort;
  /** The rule's fix clears a cap that is triggered now. */
  blocker: boolean;
  action: string;
}

export interface ReadinessResult {
  /** e.g. "readiness/1.0.0" */
  rubricVersion: string;
  /** Integer 0–100: round-half-up(min(rawTotal, lowest cap)). */
  total: number;
  /** Sum of rule points before caps, normalised to 6 decimals. */
  rawTotal: number;
  band: { id: string; label: string };
  provisional: boolean;
  /** Triggered caps, lowest value first; empty in provisional mode. */
  caps: TriggeredCap[];
  dimensions: DimensionResult[];
  rules: RuleResult[];
  improvements: Improvement[];
}

export interface ScoreOptions {
  /** The instant the settle gate is read at (30-day window). Defaults to the current time. */
  now?: Date;
  /** Score provisionally even when evidence is given (docs/spec/scoring-notes.md "Provisional run"). */
  provisional?: boolean;
}
