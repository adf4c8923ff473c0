import Link from "next/link";
import { CanaryRunList } from "@/components/admin/canary-runs";
import { CanaryForm, CurationForm, FeaturedForm } from "@/components/admin/moderation-forms";
import { ProbeEvidenceView } from "@/components/probe-evidence";
import { ProvisionalChip, ReadinessChip } from "@/components/readiness-chip";
import { formatRawTotal, formatUsdcAtomic, timeAgo } from "@/lib/format";
import type { ProbeEvidence } from "@/lib/evidence";
import { OVERLAP_WORDS } from "@/lib/listings/overlap-words";
import type { adminListing, WashExclusionView } from "@/lib/surfaces/admin";

type Desk = Awaited<ReturnType<typeof adminListing>>;
type Listing = Desk["listing"];

const COMPONENT_TITLE: Record<string, string> = {
  gate: "SettleGate",
  liveness: "Liveness (weight 0.25)",
  traction: "Traction (weight 0.45)",
  priceIntegrity: "Price integrity (weight 0.30)",
  featured: "Featured (editorial)",
  verification: "Verification (canary)",
};

export function AdminListingHeader({ l }: { l: Listing }) {
  return (
    <>
      <p className="text-sm"><Link href="/admin" className="text-brand underline">← Moderation</Link></p>
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0">
          <h1 className="text-2xl font-semibold tracking-tight">{l.title}</h1>
          <p className="text-sm text-muted">{l.organization.name} · {l.publicationState} · health {l.healthStatus} · <span className="break-all font-mono text-xs">{l.baseUrl}</span></p>
        </div>
        <div className="flex gap-2 text-sm">
          {l.publicationState === "published" && <Link href={`/listings/${l.slug}`} className="rounded-md border border-line bg-white px-3 py-1.5 hover:bg-slate-50">Public page</Link>}
          <Link href={`/admin/audit?listing=${l.id}`} className="rounded-md border border-line bg-white px-3 py-1.5 hover:bg-slate-50">Audit for this listing</Link>
        </div>
      </div>
    </>
  );
}

export function OverlapSection({ overlaps }: { overlaps: Desk["overlaps"] }) {
  return (
    <section aria-labelledby="overlap-h" data-testid="overlap" className="rounded-xl border border-amber-300 bg-amber-50 p-4 text-sm text-amber-950">
      <h2 id="overlap-h" className="font-semibold">Listed by other organisations too</h2>
      <p className="mt-1">The same service appears in other organisations&apos; listings. Intake allowed it (a reseller or a mirror may be legitimate); check who runs the service.</p>
      <ul className="mt-2 list-disc space-y-0.5 pl-5">
        {overlaps.map((o) => (
          <li key={o.id}>
            <Link href={`/admin/listings/${o.id}`} className="font-medium underline">{o.title}</Link> by {o.organizationName} · {o.publicationState} · {OVERLAP_WORDS[o.reason]}
          </li>
        ))}
      </ul>
    </section>
  );
}

