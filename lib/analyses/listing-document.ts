/**
 * The adapter between listing rows and the listing document the probe and the rubric read. It uses
 * the lead's mapping (lib/listings/document-mapping.ts) so there is one row ↔ document mapping in
 * the product; this file only adds the batched load the lease claim needs.
 */
import { listingToDocument } from "@/lib/listings/document-mapping";
import type { ListingDocument } from "@/lib/listing/document";
import type { Client } from "./sql";

export { listingToDocument };

/** Documents for the given listings, by id (unknown ids are absent). */
export async function loadListingDocuments(client: Client, ids: string[]): Promise<Map<string, ListingDocument>> {
  const out = new Map<string, ListingDocument>();
  if (ids.length === 0) return out;
  const listings = await client.listing.findMany({ where: { id: { in: [...new Set(ids)] } }, include: { endpoints: true } });
  for (const l of listings) out.set(l.id, listingToDocument(l));
  return out;
}
