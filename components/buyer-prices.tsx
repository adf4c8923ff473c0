/** On the seller's report: the prices as buyers see them, through the same price display. */
import { EndpointPrice } from "./price-display";
import { endpointKey, type EndpointQuote } from "@/lib/catalog/listing-page";
import type { PricedEndpoint } from "@/lib/catalog/price";

export function BuyerPrices({ endpoints, quotes, now }: { endpoints: Array<PricedEndpoint & { method: string; path: string }>; quotes: Record<string, EndpointQuote>; now: Date }) {
  return (
    <section aria-labelledby="buyer-prices-h" className="rounded-xl border border-line bg-white p-5" data-testid="buyer-prices">
      <h2 id="buyer-prices-h" className="text-lg font-semibold">Your prices, as buyers see them</h2>
      <p className="text-sm text-muted">The public page shows each endpoint&apos;s price like this. Fixed or dynamic is what you declared; the live quote is what the monitor last read from your 402.</p>
      <ul className="mt-3 divide-y divide-line">
        {endpoints.map((e) => (
          <li key={endpointKey(e.method, e.path)} className="flex flex-wrap items-start justify-between gap-2 py-2">
            <code className="min-w-0 break-all font-mono text-sm">{e.method} {e.path}</code>
            <EndpointPrice endpoint={e} quote={quotes[endpointKey(e.method, e.path)] ?? null} now={now} />
          </li>
        ))}
      </ul>
    </section>
  );
}
