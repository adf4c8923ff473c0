/**
 * The published listing document, one JSON shape everywhere; keep in step with public/schemas/listing.schema.json.
 * Rule ids (M1, P2 …) name the readiness rule a field serves.
 */

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
export type PaymentProtocol = "x402" | "mpp";
export type PriceMode = "fixed" | "dynamic";

/** Validated as 2020-12 where it matters. */
export type JsonSchema = Record<string, unknown> | boolean;

/** P2: atomic units of an asset on a CAIP-2 network. */
export interface MachinePrice {
  /** Atomic units, e.g. "10000" for 0.01 USDC. */
  amount: string;
  asset: string;
  /** e.g. "eip155:8453". */
  network: string;
  decimals: number;
}

/** P4 */
export interface DynamicPrice {
  /** USD (or `unit`s), decimal strings. */
  min: string | null;
  max: string | null;
  /** e.g. "input bytes". */
  driver: string | null;
  /** e.g. "per call", "per 1,000 tokens". */
  unit: string | null;
}

export interface EndpointPricing {
  /** P1, e.g. "$0.01 per call". */
  label: string | null;
  /** P1, a decimal string. */
  usd: string | null;
  /** P2 */
  machine: MachinePrice | null;
  /** P3; null when undeclared. */
  mode: PriceMode | null;
  /** P4: required when mode is "dynamic". */
  dynamic: DynamicPrice | null;
}

export interface ListingEndpoint {
  method: HttpMethod;
  /** Relative to baseUrl, starting with "/". */
  path: string;
  /** E2 */
  description: string | null;
  /** E3: or `noParameters: true` stated explicitly. */
  requestSchema: JsonSchema | null;
  noParameters: boolean;
  /** E4 */
  responseSchema: JsonSchema | null;
  /** E5: safe to send (costs nothing, changes nothing). */
  requestExample: unknown | null;
  payable: boolean;
  pricing: EndpointPricing | null;
  /** D3 */
  docsUrl: string | null;
}

export interface ListingOperations {
  /** O1 */
  authPreconditions: string | null;
  /** O2 */
  networkRequirements: string | null;
  fundingRequirements: string | null;
  /** O3 */
  limits: string | null;
  timeouts: string | null;
  syncMode: "sync" | "async" | "mixed" | null;
  /** O4 */
  errors: string | null;
  idempotency: string | null;
  supportChannel: string | null;
}

export interface ListingDocument {
  $schema?: string;
  /** Derived from the title when absent. */
  slug?: string;
  /** M1 */
  title: string;
  /** M2: at least 20 characters and not the title. */
  shortDescription: string | null;
  /** M3: at least 60 characters. */
  description: string | null;
  /** M4 */
  logoUrl: string | null;
  /** M5: category and homepage. */
  category: string | null;
  homepageUrl: string | null;
  /** An origin, e.g. "https://api.example.com". */
  baseUrl: string;
  /** D1 */
  docsUrl: string | null;
  /** D2: text or a URL. */
  walkthrough: string | null;
  /** D4 */
  discoveryUrl: string | null;
  protocols: PaymentProtocol[];
  /** CAIP-2. */
  networks: string[];
  operations: ListingOperations;
  endpoints: ListingEndpoint[];
}
