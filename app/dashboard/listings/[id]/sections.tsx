import Link from "next/link";
import { BadgeBuilder } from "@/components/badge-builder";
import { DimensionChart } from "@/components/charts/dimension-chart";
import { HistoryChart } from "@/components/charts/history-chart";
import { ProbeEvidenceView } from "@/components/probe-evidence";
import { bandStyle, ReadinessChip, StaleChip } from "@/components/readiness-chip";
import { CopyButton } from "@/components/copy-button";
import { ListingLifecycle } from "@/components/listing-lifecycle";
import { ReanalyseButton } from "@/components/reanalyse-button";
import { RuleStatusChip } from "@/components/rule-status";
import { formatRawTotal, timeAgo } from "@/lib/format";
import { acknowledgeNoticeAction } from "@/lib/surfaces/seller-actions";
import { gainWords } from "@/lib/scoring/readiness/advice";
import type { ReportResult, SellerReport } from "@/lib/surfaces/seller";

type Listing = SellerReport["listing"];
type Dimensions = ReportResult["dimensions"];

const fmt = (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(2).replace(/0$/, ""));

export function ReportHeader({ listing, published }: { listing: Listing; published: boolean }) {
  return (
    <div>
      <p className="text-sm">
        <Link href="/dashboard" className="text-brand underline">← My listings</Link>
      </p>
      <div className="mt-2 flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0">
          <h1 className="text-2xl font-semibold tracking-tight">{listing.title}</h1>
          <p className="text-sm text-muted">
            Readiness report · <span className="font-medium text-ink">{listing.publicationState}</span> · <span className="break-all font-mono text-xs">{listing.baseUrl}</span>{" "}
            <CopyButton text={listing.baseUrl} label="Copy URL" />
          </p>
        </div>
        <div className="flex flex-wrap gap-2 text-sm">
          <Link href={`/dashboard/listings/${listing.id}/edit`} className="rounded-md border border-line bg-white px-3 py-1.5 font-medium hover:bg-slate-50">Edit listing</Link>
          {published && <Link href={`/listings/${listing.slug}`} className="rounded-md border border-line bg-white px-3 py-1.5 hover:bg-slate-50">View in catalog</Link>}
          {listing.publicationState !== "archived" && <ListingLifecycle listingId={listing.id} title={listing.title} published={published} />}
        </div>
      </div>
    </div>
  );
}

export function ReportNotices({ report, analysisId }: { report: SellerReport; analysisId: string | null }) {
  const { listing } = report;
  return (
    <>
        {report.rubricNotice && (
          <div role="status" className="flex flex-wrap items-center justify-between gap-3 rounded-xl border border-sky-300 bg-sky-50 p-4 text-sm text-sky-950">
            <p>
              <strong>{report.rubricNotice.text}</strong> This result was re-scored under {report.rubricNotice.version}.
            </p>
            <form action={acknowledgeNoticeAction.bind(null, listing.id)}>
              <button type="submit" className="rounded-md border border-sky-400 bg-white px-3 py-1.5 font-medium hover:bg-sky-100">Dismiss</button>
            </form>
          </div>
        )}
        {report.verification.reset && (
          <p role="status" data-testid="verification-reset" className="rounded-xl border border-amber-300 bg-amber-50 p-4 text-sm text-amber-950">
            Verification reset {timeAgo(report.verification.reset.at)}: {report.verification.reset.reason}. The catalog&apos;s canary pays your endpoints again as they are listed now (that run was put first in its queue). Verification now: <strong>{report.verification.status}</strong>.
          </p>
        )}
        {report.lastFailure && !analysisId && (
          <p role="alert" className="rounded-xl border border-red-200 bg-red-50 p-4 text-sm text-red-900">
            The last analysis failed{report.lastFailure.finishedAt ? ` ${timeAgo(report.lastFailure.finishedAt)}` : ""}: {report.lastFailure.error ?? "no reason recorded"}. Check that the service answers at its base URL, then re-analyse.
          </p>
        )}
    </>
  );
}

