export { parseX402, KNOWN_SCHEMES, MIN_TIMEOUT_S, MAX_TIMEOUT_S, type X402Response, type X402ParseResult, type ParseX402Options } from "./parse";
export { KNOWN_ASSETS, V1_NETWORK_NAMES, findAsset, canonicalUsdc, toCaip2, isCaip2, type KnownAsset, type DeclaredToken } from "./assets";
export { checkBazaarV1, checkBazaarV2, jsonSchemaProblems, type BazaarFacts, type BazaarReading } from "./bazaar";
export { findSecretAsks } from "./secret-asks";
