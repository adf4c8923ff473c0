/**
 * The public pages' read models, served from the page cache (lib/catalog/page-cache.ts) and deduped
 * per request (React's cache(): generateMetadata and the page ask once). Owner and moderator pages
 * never come here: they read live. Tags: `listing:<id>` for a listing's page and its endpoints' trust
 * pages, `catalog` for browse, search and categories, which take sweep results by age (docs/SURFACES.md).
 */
import { cache } from "react";
import { database } from "@/lib/db";
import { CATALOG_REFRESH_MS, CATALOG_TAG, pageCache, readTagVersions } from "@/lib/catalog/page-cache";
import { catalogFacets, type CatalogFacets } from "@/lib/catalog/browse";
import { listingPageFacts } from "@/lib/catalog/listing-page";
import { publicListingBySlug } from "@/lib/catalog/public-rows";
import { readEndpointTrust, readListingTrust, readTrustGlances, type EndpointTrustDetail, type EndpointTrustSummary } from "@/lib/catalog/trust";
import type { TrustReading } from "@/lib/catalog/trust-words";
import { catalogView, listingPageViewOf, type CatalogQuery, type CatalogView, type ListingPageView } from "./catalog";

export interface PublicListingPage {
  view: ListingPageView;
  trust: EndpointTrustSummary[];
}

export interface PublicCatalogPage {
  view: CatalogView;
  trust: { listings: Map<string, TrustReading>; endpoints: Map<string, TrustReading> };
}

export interface PublicEndpointPage {
  listing: { id: string; slug: string; title: string };
  trust: EndpointTrustDetail;
}

const listingPages = pageCache<PublicListingPage>();
const endpointPages = pageCache<PublicEndpointPage>();
const catalogPages = pageCache<PublicCatalogPage>({ refreshMs: CATALOG_REFRESH_MS });
/**
 * The facets count public listings by category, network and protocol: listing columns, whose every
 * change moves the `catalog` tag. So one reading serves every catalog and search page until it moves,
 * instead of three statements per page loaded. No refresh by age: nothing they count changes untagged.
 */
const facetReadings = pageCache<CatalogFacets>();
const cachedFacets = async (): Promise<CatalogFacets> =>
  // Never null: the load always has a value.
  (await facetReadings.get("facets", async () => {
    const versions = await readTagVersions(await database(), [CATALOG_TAG]);
    return { value: await catalogFacets(), versions };
  }))!;

/** One statement for the listing and its tag's version, then facts and grades. */
export const publicListingPage = cache((slug: string): Promise<PublicListingPage | null> =>
  listingPages.get(slug, async () => {
    const now = new Date();
    const found = await publicListingBySlug(slug);
    if (!found) return { value: null, versions: {} };
    const { listing, versions } = found;
    const h = await database();
    const [facts, trust] = await Promise.all([listingPageFacts(listing.id, now), readListingTrust(h, listing.id)]);
    return { value: { view: listingPageViewOf(listing, facts), trust }, versions };
  }),
);

/** Null when not public or not its endpoint. */
export const publicEndpointPage = cache((slug: string, endpointId: string): Promise<PublicEndpointPage | null> =>
  endpointPages.get(`${slug}\u0000${endpointId}`, async () => {
    const found = await publicListingBySlug(slug);
    if (!found) return { value: null, versions: {} };
    const { listing, versions } = found;
    const trust = await readEndpointTrust(await database(), listing.id, endpointId);
    return { value: trust && { listing: { id: listing.id, slug: listing.slug, title: listing.title }, trust }, versions };
  }),
);

const queryKey = (q: CatalogQuery) => JSON.stringify(Object.entries(q).filter(([, v]) => v !== undefined).sort(([a], [b]) => a.localeCompare(b)));

export const publicCatalogPage = cache((q: CatalogQuery): Promise<PublicCatalogPage | null> =>
  catalogPages.get(queryKey(q), async () => {
    const h = await database();
    const versions = await readTagVersions(h, [CATALOG_TAG]);
    const view = await catalogView(q, new Date(), cachedFacets);
    const trust = await readTrustGlances(h, view.items.map((i) => i.listing.id));
    return { value: { view, trust }, versions };
  }),
);

/** Tests and the bench. */
export function publicPageStats() {
  return { listing: listingPages.stats(), endpoint: endpointPages.stats(), catalog: catalogPages.stats(), facets: facetReadings.stats() };
}
