/** docs/spec/scoring-system.md "Provisional estimate" beside the editor: H1–H3 not observed, no cap evaluated; never published. */
import { CURRENT_RUBRIC } from "@/lib/scoring/readiness/rubric";
import { gainWords, type AdvisedResult } from "@/lib/scoring/readiness/advice";
import { ProvisionalChip, ReadinessChip } from "../readiness-chip";

const RULE_TITLE = new Map(CURRENT_RUBRIC.rules.map((r) => [r.id, r.title]));
const DIM_TITLE = new Map(CURRENT_RUBRIC.dimensions.map((d) => [d.id, d.title]));

/** Why the estimate sits below the published score, or null when it does not. */
export function belowPublishedWords(estimateTotal: number, publishedTotal: number | null): string | null {
  if (publishedTotal === null || estimateTotal >= publishedTotal) return null;
  return `Below your published ${publishedTotal} because this estimate has no live probe: the rules only a live probe measures (health H1–H3 among them) count as not observed here. The next analysis measures them again.`;
}

export function Estimate({ estimate, publishedTotal = null }: { estimate: AdvisedResult | null; publishedTotal?: number | null }) {
  return (
    <aside aria-labelledby="estimate-h" className="self-start rounded-xl border border-violet-300 bg-violet-50/60 p-4 lg:sticky lg:top-4">
      <div className="flex items-center justify-between gap-2">
        <h2 id="estimate-h" className="text-sm font-semibold text-violet-950">Provisional estimate</h2>
        <ProvisionalChip />
      </div>
      <p className="mt-1 text-xs text-violet-950">Provisional estimate — no live probe yet; never published. Health (H1–H3) counts as not observed and no cap is applied.</p>
      {!estimate ? (
        <p className="mt-3 text-sm text-muted">Fill in the title and base URL to see an estimate.</p>
      ) : (
        <div aria-live="polite">
          <div className="mt-3">
            <ReadinessChip score={estimate.total} band={estimate.band.label} size="lg" />
          </div>
          {belowPublishedWords(estimate.total, publishedTotal) && (
            <p className="mt-2 rounded-md bg-white/70 p-2 text-xs text-violet-950 ring-1 ring-violet-200" data-testid="estimate-below-published">
              {belowPublishedWords(estimate.total, publishedTotal)}
            </p>
          )}
          <ul className="mt-3 space-y-1.5 text-xs">
            {estimate.dimensions.map((d) => (
              <li key={d.id}>
                <div className="flex justify-between">
                  <span>{DIM_TITLE.get(d.id)}</span>
                  <span className="tabular-nums">
                    {fmt(d.earned)} / {d.max}
                  </span>
                </div>
                <div className="mt-0.5 h-1.5 rounded bg-violet-100" aria-hidden>
                  <div className="h-1.5 rounded bg-violet-700" style={{ width: `${(d.earned / d.max) * 100}%` }} />
                </div>
              </li>
            ))}
          </ul>
          {estimate.improvements.length > 0 && (
            <>
              <h3 className="mt-4 text-xs font-semibold uppercase tracking-wide text-violet-950">Worth the most points</h3>
              <ol className="mt-1 space-y-1 text-xs" aria-label="Estimated fixes">
                {estimate.improvements.map((i) => (
                  <li key={i.ruleId} data-rule={i.ruleId}>
                    <div className="flex gap-2">
                      <span className="font-mono font-semibold">{i.ruleId}</span>
                      <span className="flex-1">{RULE_TITLE.get(i.ruleId)}</span>
                      <span className="tabular-nums font-semibold" data-testid="estimate-gain" data-gain={i.gain ?? ""}>{gainWords(i)}</span>
                    </div>
                    {i.alternatives.filter((a) => a.opens.length > 0).map((a) => (
                      <p key={a.fix} className="text-[11px] text-amber-900">To {a.fix} instead opens {a.opens.map((o) => o.ruleId).join(", ")} ({a.gain >= 0 ? "+" : ""}{a.gain} pts).</p>
                    ))}
                    {i.opens.length > 0 && <p className="text-[11px] text-amber-900">Opens {i.opens.map((o) => o.ruleId).join(", ")}.</p>}
                  </li>
                ))}
              </ol>
            </>
          )}
        </div>
      )}
    </aside>
  );
}

function fmt(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(2).replace(/0$/, "");
}
