/** The trust engine's API (docs/TRUST.md); pure. */
export { loadRubric, readingOf, currentReadingOf, CURRENT_RUBRIC_REF, READING_FILES, RubricError, type ReadingSemantics, type TrustReading, type TrustRubric } from "../rubric";
export { scoreSubject, VERDICTS, type CheckResult, type GateResult, type Outlook, type ScoreOptions, type TrustResult, type Verdict } from "./score";
export { DEFAULT_SEED, DEFAULT_BAND_OPTIONS, type BandOptions } from "./band";
export { pricePercentile, pricePeers, usdPerValidKib, valueMetrics, type ValueInput, type ValueMetrics, type ValuePeer } from "./value";
export { validateSubjectInput, type SubjectInput, type SubjectProblem } from "./validate";
