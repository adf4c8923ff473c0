import type { Metadata } from "next";
import Link from "next/link";
import { ListingEditor } from "@/components/listing-editor/editor";
import { sessionUserId } from "@/lib/auth/session";
import { orPageError } from "@/lib/surfaces/guard";
import { sellerListingDocument } from "@/lib/surfaces/seller";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Edit listing" };

export default async function EditListingPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const uid = await sessionUserId();
  const l = await orPageError(() => sellerListingDocument(uid, id), `/dashboard/listings/${id}/edit`);
  return (
    <div>
      <p className="text-sm"><Link href={`/dashboard/listings/${l.id}`} className="text-brand underline">← Readiness report</Link></p>
      <h1 className="mt-2 text-2xl font-semibold tracking-tight">Edit {l.title}</h1>
      <p className="mt-1 text-sm text-muted">Each field names the rule that reads it. The estimate on the right updates as you type.</p>
      <div className="mt-6">
        <ListingEditor initial={l.document} listingId={l.id} publicationState={l.publicationState} publishedTotal={l.publishedTotal} />
      </div>
    </div>
  );
}
