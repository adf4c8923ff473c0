/** The evidence rules of router selection and its one-line why (docs/SELECTION.md); pure. Trust never enters rank. */
import type { Verdict } from "./trust-words";
import type { MatchedWord } from "./sentence";
import { usdNumber } from "./price";

/** Why a relevant listing is left out by default; `include` brings it back marked. */
export const EXCLUSION_REASONS = ["canary_failed", "trust_avoid", "charged_above_listing", "charged_without_delivery", "asks_above_stated", "wash_ring"] as const;
export type ExclusionReason = (typeof EXCLUSION_REASONS)[number];

/**
 * What the listing's latest finished canary run saw when it paid (canary_samples): a 402 or a
 * settlement above the listed price, and a settled payment answered with no 2xx or with output
 * outside the declared schema. Null fields: not observed.
 */
export interface CanaryCharges {
  /** The highest amount asked or settled, and the listed price it exceeded (atomic units). */
  aboveListing: { charged: string; listed: string } | null;
  /** A settled payment with nothing usable delivered: the HTTP status, or "invalid_output". */
  withoutDelivery: string | null;
}

/** What selection knows of a candidate's evidence. */
export interface CandidateEvidence {
  verdict: Verdict | null;
  grade: string | null;
  provisional: boolean;
  verification: "verified" | "degraded" | "unverified";
  /** Latest finished canary run; its reason codes when it failed. */
  canaryAt: string | null;
  canaryReason: string | null;
  /** The latest canary run's charges (absent: none read). */
  charges?: CanaryCharges | null;
  /** The rank's payment-ring check (lib/rank/wash.ts), when the listing's payers are mostly a ring's. */
  washRing?: { why: string } | null;
  /** Rule `asks_above_stated`: a fixed price whose 402 asks more than the USD price the listing states (USD decimals). */
  askedAbove?: { asked: string; stated: string } | null;
  /** Rule `price_outlier`: its listed USD price against the median of the relevant candidates. */
  priceOutlier?: { usd: string; median: number; among?: "category" } | null;
  /** Rule `low_uptime`: the monitor's uptime the rank read (7-day, else 30-day), when below LOW_UPTIME_PERCENT. */
  lowUptime?: { percent: number; window: "7 days" | "30 days" } | null;
}

/** Below this monitor uptime (percent of probes answered) a pick is ordered in tier 1, with caution. */
export const LOW_UPTIME_PERCENT = 95;

type MonitorUptime = { uptime7d: number | null; uptime30d: number | null };

/** The monitor's uptime a pick is judged by: 7 days, else 30 (each null below MIN_UPTIME_SAMPLES probes in its window). */
export function monitorUptime(m: MonitorUptime | null): { percent: number; window: "7 days" | "30 days" } | null {
  if (!m) return null;
  if (m.uptime7d !== null) return { percent: m.uptime7d, window: "7 days" };
  return m.uptime30d !== null ? { percent: m.uptime30d, window: "30 days" } : null;
}

/** Rule `low_uptime`, from the rank's monitor facts. */
export function lowUptime(m: MonitorUptime | null): CandidateEvidence["lowUptime"] {
  const u = monitorUptime(m);
  return u && u.percent < LOW_UPTIME_PERCENT ? u : null;
}

/** A pick priced above this many times the median of the relevant candidates is a price outlier. */
export const PRICE_OUTLIER_FACTOR = 10;
/** The median needs at least this many relevant candidates with a USD price. */
export const PRICE_OUTLIER_MIN_PRICED = 3;
/** "Relevant" for the median: relevance at least this share of the best kept relevance. */
export const PRICE_OUTLIER_RELEVANT_SHARE = 0.5;

type Priced = { id: string; category: string | null; usd: string | null };
const usdOf = (c: { usd: string | null }) => usdNumber(c.usd);
const medianOf = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/**
 * Rule `price_outlier`, over the kept candidates: the ids priced above PRICE_OUTLIER_FACTOR × the
 * median USD price of the relevant ones (at least half the best relevance; when fewer than
 * PRICE_OUTLIER_MIN_PRICED of those are priced, every kept candidate), with that median. A listing
 * written with every word of a task stands alone in its half, so its neighbours set the bar.
 */
