import type { Metadata } from "next";
import { BuyerPrices } from "@/components/buyer-prices";
import { listingPageView } from "@/lib/surfaces/catalog";
import { sessionUserId } from "@/lib/auth/session";
import { badgeKeyring } from "@/lib/badges/server";
import { orPageError } from "@/lib/surfaces/guard";
import { env } from "@/lib/env";
import { sellerReport } from "@/lib/surfaces/seller";
import { SellerTrust } from "@/components/trust/seller-trust";
import { SellerCanary } from "@/components/seller-canary";
import { getListingTrustDetails } from "@/lib/catalog/trust";
import { SellerReceipts } from "@/components/seller-receipts";
import { BadgeSection, DimensionsSection, HistorySection, ImprovementsSection, ProbeSection, ReadinessSection, ReportHeader, ReportNotices, RulesSection, UnprobeableNotice } from "./sections";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Readiness report" };

type Props = { params: Promise<{ id: string }>; searchParams: Promise<{ analysis?: string }> };

export default async function ReportPage({ params, searchParams }: Props) {
  const { id } = await params;
  const sp = await searchParams;
  const uid = await sessionUserId();
  const report = await orPageError(() => sellerReport(uid, id), `/dashboard/listings/${id}`);
  const { listing, result, probe, history } = report;
  const published = listing.publicationState === "published";
  const analysisId = report.activeAnalysisId ?? (typeof sp.analysis === "string" ? sp.analysis : null);
  const origin = published && result ? env().publicOrigin : "";
  const badgeReady = published && result ? await badgeKeyring().then(() => true, () => false) : false;
  // The public page's read model (published listings only): its prices through the one price display.
  const buyerView = published ? await listingPageView(listing.slug) : null;
  const blockers = result?.improvements.filter((i) => i.blocker) ?? [];
  const dimensions = result?.dimensions ?? [];
  const trust = await getListingTrustDetails(listing.id);

  return (
    <div className="space-y-6">
      <ReportHeader listing={listing} published={published} />
      <ReportNotices report={report} analysisId={analysisId} />

      <SellerCanary canary={report.canary} published={published} />

      <ReadinessSection result={result} listing={listing} published={published} analysisId={analysisId} />

      {result && (
        <>
          <div className="grid gap-6 lg:grid-cols-2">
            <DimensionsSection dimensions={dimensions} />
            <ImprovementsSection result={result} blockers={blockers.length} listingId={listing.id} />
          </div>
          <RulesSection result={result} dimensions={dimensions} />
          <ProbeSection probe={probe} listingBaseUrl={listing.baseUrl} />
        </>
      )}

      {report.unprobeable && <UnprobeableNotice unprobeable={report.unprobeable} />}

      <SellerReceipts items={report.receipts.items} firstSettlementToListedMs={report.receipts.firstSettlementToListedMs} />

      <SellerTrust endpoints={trust} publicBase={published ? `/listings/${listing.slug}` : null} />

      {history.length > 0 && <HistorySection history={history} />}

      {buyerView && <BuyerPrices endpoints={buyerView.listing.endpoints} quotes={buyerView.facts.quotes} now={new Date()} />}

      {published && result && <BadgeSection slug={listing.slug} origin={origin} badgeReady={badgeReady} />}
    </div>
  );
}
