/** scoreSubject: one endpoint's trust grade from its observations alone; pure (docs/TRUST.md "Readings"). */
import type { TrustSubject } from "../observation";
import { readingOf, type ConfidenceLevel, type GateVerdict, type ReadingSemantics, type RubricGate, type TrustRubric } from "../rubric";
import { aggregate, ascendingOrder, checkStatus, curveScore, DAY_MS, HOUR_MS, weightedQuantile, type CheckStats, type SubjectStats, type WindowCounts } from "./aggregate";
import { drawBand, DEFAULT_SEED, type BandOptions } from "./band";
import { valueMetrics, type ValueInput, type ValueMetrics } from "./value";

/** Most severe first; docs/TRUST.md "Verdicts". */
export type Verdict = "avoid" | "down" | "caution" | "insufficient_evidence" | "ok";
export const VERDICTS: readonly Verdict[] = ["avoid", "down", "caution", "insufficient_evidence", "ok"];

export type Outlook = "improving" | "steady" | "declining";

export interface CheckResult {
  id: string;
  dimension: string;
  kind: "free" | "paid";
  metric: "rate" | "curve";
  weight: number;
  /** measured counts; na and unmeasured drop out (the dimension renormalises). */
  status: "measured" | "na" | "unmeasured";
  /** Decayed pass share, or curve score / 100; null unless measured. */
  rate: number | null;
  passWeight: number;
  failWeight: number;
  n: number;
  /** ms; Infinity when a timeout is the p95. */
  p95?: number | null;
  facts: {
    passes: number;
    fails: number;
    na: number;
    unmeasured: number;
    droppedByRevision: number;
    halfLifeDays: number;
    onRevision: "half" | "reset" | "keep";
    firstAt: string | null;
    latestAt: string | null;
    latestOutcome: string | null;
    lastFailAt: string | null;
    passesSinceLastFail: number | null;
  };
}

export interface GateResult {
  flag: string;
  check: string;
  when: RubricGate["when"];
  value: number;
  fired: boolean;
  reason: string;
  cap?: number;
  verdict?: GateVerdict;
  stale?: boolean;
  watch?: boolean;
  cleared?: boolean;
}

export interface TrustResult {
  rubric: string;
  reading: string;
  endpointId: string;
  now: string;
  seed: number;
  /** 0–100, one decimal, after the caps; null when nothing is measured. */
  score: number | null;
  uncappedScore: number | null;
  grade: string | null;
  /** Null when not asked for or nothing is measured. */
  band: { low: number; high: number; width: number } | null;
  confidence: ConfidenceLevel | null;
  verdict: Verdict;
  verdictBecause: string[];
  flags: string[];
  stale: boolean;
  outlook: { trend: Outlook | null; recent: number | null; baseline: number | null };
  watch: boolean;
  watchBecause: string[];
  dimensions: Array<{ id: string; weight: number; score: number | null; measured: number }>;
  gates: GateResult[];
  checks: CheckResult[];
  evidence: { probes: number; probeSpanDays: number; lastPaidAt: string | null; currentRevision: number; futureObservationsIgnored: number };
  value: ValueMetrics | null;
}

export interface ScoreOptions {
  /** Default the clock; later observations are ignored. */
  now?: Date | string | number;
  /** The same seed, the same band. */
  seed?: number;
  /** Default true; without it band and confidence are null. */
  band?: boolean;
  bandOptions?: Partial<BandOptions>;
  value?: ValueInput;
}

const round1 = (x: number) => Math.round(x * 10) / 10;
const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());

export function pointRate(s: CheckStats): { rate: number; p95: number | null } {
  if (s.check.metric === "curve") {
    const total = s.weights.reduce((a, b) => a + b, 0);
    const p95 = weightedQuantile(s.values, s.weights, ascendingOrder(s.values), total, s.check.quantile!);
    return { rate: curveScore(s.check.curve!.points, s.check.curve!.space, p95) / 100, p95 };
  }
  return { rate: s.passWeight / (s.passWeight + s.failWeight), p95: null };
}

/** A window's flat (undecayed) rate, for the outlook; null when empty. */
function windowRate(s: CheckStats, w: WindowCounts): number | null {
  if (w.pass + w.fail <= 0) return null;
  if (s.check.metric === "curve") {
    const total = w.weights.reduce((a, b) => a + b, 0);
    const p = weightedQuantile(w.values, w.weights, ascendingOrder(w.values), total, s.check.quantile!);
    return curveScore(s.check.curve!.points, s.check.curve!.space, p) / 100;
  }
  return w.pass / (w.pass + w.fail);
}

