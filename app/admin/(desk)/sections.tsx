import Link from "next/link";
import { ReadinessChip } from "@/components/readiness-chip";
import { timeAgo } from "@/lib/format";
import { OVERLAP_WORDS } from "@/lib/listings/overlap-words";
import { ANALYSIS_STATES, type adminDesk } from "@/lib/surfaces/admin";
import { requeueDeadAction } from "@/lib/surfaces/admin-actions";

type Desk = Awaited<ReturnType<typeof adminDesk>>;

export const PUBLICATION_STATES = ["published", "draft", "unlisted", "archived"];

const STATE_STYLE: Record<string, string> = {
  deferred: "bg-slate-100 text-slate-700",
  queued: "bg-sky-50 text-sky-900",
  running: "bg-indigo-50 text-indigo-900",
  succeeded: "bg-green-50 text-green-800",
  failed: "bg-red-50 text-red-800",
  dead: "bg-red-100 text-red-900",
};

export function DeskHeader({ isAdmin }: { isAdmin: boolean }) {
  return (
    <div className="flex flex-wrap items-end justify-between gap-3">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Moderation</h1>
        <p className="mt-1 text-sm text-muted">The analysis queue, every listing in browse order with its internal rank, and the levers. Nothing here is public.</p>
      </div>
      <nav aria-label="Moderation desks" className="flex flex-wrap gap-2">
        <Link href="/admin/canary" className="rounded-md border border-line bg-white px-3 py-1.5 text-sm font-medium hover:bg-slate-50">Canary runs</Link>
        <Link href="/admin/audit" className="rounded-md border border-line bg-white px-3 py-1.5 text-sm font-medium hover:bg-slate-50">Audit log</Link>
        {isAdmin && <Link href="/admin/api-keys" className="rounded-md border border-line bg-white px-3 py-1.5 text-sm font-medium hover:bg-slate-50">API keys</Link>}
      </nav>
    </div>
  );
}

