import type { Metadata } from "next";
import Link from "next/link";
import { redirect } from "next/navigation";
import { ReadinessChip, StaleChip } from "@/components/readiness-chip";
import { isStale } from "@/lib/surfaces/band";
import { currentActor } from "@/lib/auth/session";
import { listOwnListings } from "@/lib/catalog/owner";
import { timeAgo } from "@/lib/format";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "My listings" };

export default async function DashboardPage() {
  const actor = await currentActor();
  if (!actor) redirect("/signin?callbackUrl=/dashboard");
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
        <ul aria-label="My listings" className="mt-6 divide-y divide-line rounded-xl border border-line bg-white">
          {listings.map((l) => (
            <li key={l.id} className="flex flex-wrap items-center gap-3 p-4">
              <div className="min-w-0 flex-1">
                <Link href={`/dashboard/listings/${l.id}`} className="font-medium hover:underline">{l.title}</Link>
                <p className="text-xs text-muted">
                  {l.publicationState} · {l._count.endpoints} endpoint{l._count.endpoints === 1 ? "" : "s"} · updated {timeAgo(l.updatedAt)}
                </p>
              </div>
              <div className="flex items-center gap-2">
                {l.currentResult && isStale(l.currentResult.createdAt) && <StaleChip />}
                <ReadinessChip score={l.currentResult?.total ?? null} band={l.currentResult?.band ?? null} />
              </div>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
