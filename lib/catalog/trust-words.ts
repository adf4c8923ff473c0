/** The trust grade in plain words for buyer pages: no rule ids, provisional grades with their band, what a grade still needs. Pure. */
import type { EndpointTrustSummary } from "./trust-view";

export type Verdict = EndpointTrustSummary["verdict"];

export const VERDICT_WORDS: Record<Verdict, string> = {
  ok: "looks reliable",
  caution: "use with caution",
  down: "down",
  avoid: "avoid",
  insufficient_evidence: "too early to grade",
};

/** Without its rule id. */
export const GATE_WORDS: Record<string, string> = {
  charged_without_delivery: "it charged for calls it did not deliver",
  overcharge: "it charged more than it quoted",
  wrong_payee: "payments went to another address than the one quoted",
  injection: "its description or output contains text that reads like instructions to an AI agent",
  down: "it has been unreachable for over 3 days",
  payto_changed: "its payment address changed within the last week",
};

export interface TrustReading {
  verdict: Verdict;
  verdictWords: string;
  /** Shown also while provisional; null when nothing is measured. */
  grade: string | null;
  provisional: boolean;
  band: string | null;
  /** "Provisional grade B (78–86)", "Grade B (78–86), medium confidence", "Not checked yet". */
  headline: string;
  /** How much was checked and what a grade still needs, or why the verdict. */
  detail: string;
}

const DAY_MS = 86_400_000;
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

export function sinceWords(firstAt: string, now: number): string {
  const day = (t: number) => Math.floor(t / DAY_MS);
  const first = Date.parse(firstAt);
  const d = day(now) - day(first);
  if (d <= 0) return "today";
  if (d === 1) return "since yesterday";
  const f = new Date(first);
  return `since ${f.getUTCDate()} ${MONTHS[f.getUTCMonth()]}`;
}

function bandText(s: Pick<EndpointTrustSummary, "band" | "score">): string | null {
  if (s.band) return `${Math.round(s.band.low)}–${Math.round(s.band.high)}`;
  return s.score === null ? null : String(Math.round(s.score));
}

/** "a few days of checks (at least 8 over 3 days)". */
function shortfall(s: EndpointTrustSummary): string[] {
  const out: string[] = [];
  if (s.probes < s.needs.probes || s.probeSpanDays < s.needs.spanDays) out.push(`a few days of checks (at least ${s.needs.probes} over ${s.needs.spanDays} days)`);
  if (!s.free && s.lastPaidAt === null) out.push(`a paid test call by the catalog within ${s.needs.paidWithinDays} days`);
  return out;
}

/** "checked 3 times today", "checked twice since yesterday", "not checked yet". */
export function checkedWords(s: Pick<EndpointTrustSummary, "probes" | "firstProbeAt">, now: number): string {
  if (s.probes === 0 || !s.firstProbeAt) return "not checked yet";
  return `checked ${s.probes === 1 ? "once" : s.probes === 2 ? "twice" : `${s.probes} times`} ${sinceWords(s.firstProbeAt, now)}`;
}

export function trustReading(s: EndpointTrustSummary, now: number = Date.now()): TrustReading {
  const band = bandText(s);
  const checked = checkedWords(s, now);
  const early = s.verdict === "insufficient_evidence";
  const grade = s.grade;
  let headline: string;
  if (grade === null) headline = s.probes === 0 ? "Not checked yet" : "No grade yet";
  else if (early) headline = `Provisional grade ${grade}${band ? ` (${band})` : ""}`;
  else headline = `Grade ${grade}${band ? ` (${band})` : ""}${s.confidence ? `, ${s.confidence} confidence` : ""}`;

  let detail: string;
  if (early) {
    const missing = shortfall(s);
    const tail = `a grade needs ${missing.length ? missing.join(" and ") : "more checks"}.`;
    // Before any check the headline says so; the detail says only what a grade needs.
    const lead = s.probes === 0 ? cap(tail) : `${cap(checked)}; ${tail}`;
    detail = `${lead}${grade !== null ? " The provisional grade may move as checks come in." : ""}`;
  } else {
    const gates = s.flags.map((f) => GATE_WORDS[f]).filter(Boolean);
    const why = gates.length ? ` Because ${gates.join("; and ")}.` : s.verdict === "caution" && s.confidence === "low" ? " The readings vary too much for a confident grade." : "";
    detail = `${cap(VERDICT_WORDS[s.verdict])}: ${checked}${s.free ? " (a free endpoint: judged without paid calls)" : s.lastPaidAt ? `, last paid test call ${s.lastPaidAt.slice(0, 10)}` : ""}.${why}`;
  }
  return { verdict: s.verdict, verdictWords: VERDICT_WORDS[s.verdict], grade, provisional: early && grade !== null, band, headline, detail };
}

const cap = (t: string) => t.charAt(0).toUpperCase() + t.slice(1);

/**
 * Why a score can sit outside its own band: the score is the rates the checks saw, the band the 10th to
 * 90th percentile of scores drawn from what so few observations allow, so one passing call gives a
 * score of about 95 and a band mostly below it. Null when the score lies inside the band.
 */
export function scoreOutsideBand(s: Pick<EndpointTrustSummary, "score" | "band">): string | null {
  if (s.score === null || !s.band) return null;
  const side = s.score > s.band.high ? ["below", "less"] : s.score < s.band.low ? ["above", "more"] : null;
  if (!side) return null;
  return `The score is what the checks saw; the band (${Math.round(s.band.low)}–${Math.round(s.band.high)}) lies ${side[0]} it: so few observations fit an endpoint that passes ${side[1]} often just as well.`;
}

const SEVERITY: Verdict[] = ["avoid", "down", "caution", "insufficient_evidence", "ok"];

export function listingGlance(endpoints: EndpointTrustSummary[], now: number = Date.now()): TrustReading | null {
  if (endpoints.length === 0) return null;
  const worst = [...endpoints].sort((a, b) => SEVERITY.indexOf(a.verdict) - SEVERITY.indexOf(b.verdict))[0];
  return trustReading(worst, now);
}

export type Verification = "verified" | "degraded" | "unverified";

export const VERIFICATION_WORDS: Record<Verification, string> = {
  verified: "paid test call passed",
  degraded: "paid test call failed",
  unverified: "not verified by a paid test call",
};

