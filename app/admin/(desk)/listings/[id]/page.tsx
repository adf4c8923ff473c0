import type { Metadata } from "next";
import { LedgerTable } from "@/components/admin/ledger-table";
import { sessionUserId } from "@/lib/auth/session";
import type { ProbeEvidence } from "@/lib/evidence";
import { adminListing, LEDGER_ROWS_SHOWN } from "@/lib/surfaces/admin";
import { orPageError } from "@/lib/surfaces/guard";
import { AdminListingHeader, AnalysesSection, AuditsSection, CanarySection, EvidenceSection, LeversSection, OverlapSection, RankSection, ResultsSection, WashSection } from "./sections";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Listing · Moderation" };

const probeOf = (json: unknown): ProbeEvidence | null =>
  json && typeof json === "object" ? ("probe" in json ? (json as { probe: ProbeEvidence }).probe : (json as ProbeEvidence)) : null;

export default async function AdminListingPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const uid = await sessionUserId();
  const d = await orPageError(() => adminListing(uid, id), `/admin/listings/${id}`);
  const l = d.listing;
  const latestProbe = d.evidence[0] ? probeOf(d.evidence[0].evidence) : null;
  return (
    <div className="space-y-6">
      <AdminListingHeader l={l} />

      {d.overlaps.length > 0 && <OverlapSection overlaps={d.overlaps} />}

      <RankSection d={d} l={l} />

      <WashSection wash={d.wash} />

      <section aria-labelledby="ledger-h" className="rounded-xl border border-line bg-white p-5">
        <h2 id="ledger-h" className="text-lg font-semibold">Settlement ledger</h2>
        <LedgerTable rows={d.ledger} counts={d.ledgerCounts} shown={LEDGER_ROWS_SHOWN} />
      </section>

      <CanarySection d={d} l={l} />

      <LeversSection l={l} />

      <ResultsSection results={d.results} />

      <EvidenceSection evidence={d.evidence} latestProbe={latestProbe} listingBaseUrl={l.baseUrl} />

      <AnalysesSection analyses={d.analyses} />

      <AuditsSection audits={d.audits} />
    </div>
  );
}
