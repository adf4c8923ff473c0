/**
 * The rubric and reading documents this verifier was written against: SHA-256 of each document's
 * canonical JSON (RFC 8785). A bundle naming another document is refused (rubric_hash); a new rubric
 * or reading version is a new line here, after reading it.
 */
export const RUBRIC_PINS: Record<string, string> = {
  "x402-endpoint/1.0.0-draft.1": "74887cd9fad894a2ee80cb5dce200027c009a07aa45248056783a4f460b3346f",
};

export const READING_PINS: Record<string, string> = {
  "x402-endpoint/1.0.0-draft.1/reading-1": "3e0a3cc3d69808d5f8f356872738fa5c983ef91525e38113341e7ea959c36760",
  "x402-endpoint/1.0.0-draft.1/reading-2": "2a07ac378c212b196e07be8dcd7c710f6cdb16ba5b2806dc8c47274b1189558f",
};