/** Weighted mean over dimensions with a measured check of their measured checks' weighted rates; 0–100 or null. */
export function weightedScore(rubric: TrustRubric, rates: Array<number | null>): { score: number | null; dimensions: Array<{ score: number | null; measured: number }> } {
  const num = new Float64Array(rubric.dimensions.length);
  const den = new Float64Array(rubric.dimensions.length);
  const measured = new Array<number>(rubric.dimensions.length).fill(0);
  for (const c of rubric.checks) {
    const r = rates[c.index];
    if (r === null || c.weight <= 0) continue;
    num[c.dimensionIndex] += c.weight * r;
    den[c.dimensionIndex] += c.weight;
    measured[c.dimensionIndex]++;
  }
  let total = 0;
  let weight = 0;
  const dimensions = rubric.dimensions.map((d) => {
    if (den[d.index] <= 0) return { score: null, measured: 0 };
    const score = (100 * num[d.index]) / den[d.index];
    total += d.weight * score;
    weight += d.weight;
    return { score, measured: measured[d.index] };
  });
  return { score: weight > 0 ? total / weight : null, dimensions };
}

function evaluateGate(g: RubricGate, s: CheckStats, now: number, gates: ReadingSemantics["gates"]): GateResult {
  const base = { flag: g.flag, check: g.check, when: g.when, value: g.value, cap: g.cap, verdict: g.verdict, stale: g.stale, watch: g.watch };
  const clearable = g.clear_after_passes !== undefined && s.lastFailAt !== null;
  const since = s.passesSinceLastFail ?? 0;
  const cleared = clearable && since >= g.clear_after_passes!;
  const clearNote = clearable ? `; ${since} pass(es) since the last fail, clears after ${g.clear_after_passes}` : "";
  switch (g.when) {
    case "fail_weight_gte": {
      // Reading 3 ("gates"): no revision factor.
      const weight = gates === "seen" ? s.seenFailWeight : s.failWeight;
      const hit = weight >= g.value;
      return { ...base, fired: hit && !cleared, cleared: hit && cleared, reason: `${g.check} fail weight ${weight.toFixed(3)} ${hit ? "≥" : "<"} ${g.value}${clearNote}` };
    }
    case "failing_for_hours": {
      const hours = s.failingSince === null ? 0 : (now - s.failingSince) / HOUR_MS;
      const hit = s.failingSince !== null && hours >= g.value;
      return {
        ...base,
        fired: hit && !cleared,
        cleared: hit && cleared,
        reason: s.failingSince === null ? `${g.check} is not failing (its latest observation passed, or none)` : `${g.check} failing since ${iso(s.failingSince)}, ${hours.toFixed(1)} h ${hit ? "≥" : "<"} ${g.value} h`,
      };
    }
    case "failed_within_hours": {
      const hours = s.lastFailAt === null ? Infinity : (now - s.lastFailAt) / HOUR_MS;
      const hit = hours <= g.value;
      return {
        ...base,
        fired: hit && !cleared,
        cleared: hit && cleared,
        reason: s.lastFailAt === null ? `${g.check} never failed` : `${g.check} last failed ${hours.toFixed(1)} h ago, ${hit ? "within" : "beyond"} ${g.value} h${clearNote}`,
      };
    }
  }
}

export function gradeOf(rubric: TrustRubric, score: number): string {
  for (const g of rubric.gradesDescending) if (score >= g.min) return g.grade;
  return rubric.gradesDescending[rubric.gradesDescending.length - 1].grade;
}

export function confidenceOf(rubric: TrustRubric, width: number): ConfidenceLevel {
  for (const c of rubric.confidenceAscending) if (width <= c.max_width) return c.level;
  return rubric.confidenceAscending[rubric.confidenceAscending.length - 1].level;
}

function toInstant(now: ScoreOptions["now"]): number {
  if (now === undefined) return Date.now();
  const t = now instanceof Date ? now.getTime() : typeof now === "number" ? now : Date.parse(now);
  if (Number.isNaN(t)) throw new Error(`now is not an instant: ${String(now)}`);
  return t;
}

