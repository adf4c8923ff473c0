/**
 * The adapter between listing rows and the listing document the probe and the rubric read. It uses
 * the lead's mapping (lib/listings/document-mapping.ts) so there is one row ↔ document mapping in
 * the product; this file only adds the batched load the lease claim needs.
 */
import { listingToDocument } from "@/lib/listings/document-mapping";
import type { ListingDocument } from "@/lib/listing-document/document";
import { rows, type Client } from "@/lib/sql";
import type { ListingWithEndpoints } from "@/lib/listings/document-mapping";

export { listingToDocument };

/**
 * Documents for the given listings, by id (unknown ids are absent). One raw statement with the
 * endpoints aggregated as JSON: on the claim and completion paths Prisma's findMany+include cost
 * about 3 ms against 0.5 ms for this (measured on server Postgres, docs/QUEUE.md).
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
    // A json column may come back as text from some drivers; the mapping wants objects.
    const endpoints = typeof l.endpoints === "string" ? JSON.parse(l.endpoints) : l.endpoints;
    out.set(l.id, listingToDocument({ ...l, endpoints }));
  }
  return out;
}
