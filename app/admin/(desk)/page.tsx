import type { Metadata } from "next";
import { requireActor } from "@/lib/auth/roles";
import { sessionUserId } from "@/lib/auth/session";
import { adminDesk } from "@/lib/surfaces/admin";
import { orPageError } from "@/lib/surfaces/guard";
import { DeskHeader, ListingFilters, ListingsTable, PUBLICATION_STATES, QueueSection } from "./sections";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Moderation" };

type Props = { searchParams: Promise<{ state?: string; q?: string; status?: string; overlaps?: string; notice?: string }> };

export default async function AdminPage({ searchParams }: Props) {
  const sp = await searchParams;
  const uid = await sessionUserId();
  const data = await orPageError(() => adminDesk(uid, { state: sp.state ?? null }), "/admin");
  // API keys are the admins' (a moderator would meet a 403 there), so only an admin is offered the desk.
  const isAdmin = (await requireActor(uid)).role === "admin";
  const now = Date.now();
  // The listings table's search and filters (a GET form: shareable, no script needed).
  const q = (sp.q ?? "").trim().toLowerCase();
  const status = PUBLICATION_STATES.includes(sp.status ?? "") ? sp.status! : "";
  const overlapsOnly = sp.overlaps === "1";
  const listings = data.listings.filter(
    (l) => (!q || `${l.title} ${l.slug} ${l.organization.name} ${l.baseUrl}`.toLowerCase().includes(q)) && (!status || l.publicationState === status) && (!overlapsOnly || l.overlaps.length > 0),
  );
  return (
    <div className="space-y-8">
      <DeskHeader isAdmin={isAdmin} />

      <QueueSection data={data} notice={sp.notice} now={now} />

      <section aria-labelledby="listings-h">
        <h2 id="listings-h" className="text-lg font-semibold">Listings in browse order</h2>
        <p className="text-sm text-muted">Position is the public catalog&apos;s order (tier ↑, sort weight ↓, rank ↓, then the 6-hour shuffle). Quality and rank are shown ×100; rank is a sort key, not a percentage.</p>
        <ListingFilters state={data.state} q={sp.q} status={status} overlapsOnly={overlapsOnly} />
        <p className="mt-2 text-xs text-muted" data-testid="admin-listing-count">{listings.length} of {data.listings.length} listings</p>
        <ListingsTable listings={listings} />
      </section>
    </div>
  );
}
