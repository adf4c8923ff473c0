/** The evidence rules of router selection and its one-line why (docs/SELECTION.md); pure. Trust never enters rank. */
import type { Verdict } from "./trust-words";
import type { MatchedWord } from "./sentence";

/** `include` brings a left-out listing back, marked. */
export const EXCLUSION_REASONS = ["canary_failed", "trust_avoid"] as const;
export type ExclusionReason = (typeof EXCLUSION_REASONS)[number];

export interface CandidateEvidence {
  verdict: Verdict | null;
  grade: string | null;
  provisional: boolean;
  verification: "verified" | "degraded" | "unverified";
  /** Latest finished canary run; its reason codes when it failed. */
  canaryAt: string | null;
  canaryReason: string | null;
}

/** Rules `canary_failed`, then `trust_avoid`. */
export function exclusionReasons(e: CandidateEvidence): ExclusionReason[] {
  const out: ExclusionReason[] = [];
  if (e.verification === "degraded") out.push("canary_failed");
  if (e.verdict === "avoid") out.push("trust_avoid");
  return out;
}

/** Rule `verdict_tier`, lowest first: ok/insufficient/ungraded 0, caution 1, down 2, included exclusion 3. */
export function evidenceTier(e: CandidateEvidence, reasons: readonly ExclusionReason[]): number {
  if (reasons.length > 0) return 3;
  if (e.verdict === "down") return 2;
  if (e.verdict === "caution") return 1;
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

function canaryWords(e: CandidateEvidence, now: number): string {
  const when = e.canaryAt ? ` ${ago(e.canaryAt, now)}` : "";
  if (e.verification === "verified") return `canary paid and passed${when}`;
  if (e.verification === "degraded") return `canary paid and failed${when}${e.canaryReason ? ` (${e.canaryReason})` : ""}`;
  return "not verified by a paid canary call";
}

function priceWords(price: { usd: string | null; label: string | null }): string {
  if (price.usd !== null) return `$${price.usd} a call`;
  return price.label ? price.label : "price not stated";
}

/** What matched, the trust grade, the canary, the price. */
export function whyLine(input: { matched?: readonly MatchedWord[]; semantic: number | null; evidence: CandidateEvidence; price: { usd: string | null; label: string | null }; now: number }): string {
  return [matchWords(input.matched, input.semantic), trustWords(input.evidence), canaryWords(input.evidence, input.now), priceWords(input.price)].join("; ");
}

/** The rules that left it out, in words. */
export function exclusionWhy(reasons: readonly ExclusionReason[], e: CandidateEvidence, now: number): string {
  return reasons
    .map((r) => (r === "canary_failed" ? canaryWords(e, now) : `trust verdict avoid${e.grade ? ` (grade ${e.grade})` : ""}`))
    .join("; ");
}
