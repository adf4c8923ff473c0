/** The one price display for tiles, listing page and seller's report: dollars, the declared mode, the live quote; never atomic units. */
import { formatUsd, networkName } from "@/lib/format";

/** A stored USD price as a number: null when absent, not a number or negative. */
export function usdNumber(s: string | null): number | null {
  if (s === null) return null;
  const n = Number(s);
  return Number.isFinite(n) && n >= 0 ? n : null;
}

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
  /** Whole units (a USD stablecoin), e.g. "0.045". */
  amount: string;
  network: string;
  quotedAt: string;
}

export type PriceMode = "fixed" | "dynamic" | "not declared";

export interface PriceView {
  kind: "free" | "priced" | "unpriced";
  /** "$0.04", "$0.01–$0.10", "from $0.01"; null when nothing numeric. */
  listed: string | null;
  /** Always "per call": a price or range is what one call costs. */
  per: string;
  /** What a dynamic price scales with ("per address"): beside the range, never its unit. */
  basis: string | null;
  mode: PriceMode;
  /** Words for a price with no number ("contact us"). */
  label: string | null;
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
  // Dynamic: its range if given; fixed: its amount; undeclared: whichever there is.
  const listed = mode === "dynamic" ? (range ?? (fixed ? formatUsd(fixed) : null)) : fixed ? formatUsd(fixed) : range;
  // The seller's unit says what moves a price within the range; as the range's unit it misreads.
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

/** For tiles: the lowest price ("from" when endpoints differ or any is a range) and the mode (dynamic if any is, fixed if all are). */
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
