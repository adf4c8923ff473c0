/** @tollgate/guard: a buyer's check of Tollgate's signed attestation before every payment (README.md). */
export { TollgateGuard, GuardRefusal, x402Terms, KEYS_PATH, LOOKUP_PATH, type GuardOptions, type GuardStats } from "./guard.ts";
export { checkStatement, openEnvelope, resourceKey, type KeySet, type PaymentTerms, type RefusalCode, type Statement } from "./attestation.ts";
