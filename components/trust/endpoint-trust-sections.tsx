/** The sections of one endpoint's trust page body (endpoint-trust.tsx). */
import type { EndpointTrustDetail } from "@/lib/catalog/trust-view";
import { scoreOutsideBand, type trustReading } from "@/lib/catalog/trust-words";
import { GradeSquare, VerdictChip } from "./endpoint-grades";
import { TrustHistoryChart } from "./trust-history-chart";

type T = EndpointTrustDetail;

const pct = (r: number | null) => (r === null ? "–" : `${Math.round(r * 1000) / 10}%`);

/** A receipt's one-line gist: the transaction, the screen's matches, the quote, the reason. */
function gist(receipt: Record<string, unknown>): string {
  const parts: string[] = [];
  if (typeof receipt.transaction === "string") parts.push(`tx ${receipt.transaction.slice(0, 18)}…`);
  if (Array.isArray(receipt.matches) && receipt.matches.length) parts.push(`matched: ${receipt.matches.map((m) => (typeof m === "object" && m ? String((m as Record<string, unknown>).text ?? (m as Record<string, unknown>).rule ?? JSON.stringify(m)) : String(m))).join("; ").slice(0, 140)}`);
  if (receipt.quoted !== undefined) parts.push(`quoted ${JSON.stringify(receipt.quoted).slice(0, 80)}`);
  if (typeof receipt.reason === "string") parts.push(receipt.reason);
  else if (typeof receipt.rule === "string") parts.push(receipt.rule);
  if (receipt.paymentRequired) parts.push("decoded 402");
  // H2: the seller's note on a price change, beside the change it explains.
  if (Array.isArray(receipt.sellerNotes)) for (const n of receipt.sellerNotes as Array<{ note?: unknown }>) if (typeof n?.note === "string") parts.push(`seller's note: “${n.note.slice(0, 200)}”`);
  return parts.join(" · ") || Object.keys(receipt).slice(0, 5).join(", ");
}

export function TrustSummary({ t, reading }: { t: T; reading: ReturnType<typeof trustReading> }) {
  const outside = scoreOutsideBand(t);
  return (
    <section className="flex flex-wrap items-start gap-4 rounded-xl border border-line bg-white p-4">
      <GradeSquare grade={reading.grade} provisional={reading.provisional} />
      <div className="min-w-0 flex-1">
        <p className="text-lg font-semibold" data-testid="trust-band">{reading.headline}</p>
        <p className="text-sm text-slate-700" data-testid="trust-detail">{reading.detail}</p>
        <p className="mt-1 flex flex-wrap items-center gap-2 text-xs text-muted">
          <VerdictChip verdict={t.verdict} />
          {t.outlook.trend && <span>outlook {t.outlook.trend}{t.outlook.recent !== null && t.outlook.baseline !== null && ` (${t.outlook.recent} recent vs ${t.outlook.baseline})`}</span>}
          {t.watch && <span className="rounded bg-amber-50 px-1.5 py-0.5 font-medium text-amber-900">watch</span>}
        </p>
        <details className="mt-2 text-xs">
          <summary className="cursor-pointer text-muted">The rules behind this verdict</summary>
          <ul className="mt-1 list-disc pl-5 text-slate-700">
            {t.verdictBecause.map((b) => <li key={b}>{b}</li>)}
            {t.watchBecause.map((b) => <li key={b}>watch: {b}</li>)}
            {t.verdictBecause.length + t.watchBecause.length === 0 && <li>No rule holds the verdict back.</li>}
          </ul>
        </details>
        <p className="mt-2 text-xs text-muted">
          Score {t.score ?? "–"}{t.uncappedScore !== null && t.uncappedScore !== t.score && ` (${t.uncappedScore} before the gates' caps)`} · {t.probes} probe{t.probes === 1 ? "" : "s"} over {t.probeSpanDays} day{t.probeSpanDays === 1 ? "" : "s"} · last paid sample {t.free ? "not needed (free endpoint)" : t.lastPaidAt?.slice(0, 10) ?? "none"} · rubric {t.rubric}, band seed {t.seed}, read {t.now.slice(0, 16).replace("T", " ")} UTC
          {outside && <span className="block" data-testid="score-outside-band">{outside}</span>}
        </p>
      </div>
    </section>
  );
}

export function FixFirst({ fixFirst }: { fixFirst: T["fixFirst"] }) {
  return (
    <section aria-labelledby="fix-h" className="rounded-xl border border-amber-200 bg-amber-50 p-4">
      <h2 id="fix-h" className="text-base font-semibold">What to fix first</h2>
      {fixFirst.length === 0 ? (
        <p className="mt-1 text-sm text-slate-700">No failing check costs this endpoint weight.</p>
      ) : (
        <ol className="mt-2 list-decimal space-y-1 pl-5 text-sm">
          {fixFirst.map((f) => (
            <li key={f.id}><span className="font-mono">{f.id}</span> {f.title} ({f.dimension}, weight {f.weight}): passing {pct(f.rate)}, costs {f.lost} weighted points{f.gate && <span className="ml-1 font-medium text-red-800">— gate {f.gate} fired</span>}</li>
          ))}
        </ol>
      )}
    </section>
  );
}