export function priceOutliers(cs: ReadonlyArray<{ id: string; relevance: number; usd: string | null }>): Map<string, number> {
  const best = Math.max(0, ...cs.map((c) => c.relevance));
  const isPriced = (c: { usd: string | null }) => usdOf(c) !== null;
  const near = cs.filter((c) => c.relevance >= PRICE_OUTLIER_RELEVANT_SHARE * best && isPriced(c));
  const priced = near.length >= PRICE_OUTLIER_MIN_PRICED ? near : cs.filter(isPriced);
  const out = new Map<string, number>();
  if (priced.length < PRICE_OUTLIER_MIN_PRICED) return out;
  const median = medianOf(priced.map((c) => usdOf(c)!));
  if (!(median > 0)) return out;
  for (const c of cs) if (c.usd !== null && Number(c.usd) > PRICE_OUTLIER_FACTOR * median) out.set(c.id, median);
  return out;
}

/** A near match: relevance at least this, below MIN_RELEVANCE (lib/catalog/sentence.ts). */
export const NEAR_RELEVANCE = 0.1;

/** Whether the kept candidates are too few to set a price bar (priceOutliers finds no median). */
export const tooFewPriced = (kept: ReadonlyArray<{ usd: string | null }>) => {
  const n = kept.filter((c) => usdOf(c) !== null).length;
  return n > 0 && n < PRICE_OUTLIER_MIN_PRICED;
};

/**
 * Rule `price_outlier` among its category, when too few candidates set a bar: against its category's near
 * matches (NEAR_RELEVANCE or more) and kept ones; above PRICE_OUTLIER_FACTOR × their median, the near matches join the pool.
 */
export function categoryOutliers(kept: readonly Priced[], near: readonly Priced[]): { outliers: Map<string, number>; joined: Set<string> } {
  const outliers = new Map<string, number>();
  const joined = new Set<string>();
  for (const c of kept) {
    const usd = usdOf(c);
    if (usd === null || c.category === null) continue;
    const peersNear = near.filter((n) => n.category === c.category && usdOf(n) !== null);
    const peers = [...peersNear, ...kept.filter((k) => k.id !== c.id && k.category === c.category)].map(usdOf).filter((x): x is number => x !== null);
    if (peers.length < PRICE_OUTLIER_MIN_PRICED) continue;
    const median = medianOf(peers);
    if (!(median > 0) || usd <= PRICE_OUTLIER_FACTOR * median) continue;
    outliers.set(c.id, median);
    for (const n of peersNear) joined.add(n.id);
  }
  return { outliers, joined };
}

/**
 * The rules in order, each read on its own: `canary_failed` (the verification), `trust_avoid` (the
 * verdict), `charged_above_listing` and `charged_without_delivery` (what the canary was charged,
 * whatever the verification reads now), `wash_ring` (the rank's flag).
 */
export function exclusionReasons(e: CandidateEvidence): ExclusionReason[] {
  const out: ExclusionReason[] = [];
  if (e.verification === "degraded") out.push("canary_failed");
  if (e.verdict === "avoid") out.push("trust_avoid");
  if (e.charges?.aboveListing) out.push("charged_above_listing");
  if (e.charges?.withoutDelivery) out.push("charged_without_delivery");
  if (e.askedAbove) out.push("asks_above_stated");
  if (e.washRing) out.push("wash_ring");
  return out;
}

/**
 * Rules `verdict_tier`, `low_uptime` and `price_outlier`: the tier a candidate is ordered in, lowest
 * first. ok, insufficient evidence and not yet graded share tier 0 (no evidence against); caution or
 * a low monitor uptime 1; down or a price outlier 2; an included exclusion 3.
 */
export function evidenceTier(e: CandidateEvidence, reasons: readonly ExclusionReason[]): number {
  if (reasons.length > 0) return 3;
  if (e.verdict === "down" || e.priceOutlier) return 2;
  if (e.verdict === "caution" || e.lowUptime) return 1;
  return 0;
}

const VERDICT_WORDS: Record<Verdict, string> = { ok: "ok", caution: "caution", avoid: "avoid", down: "down", insufficient_evidence: "insufficient evidence" };

