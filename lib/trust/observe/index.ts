/** The trust grade's observations (docs/TRUST.md "Observations"): free and paid checks, revisions, the reader. */
export { freeObservations, quoteOf, domainKey, screenedTexts, R1_WITHIN_MS, STABLE_WINDOW_DAYS, type Draft, type FreeContext, type ListedEndpoint, type PastQuote } from "./free";
export { paidObservations, outputFactsOf, PAID_CHECKS, type OutputFacts, type SampleFacts } from "./paid";
export { referenceCheck, canonicalJson, type ReferenceResult } from "./reference";
export { readAssetDomains, expectedSeparator, type DomainRead } from "./chain";
export { prepareProbeObservations, recordProbeObservations, recordSampleObservations, recordSamplesObservations, settleRevision, stateOf, changesBetween, type EndpointHistory, type EndpointState, type ObservationSource } from "./store";
export { readRecentObservations, readTrustSubjects, readTrustSubjectsOfMany, type ReadOptions } from "./read";
