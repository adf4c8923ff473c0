/**
 * The trust engine's API (docs/TRUST.md). Pure: the producers (lib/trust/observe) and the pages call
 * these; nothing here touches the database, the network or the file system.
 *
 *   const rubric = loadRubric();                       // x402-endpoint/1.0.0-draft.1, newest reading (or loadRubric(ref, n))
 *   const r = scoreSubject(rubric, subject, { now, seed, band: true });
 *   r.score, r.grade, r.band, r.confidence, r.verdict, r.flags, r.outlook, r.watch, r.checks
 */
export { loadRubric, readingOf, currentReadingOf, CURRENT_RUBRIC_REF, READING_FILES, RubricError, type ReadingSemantics, type TrustReading, type TrustRubric } from "../rubric";
export { scoreSubject, VERDICTS, type CheckResult, type GateResult, type Outlook, type ScoreOptions, type TrustResult, type Verdict } from "./score";
export { DEFAULT_SEED, DEFAULT_BAND_OPTIONS, type BandOptions } from "./band";
export { pricePercentile, pricePeers, usdPerValidKib, valueMetrics, type ValueInput, type ValueMetrics, type ValuePeer } from "./value";
export { validateSubjectInput, type SubjectInput, type SubjectProblem } from "./validate";
