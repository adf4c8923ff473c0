"use client";
/** The seller's listings: search, status filter and sort, applied here without a round trip to the rows the page read. */
import Link from "next/link";
import { useMemo, useState } from "react";
import { timeAgo } from "@/lib/format";
import { ReadinessChip, StaleChip } from "./readiness-chip";

export interface SellerListingRow {
  id: string;
  slug: string;
  title: string;
  baseUrl: string;
  publicationState: string;
  endpoints: number;
  updatedAt: string;
  total: number | null;
  band: string | null;
  stale: boolean;
  analysis: { state: string; step: string } | null;
}

const STATES = ["published", "draft", "unlisted", "archived"] as const;
const STATE_STYLE: Record<string, string> = {
  published: "bg-green-50 text-green-800 ring-green-700/30",
  draft: "bg-slate-100 text-slate-700 ring-slate-400/40",
  unlisted: "bg-amber-50 text-amber-900 ring-amber-700/30",
  archived: "bg-slate-50 text-slate-500 ring-slate-300",
};
const ANALYSIS_WORDS: Record<string, string> = { deferred: "waiting", queued: "queued", running: "analysing", succeeded: "analysed", failed: "last analysis failed" };

type Sort = "updated" | "title" | "score";

/** `now`: the page's render time (epoch ms), so the server's HTML and the browser's first render say the same "changed … ago". */
export function SellerListings({ rows, now }: { rows: SellerListingRow[]; now: number }) {
  const [q, setQ] = useState("");
  const [state, setState] = useState<string>("all");
  const [sort, setSort] = useState<Sort>("updated");
  const counts = useMemo(() => Object.fromEntries(STATES.map((s) => [s, rows.filter((r) => r.publicationState === s).length])), [rows]);
  const shown = useMemo(() => {
    const needle = q.trim().toLowerCase();
    const out = rows.filter((r) => (state === "all" || r.publicationState === state) && (!needle || `${r.title} ${r.slug} ${r.baseUrl}`.toLowerCase().includes(needle)));
    const by: Record<Sort, (a: SellerListingRow, b: SellerListingRow) => number> = {
      updated: (a, b) => b.updatedAt.localeCompare(a.updatedAt),
      title: (a, b) => a.title.localeCompare(b.title),
      score: (a, b) => (b.total ?? -1) - (a.total ?? -1),
    };
    return out.sort(by[sort]);
  }, [rows, q, state, sort]);

  return (
    <div className="mt-6 space-y-3">
      <div className="flex flex-col gap-2 sm:flex-row sm:items-end">
        <div className="flex-1">
          <label htmlFor="listing-search" className="text-sm font-medium">Search</label>
          <input id="listing-search" type="search" value={q} onChange={(e) => setQ(e.target.value)} placeholder="Title, slug or URL" className="mt-1 w-full rounded-md border border-slate-300 bg-white px-3 py-2 text-sm" />
        </div>
        <div className="flex gap-2">
          <div>
            <label htmlFor="listing-state" className="text-sm font-medium">Status</label>
            <select id="listing-state" value={state} onChange={(e) => setState(e.target.value)} className="mt-1 block rounded-md border border-slate-300 bg-white px-2 py-2 text-sm">
              <option value="all">All ({rows.length})</option>
              {STATES.map((s) => (
                <option key={s} value={s}>
                  {s[0]!.toUpperCase() + s.slice(1)} ({counts[s]})
                </option>
              ))}
            </select>
          </div>
          <div>
            <label htmlFor="listing-sort" className="text-sm font-medium">Sort</label>
            <select id="listing-sort" value={sort} onChange={(e) => setSort(e.target.value as Sort)} className="mt-1 block rounded-md border border-slate-300 bg-white px-2 py-2 text-sm">
              <option value="updated">Last changed</option>
              <option value="title">Title</option>
              <option value="score">Readiness</option>
            </select>
          </div>
        </div>
      </div>
      <p className="text-xs text-muted" role="status" data-testid="listing-count">
        {shown.length} of {rows.length} listing{rows.length === 1 ? "" : "s"}
      </p>
      {shown.length === 0 ? (
        <p className="rounded-lg border border-dashed border-line bg-white p-6 text-center text-sm text-muted">No listing matches. Clear the search or the status filter.</p>
      ) : (
        <ul aria-label="My listings" className="divide-y divide-line rounded-xl border border-line bg-white">
          {shown.map((l) => (
            <li key={l.id} className="grid gap-2 p-4 sm:grid-cols-[1fr_auto_auto] sm:items-center sm:gap-4">
              <div className="min-w-0">
                <Link href={`/dashboard/listings/${l.id}`} className="font-medium hover:underline">{l.title}</Link>
                <p className="truncate font-mono text-[11px] text-muted" title={l.baseUrl}>{l.baseUrl}</p>
                <p className="text-xs text-muted">
                  {l.endpoints} endpoint{l.endpoints === 1 ? "" : "s"} · changed {timeAgo(l.updatedAt, new Date(now))}
                  {l.analysis && ` · ${ANALYSIS_WORDS[l.analysis.state] ?? l.analysis.state}`}
                </p>
              </div>
              <span data-testid="listing-status" className={`justify-self-start rounded-full px-2 py-0.5 text-xs font-medium ring-1 ${STATE_STYLE[l.publicationState] ?? ""}`}>{l.publicationState}</span>
              <div className="flex items-center gap-2">
                {l.stale && <StaleChip />}
                <ReadinessChip score={l.total} band={l.band} />
              </div>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