export function QueueSection({ data, notice, now }: { data: Desk; notice: string | undefined; now: number }) {
  return (
    <section aria-labelledby="queue-h">
      <h2 id="queue-h" className="text-lg font-semibold">Analysis queue</h2>
      <p className="text-sm text-muted"><strong>dead</strong> is the dead letter: analyses that used up their attempts. Requeue one once its cause is fixed; it gets a fresh set of attempts.</p>
      {notice && <p role="status" className="mt-2 rounded-md border border-line bg-amber-50 p-2 text-sm text-amber-950">{notice.slice(0, 300)}</p>}
      <nav aria-label="Filter by state" className="mt-3 grid grid-cols-3 gap-2 sm:grid-cols-7">
        <Link href="/admin" aria-current={!data.state ? "page" : undefined} className={`rounded-lg border p-3 ${!data.state ? "border-brand bg-brand-soft" : "border-line bg-white hover:bg-slate-50"}`}>
          <span className="block text-xs uppercase tracking-wide text-muted">all</span>
          <span className="text-2xl font-semibold tabular-nums">{Object.values(data.counts).reduce((a, b) => a + b, 0)}</span>
        </Link>
        {ANALYSIS_STATES.map((s) => (
          <Link key={s} href={`/admin?state=${s}`} aria-current={data.state === s ? "page" : undefined} className={`rounded-lg border p-3 ${data.state === s ? "border-brand bg-brand-soft" : "border-line bg-white hover:bg-slate-50"}`}>
            <span className="block text-xs uppercase tracking-wide text-muted">{s}</span>
            <span className="text-2xl font-semibold tabular-nums">{data.counts[s] ?? 0}</span>
          </Link>
        ))}
      </nav>
      {data.analyses.length === 0 ? (
        <p className="mt-3 rounded-lg border border-dashed border-line bg-white p-6 text-center text-sm text-muted">No analyses {data.state ? `in state ${data.state}` : "yet"}.</p>
      ) : (
        <div className="mt-3 relative overflow-x-auto rounded-xl border border-line bg-white">
          <table className="w-full min-w-[52rem] text-sm">
            <caption className="sr-only">Analyses, newest first{data.state ? `, state ${data.state}` : ""}</caption>
            <thead className="bg-slate-50 text-left text-xs uppercase tracking-wide text-muted">
              <tr><th className="p-2.5">Listing / target</th><th className="p-2.5">Trigger</th><th className="p-2.5">State</th><th className="p-2.5">Step</th><th className="p-2.5">Attempts</th><th className="p-2.5">Lease expires</th><th className="p-2.5">Created</th><th className="p-2.5">Error</th></tr>
            </thead>
            <tbody className="divide-y divide-line">
              {data.analyses.map((a) => (
                <tr key={a.id} className="align-top">
                  <td className="p-2.5">
                    {a.listing ? <Link href={`/admin/listings/${a.listing.id}`} className="font-medium text-brand underline">{a.listing.title}</Link> : <span className="text-muted">(URL submission)</span>}
                    <div className="max-w-xs truncate font-mono text-[11px] text-muted" title={a.targetUrl}>{a.targetUrl}</div>
                  </td>
                  <td className="p-2.5">{a.trigger}</td>
                  <td className="p-2.5">
                    <span className={`rounded px-1.5 py-0.5 text-xs font-semibold ${STATE_STYLE[a.state] ?? ""}`}>{a.state}</span>
                    {a.state === "dead" && (
                      <form action={requeueDeadAction.bind(null, a.id)} className="mt-1.5">
                        <button type="submit" className="rounded-md border border-line bg-white px-2 py-0.5 text-xs font-medium hover:bg-slate-50">Requeue</button>
                      </form>
                    )}
                  </td>
                  <td className="p-2.5">{a.step}</td>
                  <td className="p-2.5 tabular-nums">{a.attempts} / {a.maxAttempts}</td>
                  <td className="p-2.5 text-xs">{a.leaseExpiresAt ? <time dateTime={a.leaseExpiresAt.toISOString()}>{a.leaseExpiresAt.getTime() > now ? `in ${Math.round((a.leaseExpiresAt.getTime() - now) / 1000)} s` : `expired ${timeAgo(a.leaseExpiresAt)}`}</time> : "—"}{a.leasedBy && <div className="text-muted">{a.leasedBy}</div>}</td>
                  <td className="p-2.5 text-xs"><time dateTime={a.createdAt.toISOString()}>{timeAgo(a.createdAt)}</time></td>
                  <td className="max-w-xs p-2.5 text-xs text-red-800">{a.error ?? ""}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

export function ListingFilters({ state, q, status, overlapsOnly }: { state: Desk["state"]; q: string | undefined; status: string; overlapsOnly: boolean }) {
  return (
    <form method="get" action="/admin" className="mt-3 flex flex-col gap-2 sm:flex-row sm:items-end" aria-label="Search listings">
      {state && <input type="hidden" name="state" value={state} />}
      <div className="flex-1">
        <label htmlFor="admin-q" className="text-sm font-medium">Search</label>
        <input id="admin-q" name="q" type="search" defaultValue={q ?? ""} placeholder="Title, slug, organisation or URL" className="mt-1 w-full rounded-md border border-slate-300 bg-white px-3 py-2 text-sm" />
      </div>
      <div>
        <label htmlFor="admin-status" className="text-sm font-medium">Status</label>
        <select id="admin-status" name="status" defaultValue={status} className="mt-1 block rounded-md border border-slate-300 bg-white px-2 py-2 text-sm">
          <option value="">All</option>
          {PUBLICATION_STATES.map((s) => (
            <option key={s} value={s}>{s}</option>
          ))}
        </select>
      </div>
      <label className="inline-flex items-center gap-1.5 pb-2 text-sm">
        <input type="checkbox" name="overlaps" value="1" defaultChecked={overlapsOnly} /> Overlaps only
      </label>
      <button type="submit" className="rounded-md border border-line bg-white px-3 py-2 text-sm font-medium hover:bg-slate-50">Filter</button>
    </form>
  );
}

export function ListingsTable({ listings }: { listings: Desk["listings"] }) {
  return (
    <div className="mt-3 relative overflow-x-auto rounded-xl border border-line bg-white">
      <table className="w-full min-w-[56rem] text-sm">
        <caption className="sr-only">Listings with their internal rank</caption>
        <thead className="bg-slate-50 text-left text-xs uppercase tracking-wide text-muted">
          <tr>
            <th className="p-2.5">#</th><th className="p-2.5">Listing</th><th className="p-2.5">State</th><th className="p-2.5">Tier</th><th className="p-2.5">Sort weight</th>
            <th className="p-2.5">Featured</th><th className="p-2.5">Verification</th><th className="p-2.5">Quality</th><th className="p-2.5">Rank</th><th className="p-2.5">Readiness</th>
          </tr>
        </thead>
        <tbody className="divide-y divide-line">
          {listings.map((l) => (
            <tr key={l.id}>
              <td className="p-2.5 tabular-nums text-muted">{l.position ?? "—"}</td>
              <td className="p-2.5">
                <Link href={`/admin/listings/${l.id}`} className="font-medium text-brand underline">{l.title}</Link>
                <div className="text-xs text-muted">{l.organization.name} · <span className="font-mono">{l.slug}</span></div>
                {l.overlaps.length > 0 && (
                  <div className="mt-1 text-xs" data-testid="overlap">
                    <span className="rounded bg-amber-100 px-1.5 py-0.5 font-semibold text-amber-900">Overlaps</span>{" "}
                    {l.overlaps.map((o, i) => (
                      <span key={o.id}>
                        {i > 0 && ", "}
                        <Link href={`/admin/listings/${o.id}`} className="underline">{o.title}</Link> ({OVERLAP_WORDS[o.reason]})
                      </span>
                    ))}
                  </div>
                )}
              </td>
              <td className="p-2.5">{l.publicationState}</td>
              <td className="p-2.5 tabular-nums">{l.tier}</td>
              <td className="p-2.5 tabular-nums">{l.sortWeight}</td>
              <td className="p-2.5 tabular-nums">{l.featuredLevel}</td>
              <td className="p-2.5">{l.verificationStatus}</td>
              <td className="p-2.5 tabular-nums">{l.qualityScore === null ? "—" : Math.round(l.qualityScore * 100)}</td>
              <td className="p-2.5 tabular-nums">{l.rankScore === null ? "—" : Math.round(l.rankScore * 100)}</td>
              <td className="p-2.5"><ReadinessChip score={l.currentResult?.total ?? null} band={l.currentResult?.band ?? null} /></td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
