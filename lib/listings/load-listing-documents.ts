/** Batched load of listing documents for the lease claim, through lib/listings/document-mapping.ts. */
import { listingToDocument } from "@/lib/listings/document-mapping";
import type { ListingDocument } from "@/lib/listing-document/document";
import { rows, type Client } from "@/lib/sql";
import type { ListingWithEndpoints } from "@/lib/listings/document-mapping";

export { listingToDocument };

/**
 * One raw statement with endpoints as JSON: Prisma's findMany+include cost about 3 ms against 0.5 ms here
 * (docs/QUEUE.md). Unknown ids are absent.
 */
export async function loadListingDocuments(client: Client, ids: string[]): Promise<Map<string, ListingDocument>> {
  const out = new Map<string, ListingDocument>();
  if (ids.length === 0) return out;
  const found = await rows<ListingWithEndpoints>(
    client,
    `SELECT l."id", l."slug", l."title", l."shortDescription", l."description", l."logoUrl", l."category", l."homepageUrl", l."baseUrl",
            l."docsUrl", l."walkthrough", l."discoveryUrl", l."protocols", l."networks", l."authPreconditions", l."networkRequirements",
            l."fundingRequirements", l."limits", l."timeouts", l."syncMode", l."errorsDoc", l."idempotency", l."supportChannel",
            coalesce((SELECT json_agg(json_build_object(
                'position', e."position", 'method', e."method", 'path', e."path", 'description', e."description",
                'requestSchema', e."requestSchema", 'noParameters', e."noParameters", 'responseSchema', e."responseSchema",
                'requestExample', e."requestExample", 'payable', e."payable", 'priceLabel', e."priceLabel", 'priceUsd', e."priceUsd",
                'priceAmount', e."priceAmount", 'priceAsset', e."priceAsset", 'priceNetwork', e."priceNetwork", 'priceDecimals', e."priceDecimals",
                'priceMode', e."priceMode", 'dynamicMin', e."dynamicMin", 'dynamicMax', e."dynamicMax", 'dynamicDriver', e."dynamicDriver",
                'dynamicUnit', e."dynamicUnit", 'docsUrl', e."docsUrl") ORDER BY e."position")
              FROM "endpoints" e WHERE e."listingId" = l."id"), '[]'::json) AS "endpoints"
     FROM "listings" l WHERE l."id" = ANY($1::text[])`,
    [...new Set(ids)],
  );
  for (const l of found) {
    // Some drivers return json as text.
    const endpoints = typeof l.endpoints === "string" ? JSON.parse(l.endpoints) : l.endpoints;
    out.set(l.id, listingToDocument({ ...l, endpoints }));
  }
  return out;
}
