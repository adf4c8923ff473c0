/** The trust grade's view types and band wording; no database, so components may import it. */
import type { CheckResult, GateResult, TrustResult } from "@/lib/trust/engine";
import type { Observation } from "@/lib/trust/observation";

export interface CheckView extends CheckResult {
  title: string;
  measure: string;
  validity: string;
}

export interface EndpointTrustSummary {
  endpointId: string;
  method: string;
  path: string;
  score: number | null;
  grade: string | null;
  band: TrustResult["band"];
  confidence: TrustResult["confidence"];
  verdict: TrustResult["verdict"];
  verdictBecause: string[];
  flags: string[];
  outlook: TrustResult["outlook"];
  watch: boolean;
  watchBecause: string[];
  /** "B, 78–86, medium confidence"; null when nothing is measured. */
  label: string | null;
  probes: number;
  probeSpanDays: number;
  firstProbeAt: string | null;
  lastPaidAt: string | null;
  /** No 402: never short of a paid sample. */
  free: boolean;
  /** The rubric's verdict rule, for the pages to say. */
  needs: { probes: number; spanDays: number; paidWithinDays: number };
  value: EndpointValueView;
}

export interface EndpointValueView {
  /** A dynamic price at its maximum; null when none is listed. */
  priceUsd: number | null;
  category: string | null;
  /** 0 cheapest to 100 dearest; null with no peer. */
  pricePercentile: number | null;
  peers: number;
  usdPerValidKib: number | null;
  samples: number;
  validSamples: number;
  /** No listed USD price, or paid in another asset or network. */
  unpriced: number;
  peerRule: { checks: string[]; minRate: number };
}

export interface HistoryPoint {
  at: string;
  score: number | null;
  grade: string | null;
  verdict: TrustResult["verdict"];
}

export interface EndpointTrustDetail extends EndpointTrustSummary {
  rubric: string;
  /** `npm run trust -- --reading n` reproduces it. */
  reading: string;
  now: string;
  seed: number;
  uncappedScore: number | null;
  dimensions: TrustResult["dimensions"];
  checks: CheckView[];
  /** A cleared gate did not fire; `gates` has all. */
  gatesFired: GateResult[];
  gates: GateResult[];
  recent: Array<Pick<Observation, "check" | "kind" | "outcome" | "value" | "observedAt" | "vantage" | "revision" | "receipt"> & { title: string }>;
  history: HistoryPoint[];
  /** Most weight lost first (weight × fail share). */
  fixFirst: Array<{ id: string; title: string; dimension: string; weight: number; rate: number; lost: number; gate: string | null }>;
}

export function percentileLabel(p: number): string {
  if (p === 0) return "the cheapest";
  if (p === 100) return "the dearest";
  const n = Math.round(p);
  const suffix = n % 100 >= 11 && n % 100 <= 13 ? "th" : ({ 1: "st", 2: "nd", 3: "rd" } as Record<number, string>)[n % 10] ?? "th";
  return `the ${n}${suffix} percentile`;
}

/** Enough digits to tell small prices apart ("$0.0049"). */
export function usdPerKibLabel(v: number): string {
  if (v === 0) return "$0";
  if (v >= 1) return `$${v.toFixed(2)}`;
  return `$${Number(v.toPrecision(2))}`;
}

const usd = (v: number) => `$${v.toLocaleString("en-US", { maximumFractionDigits: 8 })}`;
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** Each with its honest empty state; beside the grade, never inside it. */
export function valueSentences(v: EndpointValueView, options: { plain?: boolean } = {}): { price: string; perKib: string; comparable: boolean; measured: boolean } {
  const pctText = `${Math.round(v.peerRule.minRate * 100)}%`;
  // Buyer pages say the peer rule without check ids.
  const rule = options.plain ? `paid calls that succeed with valid output at least ${pctText} of the time` : `${v.peerRule.checks.join(" and ")} pass rates of at least ${pctText}`;
  let price: string;
  if (v.priceUsd === null) price = "No listed USD price to compare.";
  else if (v.category === null) price = `${usd(v.priceUsd)} per call; the listing names no category, so there are no comparable endpoints.`;
  else if (v.pricePercentile === null) price = `${usd(v.priceUsd)} per call. Not enough comparable endpoints: no other ${v.category} endpoint has ${rule} yet.`;
  else price = `${usd(v.priceUsd)} per call: ${percentileLabel(v.pricePercentile)} among ${plural(v.peers, `comparable ${v.category} endpoint`)} (with ${rule}).`;
  let perKib: string;
  if (v.samples === 0) perKib = `No paid sample judged yet${v.unpriced ? ` (${plural(v.unpriced, "paid sample")} could not be valued in USD: the endpoint lists no USD price per call, or it was paid in another asset than listed)` : ""}, so no USD per KiB of valid output.`;
  else if (v.usdPerValidKib === null) perKib = `No valid output in ${plural(v.samples, "paid sample")} yet, so no USD per KiB of valid output.`;
  else perKib = `${usdPerKibLabel(v.usdPerValidKib)} per KiB of valid output, over ${plural(v.samples, "paid sample")} (${v.validSamples} valid; an invalid output still costs).`;
  return { price, perKib, comparable: v.pricePercentile !== null, measured: v.usdPerValidKib !== null };
}

/** "B, 78–86, medium confidence"; without the band "B, 81". */
export function bandLabel(r: Pick<TrustResult, "grade" | "score" | "band" | "confidence">): string | null {
  if (r.grade === null || r.score === null) return null;
  if (!r.band) return `${r.grade}, ${Math.round(r.score)}`;
  return `${r.grade}, ${Math.round(r.band.low)}–${Math.round(r.band.high)}${r.confidence ? `, ${r.confidence} confidence` : ""}`;
}