export function ReadinessSection({ result, listing, published, analysisId }: { result: ReportResult | null; listing: Listing; published: boolean; analysisId: string | null }) {
  return (
    <section aria-labelledby="score-h" className="grid gap-4 rounded-xl border border-line bg-white p-5 md:grid-cols-[1fr_auto]">
      <div>
        <h2 id="score-h" className="text-sm font-semibold text-muted">Readiness</h2>
        {result ? (
          <>
            <div className="mt-1 flex flex-wrap items-baseline gap-3">
              <p className="text-6xl font-bold tabular-nums tracking-tight" data-testid="readiness-total">{result.total}</p>
              <p className="text-sm text-muted">of 100</p>
              <span className={`rounded-full px-3 py-1 text-base font-semibold ring-1 ${bandStyle(result.band)}`}>{result.band}</span>
              {result.stale && <StaleChip />}
            </div>
            <p className="mt-2 text-sm text-muted">
              Rubric {result.rubricVersion} · analysed <time dateTime={result.createdAt}>{result.createdAt.slice(0, 16).replace("T", " ")} UTC</time> ({timeAgo(result.createdAt)})
              {result.stale && " · older than 7 days: re-analyse to refresh it"}
            </p>
            {result.caps.length > 0 && (
              <p className="mt-2 rounded-md bg-red-50 p-2 text-sm text-red-900">
                Capped at {result.caps[0]!.value} ({result.caps.map((c) => c.id).join(", ")}): {result.caps[0]!.reason}. Raw total {formatRawTotal(result.rawTotal)}. Fix the blocker below first.
              </p>
            )}
          </>
        ) : (
          <p className="mt-2 text-sm text-muted">
            {published
              ? analysisId
                ? "Analysing now: the steps are shown beside this. The score appears here as soon as the result is stored."
                : "No published result yet. The analysis runs the live probe and scores the listing."
              : "This draft has not been analysed. Publish it to run the live probe, or edit it and watch the provisional estimate."}
          </p>
        )}
      </div>
      <div className="md:w-72">
        {published ? (
          <ReanalyseButton listingId={listing.id} activeAnalysisId={analysisId} />
        ) : (
          <Link href={`/dashboard/listings/${listing.id}/edit`} className="inline-block rounded-md bg-brand px-4 py-2 text-sm font-medium text-white hover:bg-indigo-800">Review and publish</Link>
        )}
      </div>
    </section>
  );
}

