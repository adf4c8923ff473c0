/** The SSRF-guarded fetch, the only outbound HTTP in the product (docs/SSRF.md). */
export { safeFetch, validateTarget, classifyAddress, defaultResolver } from "./safe-fetch";
export { sniffType, contentTypeMatches, mediaType } from "./sniff";
export { REFUSAL_CODES } from "./types";
export type * from "./types";
export { decideAddress, parseRanges, ownAddresses } from "./address-rules";
export { configureConnectionLimits, connectionsInFlight, currentConnectionLimits, DEFAULT_CONNECTION_LIMITS } from "./connection-limits";
export { checkTarget, type CheckedTarget, type TargetCheck } from "./checked-target";
