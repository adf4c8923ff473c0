/**
 * Each endpoint's trust grade on the public listing page, in plain words (lib/catalog/trust-words.ts),
 * without rule ids (the endpoint's trust page keeps them). Never enters readiness or rank.
 */
import Link from "next/link";
import type { EndpointTrustSummary } from "@/lib/catalog/trust-view";
import { trustReading, VERDICT_WORDS } from "@/lib/catalog/trust-words";
import { ValueMetrics } from "./value-metrics";

export const VERDICT_STYLE: Record<string, { label: string; className: string }> = {
  ok: { label: VERDICT_WORDS.ok, className: "bg-emerald-100 text-emerald-800" },
  caution: { label: VERDICT_WORDS.caution, className: "bg-amber-100 text-amber-900" },
  down: { label: VERDICT_WORDS.down, className: "bg-slate-200 text-slate-800" },
  avoid: { label: VERDICT_WORDS.avoid, className: "bg-red-100 text-red-800" },
  insufficient_evidence: { label: VERDICT_WORDS.insufficient_evidence, className: "bg-slate-100 text-slate-600" },
};

const OUTLOOK: Record<string, string> = { improving: "↗ improving", steady: "→ steady", declining: "↘ declining" };

export function VerdictChip({ verdict }: { verdict: string }) {
  const v = VERDICT_STYLE[verdict] ?? { label: verdict, className: "bg-slate-100 text-slate-700" };
  return <span className={`whitespace-nowrap rounded px-1.5 py-0.5 text-xs font-medium ${v.className}`} data-verdict={verdict}>{v.label}</span>;
}

/** The grade letter; a provisional one is outlined, not filled, and says so to a screen reader. */
export function GradeSquare({ grade, provisional = false }: { grade: string | null; provisional?: boolean }) {
  const look = provisional ? "border-2 border-dashed border-slate-400 bg-white text-slate-700" : "bg-slate-900 text-white";
  return (
    <span className={`inline-flex h-9 w-9 shrink-0 items-center justify-center rounded-md text-lg font-semibold ${look}`} aria-label={grade ? `${provisional ? "provisional " : ""}grade ${grade}` : "no grade"} title={provisional ? "provisional grade" : undefined}>
      {grade ?? "–"}
    </span>
  );
}

export function EndpointGrades({ slug, endpoints, now = Date.now() }: { slug: string; endpoints: EndpointTrustSummary[]; now?: number }) {
  return (
    <section aria-labelledby="trust-h" className="mt-8" data-testid="endpoint-grades">
      <h2 id="trust-h" className="text-lg font-semibold">Trust grade</h2>
      <p className="mt-1 text-xs text-muted">
        From the catalog&apos;s own checks and paid test calls. A grade comes with its range; it never enters readiness or rank.
      </p>
      {endpoints.length === 0 && <p className="mt-3 text-sm text-muted">No endpoints to grade.</p>}
      <ul className="mt-3 divide-y divide-line rounded-lg border border-line bg-white">
        {endpoints.map((e) => {
          const r = trustReading(e, now);
          return (
            <li key={e.endpointId} className="flex flex-wrap items-start gap-3 p-3" data-testid="endpoint-grade" data-endpoint={`${e.method} ${e.path}`}>
              <GradeSquare grade={r.grade} provisional={r.provisional} />
              <div className="min-w-0 flex-1">
                <Link href={`/listings/${slug}/trust/${e.endpointId}`} className="flex flex-wrap items-center gap-2 hover:underline">
                  <span className="font-mono text-xs font-semibold">{e.method}</span>
                  <code className="break-all font-mono text-sm">{e.path}</code>
                </Link>
                <p className="mt-1 text-sm font-medium" data-testid="trust-band">{r.headline}</p>
                <p className="mt-0.5 text-sm text-slate-700" data-testid={r.verdict === "insufficient_evidence" ? "trust-thin" : "trust-detail"}>{r.detail}</p>
                <p className="mt-1 flex flex-wrap items-center gap-2 text-xs text-muted">
                  <VerdictChip verdict={r.verdict} />
                  {e.outlook.trend && <span>{OUTLOOK[e.outlook.trend]}</span>}
                  {e.watch && <span className="rounded bg-amber-50 px-1.5 py-0.5 font-medium text-amber-900">watch: recently changed</span>}
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
