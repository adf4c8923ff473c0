/** The one price display on buyer pages (lib/catalog/price.ts computes it): listed price or range, live quote, network. */
import { listingPriceSummary, priceView, type PricedEndpoint, type PriceMode, type QuoteSeen } from "@/lib/catalog/price";
import { timeAgo } from "@/lib/format";

function ModeChip({ mode }: { mode: PriceMode }) {
  const style = mode === "fixed" ? "bg-slate-100 text-slate-700" : mode === "dynamic" ? "bg-amber-50 text-amber-900 ring-1 ring-amber-700/30" : "bg-white text-slate-600 ring-1 ring-slate-300";
  return <span className={`rounded px-1.5 py-0.5 text-[11px] font-medium ${style}`}>{mode === "not declared" ? "mode not declared" : mode}</span>;
}

/** An endpoint's price, in full (the public listing page, the seller's report). */
export function EndpointPrice({ endpoint, quote = null, now }: { endpoint: PricedEndpoint; quote?: QuoteSeen | null; now?: Date }) {
  const v = priceView(endpoint, quote);
  if (v.kind === "free") return <span className="text-sm text-muted" data-testid="price">free</span>;
  return (
    <div className="text-sm" data-testid="price">
      <div className="flex flex-wrap items-center justify-end gap-1.5">
        {v.listed ? (
          <span className="font-semibold tabular-nums">
            {v.listed}
            <span className="font-normal text-muted"> {v.per}</span>
          </span>
        ) : (
          <span className="text-muted">{v.label ?? "price not published"}</span>
        )}
        <ModeChip mode={v.mode} />
        {v.network && <span className="rounded bg-slate-100 px-1.5 py-0.5 text-[11px] text-slate-700">{v.network}</span>}
      </div>
      {v.listed && v.mode === "dynamic" && (v.label || v.basis) && (
        <p className="mt-0.5 text-right text-xs text-slate-700" data-testid="price-terms">
          {v.label ? <>Seller&apos;s terms: {v.label}</> : <>Scales {v.basis!.replace(/^per\s+/i, "per ")}</>}
        </p>
      )}
      <p className="mt-0.5 text-right text-xs text-muted">
        {v.quote ? (
          <>
            Live quote <span className="font-medium text-ink tabular-nums">{v.quote.price}</span> on {v.quote.network}, seen{" "}
            <time dateTime={v.quote.at} title={v.quote.at}>{timeAgo(v.quote.at, now)}</time>
          </>
        ) : (
          "No live quote seen yet"
        )}
      </p>
    </div>
  );
}

/** A listing's price in one line, for tiles. */
export function ListingPrice({ endpoints }: { endpoints: readonly PricedEndpoint[] }) {
  const s = listingPriceSummary(endpoints);
  if (s.free) return <span className="text-xs text-slate-600">free</span>;
  return (
    <span className="inline-flex flex-wrap items-center justify-end gap-1.5 text-sm" data-testid="price">
      {s.listed ? (
        <span>
          <span className="font-semibold tabular-nums">{s.listed}</span>
          <span className="text-xs text-slate-600"> /call</span>
        </span>
      ) : (
        <span className="text-xs text-slate-600">price on request</span>
      )}
      <ModeChip mode={s.mode} />
    </span>
  );
}
