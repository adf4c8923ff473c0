import type { IncomingMessage, ServerResponse } from "node:http";
import type { EndpointPricing, HttpMethod, JsonSchema, ListingOperations, PaymentProtocol } from "@/lib/listing-document/document";

/** What a fixture route handler gets: the request, its body, and where the seller is reached from. */
export interface SellerRequest {
  req: IncomingMessage;
  res: ServerResponse;
  body: Buffer;
  /** The origin as the client addressed it (`http://<Host header>`), so 402 resource URLs match. */
  origin: string;
  /** `origin + "/" + slug`: the seller's base URL. */
  sellerUrl: string;
  /** The URL of this request. */
  url: URL;
}

export interface FixtureEndpoint {
  method: HttpMethod;
  /** Relative to the seller's prefix, starting with "/". */
  path: string;
  summary: string;
  description: string;
  payable: boolean;
  requestSchema: JsonSchema | null;
  noParameters?: boolean;
  responseSchema: JsonSchema | null;
  requestExample: unknown | null;
  pricing: EndpointPricing | null;
  handle(ctx: SellerRequest): void | Promise<void>;
}

/** What a seller publishes about an endpoint: everything but its handler (sellers/documents.ts reads this). */
export type EndpointDescription = Omit<FixtureEndpoint, "handle">;

/** What a seller publishes about itself (its documents, docs page and listing); a FixtureSeller is one, with handlers. */
export type SellerDescription = Omit<FixtureSeller, "endpoints"> & { endpoints: EndpointDescription[] };

export interface FixtureSeller {
  /** The path prefix, e.g. "agent-verdict". */
  slug: string;
  /** What this fixture is for (docs/PROBE.md lists them). */
  purpose: string;
  title: string;
  shortDescription: string;
  description: string;
  category: string;
  protocols: PaymentProtocol[];
  networks: string[];
  operations: ListingOperations;
  walkthrough: string;
  /** The logo as served; `null` serves an HTML page at the logo URL (a logo that does not load as an image). */
  logo: { file: string; contentType: string; bytes: Buffer } | null;
  /** Serve a docs page (false: the docs URL answers 404). */
  docs: boolean;
  /** Which discovery documents to serve. */
  discovery: { wellKnown: boolean; openapi: boolean };
  endpoints: FixtureEndpoint[];
}
