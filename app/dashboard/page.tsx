import type { Metadata } from "next";
import Link from "next/link";
import { redirect } from "next/navigation";
import { SellerListings } from "@/components/seller-listings";
import { isStale } from "@/lib/surfaces/band";
import { currentActor } from "@/lib/auth/session";
import { listOwnListings } from "@/lib/surfaces/seller-listings";
import { isModerator } from "@/lib/auth/roles";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "My listings" };

export default async function DashboardPage() {
  const actor = await currentActor();
  if (!actor) redirect("/signin?callbackUrl=/dashboard");
  // Moderators list nothing of their own: their desk is /admin.
  if (isModerator(actor) && !actor.organizationId) redirect("/admin");
  const listings = await listOwnListings(actor);
  return (
    <div>
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <h1 className="text-2xl font-semibold tracking-tight">My listings</h1>
          <p className="mt-1 text-sm text-muted">Your services, their readiness, and what to fix next.</p>
        </div>
        {actor.organizationId && (
          <Link href="/dashboard/new" className="rounded-md bg-brand px-4 py-2 text-sm font-medium text-white hover:bg-indigo-800">Add a service</Link>
        )}
      </div>
      {listings.length === 0 ? (
        <p className="mt-6 rounded-lg border border-dashed border-line bg-white p-8 text-center text-muted">
          {actor.organizationId ? (
            <>You have no listings yet. <Link href="/dashboard/new" className="text-brand underline">Add your first service</Link> from its URL.</>
          ) : (
            "Your account is not a seller account, so it has no listings."
          )}
        </p>
      ) : (
        <SellerListings
          rows={listings.map((l) => ({
            id: l.id,
            slug: l.slug,
            title: l.title,
            baseUrl: l.baseUrl,
            publicationState: l.publicationState,
            endpoints: l._count.endpoints,
            updatedAt: l.updatedAt.toISOString(),
            total: l.currentResult?.total ?? null,
            band: l.currentResult?.band ?? null,
            stale: !!l.currentResult && isStale(l.currentResult.createdAt),
            analysis: l.analyses[0] ?? null,
          }))}
          now={Date.now()}
        />
      )}
    </div>
  );
}
