/** The listing document ↔ database rows (listings + endpoints), field by field, both directions in one place. */
import type { Endpoint, Listing, Prisma } from "@/lib/generated/prisma/client";
import type { HttpMethod, JsonSchema, ListingDocument, ListingEndpoint } from "@/lib/listing-document/document";

export type ListingWithEndpoints = Listing & { endpoints: Endpoint[] };

const json = (v: unknown): Prisma.InputJsonValue | typeof DbNullSentinel => (v === null || v === undefined ? DbNullSentinel : (v as Prisma.InputJsonValue));
// Prisma.DbNull is SQL NULL in Json columns.
import { Prisma as PrismaNs } from "@/lib/generated/prisma/client";
const DbNullSentinel = PrismaNs.DbNull;

export function listingColumns(doc: ListingDocument) {
  return {
    title: doc.title,
    shortDescription: doc.shortDescription,
    description: doc.description,
    logoUrl: doc.logoUrl,
    category: doc.category,
    homepageUrl: doc.homepageUrl,
    baseUrl: doc.baseUrl,
    docsUrl: doc.docsUrl,
    walkthrough: doc.walkthrough,
    discoveryUrl: doc.discoveryUrl,
    protocols: doc.protocols,
    networks: doc.networks,
    authPreconditions: doc.operations.authPreconditions,
    networkRequirements: doc.operations.networkRequirements,
    fundingRequirements: doc.operations.fundingRequirements,
    limits: doc.operations.limits,
    timeouts: doc.operations.timeouts,
    syncMode: doc.operations.syncMode,
    errorsDoc: doc.operations.errors,
    idempotency: doc.operations.idempotency,
    supportChannel: doc.operations.supportChannel,
  } satisfies Partial<Prisma.ListingUncheckedCreateInput>;
}

export function endpointColumns(e: ListingEndpoint, position: number) {
  const p = e.pricing;
  return {
    position,
    method: e.method,
    path: e.path,
    description: e.description,
    requestSchema: json(e.requestSchema),
    noParameters: e.noParameters,
    responseSchema: json(e.responseSchema),
    requestExample: json(e.requestExample),
    payable: e.payable,
    priceLabel: p?.label ?? null,
    priceUsd: p?.usd ?? null,
    priceAmount: p?.machine?.amount ?? null,
    priceAsset: p?.machine?.asset ?? null,
    priceNetwork: p?.machine?.network ?? null,
    priceDecimals: p?.machine?.decimals ?? null,
    priceMode: p?.mode ?? null,
    dynamicMin: p?.dynamic?.min ?? null,
    dynamicMax: p?.dynamic?.max ?? null,
    dynamicDriver: p?.dynamic?.driver ?? null,
    dynamicUnit: p?.dynamic?.unit ?? null,
    docsUrl: e.docsUrl,
  } satisfies Omit<Prisma.EndpointUncheckedCreateInput, "listingId">;
}

/** Endpoints sharing method and path count once (docs/spec/scoring-system.md); the first wins on save too. */
export function uniqueEndpoints(endpoints: ListingEndpoint[]): ListingEndpoint[] {
  const seen = new Set<string>();
  return endpoints.filter((e) => {
    const key = `${e.method} ${e.path}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export function listingToDocument(l: ListingWithEndpoints): ListingDocument {
  return {
    slug: l.slug,
    title: l.title,
    shortDescription: l.shortDescription,
    description: l.description,
    logoUrl: l.logoUrl,
    category: l.category,
    homepageUrl: l.homepageUrl,
    baseUrl: l.baseUrl,
    docsUrl: l.docsUrl,
    walkthrough: l.walkthrough,
    discoveryUrl: l.discoveryUrl,
    protocols: l.protocols as ListingDocument["protocols"],
    networks: l.networks,
    operations: {
      authPreconditions: l.authPreconditions,
      networkRequirements: l.networkRequirements,
      fundingRequirements: l.fundingRequirements,
      limits: l.limits,
      timeouts: l.timeouts,
      syncMode: l.syncMode as ListingDocument["operations"]["syncMode"],
      errors: l.errorsDoc,
      idempotency: l.idempotency,
      supportChannel: l.supportChannel,
    },
    endpoints: [...l.endpoints].sort((a, b) => a.position - b.position).map(endpointToDocument),
  };
}

function endpointToDocument(e: Endpoint): ListingEndpoint {
  const hasPricing = e.priceLabel || e.priceUsd || e.priceAmount || e.priceMode || e.dynamicMin || e.dynamicMax || e.dynamicDriver || e.dynamicUnit;
  return {
    method: e.method as HttpMethod,
    path: e.path,
    description: e.description,
    requestSchema: (e.requestSchema ?? null) as JsonSchema | null,
    noParameters: e.noParameters,
    responseSchema: (e.responseSchema ?? null) as JsonSchema | null,
    requestExample: e.requestExample ?? null,
    payable: e.payable,
    pricing: hasPricing
      ? {
          label: e.priceLabel,
          usd: e.priceUsd,
          machine:
            e.priceAmount && e.priceAsset && e.priceNetwork && e.priceDecimals !== null
              ? { amount: e.priceAmount, asset: e.priceAsset, network: e.priceNetwork, decimals: e.priceDecimals }
              : null,
          mode: e.priceMode,
          dynamic:
            e.dynamicMin || e.dynamicMax || e.dynamicDriver || e.dynamicUnit
              ? { min: e.dynamicMin, max: e.dynamicMax, driver: e.dynamicDriver, unit: e.dynamicUnit }
              : null,
        }
      : null,
    docsUrl: e.docsUrl,
  };
}