export function scoreSubject(rubric: TrustRubric, subject: TrustSubject, options: ScoreOptions = {}): TrustResult {
  const now = toInstant(options.now);
  const seed = options.seed ?? DEFAULT_SEED;
  const f = rubric.file;
  const reading = readingOf(rubric);
  const na = reading.semantics.na;
  const st: SubjectStats = aggregate(rubric, subject, now);

  const rates: Array<number | null> = new Array(rubric.checks.length).fill(null);
  const checks: CheckResult[] = st.checks.map((s) => {
    const status = checkStatus(s, na);
    let rate: number | null = null;
    let p95: number | null = null;
    if (status === "measured") ({ rate, p95 } = pointRate(s));
    rates[s.check.index] = rate;
    const r: CheckResult = {
      id: s.check.id,
      dimension: s.check.dimension,
      kind: s.check.kind,
      metric: s.check.metric,
      weight: s.check.weight,
      status,
      rate,
      passWeight: s.passWeight,
      failWeight: s.failWeight,
      n: s.n,
      facts: {
        passes: s.passes,
        fails: s.fails,
        na: s.na,
        unmeasured: s.unmeasured,
        droppedByRevision: s.droppedByRevision,
        halfLifeDays: s.check.halfLifeDays,
        onRevision: s.check.on_revision ?? "keep",
        firstAt: iso(s.firstAt),
        latestAt: iso(s.latestAt),
        latestOutcome: s.latestOutcome,
        lastFailAt: iso(s.lastFailAt),
        passesSinceLastFail: s.passesSinceLastFail,
      },
    };
    if (s.check.metric === "curve") r.p95 = p95;
    return r;
  });

  const point = weightedScore(rubric, rates);
  const gates = f.gates.map((g) => evaluateGate(g, st.checks[rubric.checkById.get(g.check)!.index], now, reading.semantics.gates));
  const fired = gates.filter((g) => g.fired);
  const caps = fired.filter((g) => g.cap !== undefined).map((g) => g.cap!);
  const cap = caps.length ? Math.min(...caps) : null;
  const uncapped = point.score;
  const score = uncapped === null ? null : round1(cap === null ? uncapped : Math.min(uncapped, cap));
  const grade = score === null ? null : gradeOf(rubric, score);

  let band: TrustResult["band"] = null;
  let confidence: ConfidenceLevel | null = null;
  if (options.band !== false && uncapped !== null) {
    const b = drawBand(rubric, st, rates, cap, seed, { rho: reading.semantics.rho, ...options.bandOptions }, reading.semantics.paidDraws);
    band = { low: round1(b.low), high: round1(b.high), width: round1(b.high - b.low) };
    confidence = confidenceOf(rubric, band.width);
  }

  // Outlook: the recent window's flat score against the baseline's (docs/TRUST.md "outlook").
  const recent = weightedScore(rubric, st.checks.map((s) => (checkStatus(s, na) === "na" ? null : windowRate(s, s.recent)))).score;
  const baseline = weightedScore(rubric, st.checks.map((s) => (checkStatus(s, na) === "na" ? null : windowRate(s, s.baseline)))).score;
  let trend: Outlook | null = null;
  if (recent !== null && baseline !== null) {
    const d = recent - baseline;
    trend = d >= f.outlook.delta ? "improving" : d <= -f.outlook.delta ? "declining" : "steady";
  }

  const watchBecause: string[] = [];
  for (const r of st.recentRevisions) watchBecause.push(`revision ${r.revision} (${r.changes.join(", ") || "changed"}) started ${r.startedAt}, within ${f.watch.revision_days} days`);
  for (const g of fired) if (g.watch) watchBecause.push(`gate ${g.flag} (${g.check}) fired`);
  const stale = fired.some((g) => g.stale === true);

  const { verdict, because } = decideVerdict(rubric, st, grade, confidence, fired);

  return {
    rubric: rubric.ref,
    reading: reading.ref,
    endpointId: subject.endpointId,
    now: new Date(now).toISOString(),
    seed,
    score,
    uncappedScore: uncapped === null ? null : round1(uncapped),
    grade,
    band,
    confidence,
    verdict,
    verdictBecause: because,
    flags: [...new Set(fired.map((g) => g.flag))],
    stale,
    outlook: { trend, recent: recent === null ? null : round1(recent), baseline: baseline === null ? null : round1(baseline) },
    watch: watchBecause.length > 0,
    watchBecause,
    dimensions: rubric.dimensions.map((d, i) => ({ id: d.id, weight: d.weight, score: point.dimensions[i].score === null ? null : round1(point.dimensions[i].score!), measured: point.dimensions[i].measured })),
    gates,
    checks,
    evidence: { probes: st.probes, probeSpanDays: round1(st.probeSpanDays), lastPaidAt: iso(st.lastPaidAt), currentRevision: st.currentRevision, futureObservationsIgnored: st.future },
    value: options.value ? valueMetrics(rubric, options.value) : null,
  };
}

function decideVerdict(rubric: TrustRubric, st: SubjectStats, grade: string | null, confidence: ConfidenceLevel | null, fired: GateResult[]): { verdict: Verdict; because: string[] } {
  const v = rubric.file.verdict;
  const byGate = (k: GateVerdict) => fired.filter((g) => g.verdict === k).map((g) => `gate ${g.flag} (${g.check}): ${g.reason}`);
  const avoid = byGate("avoid");
  if (avoid.length) return { verdict: "avoid", because: avoid };
  const down = byGate("down");
  if (down.length) return { verdict: "down", because: down };
  const caution = byGate("caution");
  if (caution.length) return { verdict: "caution", because: caution };

  const short: string[] = [];
  if (st.probes < v.min_probes) short.push(`${st.probes} ${v.probe_check} probe(s), fewer than ${v.min_probes}`);
  if (st.probeSpanDays < v.min_span_days) short.push(`${v.probe_check} probes span ${st.probeSpanDays.toFixed(1)} days, less than ${v.min_span_days}`);
  if (st.lastPaidAt === null) short.push(`no paid sample within ${v.paid_within_days} days`);
  if (grade === null) short.push("no dimension has a measured check");
  if (short.length) return { verdict: "insufficient_evidence", because: short };

  if (v.avoid_grades.includes(grade!)) return { verdict: "avoid", because: [`grade ${grade}`] };
  const c: string[] = [];
  if (v.caution_grades.includes(grade!)) c.push(`grade ${grade}`);
  if (confidence !== null && v.caution_confidence.includes(confidence)) c.push(`${confidence} confidence`);
  if (c.length) return { verdict: "caution", because: c };
  return { verdict: "ok", because: [] };
}

export { DAY_MS };