export function RankSection({ d, l }: { d: Desk; l: Listing }) {
  return (
    <section aria-labelledby="rank-h" className="rounded-xl border border-line bg-white p-5">
      <h2 id="rank-h" className="text-lg font-semibold">Quality and rank</h2>
      <dl className="mt-3 grid grid-cols-2 gap-3 sm:grid-cols-4">
        <div className="rounded-lg bg-slate-50 p-3"><dt className="text-xs text-muted">Browse position</dt><dd className="text-2xl font-semibold tabular-nums" data-testid="browse-position">{d.position.position === null ? "not listed" : `#${d.position.position}`}<span className="text-sm font-normal text-muted"> of {d.position.of}</span></dd></div>
        <div className="rounded-lg bg-slate-50 p-3"><dt className="text-xs text-muted">Quality ×100</dt><dd className="text-2xl font-semibold tabular-nums">{l.qualityScore === null ? "—" : Math.round(l.qualityScore * 100)}</dd></div>
        <div className="rounded-lg bg-slate-50 p-3"><dt className="text-xs text-muted">Rank ×100 (sort key)</dt><dd className="text-2xl font-semibold tabular-nums">{l.rankScore === null ? "—" : Math.round(l.rankScore * 100)}</dd></div>
        <div className="rounded-lg bg-slate-50 p-3"><dt className="text-xs text-muted">Levers</dt><dd className="text-sm">featured {l.featuredLevel} · {l.verificationStatus} · tier {l.tier} · weight {l.sortWeight}</dd></div>
      </dl>
      <p className="mt-2 text-xs text-muted">quality = SettleGate × (0.25·Liveness + 0.45·Traction + 0.30·PriceIntegrity); rank = quality × Featured × Verification. {l.rankedAt ? `Ranked ${timeAgo(l.rankedAt)}.` : "Not ranked yet."}</p>
      {d.components.length === 0 ? (
        <p className="mt-3 text-sm text-muted">No rank components yet: the rank sweep has not scored this listing.</p>
      ) : (
        <ul className="mt-3 grid gap-3 md:grid-cols-2 xl:grid-cols-3">
          {d.components.map((c) => (
            <li key={c.key} className="rounded-lg border border-line p-3 text-sm">
              <div className="flex items-baseline justify-between gap-2">
                <span className="font-medium">{COMPONENT_TITLE[c.key] ?? c.key}</span>
                <span className="font-mono font-semibold tabular-nums">{c.key === "featured" || c.key === "verification" || c.key === "gate" ? `×${c.value.toFixed(2)}` : c.value.toFixed(3)}</span>
              </div>
              <p className="mt-1 text-slate-700">{c.reason}</p>
              <details className="mt-1 text-xs">
                <summary className="cursor-pointer text-muted hover:text-ink">Facts</summary>
                <dl className="mt-1 grid grid-cols-[auto_1fr] gap-x-2 gap-y-0.5">
                  {Object.entries(c.facts).map(([k, v]) => (
                    <div key={k} className="contents"><dt className="font-mono text-muted">{k}</dt><dd className="break-all font-mono">{typeof v === "object" ? JSON.stringify(v) : String(v)}</dd></div>
                  ))}
                </dl>
              </details>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

const WASH_REASON_WORDS: Record<WashExclusionView["reason"], (e: WashExclusionView) => string> = {
  seller_wallet: () => "is the seller's own wallet",
  funded_by_seller: (e) => `funded by the seller's ${e.from} in ${e.transaction}`,
  funded_by_ring: (e) => `funded by a payment ring's payee ${e.from} in ${e.transaction}`,
  ring_payee: (e) => `is a payee of ring seller listing ${e.listing}`,
  ring_only: () => "paid two or more of the ring's sellers and no one else",
};

export function WashSection({ wash }: { wash: Desk["wash"] }) {
  return (
    <section aria-labelledby="wash-h" data-testid="wash" className="rounded-xl border border-line bg-white p-5 text-sm">
      <h2 id="wash-h" className="text-lg font-semibold">Wash check</h2>
      <p className="text-muted">Payers funded by this seller&apos;s own wallets (its payTo addresses, its members&apos; sign-in wallets) before they paid, read from the token&apos;s Transfer logs, and the wallets of a payment ring (sellers whose payees pay one another&apos;s listings), are not distinct payers: the traction and settled-price facts above leave them out.</p>
      {!wash ? (
        <p className="mt-2 text-muted">Not checked: the listing has had fewer than 2 distinct payers in the window since the check began.</p>
      ) : (
        <>
          <p className="mt-2">
            <strong>{wash.excluded.length}</strong> payer{wash.excluded.length === 1 ? "" : "s"} excluded · {wash.measuredAt ? `chain read ${timeAgo(wash.measuredAt)}` : "never read from the chain"} · checked {timeAgo(wash.checkedAt)}
          </p>
          {wash.ring && (
            <p className={`mt-1 rounded-md p-2 ${wash.ring.flagged ? "bg-red-50 text-red-950" : "bg-amber-50 text-amber-950"}`} data-testid="wash-ring">
              {wash.ring.flagged ? "Flagged wash_ring (left out of router selection by default): " : "Payment ring: "}
              {wash.ring.why}. Ring sellers (organisations): {wash.ring.organizations.join(", ")}.
            </p>
          )}
          {wash.unmeasured && (
            <p className="mt-1 rounded-md bg-amber-50 p-2 text-amber-950" data-testid="wash-unmeasured">
              Unmeasured: {wash.unmeasured}. {wash.measuredAt ? "The exclusions last measured stand until the chain can be read." : "No exclusion has been measured; the payers count until the chain can be read."}
            </p>
          )}
          {wash.excluded.length > 0 && (
            <ul className="mt-2 space-y-0.5 font-mono text-xs">
              {wash.excluded.map((e) => (
                <li key={e.payer} className="break-all">
                  {e.payer}: {WASH_REASON_WORDS[e.reason](e)}
                </li>
              ))}
            </ul>
          )}
        </>
      )}
    </section>
  );
}

export function CanarySection({ d, l }: { d: Desk; l: Listing }) {
  return (
    <section aria-labelledby="canary-h" className="rounded-xl border border-line bg-white p-5">
      <h2 id="canary-h" className="text-lg font-semibold">Canary runs</h2>
      <p className="text-sm text-muted">
        The catalog pays each listable endpoint through the router with its house wallet; the latest run sets verification ({l.verificationStatus}{l.canarySuspendedAt ? ", canary suspended" : ""}).
        Budget left today: <span className="font-mono">{formatUsdcAtomic(d.canaryBudget.leftTodayForListing)}</span> for this listing, <span className="font-mono">{formatUsdcAtomic(d.canaryBudget.leftToday)}</span> overall (USDC). <Link href="/admin/canary" className="text-brand underline">Every listing&apos;s runs</Link>
      </p>
      {l.verificationResetReason && l.verificationResetAt && (
        <p className="mt-2 rounded-md bg-amber-50 p-2 text-sm text-amber-950" data-testid="verification-reset">
          Verification reset <time dateTime={l.verificationResetAt.toISOString()}>{timeAgo(l.verificationResetAt)}</time>: {l.verificationResetReason}. A canary run of the listing as it is now was put first in the queue.
        </p>
      )}
      {d.canaryRuns.length === 0 ? (
        <p className="mt-2 text-sm text-muted">No canary run yet.</p>
      ) : (
        <CanaryRunList runs={d.canaryRuns} />
      )}
    </section>
  );
}

export function LeversSection({ l }: { l: Listing }) {
  return (
    <section aria-labelledby="levers-h">
      <h2 id="levers-h" className="text-lg font-semibold">Levers</h2>
      <p className="text-sm text-muted">Each change is audited with its reason and re-ranks the listing at once.</p>
      <div className="mt-3 grid gap-4 lg:grid-cols-3">
        <FeaturedForm listingId={l.id} current={l.featuredLevel} />
        <CanaryForm listingId={l.id} verification={l.verificationStatus} suspended={l.canarySuspendedAt !== null} />
        <CurationForm listingId={l.id} tier={l.tier} sortWeight={l.sortWeight} />
      </div>
    </section>
  );
}

export function ResultsSection({ results }: { results: Desk["results"] }) {
  return (
    <section aria-labelledby="results-h" className="rounded-xl border border-line bg-white p-5">
      <h2 id="results-h" className="text-lg font-semibold">Readiness history</h2>
      {results.length === 0 ? (
        <p className="mt-2 text-sm text-muted">No results yet.</p>
      ) : (
        <div className="mt-2 relative overflow-x-auto">
          <table className="w-full min-w-[36rem] text-sm">
            <thead className="text-left text-xs uppercase tracking-wide text-muted"><tr><th className="py-1.5">When</th><th className="py-1.5">Readiness</th><th className="py-1.5">Raw</th><th className="py-1.5">Rubric</th><th className="py-1.5">Caps</th><th className="py-1.5">Evidence</th></tr></thead>
            <tbody className="divide-y divide-line">
              {results.map((r) => (
                <tr key={r.id}>
                  <td className="py-1.5"><time dateTime={r.createdAt.toISOString()}>{r.createdAt.toISOString().slice(0, 16).replace("T", " ")}</time>{r.current && <span className="ml-2 rounded bg-brand-soft px-1.5 text-xs text-brand">current</span>}</td>
                  <td className="py-1.5"><span className="inline-flex items-center gap-1"><ReadinessChip score={r.total} band={r.band} />{r.provisional && <ProvisionalChip />}</span></td>
                  <td className="py-1.5 tabular-nums">{formatRawTotal(r.rawTotal)}</td>
                  <td className="py-1.5">{r.rubricVersion}</td>
                  <td className="py-1.5 text-xs">{Array.isArray(r.caps) && r.caps.length ? (r.caps as Array<{ id: string }>).map((c) => c.id).join(", ") : "—"}</td>
                  <td className="py-1.5 font-mono text-xs">{r.evidenceId ?? "—"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

export function EvidenceSection({ evidence, latestProbe, listingBaseUrl }: { evidence: Desk["evidence"]; latestProbe: ProbeEvidence | null; listingBaseUrl: string }) {
  return (
    <section aria-labelledby="evidence-h" className="rounded-xl border border-line bg-white p-5">
      <h2 id="evidence-h" className="text-lg font-semibold">Probe evidence</h2>
      {evidence.length === 0 ? (
        <p className="mt-2 text-sm text-muted">The monitor has not probed this listing yet.</p>
      ) : (
        <>
          <ul className="mt-2 space-y-1 text-sm">
            {evidence.map((e) => (
              <li key={e.id} className="flex flex-wrap gap-2"><time dateTime={e.probedAt.toISOString()} className="text-muted">{e.probedAt.toISOString().slice(0, 16).replace("T", " ")}</time><span>{e.vantage}</span><span>{e.ok ? "ok" : `refused: ${e.refusal ?? "?"}`}</span><span className="font-mono text-xs text-muted">{e.id}</span></li>
            ))}
          </ul>
          {latestProbe && (
            <>
              <h3 className="mt-4 text-sm font-semibold">Latest probe in full</h3>
              <ProbeEvidenceView probe={latestProbe} listingBaseUrl={listingBaseUrl} />
            </>
          )}
        </>
      )}
    </section>
  );
}

export function AnalysesSection({ analyses }: { analyses: Desk["analyses"] }) {
  return (
    <section aria-labelledby="an-h" className="rounded-xl border border-line bg-white p-5">
      <h2 id="an-h" className="text-lg font-semibold">Analyses</h2>
      {analyses.length === 0 ? <p className="mt-2 text-sm text-muted">None yet.</p> : (
        <ul className="mt-2 divide-y divide-line text-sm">
          {analyses.map((a) => (
            <li key={a.id} className="flex flex-wrap gap-3 py-1.5"><span className="w-28 text-muted">{timeAgo(a.createdAt)}</span><span>{a.trigger}</span><span className="font-medium">{a.state}</span><span>step {a.step}</span><span>attempt {a.attempts}/{a.maxAttempts}</span>{a.error && <span className="text-red-800">{a.error}</span>}</li>
          ))}
        </ul>
      )}
    </section>
  );
}

export function AuditsSection({ audits }: { audits: Desk["audits"] }) {
  return (
    <section aria-labelledby="aud-h" className="rounded-xl border border-line bg-white p-5">
      <h2 id="aud-h" className="text-lg font-semibold">Moderation changes</h2>
      {audits.length === 0 ? <p className="mt-2 text-sm text-muted">No moderation changes yet.</p> : (
        <ul className="mt-2 divide-y divide-line text-sm">
          {audits.map((a) => (
            <li key={a.id} className="py-1.5"><span className="text-muted">{a.createdAt.toISOString().slice(0, 16).replace("T", " ")}</span> · <strong>{a.actor.name}</strong> · {a.action} · <code className="text-xs">{JSON.stringify(a.before)} → {JSON.stringify(a.after)}</code> · “{a.reason}”</li>
          ))}
        </ul>
      )}
    </section>
  );
}
