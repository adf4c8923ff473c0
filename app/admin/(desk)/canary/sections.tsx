import Link from "next/link";
import { CanaryRunList } from "@/components/admin/canary-runs";
import { approveCanaryPriceAction } from "@/lib/surfaces/admin-actions";
import { CANARY_FILTERS, type adminCanaryDesk } from "@/lib/surfaces/admin-canary";
import { formatUsdcAtomic } from "@/lib/format";

type Desk = Awaited<ReturnType<typeof adminCanaryDesk>>;

const FILTER_LABEL: Record<string, string> = { queued: "queued", running: "running", deferred: "deferred", verified: "done: verified", degraded: "done: degraded", unverified: "done: unverified" };

function href(o: { show?: string | null; cursor?: string | null }) {
  const p = new URLSearchParams(Object.entries(o).filter((e): e is [string, string] => !!e[1]));
  return p.toString() ? `/admin/canary?${p}` : "/admin/canary";
}

export function BudgetSection({ budget }: { budget: Desk["budget"] }) {
  return (
    <section aria-labelledby="budget-h" className="rounded-xl border border-line bg-white p-4">
      <h2 id="budget-h" className="text-sm font-semibold">Budget left today ({budget.day}, UTC; in USDC)</h2>
      <dl className="mt-2 grid grid-cols-1 gap-2 text-sm sm:grid-cols-3">
        <div className="rounded-lg bg-slate-50 p-3"><dt className="text-xs text-muted">All listings: left of the day&apos;s cap</dt><dd className="font-mono text-lg" data-testid="canary-budget-day" title={`${budget.leftToday} of ${budget.dayCap} atomic units`}>{formatUsdcAtomic(budget.leftToday)} <span className="text-xs text-muted">of {formatUsdcAtomic(budget.dayCap)}</span></dd></div>
        <div className="rounded-lg bg-slate-50 p-3"><dt className="text-xs text-muted">Spent today</dt><dd className="font-mono text-lg" title={`${budget.spentToday} atomic units`}>{formatUsdcAtomic(budget.spentToday)}</dd></div>
        <div className="rounded-lg bg-slate-50 p-3"><dt className="text-xs text-muted">Cap per listing per day</dt><dd className="font-mono text-lg" title={`${budget.listingCap} atomic units`}>{formatUsdcAtomic(budget.listingCap)}</dd></div>
      </dl>
      <p className="mt-2 text-xs text-muted">Each run below shows what its listing has left today. A run that does not fit is deferred with reason budget and signs nothing, and is retried the next UTC day.</p>
    </section>
  );
}

export function SharesSection({ shares }: { shares: Desk["shares"] }) {
  return (
    <section aria-labelledby="shares-h" className="rounded-xl border border-line bg-white p-4">
      <h2 id="shares-h" className="text-sm font-semibold">Each organisation&apos;s share today (spent / limit, atomic units)</h2>
      <p className="mt-1 text-xs text-muted">No seller organisation may take more than its share of the day, however many listings it has; runs are taken round-robin across organisations.</p>
      {shares.length === 0 ? (
        <p className="mt-2 text-sm text-muted">No organisation has a listed listing yet.</p>
      ) : (
        <table className="mt-2 w-full text-sm" data-testid="canary-shares">
          <thead><tr className="text-left text-xs text-muted"><th className="py-1">Organisation</th><th>Listed listings</th><th className="text-right">Spent / limit</th></tr></thead>
          <tbody>
            {shares.map((o) => (
              <tr key={o.organizationId} className="border-t border-line">
                <td className="py-1">{o.name}</td>
                <td className="tabular-nums">{o.listings}</td>
                <td className="text-right font-mono tabular-nums">{o.spent} / {o.limit}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

export function CeilingSection({ priceCeiling, awaiting }: { priceCeiling: Desk["priceCeiling"]; awaiting: Desk["awaitingPriceApproval"] }) {
  return (
    <section aria-labelledby="ceiling-h" className="rounded-xl border border-line bg-white p-4">
      <h2 id="ceiling-h" className="text-sm font-semibold">Prices above the ceiling ({priceCeiling} per call)</h2>
      <p className="mt-1 text-xs text-muted">The canary does not pay an endpoint priced above the ceiling until a moderator approves the listing&apos;s price; the approval is audited.</p>
      {awaiting.length === 0 ? (
        <p className="mt-2 text-sm text-muted">No listing awaits approval.</p>
      ) : (
        <ul className="mt-2 space-y-2">
          {awaiting.map((a) => (
            <li key={a.listingId} className="rounded-lg border border-line p-3 text-sm">
              <p><Link href={`/admin/listings/${a.listingId}`} className="text-brand underline">{a.title}</Link> <span className="text-muted">({a.slug})</span>: listed up to <span className="font-mono">{a.highest}</span> per call{a.approved !== null && <> (approved up to <span className="font-mono">{a.approved}</span>)</>}</p>
              <form action={approveCanaryPriceAction.bind(null, a.listingId)} className="mt-2 flex flex-wrap items-end gap-2">
                <label className="flex-1 text-xs">Reason<input name="reason" required maxLength={2000} className="mt-1 block w-full rounded border border-line px-2 py-1 text-sm" /></label>
                <button type="submit" className="rounded bg-brand px-3 py-1 text-sm text-white">Approve up to {a.highest}</button>
              </form>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

export function RunsSection({ d, refused }: { d: Desk; refused: string | null }) {
  return (
    <section aria-labelledby="runs-h">
      <h2 id="runs-h" className="sr-only">Runs</h2>
      <nav aria-label="Filter by state or outcome" className="grid grid-cols-2 gap-2 sm:grid-cols-4 lg:grid-cols-7">
        <Link href="/admin/canary" aria-current={!d.filter ? "page" : undefined} className={`rounded-lg border p-3 ${!d.filter ? "border-brand bg-brand-soft" : "border-line bg-white hover:bg-slate-50"}`}>
          <span className="block text-xs uppercase tracking-wide text-muted">all</span>
          <span className="text-2xl font-semibold tabular-nums">{d.counts.all}</span>
        </Link>
        {CANARY_FILTERS.map((f) => (
          <Link key={f} href={href({ show: f })} aria-current={d.filter === f ? "page" : undefined} className={`rounded-lg border p-3 ${d.filter === f ? "border-brand bg-brand-soft" : "border-line bg-white hover:bg-slate-50"}`}>
            <span className="block text-xs uppercase tracking-wide text-muted">{FILTER_LABEL[f]}</span>
            <span className="text-2xl font-semibold tabular-nums">{d.counts[f]}</span>
          </Link>
        ))}
      </nav>
      {refused && <p role="alert" className="mt-3 rounded-lg border border-red-200 bg-red-50 p-3 text-sm text-red-800">{refused}. Showing every run.</p>}
      {d.runs.length === 0 ? (
        <p className="mt-3 rounded-lg border border-dashed border-line bg-white p-6 text-center text-sm text-muted">No canary runs {d.filter ? `shown as ${FILTER_LABEL[d.filter]}` : "yet"}.</p>
      ) : (
        <CanaryRunList runs={d.runs} />
      )}
      {d.nextCursor && (
        <p className="mt-3 text-sm"><Link href={href({ show: d.filter, cursor: d.nextCursor })} className="text-brand underline">Older runs →</Link></p>
      )}
    </section>
  );
}