export function ago(at: string, now: number): string {
  const min = Math.max(0, Math.round((now - Date.parse(at)) / 60_000));
  if (min < 1) return "just now";
  if (min < 60) return `${min} min ago`;
  const h = Math.round(min / 60);
  if (h < 48) return `${h} h ago`;
  return `${Math.round(h / 24)} d ago`;
}

function matchWords(matched: readonly MatchedWord[] | undefined, semantic: number | null): string {
  if (semantic !== null) return `Close in meaning to the task (similarity ${semantic.toFixed(2)})`;
  if (!matched || matched.length === 0) return "Matches the task";
  const words = matched.map((m) => `'${m.word}'${m.how === "word" ? "" : ` (${m.how === "synonym" ? "synonym" : "near spelling"})`}`);
  return `Matches ${words.join(", ")}`;
}

function trustWords(e: CandidateEvidence): string {
  if (e.verdict === null) return "not graded yet";
  if (e.grade === null) return `no grade yet (${VERDICT_WORDS[e.verdict]})`;
  return `${e.provisional ? "provisional grade" : "grade"} ${e.grade} (${VERDICT_WORDS[e.verdict]})`;
}

/** A failed run need not have paid (a 402 quoted above the listing, an answer without any 402): "test call", not "paid". */
function canaryWords(e: CandidateEvidence, now: number): string {
  const when = e.canaryAt ? ` ${ago(e.canaryAt, now)}` : "";
  const uptime = e.lowUptime ? `, up for ${Number(e.lowUptime.percent.toFixed(1))}% of monitor probes in ${e.lowUptime.window}` : "";
  if (e.verification === "verified") return `canary paid and passed${when}${uptime}`;
  if (e.verification === "degraded") return `canary test call failed${when}${e.canaryReason ? ` (${e.canaryReason})` : ""}${uptime}`;
  return `not verified by a paid canary call${uptime}`;
}

function priceWords(price: { usd: string | null; label: string | null }, e?: CandidateEvidence): string {
  if (price.usd !== null && e?.priceOutlier) {
    const of = e.priceOutlier.among === "category" ? "its category's listings near the task" : "the relevant listings";
    return `$${price.usd} a call, ${Math.round(Number(price.usd) / e.priceOutlier.median)}× the median of ${of} ($${Number(e.priceOutlier.median.toPrecision(3))})`;
  }
  if (price.usd !== null) return `$${price.usd} a call`;
  return price.label ? price.label : "price not stated";
}

/** What matched, the trust grade, the canary, the price. */
export function whyLine(input: { matched?: readonly MatchedWord[]; semantic: number | null; reversed?: boolean; evidence: CandidateEvidence; price: { usd: string | null; label: string | null }; now: number }): string {
  const match = matchWords(input.matched, input.semantic) + (input.reversed ? " but takes what the task asks for (reads the other way)" : "");
  return [match, trustWords(input.evidence), canaryWords(input.evidence, input.now), priceWords(input.price, input.evidence)].join("; ");
}

function reasonWords(r: ExclusionReason, e: CandidateEvidence, now: number): string {
  const when = e.canaryAt ? ` ${ago(e.canaryAt, now)}` : "";
  switch (r) {
    case "canary_failed":
      return canaryWords(e, now);
    case "trust_avoid":
      return `trust verdict avoid${e.grade ? ` (grade ${e.grade})` : ""}`;
    case "charged_above_listing":
      return `the canary was asked ${e.charges!.aboveListing!.charged} against a listed ${e.charges!.aboveListing!.listed} (atomic units)${when}`;
    case "charged_without_delivery":
      return `the canary's payment settled and ${e.charges!.withoutDelivery === "invalid_output" ? "the output broke the declared schema" : `the answer was HTTP ${e.charges!.withoutDelivery}`}${when}`;
    case "asks_above_stated":
      return `its 402 asks $${e.askedAbove!.asked} a call where the listing states $${e.askedAbove!.stated}`;
    case "wash_ring":
      return `wash ring: ${e.washRing!.why}`;
  }
}

/** The rules that left it out, in words. */
export function exclusionWhy(reasons: readonly ExclusionReason[], e: CandidateEvidence, now: number): string {
  return reasons.map((r) => reasonWords(r, e, now)).join("; ");
}
