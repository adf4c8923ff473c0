/**
 * The published listing document: the one JSON shape a seller's listing takes everywhere
 * (import, API, CLI, database mapping). Its JSON Schema is public/schemas/listing.schema.json;
 * keep the two in step. Every field the 24 readiness rules read (docs/spec/scoring-system.md) has a home here.
 */

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
export type PaymentProtocol = "x402" | "mpp";
export type PriceMode = "fixed" | "dynamic";

/** A JSON Schema document as published by the seller (validated as 2020-12 where it matters). */
export type JsonSchema = Record<string, unknown> | boolean;

/** Machine-readable price (P2): atomic units of an asset on a CAIP-2 network. */
export interface MachinePrice {
  /** Atomic units as an integer string, e.g. "10000" for 0.01 USDC. */
  amount: string;
  /** Asset contract address or symbol, e.g. the canonical USDC of the network. */
  asset: string;
  /** CAIP-2 network id, e.g. "eip155:8453". */
  network: string;
  /** Decimals of the asset (USDC: 6). */
  decimals: number;
}

/** P4: what a dynamic price depends on. */
export interface DynamicPrice {
  /** Lowest and highest price in USD (or in `unit`s), as decimal strings. */
  min: string | null;
  max: string | null;
  /** What drives the price, e.g. "input bytes", "criteria count". */
  driver: string | null;
  /** What one priced unit is, e.g. "per call", "per 1,000 tokens". */
  unit: string | null;
}

export interface EndpointPricing {
  /** P1: a human price label or quote, e.g. "$0.01 per call", "from $0.04". */
  label: string | null;
  /** P1: price in USD as a decimal string, when one is published. */
  usd: string | null;
  /** P2: the same price in machine-readable form. */
  machine: MachinePrice | null;
  /** P3: declared fixed or dynamic; null when undeclared. */
  mode: PriceMode | null;
  /** P4: required when mode is "dynamic". */
  dynamic: DynamicPrice | null;
}

export interface ListingEndpoint {
  method: HttpMethod;
  /** Path relative to the listing's baseUrl, starting with "/". */
  path: string;
  /** E2 */
  description: string | null;
  /** E3: a request schema, or `noParameters: true` stated explicitly. */
  requestSchema: JsonSchema | null;
  noParameters: boolean;
  /** E4 */
  responseSchema: JsonSchema | null;
  /** E5: a request body/query that is safe to send (it costs nothing and changes nothing). */
  requestExample: unknown | null;
  /** Does this endpoint answer 402 and charge per call? */
  payable: boolean;
  pricing: EndpointPricing | null;
  /** D3: the docs page (or anchor) where this endpoint's schemas and examples are documented. */
  docsUrl: string | null;
}

export interface ListingOperations {
  /** O1: what a caller must have before calling (an account, an allowlist, none). */
  authPreconditions: string | null;
  /** O2: networks the seller accepts and what the payer must hold (asset, gas). */
  networkRequirements: string | null;
  fundingRequirements: string | null;
  /** O3: rate limits, timeouts, and whether calls are synchronous or asynchronous. */
  limits: string | null;
  timeouts: string | null;
  syncMode: "sync" | "async" | "mixed" | null;
  /** O4: the error model, idempotency behaviour and a support channel. */
  errors: string | null;
  idempotency: string | null;
  supportChannel: string | null;
}

export interface ListingDocument {
  /** Optional schema pointer (`/schemas/listing.schema.json`). */
  $schema?: string;
  /** URL-safe id; derived from the title when absent. */
  slug?: string;
  /** M1 */
  title: string;
  /** M2: at least 20 characters and not the title. */
  shortDescription: string | null;
  /** M3: at least 60 characters. */
  description: string | null;
  /** M4: must load as an image (probe evidence). */
  logoUrl: string | null;
  /** M5: category and homepage. */
  category: string | null;
  homepageUrl: string | null;
  /** Where the endpoints live: an origin such as "https://api.example.com". */
  baseUrl: string;
  /** D1: docs at a public URL (probe evidence says whether it is reachable). */
  docsUrl: string | null;
  /** D2: the setup, auth and payment walkthrough (text or a URL to it). */
  walkthrough: string | null;
  /** D4: a machine-readable discovery document (/.well-known/x402, /openapi.json …). */
  discoveryUrl: string | null;
  /** Which payment protocols the seller says it speaks. */
  protocols: PaymentProtocol[];
  /** CAIP-2 networks the seller accepts payment on. */
  networks: string[];
  operations: ListingOperations;
  endpoints: ListingEndpoint[];
}
