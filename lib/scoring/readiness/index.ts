/** Public surface of the readiness engine (docs/spec/scoring-system.md "Readiness score"). */
export { scoreReadiness, roundHalfUp, bandFor } from "./engine";
export { loadRubric, CURRENT_RUBRIC, RUBRIC_VERSIONS, rubricVersionString, checkRubric, RULE_IDS, CAP_IDS } from "./rubric";
export type { Rubric, RubricRule, RubricCap, RubricBand, RuleId, CapId, DimensionId, Effort, RuleScope } from "./rubric";
export type { ReadinessEvidence, ReadinessResult, RuleResult, RuleStatus, DimensionResult, Improvement, TriggeredCap, ScoreOptions } from "./types";
export { checkReadinessEvidence } from "./evidence";
export { comparePatchCandidate, type CorpusEntry, type PatchComparison } from "./governance";
export { formatTextReport } from "./report";
