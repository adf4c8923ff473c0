export { parseMpp, splitPaymentChallenges, type MppChallenge, type MppParseResult } from "./parse";
export { mppChainId, mppNetwork, mppRequirement } from "./requirement";
