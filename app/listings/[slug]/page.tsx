import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { badgeKeyring } from "@/lib/badges/server";
import { publicListingPage } from "@/lib/surfaces/public-pages";
import { EndpointGrades } from "@/components/trust/endpoint-grades";
import { demoSignInEnabled } from "@/lib/auth/options";
import { ActivityBox, BadgeBox, EndpointList, HealthSection, HowToCall, ListingHeader, PaymentBox, ReadinessBox } from "./sections";

export const dynamic = "force-dynamic";

type Params = { params: Promise<{ slug: string }> };

export async function generateMetadata({ params }: Params): Promise<Metadata> {
  const page = await publicListingPage((await params).slug);
  return { title: page?.view.listing.title ?? "Listing not found" };
}

export default async function ListingPage({ params }: Params) {
  const now = new Date();
  const page = await publicListingPage((await params).slug);
  if (!page) notFound();
  const { view, trust } = page;
  const { listing, facts, calls } = view;
  const { health, activity } = facts;
  const r = listing.readiness;
  // The badge is signed; a server without a signing key cannot serve it, so say so instead of showing a broken image.
  const badgeReady = r ? await badgeKeyring().then(() => true, () => false) : false;
  const demo = demoSignInEnabled();
  return (
    <article className="grid gap-6 lg:grid-cols-[1fr_18rem]">
      <div className="min-w-0">
        <ListingHeader listing={listing} />

        <HealthSection health={health} now={now} />

        <EndpointList listing={listing} quotes={facts.quotes} now={now} />
        <EndpointGrades slug={listing.slug} endpoints={trust} />

        {calls.length > 0 && <HowToCall calls={calls} demo={demo} />}
      </div>

      <aside className="min-w-0 space-y-4">
        <ReadinessBox r={r} />
        <ActivityBox activity={activity} />
        {r && <BadgeBox slug={listing.slug} r={r} badgeReady={badgeReady} />}
        <PaymentBox listing={listing} />
      </aside>
    </article>
  );
}
