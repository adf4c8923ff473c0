/**
 * Each endpoint's trust grade on the public listing page (docs/TRUST.md, issue #21 "Where it shows"):
 * grade and band ("B, 78–86, medium confidence"), verdict, outlook and watch, linked to the endpoint's
 * trust page. An endpoint with too few observations says so (`insufficient_evidence`) instead of a
 * grade. The value metrics sit below each grade, labelled as not part of it. Separate from readiness: the trust grade never enters readiness or rank.
 */
import Link from "next/link";
import type { EndpointTrustSummary } from "@/lib/catalog/trust-view";
import { ValueMetrics } from "./value-metrics";

export const VERDICT_STYLE: Record<string, { label: string; className: string }> = {
  ok: { label: "ok", className: "bg-emerald-100 text-emerald-800" },
  caution: { label: "caution", className: "bg-amber-100 text-amber-900" },
  down: { label: "down", className: "bg-slate-200 text-slate-800" },
  avoid: { label: "avoid", className: "bg-red-100 text-red-800" },
  insufficient_evidence: { label: "insufficient evidence", className: "bg-slate-100 text-slate-600" },
};

const OUTLOOK: Record<string, string> = { improving: "↗ improving", steady: "→ steady", declining: "↘ declining" };

export function VerdictChip({ verdict }: { verdict: string }) {
  const v = VERDICT_STYLE[verdict] ?? { label: verdict, className: "bg-slate-100 text-slate-700" };
  return <span className={`rounded px-1.5 py-0.5 text-xs font-medium ${v.className}`} data-verdict={verdict}>{v.label}</span>;
}

export function GradeSquare({ grade }: { grade: string | null }) {
  return (
    <span className="inline-flex h-9 w-9 shrink-0 items-center justify-center rounded-md bg-slate-900 text-lg font-semibold text-white" aria-hidden>
      {grade ?? "–"}
    </span>
  );
}

export function EndpointGrades({ slug, endpoints }: { slug: string; endpoints: EndpointTrustSummary[] }) {
  return (
    <section aria-labelledby="trust-h" className="mt-8" data-testid="endpoint-grades">
      <h2 id="trust-h" className="text-lg font-semibold">Trust grade</h2>
      <p className="mt-1 text-xs text-muted">
        Scored from the catalog&apos;s own probes and paid canary samples (rubric x402-endpoint/1.0.0-draft.1). A grade comes with its band; it never enters readiness or rank.
      </p>
      {endpoints.length === 0 && <p className="mt-3 text-sm text-muted">No endpoints to grade.</p>}
      <ul className="mt-3 divide-y divide-line rounded-lg border border-line bg-white">
        {endpoints.map((e) => {
          const thin = e.verdict === "insufficient_evidence";
          return (
            <li key={e.endpointId} className="flex flex-wrap items-start gap-3 p-3" data-testid="endpoint-grade" data-endpoint={`${e.method} ${e.path}`}>
              <GradeSquare grade={thin ? null : e.grade} />
              <div className="min-w-0 flex-1">
                <Link href={`/listings/${slug}/trust/${e.endpointId}`} className="flex flex-wrap items-center gap-2 hover:underline">
                  <span className="font-mono text-xs font-semibold">{e.method}</span>
                  <code className="break-all font-mono text-sm">{e.path}</code>
                </Link>
                {thin ? (
                  <p className="mt-1 text-sm text-muted" data-testid="trust-thin">
                    Not enough evidence for a grade yet: {e.verdictBecause.join("; ") || "too few observations"} ({e.probes} probe{e.probes === 1 ? "" : "s"} over {e.probeSpanDays} day{e.probeSpanDays === 1 ? "" : "s"}).
                    {e.label && <span className="ml-1">Early reading: {e.label}.</span>}
                  </p>
                ) : (
                  <p className="mt-1 text-sm" data-testid="trust-band">{e.label}</p>
                )}
                <p className="mt-1 flex flex-wrap items-center gap-2 text-xs text-muted">
                  <VerdictChip verdict={e.verdict} />
                  {e.outlook.trend && <span>{OUTLOOK[e.outlook.trend]}</span>}
                  {e.watch && <span className="rounded bg-amber-50 px-1.5 py-0.5 font-medium text-amber-900" title={e.watchBecause.join("; ")}>watch</span>}
                  {e.flags.map((f) => <span key={f} className="rounded bg-red-50 px-1.5 py-0.5 font-mono text-red-800">{f}</span>)}
                </p>
                <ValueMetrics value={e.value} compact />
              </div>
              <Link href={`/listings/${slug}/trust/${e.endpointId}`} className="self-center text-xs text-brand underline">details</Link>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