export function DimensionsSection({ dimensions }: { dimensions: Dimensions }) {
  return (
    <section aria-labelledby="dims-h" className="rounded-xl border border-line bg-white p-5">
      <h2 id="dims-h" className="text-lg font-semibold">Six dimensions</h2>
      <DimensionChart data={dimensions} />
      <table className="mt-2 w-full text-sm">
        <caption className="sr-only">Points earned per dimension</caption>
        <thead className="text-left text-xs text-muted">
          <tr><th className="py-1 font-medium">Dimension</th><th className="py-1 text-right font-medium">Earned</th><th className="py-1 text-right font-medium">Max</th></tr>
        </thead>
        <tbody className="divide-y divide-line">
          {dimensions.map((d) => (
            <tr key={d.id}><td className="py-1">{d.title}</td><td className="py-1 text-right tabular-nums">{fmt(d.earned)}</td><td className="py-1 text-right tabular-nums">{d.max}</td></tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

export function ImprovementsSection({ result, blockers, listingId }: { result: ReportResult; blockers: number; listingId: string }) {
  return (
    <section aria-labelledby="imp-h" className="rounded-xl border border-line bg-white p-5">
      <h2 id="imp-h" className="text-lg font-semibold">What to fix next</h2>
      <p className="text-sm text-muted">Blockers first, then the fixes worth the most points. Each fix&apos;s points are the change in your score when the listing is re-scored with it; &quot;up to&quot; marks what only a new probe can measure.</p>
      {result.improvements.length === 0 ? (
        <p className="mt-3 text-sm">Nothing left to fix: every rule earned full points.</p>
      ) : (
        <ol className="mt-3 space-y-3" aria-label="Improvements">
          {result.improvements.map((i) => (
            <li key={i.ruleId} className={`rounded-lg border p-3 text-sm ${i.blocker ? "border-red-300 bg-red-50" : "border-line"}`}>
              <div className="flex flex-wrap items-center gap-2">
                {i.blocker && <span className="rounded bg-red-800 px-1.5 py-0.5 text-[11px] font-bold uppercase text-white">Blocker</span>}
                <span className="font-mono text-xs font-semibold">{i.ruleId}</span>
                <span className="font-medium">{i.title}</span>
                <span className="ml-auto font-semibold tabular-nums text-green-800" data-testid="improvement-gain" data-gain={i.gain ?? ""}>{gainWords(i)}</span>
              </div>
              <p className="mt-1 text-slate-700">{i.action}</p>
              {i.opens.length > 0 && (
                <p className="mt-1 text-xs text-amber-900">
                  This fix opens {i.opens.map((o) => `${o.ruleId} (−${fmt(o.points)})`).join(", ")}: that rule then applies and loses points until it is met too.
                </p>
              )}
              {i.alternatives
                .filter((a) => a.opens.length > 0)
                .map((a) => (
                  <p key={a.fix} className="mt-1 text-xs text-amber-900">
                    To {a.fix} instead: {a.gain >= 0 ? "+" : ""}{a.gain} pts, as it opens {a.opens.map((o) => `${o.ruleId} (−${fmt(o.points)})`).join(", ")} until that rule is met.
                  </p>
                ))}
              <p className="mt-1 text-xs text-muted">effort {i.effort}{i.endpoints.length > 0 && ` · ${i.endpoints.length} endpoint${i.endpoints.length === 1 ? "" : "s"}`}</p>
            </li>
          ))}
        </ol>
      )}
      {blockers > 0 && <p className="mt-3 text-xs text-red-900">While a blocker stands, the total stays capped however polished the rest is.</p>}
      <Link href={`/dashboard/listings/${listingId}/edit`} className="mt-4 inline-block text-sm font-medium text-brand underline">Apply fixes in the editor →</Link>
    </section>
  );
}

export function RulesSection({ result, dimensions }: { result: ReportResult; dimensions: Dimensions }) {
  return (
    <section aria-labelledby="rules-h" className="rounded-xl border border-line bg-white p-5">
      <h2 id="rules-h" className="text-lg font-semibold">Every rule</h2>
      <p className="text-sm text-muted">Status, points, the reason, and the evidence each rule read.</p>
      <div className="mt-3 space-y-5">
        {dimensions.map((d) => (
          <div key={d.id}>
            <h3 className="text-sm font-semibold">{d.title} <span className="font-normal text-muted">· {fmt(d.earned)} of {d.max}</span></h3>
            <ul className="mt-2 divide-y divide-line rounded-lg border border-line">
              {result.rules.filter((r) => r.dimension === d.id).map((r) => (
                <li key={r.id} className="p-3 text-sm">
                  <div className="flex flex-wrap items-center gap-2">
                    <span className="font-mono text-xs font-semibold">{r.id}</span>
                    <span className="font-medium">{r.title}</span>
                    <RuleStatusChip status={r.status} />
                    <span className="ml-auto tabular-nums">{fmt(r.earned)} / {r.max}</span>
                  </div>
                  <p className="mt-1 text-slate-700">{r.reason}</p>
                  {r.endpoints.length > 0 && <p className="mt-1 text-xs text-muted">Falls short on: {r.endpoints.join(", ")}</p>}
                  {r.evidence && (
                    <details className="mt-1 text-xs">
                      <summary className="cursor-pointer text-muted hover:text-ink">Evidence <code>{r.evidence}</code></summary>
                      {r.evidenceResolved ? (
                        <pre className="mt-1 max-h-60 overflow-auto rounded bg-slate-950 p-2 text-[11px] text-slate-100">{JSON.stringify(r.evidenceValue, null, 2).slice(0, 4000)}</pre>
                      ) : (
                        <p className="mt-1 text-muted">Read from the ledger and monitor at scoring time; not stored with the probe evidence.</p>
                      )}
                    </details>
                  )}
                </li>
              ))}
            </ul>
          </div>
        ))}
      </div>
    </section>
  );
}

export function ProbeSection({ probe, listingBaseUrl }: { probe: SellerReport["probe"]; listingBaseUrl: string }) {
  return probe ? (
    <section aria-labelledby="probe-h" className="rounded-xl border border-line bg-white p-5">
      <h2 id="probe-h" className="text-lg font-semibold">What the probe saw</h2>
      <p className="text-sm text-muted">
        Probed {probe.probedAt.slice(0, 16).replace("T", " ")} UTC from {probe.vantage}, without paying.
      </p>
      <ProbeEvidenceView probe={probe} listingBaseUrl={listingBaseUrl} />
    </section>
  ) : (
    <p className="rounded-xl border border-dashed border-line bg-white p-4 text-sm text-muted">No probe evidence is stored with this result.</p>
  );
}

export function UnprobeableNotice({ unprobeable }: { unprobeable: NonNullable<SellerReport["unprobeable"]> }) {
  return (
    <section role="status" data-testid="unprobeable" className="rounded-xl border border-amber-300 bg-amber-50 p-4 text-sm text-amber-950">
      <p className="font-semibold">Unprobeable: {unprobeable.endpoints.join(", ")}</p>
      <p className="mt-1">{unprobeable.advice}</p>
    </section>
  );
}

export function HistorySection({ history }: { history: SellerReport["history"] }) {
  return (
    <section aria-labelledby="hist-h" className="rounded-xl border border-line bg-white p-5">
      <h2 id="hist-h" className="text-lg font-semibold">History</h2>
      <p className="text-sm text-muted">Every published result for this listing; results are never rewritten.</p>
      {history.length > 1 && <HistoryChart data={history.map((h) => ({ at: h.createdAt, total: h.total, rubricVersion: h.rubricVersion }))} />}
      <ol className="mt-2 divide-y divide-line text-sm" aria-label="Past results">
        {[...history].reverse().map((h) => (
          <li key={h.id} className="flex flex-wrap items-center gap-3 py-1.5">
            <time dateTime={h.createdAt} className="w-40 text-muted">{h.createdAt.slice(0, 16).replace("T", " ")}</time>
            <ReadinessChip score={h.total} band={h.band} />
            <span className="text-xs text-muted">{h.rubricVersion}</span>
          </li>
        ))}
      </ol>
    </section>
  );
}

export function BadgeSection({ slug, origin, badgeReady }: { slug: string; origin: string; badgeReady: boolean }) {
  return (
    <section aria-labelledby="badge-h" className="rounded-xl border border-line bg-white p-5">
      <h2 id="badge-h" className="text-lg font-semibold">Your badge</h2>
      <p className="text-sm text-muted">Paste it in your README or docs. It shows the published score and band, is signed, and links to your catalog page.</p>
      {!badgeReady && (
        <p className="mt-3 rounded-md bg-amber-50 p-2 text-sm text-amber-900" data-testid="badge-unavailable">
          This server has no badge signing key configured (BADGE_SIGNING_KEY), so the badge URLs below answer 503 until an operator sets one. The snippet itself is final.
        </p>
      )}
      <div className="mt-3">
        <BadgeBuilder slug={slug} origin={origin} preview={badgeReady} />
      </div>
    </section>
  );
}
