import type { ProbeEvidence } from "@/lib/evidence";
import type { LivenessFacts, SettleFacts } from "../signals";
import type { CapId, DimensionId, Effort, RuleId } from "./rubric";

/** Besides the listing: the probe, the ledger and the monitor. */
export interface ReadinessEvidence {
  probe: ProbeEvidence;
  settle: SettleFacts;
  liveness: LivenessFacts;
}

export type RuleStatus = "pass" | "partial" | "fail" | "not_observed";

export interface RuleResult {
  id: RuleId;
  dimension: DimensionId;
  /** Unrounded (E4 = 3.75 of 5). */
  earned: number;
  max: number;
  status: RuleStatus;
  reason: string;
  /** "METHOD path" of the endpoints that fall short. */
  endpoints: string[];
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
  /** Recoverable by fixing the rule fully. */
  points: number;
  endpoints: string[];
  effort: Effort;
  /** The fix clears a cap triggered now. */
  blocker: boolean;
  action: string;
}

export interface ReadinessResult {
  rubricVersion: string;
  /** round-half-up(min(rawTotal, lowest cap)), 0–100. */
  total: number;
  /** Before caps, normalised to 6 decimals. */
  rawTotal: number;
  band: { id: string; label: string };
  provisional: boolean;
  /** Lowest first; empty in provisional mode. */
  caps: TriggeredCap[];
  dimensions: DimensionResult[];
  rules: RuleResult[];
  improvements: Improvement[];
}

export interface ScoreOptions {
  now?: Date;
  /** docs/spec/scoring-notes.md "Provisional run". */
  provisional?: boolean;
}
