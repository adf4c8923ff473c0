import type { Metadata } from "next";
import { ListingTile } from "@/components/listing-tile";
import { listPublishedListings } from "@/lib/catalog/queries";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Catalog" };

export default async function CatalogPage() {
  const listings = await listPublishedListings();
  return (
    <div>
      <div className="mb-6">
        <h1 className="text-2xl font-semibold tracking-tight">Pay-per-call APIs</h1>
        <p className="mt-1 text-sm text-muted">
          Services you can pay per request over HTTP 402 (x402 or MPP). Each shows its readiness: how complete the listing is for an agent to find, understand, pay and call it.
        </p>
      </div>
      {listings.length === 0 ? (
        <p className="rounded-lg border border-dashed border-line bg-white p-8 text-center text-muted">No published listings yet.</p>
      ) : (
        <ul className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3" aria-label="Listings">
          {listings.map((l) => (
            <ListingTile key={l.id} listing={l} />
          ))}
        </ul>
      )}
    </div>
  );
}
