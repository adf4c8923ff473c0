/**
 * Builders for tests: a listing and evidence that together earn all 100 points, so each test can
 * break exactly one thing and see exactly one rule move. Not used by the engine.
 */
import type { ListingDocument, ListingEndpoint } from "@/lib/listing-document/document";
import type { EndpointDocsEvidence, EndpointEvidence } from "@/lib/evidence";
import { docsNamesOf } from "@/lib/listing-document/schema-names";
import type { ReadinessEvidence } from "@/lib/scoring/readiness/types";

export const TEST_NOW = new Date("2026-12-02T12:00:00Z");

export function fullEndpoint(over: Partial<ListingEndpoint> = {}): ListingEndpoint {
  return {
    method: "GET",
    path: "/v1/forecast",
    description: "Hourly forecast for one coordinate, next 48 hours",
    requestSchema: {
      type: "object",
      required: ["lat", "lon"],
      properties: { lat: { type: "number", minimum: -90, maximum: 90 }, lon: { type: "number", minimum: -180, maximum: 180 } },
    },
    noParameters: false,
    responseSchema: { type: "object", required: ["hours"], properties: { hours: { type: "array" } } },
    requestExample: { lat: 52.52, lon: 13.405 },
    payable: true,
    pricing: {
      label: "$0.002 per call",
      usd: "0.002",
      machine: { amount: "2000", asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", network: "eip155:8453", decimals: 6 },
      mode: "fixed",
      dynamic: null,
    },
    docsUrl: "https://docs.weatherly.dev/api#forecast",
    ...over,
  };
}

export function dynamicEndpoint(over: Partial<ListingEndpoint> = {}): ListingEndpoint {
  return fullEndpoint({
    method: "POST",
    path: "/v1/batch",
    description: "Forecasts for up to 500 coordinates in one call",
    requestSchema: { type: "object", required: ["points"], properties: { points: { type: "array", maxItems: 500 } } },
    requestExample: { points: [{ lat: 52.52, lon: 13.405 }] },
    pricing: {
      label: "$0.002 per coordinate, $0.002–$1.00",
      usd: null,
      machine: { amount: "2000", asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", network: "eip155:8453", decimals: 6 },
      mode: "dynamic",
      dynamic: { min: "0.002", max: "1.00", driver: "coordinates in the request", unit: "per coordinate" },
    },
    docsUrl: "https://docs.weatherly.dev/api#batch",
    ...over,
  });
}

export function fullListing(over: Partial<ListingDocument> = {}): ListingDocument {
  return {
    slug: "weatherly",
    title: "Weatherly hourly forecasts",
    shortDescription: "Hourly weather forecasts for any coordinate",
    description: "Weatherly returns hourly temperature, precipitation and wind forecasts for the next 48 hours for any latitude and longitude, priced per call.",
    logoUrl: "https://weatherly.dev/logo.png",
    category: "weather",
    homepageUrl: "https://weatherly.dev",
    baseUrl: "https://api.weatherly.dev",
    docsUrl: "https://docs.weatherly.dev/api",
    walkthrough: "https://docs.weatherly.dev/getting-started",
    discoveryUrl: "https://api.weatherly.dev/.well-known/x402",
    protocols: ["x402"],
    networks: ["eip155:8453"],
    operations: {
      authPreconditions: "None: any wallet that can pay x402 on Base may call.",
      networkRequirements: "Base mainnet (eip155:8453).",
      fundingRequirements: "USDC on Base; gas is sponsored by the facilitator.",
      limits: "600 calls per minute per payer wallet.",
      timeouts: "Answers within 2 s; the payment authorisation is valid for 60 s.",
      syncMode: "sync",
      errors: "400 with {error, field} for invalid coordinates; 402 with an x402 challenge; 503 when upstream models are refreshing.",
      idempotency: "Send the same payment identifier to replay a delivered result without paying twice.",
      supportChannel: "support@weatherly.dev",
    },
    endpoints: [fullEndpoint(), dynamicEndpoint()],
    ...over,
  };
}

export function probedEndpoint(ep: Pick<ListingEndpoint, "method" | "path">, over: Partial<EndpointEvidence> = {}): EndpointEvidence {
  return {
    method: ep.method,
    path: ep.path,
    url: `https://api.weatherly.dev${ep.path}`,
    reachable: true,
    status: 402,
    ttfbMs: 120,
    tls: { valid: true, daysToExpiry: 60 },
    contentType: "application/json",
    headers: {},
    challenge: { kind: "x402-v2", valid: true },
    findings: [],
    ...over,
  };
}

/** What the probe records for an endpoint's docs page that shows everything D3 asks (readiness/1.1.0). */
export function docsPage(ep: ListingEndpoint, over: Partial<EndpointDocsEvidence> = {}): EndpointDocsEvidence {
  return {
    method: ep.method,
    path: ep.path,
    url: "https://docs.weatherly.dev/api",
    ok: true,
    status: 200,
    contentType: "text/html",
    refusal: null,
    truncated: false,
    pathShown: true,
    names: docsNamesOf(ep),
    example: true,
    ...over,
  };
}

export function fullEvidence(listing: ListingDocument = fullListing(), over: Partial<ReadinessEvidence> = {}): ReadinessEvidence {
  return {
    probe: {
      version: 2,
      probedAt: TEST_NOW.toISOString(),
      vantage: "local",
      baseUrl: listing.baseUrl,
      endpoints: listing.endpoints.map((e) => probedEndpoint(e)),
      logo: { url: listing.logoUrl ?? "", ok: true, status: 200, contentType: "image/png", findings: [], isImage: true },
      docs: { url: listing.docsUrl ?? "", ok: true, status: 200, contentType: "text/html", findings: [] },
      discovery: { url: listing.discoveryUrl ?? "", ok: true, status: 200, contentType: "application/json", findings: [], kind: "well-known-x402" },
      endpointDocs: listing.endpoints.filter((e) => e.docsUrl).map((e) => docsPage(e)),
      findings: [],
    },
    settle: { lastSettledAt: "2026-11-30T09:00:00Z", failedAttemptsSinceLastSettle: 0, distinctFailingBuyersSinceLastSettle: 0 },
    liveness: { uptime7d: 100, uptime30d: 100, healthStatus: "operational", healthConfidence: 1, settlementUnproven: false },
    ...over,
  };
}
