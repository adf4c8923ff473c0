/**
 * One price display (issue 19 item 4): what every buyer-facing page shows for a price, computed in
 * one place so the tile, the public listing page and the seller's report cannot disagree. The
 * listed price or range in dollars; fixed or dynamic exactly as the seller declared it (an endpoint
 * that declares neither is "not declared", never assumed fixed); the live quote the monitor last
 * read from the 402 challenge, and when; the network by name. Atomic units never reach a buyer page.
 */
import { formatUsd, networkName } from "@/lib/format";

export interface PricedEndpoint {
  payable: boolean;
  priceUsd: string | null;
  priceLabel: string | null;
  priceNetwork: string | null;
  priceMode: "fixed" | "dynamic" | null;
  dynamicMin: string | null;
  dynamicMax: string | null;
  dynamicUnit: string | null;
}

export interface QuoteSeen {
  /** Whole units of the asset (a USD stablecoin), e.g. "0.045". */
  amount: string;
  network: string;
  quotedAt: string;
}

export type PriceMode = "fixed" | "dynamic" | "not declared";

export interface PriceView {
  kind: "free" | "priced" | "unpriced";
  /** "$0.04", "$0.01–$0.10", "from $0.01"; null when nothing numeric is listed. */
  listed: string | null;
  /** Always "per call": a listed price or range is what one call costs (the schema's min and max). */
  per: string;
  /** What a dynamic price scales with, in the seller's words ("per address"), shown beside the range, never as its unit. */
  basis: string | null;
  mode: PriceMode;
  /** The seller's own words for the price, when it has no number ("contact us"). */
  label: string | null;
  /** The network the price is asked on, by name. */
  network: string | null;
  quote: { price: string; at: string; network: string } | null;
}

const usd = (v: string | null) => (v !== null && v.trim() !== "" && Number.isFinite(Number(v)) ? v : null);

export function priceView(e: PricedEndpoint, quote: QuoteSeen | null = null): PriceView {
  const mode: PriceMode = e.priceMode ?? "not declared";
  const q = quote && usd(quote.amount) ? { price: formatUsd(quote.amount), at: quote.quotedAt, network: networkName(quote.network) } : null;
  if (!e.payable) return { kind: "free", listed: null, per: "per call", basis: null, mode, label: null, network: null, quote: null };
  const fixed = usd(e.priceUsd);
  const min = usd(e.dynamicMin);
  const max = usd(e.dynamicMax);
  const range = min ? (max && max !== min ? `${formatUsd(min)}–${formatUsd(max)}` : `from ${formatUsd(min)}`) : null;
  // A dynamic price is its range when the seller gave one; a fixed price its amount. Undeclared: whichever there is.
  const listed = mode === "dynamic" ? (range ?? (fixed ? formatUsd(fixed) : null)) : fixed ? formatUsd(fixed) : range;
  // A range is the lowest and highest price of one call; the seller's unit says what moves it within
  // the range. Shown as the range's unit it misread ("$0.002–$2.00 per address" for a batch call).
  const basis = e.dynamicUnit?.trim() && (mode === "dynamic" || !fixed) ? e.dynamicUnit.trim() : null;
  return {
    kind: listed || q ? "priced" : "unpriced",
    listed,
    per: "per call",
    basis,
    mode,
    label: e.priceLabel?.trim() || null,
    network: e.priceNetwork ? networkName(e.priceNetwork) : null,
    quote: q,
  };
}

/**
 * A listing's price in one line, for tiles: the lowest listed price ("from" when the endpoints differ
 * or any is a range), and the declared mode over its payable endpoints (dynamic if any is; fixed only
 * if every one says fixed; else not declared).
 */
export function listingPriceSummary(endpoints: readonly PricedEndpoint[]): { listed: string | null; mode: PriceMode; free: boolean } {
  const payable = endpoints.filter((e) => e.payable);
  if (endpoints.length > 0 && payable.length === 0) return { listed: null, mode: "not declared", free: true };
  const lows = payable.map((e) => (e.priceMode === "dynamic" ? (usd(e.dynamicMin) ?? usd(e.priceUsd)) : (usd(e.priceUsd) ?? usd(e.dynamicMin)))).filter((v): v is string => v !== null);
  const distinct = new Set(lows.map(Number));
  const low = lows.sort((a, b) => Number(a) - Number(b))[0] ?? null;
  const mode: PriceMode = payable.some((e) => e.priceMode === "dynamic") ? "dynamic" : payable.length > 0 && payable.every((e) => e.priceMode === "fixed") ? "fixed" : "not declared";
  const from = distinct.size > 1 || mode === "dynamic" || lows.length < payable.length;
  return { listed: low === null ? null : `${from ? "from " : ""}${formatUsd(low)}`, mode, free: false };
}
