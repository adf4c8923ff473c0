import Link from "next/link";
import type { PublicListing } from "@/lib/catalog/public-view";
import { Monogram } from "./monogram";
import { ListingPrice } from "./price-display";
import { ReadinessChip } from "./readiness-chip";
import { networkName } from "@/lib/format";
import { VERIFICATION_WORDS, type TrustReading } from "@/lib/catalog/trust-words";
import { VerdictChip } from "./trust/endpoint-grades";

const VERIFICATION_STYLE: Record<string, string> = { verified: "text-emerald-800", degraded: "text-red-800", unverified: "text-slate-600" };

/** The tile's trust line: the verdict in words with the (provisional) grade, and the canary's paid test call. */
function TrustLine({ trust, verification }: { trust: TrustReading | null; verification: PublicListing["verification"] }) {
  return (
    <div className="mt-3 flex flex-wrap items-center gap-x-2 gap-y-1 text-xs" data-testid="tile-trust">
      {trust ? (
        <span className="inline-flex items-center gap-1" title={trust.detail}>
          <span className="text-muted">Trust</span>
          <VerdictChip verdict={trust.verdict} />
          {trust.grade && <span className="whitespace-nowrap text-slate-700">{trust.provisional ? "provisional grade " : "grade "}{trust.grade}</span>}
        </span>
      ) : (
        <span className="text-muted">Trust: no endpoint to check</span>
      )}
      <span className={`whitespace-nowrap ${VERIFICATION_STYLE[verification] ?? ""}`} data-testid="tile-verification" data-verification={verification}>
        {verification === "verified" ? "✓ " : verification === "degraded" ? "✗ " : ""}{VERIFICATION_WORDS[verification]}
      </span>
    </div>
  );
}

export function ListingTile({ listing, match = null, trust = null }: { listing: PublicListing; match?: "keyword" | "semantic" | null; trust?: TrustReading | null }) {
  const r = listing.readiness;
  return (
    <li className="group relative flex min-w-0 flex-col rounded-xl border border-line bg-white p-4 shadow-sm transition focus-within:ring-2 focus-within:ring-brand hover:border-indigo-300 hover:shadow-md">
      <div className="flex items-start gap-3">
        <Monogram title={listing.title} logoUrl={listing.logoUrl} />
        <div className="min-w-0 flex-1">
          {/* The whole title, wrapped: a tile never cuts a name to a few words. */}
          <h3 className="break-words font-semibold leading-snug">
            <Link href={`/listings/${listing.slug}`} className="after:absolute after:inset-0 focus:outline-none">
              {listing.title}
            </Link>
          </h3>
          <p className="mt-0.5 flex flex-wrap items-center gap-1.5 text-xs text-muted">
            <span className="min-w-0 break-words">{listing.category ?? "Uncategorised"} · {listing.seller}</span>
            {listing.demo && <span className="rounded bg-slate-100 px-1.5 py-0.5 text-[10px] font-medium uppercase tracking-wide text-slate-600">demo</span>}
            {match && (
              <span className="rounded bg-sky-50 px-1.5 py-0.5 text-[10px] font-medium uppercase tracking-wide text-sky-900 ring-1 ring-sky-700/30">
                {match === "keyword" ? "keyword match" : "semantic match"}
              </span>
            )}
          </p>
        </div>
      </div>
      <p className="mt-3 line-clamp-2 min-h-10 text-sm text-slate-700">{listing.shortDescription ?? "No short description yet."}</p>
      <div className="mt-3 flex flex-wrap items-center gap-1.5 text-xs">
        {listing.protocols.map((p) => (
          <span key={p} className="rounded bg-brand-soft px-1.5 py-0.5 font-medium text-brand">{p === "mpp" ? "MPP" : "x402"}</span>
        ))}
        {listing.networks.slice(0, 3).map((n) => (
          <span key={n} className="rounded bg-slate-100 px-1.5 py-0.5 text-slate-700">{networkName(n)}</span>
        ))}
        {listing.networks.length > 3 && <span className="text-slate-600">+{listing.networks.length - 3}</span>}
      </div>
      <TrustLine trust={trust} verification={listing.verification} />
      <div className="mt-auto flex items-end justify-between gap-2 pt-4">
        <div>
          <ReadinessChip score={r?.score ?? null} band={r?.band ?? null} />
          {r && (
            <p className="mt-1 text-[11px] text-slate-600">
              {r.rubricVersion} · <span className="whitespace-nowrap">analysed <time dateTime={r.analysedAt}>{r.analysedAt.slice(0, 10)}</time></span>
            </p>
          )}
        </div>
        <div className="text-right">
          <ListingPrice endpoints={listing.endpoints} />
        </div>
      </div>
    </li>
  );
}
