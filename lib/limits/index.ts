export { LIMITED_ACTIONS, configureLimits, limitsConfig, restoreLimits, type ActionName, type LimitsConfig, type RateLimit } from "./config";
export { rateLimited, sweepRateLimitWindows, takeAttestationLimits, takeRateLimit } from "./rate-limit";
export { activeAnalysesOf, assertAnalysisCapacity, takeListingAllowance } from "./caps";
export { clientAddress } from "./client-address";
