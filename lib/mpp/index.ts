export { parseMpp, splitPaymentChallenges, type MppChallenge, type MppParseResult } from "./parse";
