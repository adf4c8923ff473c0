import Link from "next/link";
import { ListingTile } from "@/components/listing-tile";
import { catalogHref, type CatalogQuery, type CatalogView } from "@/lib/surfaces/catalog";
import type { PublicCatalogPage } from "@/lib/surfaces/public-pages";
import type { Facet } from "@/lib/catalog/browse";
import { networkName } from "@/lib/format";
import { SORT_LABELS, SORTS } from "@/lib/catalog/sorted";

/** The filter fields as the form labels them. */
const FIELD_WORDS: Record<string, string> = { minPrice: "“From” price", maxPrice: "“To” price", sort: "sort", category: "category", network: "network", protocol: "protocol" };

const input = "mt-1 w-full rounded-md border border-slate-300 bg-white px-2.5 py-1.5 text-sm text-ink";

export function CatalogFilters({ q, view, filtered }: { q: CatalogQuery; view: CatalogView; filtered: boolean }) {
  return (
    <form action="/catalog" method="get" role="search" aria-label="Search and filter the catalog" className="space-y-4 self-start rounded-xl border border-line bg-white p-4 text-sm">
      <div>
        <label htmlFor="search" className="font-medium">Search</label>
        <input id="search" name="search" type="search" defaultValue={q.search ?? ""} placeholder="e.g. geocoding, verdict" className={input} maxLength={500} aria-invalid={view.problem?.field === "search" || undefined} />
        {/* Said only where it is true: a browse keeps the chosen sort. */}
        {q.search && <p className="mt-1 text-xs text-muted">A search goes by relevance only.</p>}
      </div>
      <FacetSelect name="category" label="Category" any="Any category" value={q.category} facets={view.facets.categories} className={input} />
      <FacetSelect name="network" label="Network" any="Any network" value={q.network} facets={view.facets.networks} className={input} show={networkName} />
      <fieldset>
        <legend className="font-medium">Protocol</legend>
        <div className="mt-1 flex flex-wrap gap-3">
          {[["", "Any"], ["x402", "x402"], ["mpp", "MPP"]].map(([value, label]) => (
            <label key={value} className="inline-flex items-center gap-1.5">
              <input type="radio" name="protocol" value={value} defaultChecked={(q.protocol ?? "") === value} /> {label}
            </label>
          ))}
        </div>
      </fieldset>
      <fieldset>
        <legend className="font-medium">Price per call (USD)</legend>
        <div className="mt-1 grid grid-cols-2 gap-2">
          <label className="text-xs text-muted">
            From
            <input name="minPrice" inputMode="decimal" defaultValue={q.minPrice ?? ""} placeholder="0.001" className={input} aria-invalid={view.problem?.field === "minPrice" || undefined} />
          </label>
          <label className="text-xs text-muted">
            To
            <input name="maxPrice" inputMode="decimal" defaultValue={q.maxPrice ?? ""} placeholder="0.10" className={input} aria-invalid={view.problem?.field === "maxPrice" || undefined} />
          </label>
        </div>
      </fieldset>
      <div>
        <label htmlFor="sort" className="font-medium">Sort</label>
        <select id="sort" name="sort" defaultValue={view.sort === "recommended" ? "" : view.sort} className={input} aria-invalid={view.problem?.field === "sort" || undefined}>
          {SORTS.map((s) => (
            <option key={s} value={s === "recommended" ? "" : s}>{SORT_LABELS[s]}</option>
          ))}
        </select>
        {q.search && view.sort !== "recommended" && <p className="mt-1 text-xs text-muted">The sort applies when browsing; this search goes by relevance.</p>}
      </div>
      <div className="flex items-center gap-3">
        <button type="submit" className="rounded-md bg-brand px-3 py-1.5 font-medium text-white hover:bg-indigo-800">Apply</button>
        {(filtered || q.search || q.sort) && <Link href="/catalog" className="text-brand underline">Clear all</Link>}
      </div>
    </form>
  );
}

export function CatalogResults({ q, view, trust, filtered }: { q: CatalogQuery; view: CatalogView; trust: PublicCatalogPage["trust"]; filtered: boolean }) {
  return (
    <section aria-labelledby="results-h" className="min-w-0">
      <h2 id="results-h" className="sr-only">Results</h2>
      {view.problem && (
        <p role="alert" className="mb-4 rounded-lg border border-red-200 bg-red-50 p-3 text-sm text-red-900">
          {view.problem.field === "search" ? "The search was not run" : `The ${FIELD_WORDS[view.problem.field] ?? view.problem.field} filter was not applied`}: it {view.problem.message}. Correct it and press Apply.
        </p>
      )}
      {view.mode === "browse" && !view.problem && (
        <p className="mb-4 text-sm text-muted" aria-live="polite" data-testid="result-count">
          <strong className="text-ink">{view.total}</strong> listing{view.total === 1 ? "" : "s"}
          {filtered ? (view.total === 1 ? " matches these filters" : " match these filters") : ""}, {view.sort === "recommended" ? "in recommended order" : `sorted by ${SORT_LABELS[view.sort].toLowerCase()}`}.
          {view.items.length < view.total && <> Showing {q.cursor ? "a further" : "the first"} {view.items.length}.</>}
        </p>
      )}
      {view.mode === "search" && !view.problem && (
        <p className="mb-4 text-sm text-muted" aria-live="polite">
          {view.items.length} result{view.items.length === 1 ? "" : "s"} for <strong className="text-ink">“{q.search}”</strong>, ordered by relevance.
          {view.matching === "keyword" && " These are keyword matches: the catalog has no semantic search configured."}
        </p>
      )}
      {view.items.length === 0 ? (
        !view.problem && (
          <div className="rounded-lg border border-dashed border-line bg-white p-8 text-center text-muted">
            <p>{view.mode === "search" ? "Nothing matches that search." : filtered ? "No published listing matches these filters." : "No published listings yet."}</p>
            {(filtered || q.search) && <p className="mt-2 text-sm">Try fewer words or filters, or <Link href="/catalog" className="text-brand underline">clear them</Link>.</p>}
          </div>
        )
      ) : (
        <ul className="grid grid-cols-1 gap-4 sm:grid-cols-2" aria-label="Listings">
          {view.items.map(({ listing, match }) => (
            <ListingTile key={listing.id} listing={listing} match={match} trust={trust.listings.get(listing.id) ?? null} />
          ))}
        </ul>
      )}
      {(view.nextCursor || q.cursor) && (
        <nav aria-label="Pages" className="mt-6 flex items-center justify-between text-sm">
          {q.cursor ? <Link href={catalogHref(q, { cursor: undefined })} className="text-brand underline">← First page</Link> : <span />}
          {view.nextCursor && (
            <Link href={catalogHref(q, { cursor: view.nextCursor })} rel="next" className="rounded-md border border-line bg-white px-4 py-2 font-medium hover:bg-slate-50">
              Load more
            </Link>
          )}
        </nav>
      )}
    </section>
  );
}

/** A filter select over one facet: "any" first, then each value with its listing count. */
function FacetSelect(props: { name: string; label: string; any: string; value: string | undefined; facets: Facet[]; className: string; show?: (value: string) => string }) {
  const show = props.show ?? ((v: string) => v);
  return (
    <div>
      <label htmlFor={props.name} className="font-medium">{props.label}</label>
      <select id={props.name} name={props.name} defaultValue={props.value ?? ""} className={props.className}>
        <option value="">{props.any}</option>
        {props.facets.map((f) => (
          <option key={f.value} value={f.value}>{show(f.value)} ({f.count})</option>
        ))}
      </select>
    </div>
  );
}
