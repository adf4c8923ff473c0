export { probeListing, endpointUrl, discoveryKind, ownershipProofsOf, type ProbeListingOptions, type ProbeListingResult } from "./probe-listing";
export { probeEndpoint, isUnprobeable, DEFAULT_DEADLINE_MS, type ProbeTarget, type ProbeNetOptions } from "./probe-endpoint";
export { type UnpaidCalls } from "./request";
export { MONITOR_RUBRIC_VERSIONS } from "./capabilities";
export type * from "@/lib/evidence";
