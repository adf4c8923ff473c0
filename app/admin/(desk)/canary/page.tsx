import type { Metadata } from "next";
import Link from "next/link";
import { sessionUserId } from "@/lib/auth/session";
import { isAppError } from "@/lib/errors";
import { adminCanaryDesk, parseCanaryFilter } from "@/lib/surfaces/admin-canary";
import { orPageError } from "@/lib/surfaces/guard";
import { BudgetSection, CeilingSection, RunsSection, SharesSection } from "./sections";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Canary runs · Moderation" };

type Props = { searchParams: Promise<{ show?: string; cursor?: string; notice?: string }> };

export default async function CanaryDeskPage({ searchParams }: Props) {
  const sp = await searchParams;
  const uid = await sessionUserId();
  // An unknown filter is named, not ignored (the read model refuses it with its pointer).
  let refused: string | null = null;
  try {
    parseCanaryFilter(sp.show);
  } catch (e) {
    if (!isAppError(e)) throw e;
    refused = e.message;
  }
  const d = await orPageError(() => adminCanaryDesk(uid, { show: refused ? null : (sp.show ?? null), cursor: sp.cursor ?? null }), "/admin/canary");
  return (
    <div className="space-y-6">
      <p className="text-sm"><Link href="/admin" className="text-brand underline">← Moderation</Link></p>
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Canary runs</h1>
        <p className="mt-1 text-sm text-muted">
          The catalog pays every listable endpoint through the router with its house wallet; the latest run of a listing sets its verification. Every run across listings, newest first, with each call&apos;s evidence and transaction.
        </p>
      </div>

      <BudgetSection budget={d.budget} />

      {sp.notice && <p role="status" className="rounded-lg border border-line bg-brand-soft p-3 text-sm">{sp.notice.slice(0, 500)}</p>}

      <SharesSection shares={d.shares} />

      <CeilingSection priceCeiling={d.priceCeiling} awaiting={d.awaitingPriceApproval} />

      <RunsSection d={d} refused={refused} />
    </div>
  );
}
