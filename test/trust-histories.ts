/**
 * Simulated endpoint histories for the trust engine's tests and benchmark: free probes every
 * `freeEveryHours` and paid samples every `paidEveryDays` over `days`, each check passing with its
 * own true probability, plus shared bad moments (an outage fails every free `works` check of a probe
 * at once, R3 timing out, and leaves the other free checks unmeasured; a bad paid call fails R4 and
 * R5 and times out R7), latencies log-normal. Seeded: the same options, the
 * same history. `truth` is the score the engine would give with infinite evidence.
 */
import type { Observation, Revision, TrustSubject } from "@/lib/trust/observation";
import type { TrustRubric } from "@/lib/trust/rubric";
import { curveScore } from "@/lib/trust/engine/aggregate";
import { weightedScore } from "@/lib/trust/engine/score";
import { fillNormals, mulberry32 } from "@/lib/trust/engine/stats";

export interface HistoryOptions {
  endpointId?: string;
  now: string;
  days: number;
  freeEveryHours: number;
  /** 0: no paid samples. */
  paidEveryDays: number;
  /** Per check: the chance one observation passes when no shared bad moment hits it (default 1). */
  pass?: Record<string, number>;
  /** Chance a probe meets an outage (free works checks fail, R3 times out, other free checks unmeasured); a paid call goes bad (R4, R5 fail, R7 times out). */
  outage?: number;
  badCall?: number;
  /** Checks whose every observation is na (default: C4, H4, H9, R6 — the usual endpoint). */
  na?: string[];
  /** Log-normal latency: median ms and log-sd, for R3 and R7. */
  latency?: Record<string, { median: number; sigma: number }>;
  revisions?: Revision[];
  seed?: number;
}

const DEFAULT_NA = ["C4", "H4", "H9", "R6"];
const DEFAULT_LATENCY: Record<string, { median: number; sigma: number }> = { R3: { median: 250, sigma: 0.4 }, R7: { median: 900, sigma: 0.4 } };
const SHARED_PAID = new Set(["R4", "R5", "R7"]);
const RECEIPT = Object.freeze({ simulated: true });

const isoCache = new Map<number, string>();
function isoOf(t: number): string {
  let s = isoCache.get(t);
  if (s === undefined) {
    s = new Date(t).toISOString();
    if (isoCache.size > 200_000) isoCache.clear();
    isoCache.set(t, s);
  }
  return s;
}

export function simulateHistory(rubric: TrustRubric, o: HistoryOptions): TrustSubject {
  const endpointId = o.endpointId ?? "sim";
  const rand = mulberry32(o.seed ?? 1);
  const gauss = new Float64Array(2);
  const normal = () => fillNormals(gauss, rand)[0];
  const now = Date.parse(o.now);
  const start = now - o.days * 86_400_000;
  const na = new Set(o.na ?? DEFAULT_NA);
  const latency = { ...DEFAULT_LATENCY, ...(o.latency ?? {}) };
  const revisions = o.revisions ?? [{ revision: 1, startedAt: isoOf(start - 86_400_000), changes: [], note: null }];
  const revAt = revisions.map((r) => ({ n: r.revision, at: Date.parse(r.startedAt) })).sort((a, b) => a.at - b.at);
  const revisionAt = (t: number) => {
    let n = 1;
    for (const r of revAt) if (r.at <= t) n = r.n;
    return n;
  };
  const observations: Observation[] = [];
  const emit = (kind: "free" | "paid", t: number, shared: boolean) => {
    const at = isoOf(t);
    const revision = revisionAt(t);
    for (const c of rubric.checks) {
      if (c.kind !== kind) continue;
      let outcome: Observation["outcome"];
      let value: number | null = null;
      if (na.has(c.id)) outcome = "na";
      else {
        const hit = shared && (kind === "free" ? c.dimension === "works" : SHARED_PAID.has(c.id));
        if (shared && kind === "free" && !hit) outcome = "unmeasured";
        else if (c.metric === "curve") {
          if (hit) outcome = "fail";
          else {
            outcome = "pass";
            const l = latency[c.id] ?? { median: 500, sigma: 0.4 };
            value = Math.round(l.median * Math.exp(l.sigma * normal()));
          }
        } else outcome = !hit && rand() < (o.pass?.[c.id] ?? 1) ? "pass" : "fail";
      }
      observations.push({ endpointId, check: c.id, kind, outcome, value, observedAt: at, vantage: kind === "free" ? "monitor" : "canary", revision, receipt: RECEIPT });
    }
  };
  const freeStep = o.freeEveryHours * 3_600_000;
  for (let t = now - Math.floor((now - start) / freeStep) * freeStep; t <= now; t += freeStep) emit("free", t, rand() < (o.outage ?? 0));
  if (o.paidEveryDays > 0) {
    const paidStep = o.paidEveryDays * 86_400_000;
    for (let t = now - 1_800_000 - Math.floor((now - start - 1_800_000) / paidStep) * paidStep; t <= now; t += paidStep) emit("paid", t, rand() < (o.badCall ?? 0));
  }
  return { endpointId, observations, revisions };
}

/** The score the simulated endpoint deserves: each check at its true long-run rate. */
export function trueScore(rubric: TrustRubric, o: HistoryOptions): number {
  const na = new Set(o.na ?? DEFAULT_NA);
  const latency = { ...DEFAULT_LATENCY, ...(o.latency ?? {}) };
  const rates = rubric.checks.map((c) => {
    if (na.has(c.id)) return null;
    const shared = c.kind === "free" ? (c.dimension === "works" ? (o.outage ?? 0) : 0) : SHARED_PAID.has(c.id) ? (o.badCall ?? 0) : 0;
    if (c.kind === "paid" && o.paidEveryDays === 0) return null;
    if (c.metric === "curve") {
      // The true p95 of a mixture: a timeout (worst) with probability `shared`, else log-normal.
      const q = c.quantile!;
      if (shared >= 1 - q) return curveScore(c.curve!.points, c.curve!.space, Infinity) / 100;
      const l = latency[c.id] ?? { median: 500, sigma: 0.4 };
      const p = q / (1 - shared);
      return curveScore(c.curve!.points, c.curve!.space, l.median * Math.exp(l.sigma * normalQuantile(p))) / 100;
    }
    return (1 - shared) * (o.pass?.[c.id] ?? 1);
  });
  return weightedScore(rubric, rates).score!;
}

/** Φ⁻¹(p) (Acklam's rational approximation, |error| < 1.2e-9). */
export function normalQuantile(p: number): number {
  const a = [-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239];
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
  const c = [-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const lo = 0.02425;
  if (p < lo) {
    const q = Math.sqrt(-2 * Math.log(p));
    return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  if (p > 1 - lo) return -normalQuantile(1 - p);
  const q = p - 0.5;
  const r = q * q;
  return ((((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q) / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}
