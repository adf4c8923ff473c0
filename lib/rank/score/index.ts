/** Rank score, browse order and router selection maths; pure (docs/RANK.md). */
export * from "./constants";
export {
  featured,
  priceIntegrity,
  publicSettledPrice,
  quality,
  rank,
  to100,
  traction,
  verification,
  type Component,
  type FeaturedFacts,
  type PriceIntegrityBasis,
  type PriceIntegrityFacts,
  type PriceIntegrityInput,
  type QualityFacts,
  type Quote,
  type TractionFacts,
} from "./components";
export {
  computeRank,
  computeRankFromComponents,
  type ComputeOptions,
  type GateComponent,
  type LedgerAggregates,
  type LivenessComponent,
  type MonitorFacts,
  type PriceFacts,
  type RankComponentsInput,
  type RankInputs,
  type RankResult,
} from "./compute";
export {
  browseSeed,
  compareBrowse,
  decodeCursor,
  encodeCursor,
  isAfterCursor,
  orderForBrowse,
  shuffleKey,
  type BrowseCursor,
  type BrowseKey,
  type BrowseRow,
  type DecodeCursorResult,
} from "./browse";
export { selectShortlist, type SelectCandidate, type ShortlistItem } from "./select";
export { apiVersionAtLeast, parseApiVersion, rankScoresForApiVersion, type ApiVersion, type ApiVersionCheck } from "./api-version";
