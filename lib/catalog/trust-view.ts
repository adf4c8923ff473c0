/**
 * The trust grade's view types (what lib/catalog/trust.ts reads and the pages render) and the band's
 * wording. No database here, so components may import it.
 */
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
  lastPaidAt: string | null;
}

export interface HistoryPoint {
  at: string;
  score: number | null;
  grade: string | null;
  verdict: TrustResult["verdict"];
}

export interface EndpointTrustDetail extends EndpointTrustSummary {
  rubric: string;
  now: string;
  seed: number;
  uncappedScore: number | null;
  dimensions: TrustResult["dimensions"];
  checks: CheckView[];
  /** The gates that fired (a cleared gate did not fire; see `gates` for all of them with their reasons). */
  gatesFired: GateResult[];
  gates: GateResult[];
  recent: Array<Pick<Observation, "check" | "kind" | "outcome" | "value" | "observedAt" | "vantage" | "revision" | "receipt"> & { title: string }>;
  history: HistoryPoint[];
  /** The failing checks with the most weight lost first (weight × fail share), for the seller. */
  fixFirst: Array<{ id: string; title: string; dimension: string; weight: number; rate: number; lost: number; gate: string | null }>;
}

/** "B, 78–86, medium confidence" (the issue's wording); without the band: "B, 81". */
export function bandLabel(r: Pick<TrustResult, "grade" | "score" | "band" | "confidence">): string | null {
  if (r.grade === null || r.score === null) return null;
  if (!r.band) return `${r.grade}, ${Math.round(r.score)}`;
  return `${r.grade}, ${Math.round(r.band.low)}–${Math.round(r.band.high)}${r.confidence ? `, ${r.confidence} confidence` : ""}`;
}
