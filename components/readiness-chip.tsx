import { bandLabel } from "@/lib/surfaces/band";

/** Score and band as a small chip; colours pass WCAG AA on white (text) and on their tint. */
const BAND_STYLE: Record<string, string> = {
  Excellent: "bg-green-50 text-green-800 ring-green-700/30",
  Ready: "bg-teal-50 text-teal-800 ring-teal-700/30",
  "Almost ready": "bg-amber-50 text-amber-900 ring-amber-700/30",
  "Getting started": "bg-red-50 text-red-800 ring-red-700/30",
};

export function bandStyle(band: string): string {
  return BAND_STYLE[bandLabel(band) ?? band] ?? "bg-slate-100 text-slate-700 ring-slate-400/40";
}

export function ReadinessChip({ score, band, size = "sm" }: { score: number | null; band: string | null; size?: "sm" | "lg" }) {
  const label = bandLabel(band);
  if (score === null || !label) {
    return <span className="inline-flex items-center whitespace-nowrap rounded-full bg-slate-100 px-2.5 py-0.5 text-xs font-medium text-slate-700 ring-1 ring-slate-300">Not yet scored</span>;
  }
  const big = size === "lg";
  return (
    <span
      className={`inline-flex items-baseline gap-1.5 whitespace-nowrap rounded-full px-2.5 py-0.5 font-medium ring-1 ${bandStyle(label)} ${big ? "text-base" : "text-xs"}`}
      aria-label={`Readiness ${score} of 100, ${label}`}
    >
      <span className={big ? "text-2xl font-bold tabular-nums" : "font-bold tabular-nums"}>{score}</span>
      <span>{label}</span>
    </span>
  );
}

/** docs/spec/scoring-system.md "Who sees what": the owner sees "Stale" once the published result is older than 7 days. */
export function StaleChip() {
  return (
    <span className="inline-flex items-center rounded-full bg-amber-100 px-2.5 py-0.5 text-xs font-semibold text-amber-900 ring-1 ring-amber-700/40" title="The result is more than 7 days old; a fresh analysis is queued by the staleness sweep, or re-analyse now.">
      Stale
    </span>
  );
}

/** A provisional estimate is never published; it always says so. */
export function ProvisionalChip() {
  return (
    <span className="inline-flex items-center rounded-full bg-violet-50 px-2.5 py-0.5 text-xs font-semibold text-violet-900 ring-1 ring-violet-700/40">
      Provisional
    </span>
  );
}
