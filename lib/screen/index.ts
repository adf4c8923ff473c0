/** The pattern screen (docs/spec/trust-rubric.md S2–S4) and the secret-value detector (readiness E5). Pure. */
export { screenText, lookalikeOf, SCREEN_PATTERNS, MAX_SCREEN_CHARS, type ScreenKind, type ScreenMatch } from "./patterns";
export { findSecretValues, hasSecretValue, secretKindOf, isBip39Phrase, type SecretKind, type SecretValue } from "./secrets";