export function GatesSection({ gatesFired }: { gatesFired: T["gatesFired"] }) {
  return (
    <section aria-labelledby="gates-h">
      <h2 id="gates-h" className="text-base font-semibold">Gates</h2>
      {gatesFired.length === 0 ? (
        <p className="mt-1 text-sm text-muted">No gate fired.</p>
      ) : (
        <ul className="mt-2 space-y-1 text-sm">
          {gatesFired.map((g) => (
            <li key={`${g.flag}-${g.check}`} className="rounded border border-red-200 bg-red-50 px-3 py-2">
              <span className="font-mono font-semibold text-red-800">{g.flag}</span> ({g.check}){g.cap !== undefined && `: caps the score at ${g.cap}`}{g.verdict && `, verdict ${g.verdict}`}. <span className="text-slate-700">{g.reason}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

export function ScoreHistory({ history }: { history: T["history"] }) {
  const measured = history.some((h) => h.score !== null);
  return (
    <section aria-labelledby="chart-h">
      <h2 id="chart-h" className="text-base font-semibold">Score over the last 30 days</h2>
      {measured ? (
        <>
          <p className="text-xs text-muted">Each day&apos;s last grade stored by the hourly sweep (before any was stored: the score at that day&apos;s instant from the observations up to it). A gap is a day with no grade.</p>
          <TrustHistoryChart data={history} />
        </>
      ) : (
        <p className="mt-1 text-sm text-muted" data-testid="trust-chart-empty">Nothing measured yet in the last {history.length - 1} days, so there is no score to chart.</p>
      )}
      <details className="text-xs">
        <summary className="cursor-pointer text-muted">The same points as text</summary>
        <p className="mt-1 font-mono">{history.map((h) => `${h.at.slice(5, 10)} ${h.score ?? "–"}`).join(" · ")}</p>
      </details>
    </section>
  );
}

export function ChecksSection({ t }: { t: T }) {
  const dims = new Map(t.dimensions.map((d) => [d.id, d]));
  return (
    <section aria-labelledby="checks-h">
      <h2 id="checks-h" className="text-base font-semibold">Checks</h2>
      <p className="text-xs text-muted">
        Each check&apos;s decayed pass rate, weighted within its dimension. S2 and S3 are a pattern screen with an error rate: a clever sentence passes, and an honest text quoting an attack to warn about it is flagged; each flag is shown with its receipt.
      </p>
      <div className="mt-2 relative overflow-x-auto">
        <table className="w-full min-w-[36rem] text-left text-sm">
          <thead className="text-xs text-muted">
            <tr><th className="py-1 pr-2">Check</th><th className="pr-2">Dimension</th><th className="pr-2 text-right">Weight</th><th className="pr-2 text-right">Rate</th><th className="pr-2 text-right">Pass / fail</th><th>Status</th></tr>
          </thead>
          <tbody className="divide-y divide-line">
            {t.checks.map((c) => (
              <tr key={c.id} className="align-top" data-check={c.id}>
                <td className="py-1.5 pr-2"><span className="font-mono">{c.id}</span> {c.title}<div className="text-xs text-muted">{c.validity}</div></td>
                <td className="pr-2">{c.dimension}{dims.get(c.dimension)?.score != null && <span className="text-xs text-muted"> ({dims.get(c.dimension)!.score})</span>}</td>
                <td className="pr-2 text-right">{c.weight}</td>
                <td className="pr-2 text-right font-medium">{pct(c.rate)}{c.p95 != null && <div className="text-xs font-normal text-muted">p95 {Number.isFinite(c.p95) ? `${Math.round(c.p95)} ms` : "timeout"}</div>}</td>
                <td className="pr-2 text-right text-xs">{c.facts.passes} / {c.facts.fails}</td>
                <td className="text-xs">{c.status}{c.kind === "paid" && " · paid"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

export function RecentObservations({ recent }: { recent: T["recent"] }) {
  return (
    <section aria-labelledby="obs-h">
      <h2 id="obs-h" className="text-base font-semibold">Recent observations</h2>
      {recent.length === 0 ? (
        <p className="mt-1 text-sm text-muted">No observation of this endpoint yet: the health sweep and the canary write them as they probe and pay.</p>
      ) : (
        <ul className="mt-2 divide-y divide-line rounded-lg border border-line bg-white text-sm">
          {recent.map((o, i) => (
            <li key={i} className="px-3 py-2">
              <details>
                <summary className="flex cursor-pointer flex-wrap items-center gap-2">
                  <span className={`rounded px-1.5 py-0.5 text-xs font-medium ${o.outcome === "pass" ? "bg-emerald-100 text-emerald-800" : o.outcome === "fail" ? "bg-red-100 text-red-800" : "bg-slate-100 text-slate-600"}`}>{o.outcome}</span>
                  <span className="font-mono">{o.check}</span>
                  <span>{o.title}</span>
                  <time className="text-xs text-muted" dateTime={o.observedAt}>{o.observedAt.slice(0, 16).replace("T", " ")}</time>
                  <span className="text-xs text-muted">{o.vantage} · rev {o.revision}{o.value !== null && ` · ${o.value} ms`}</span>
                  <span className="basis-full truncate text-xs text-slate-600">{gist(o.receipt)}</span>
                </summary>
                <pre className="mt-2 max-h-72 overflow-auto rounded bg-slate-950 p-3 text-xs text-slate-100">{JSON.stringify(o.receipt, null, 2)}</pre>
              </details>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
