/**
 * The published listing document; keep in step with public/schemas/listing.schema.json. Rule ids name the readiness
 * rule a field serves.
 */

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
export type PaymentProtocol = "x402" | "mpp";
export type PriceMode = "fixed" | "dynamic";

export type JsonSchema = Record<string, unknown> | boolean;

/** P2 */
export interface MachinePrice {
  /** Atomic units. */
  amount: string;
  asset: string;
  network: string;
  decimals: number;
}

/** P4 */
export interface DynamicPrice {
  min: string | null;
  max: string | null;
  driver: string | null;
  unit: string | null;
}

export interface EndpointPricing {
  /** P1 */
  label: string | null;
  /** P1 */
  usd: string | null;
  /** P2 */
  machine: MachinePrice | null;
  /** P3 */
  mode: PriceMode | null;
  /** P4 */
  dynamic: DynamicPrice | null;
}

export interface ListingEndpoint {
  method: HttpMethod;
  path: string;
  /** E2 */
  description: string | null;
  /** E3, or `noParameters: true`. */
  requestSchema: JsonSchema | null;
  noParameters: boolean;
  /** E4 */
  responseSchema: JsonSchema | null;
  /** E5: costs nothing, changes nothing. */
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
  baseUrl: string;
  /** D1 */
  docsUrl: string | null;
  walkthrough: string | null;
  /** D4 */
  discoveryUrl: string | null;
  protocols: PaymentProtocol[];
  networks: string[];
  operations: ListingOperations;
  endpoints: ListingEndpoint[];
}
