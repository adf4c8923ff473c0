/**
 * The verifier's own reading of a swarmmemo.rubric/1 file: score, grade, Monte-Carlo band, confidence
 * and verdict of one subject, from the rubric file's fields and a reading's semantics (na, paidDraws,
 * rho). Written apart from the app, to the same arithmetic (decay, renormalised weights, gates, caps,
 * Jeffreys' Beta posteriors on a latent grid, mulberry32 + Box–Muller, draw order) so a grade
 * reproduces to the digit. verifier/README.md "What is recomputed" says each rule.
 */

export interface RubricDoc {
  dimensions: Array<{ id: string; weight: number }>;
  decay: { free: number; paid: number };
  checks: Array<{ id: string; dimension: string; weight: number; kind: "free" | "paid"; metric: "rate" | "curve"; half_life_days?: number; on_revision?: "half" | "reset"; curve?: { input: string; space: "log" | "linear"; points: Array<[number, number]> } }>;
  gates: Array<{ flag: string; check: string; when: "fail_weight_gte" | "failing_for_hours" | "failed_within_hours"; value: number; clear_after_passes?: number; cap?: number; verdict?: "avoid" | "down" | "caution" }>;
  grades: Array<{ grade: string; min: number }>;
  confidence: Array<{ level: string; max_width: number }>;
  verdict: { probe_check: string; min_probes: number; min_span_days: number; paid_within_days: number; avoid_grades: string[]; caution_grades: string[]; caution_confidence: string[] };
  monte_carlo: { draws: number; band: [number, number] };
}
export interface Semantics {
  na: "latest" | "endpoint";
  paidDraws: "per-check" | "per-sample";
  rho: number;
  /** `seen` (reading 3): a fail_weight_gte gate compares the fails' decayed weight with no revision factor. */
  gates?: "revision-weighted" | "seen";
}
export interface Obs {
  check: string;
  outcome: "pass" | "fail" | "na" | "unmeasured";
  value: number | null;
  observedAt: string;
  revision: number;
}
export interface Subject {
  observations: Obs[];
  revisions: Array<{ revision: number; startedAt: string }>;
}
export interface Scoring {
  now: string;
  seed: number;
  bandOptions?: { rho?: number; gridStep?: number; gridMax?: number };
}
export interface Grade {
  score: number | null;
  grade: string | null;
  band: { low: number; high: number; width: number } | null;
  confidence: string | null;
  verdict: "avoid" | "down" | "caution" | "insufficient_evidence" | "ok";
}

const DAY = 86_400_000;
const HOUR = 3_600_000;
/** The engine's latent grid (not a rubric number): ±4 in steps of ¼, unless the bundle's bandOptions say otherwise. */
const GRID = { gridStep: 0.25, gridMax: 4 };
const r1 = (x: number) => Math.round(x * 10) / 10;
const OUTCOMES = new Set(["pass", "fail", "na", "unmeasured"]);

// ---- numerics ---------------------------------------------------------------------------------

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function normals(n: number, rand: () => number): Float64Array {
  const out = new Float64Array(n);
  for (let i = 0; i < n; i += 2) {
    const r = Math.sqrt(-2 * Math.log(1 - rand()));
    const th = 2 * Math.PI * rand();
    out[i] = r * Math.cos(th);
    if (i + 1 < n) out[i + 1] = r * Math.sin(th);
  }
  return out;
}

const LZ = [57.1562356658629235, -59.5979603554754912, 14.1360979747417471, -0.491913816097620199, 0.339946499848118887e-4, 0.465236289270485756e-4, -0.983744753048795646e-4, 0.158088703224912494e-3, -0.210264441724104883e-3, 0.217439618115212643e-3, -0.16431810653676389e-3, 0.844182239838527433e-4, -0.261908384015814087e-4, 0.368991826595316234e-5];
function lnGamma(x: number): number {
  let y = x;
  const t0 = x + 5.2421875;
  let ser = 0.999999999999997092;
  for (const c of LZ) ser += c / ++y;
  return (x + 0.5) * Math.log(t0) - t0 + Math.log((2.5066282746310005 * ser) / x);
}

function betaCf(a: number, b: number, x: number): number {
  const tiny = 1e-300;
  const clamp = (v: number) => (Math.abs(v) < tiny ? tiny : v);
  let c = 1;
  let d = 1 / clamp(1 - ((a + b) * x) / (a + 1));
  let h = d;
  for (let m = 1; m < 10000; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((a - 1 + m2) * (a + m2));
    d = 1 / clamp(1 + aa * d);
    c = clamp(1 + aa / c);
    h *= d * c;
    aa = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + 1 + m2));
    d = 1 / clamp(1 + aa * d);
    c = clamp(1 + aa / c);
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < 1e-11) break;
  }
  return h;
}

function betaCdf(x: number, a: number, b: number, lnB: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const bt = Math.exp(a * Math.log(x) + b * Math.log1p(-x) - lnB);
  return x < (a + 1) / (a + b + 2) ? (bt * betaCf(a, b, x)) / a : 1 - (bt * betaCf(b, a, 1 - x)) / b;
}

/** The p-quantile of Beta(a, b): the usual starting guess, then Halley steps. */
function betaQuantile(p: number, a: number, b: number): number {
  if (p <= 0) return 0;
  if (p >= 1) return 1;
  const lnB = lnGamma(a) + lnGamma(b) - lnGamma(a + b);
  let x: number;
  if (a >= 1 && b >= 1) {
    const t = Math.sqrt(-2 * Math.log(p < 0.5 ? p : 1 - p));
    let z = (2.30753 + t * 0.27061) / (1 + t * (0.99229 + t * 0.04481)) - t;
    if (p < 0.5) z = -z;
    const al = (z * z - 3) / 6;
    const h = 2 / (1 / (2 * a - 1) + 1 / (2 * b - 1));
    const w = (z * Math.sqrt(al + h)) / h - (1 / (2 * b - 1) - 1 / (2 * a - 1)) * (al + 5 / 6 - 2 / (3 * h));
    x = a / (a + b * Math.exp(2 * w));
  } else {
    const t = Math.exp(a * Math.log(a / (a + b))) / a;
    const u = Math.exp(b * Math.log(b / (a + b))) / b;
    const w = t + u;
    x = p < t / w ? Math.pow(a * w * p, 1 / a) : 1 - Math.pow(b * w * (1 - p), 1 / b);
  }
  for (let j = 0; j < 40; j++) {
    if (x <= 0 || x >= 1) return Math.min(1, Math.max(0, x));
    const err = betaCdf(x, a, b, lnB) - p;
    const u = err / Math.exp((a - 1) * Math.log(x) + (b - 1) * Math.log1p(-x) - lnB);
    const t = u / (1 - 0.5 * Math.min(1, u * ((a - 1) / x - (b - 1) / (1 - x))));
    x -= t;
    if (x <= 0) x = 0.5 * (x + t);
    if (x >= 1) x = 0.5 * (x + t + 1);
    if (Math.abs(t) < 1e-9 * x && j > 0) break;
  }
  return x;
}

/** Φ(z) through the Numerical Recipes erfc fit. */
function phi(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.5 * x);
  const y = t * Math.exp(-x * x - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))));
  return z >= 0 ? 1 - 0.5 * y : 0.5 * y;
}

/** R-7 quantile of sorted values. */
function quantileR7(s: Float64Array, p: number): number {
  const h = (s.length - 1) * p;
  const lo = Math.floor(h);
  const hi = Math.min(s.length - 1, lo + 1);
  return s[lo] + (h - lo) * (s[hi] - s[lo]);
}

function ascending(values: number[]): Uint32Array {
  const o = new Uint32Array(values.length);
  for (let i = 0; i < o.length; i++) o[i] = i;
  return o.sort((a, b) => values[a] - values[b]);
}

/** Weighted nearest rank: the smallest value whose cumulative weight reaches q of the total. */
function weightedQ(values: number[], weights: number[], order: Uint32Array, total: number, q: number): number {
  let acc = 0;
  for (let k = 0; k < order.length; k++) {
    acc += weights[order[k]];
    if (acc >= q * total - 1e-12 * total) return values[order[k]];
  }
  return values[order[order.length - 1]];
}

function curveAt(points: Array<[number, number]>, space: "log" | "linear", x: number): number {
  if (!(x > points[0][0])) return points[0][1];
  const last = points[points.length - 1];
  if (!(x < last[0])) return last[1];
  const f = space === "log" ? Math.log : (v: number) => v;
  for (let j = 1; j < points.length; j++) {
    if (x <= points[j][0]) {
      const [x0, s0] = points[j - 1];
      const [x1, s1] = points[j];
      return s0 + ((f(x) - f(x0)) / (f(x1) - f(x0))) * (s1 - s0);
    }
  }
  return last[1];
}

// ---- per-check statistics ----------------------------------------------------------------------

type Check = RubricDoc["checks"][number] & { index: number; dim: number; halfLife: number; q: number | null };
interface Stats {
  c: Check;
  pass: number;
  fail: number;
  seenFail: number;
  na: number;
  latest: string | null;
  latestAt: number | null;
  lastFail: number | null;
  lastPass: number | null;
  since: number;
  failingSince: number | null;
  values: number[];
  weights: number[];
  sampleOf: number[];
  sampleW: number[];
  gt: number[];
  go: string[];
}

const UTC_MS = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)\.(\d{3})Z$/;
let lastText = "";
let lastT = NaN;
/** An ISO 8601 instant in ms; toISOString's shape read by its digits (Date.parse per row is slow), the last one remembered. */
export function instant(s: string, where: string): number {
  if (s === lastText) return lastT;
  const m = typeof s === "string" ? UTC_MS.exec(s) : null;
  let t = m ? Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6], +m[7]) : typeof s === "string" ? Date.parse(s) : NaN;
  if (m && (+m[2] > 12 || +m[3] > 31 || +m[4] > 23 || +m[5] > 59 || +m[6] > 59)) t = NaN;
  if (Number.isNaN(t)) throw new Error(`${where} is not an ISO 8601 instant`);
  lastText = s;
  lastT = t;
  return t;
}

function compile(doc: RubricDoc): { checks: Check[]; byId: Map<string, Check> } {
  const dims = new Map(doc.dimensions.map((d, i) => [d.id, i]));
  const checks = doc.checks.map((c, index) => {
    const dim = dims.get(c.dimension);
    if (dim === undefined) throw new Error(`rubric check ${c.id} names no dimension`);
    const q = c.metric === "curve" ? Number(/^p(\d+)$/.exec(c.curve!.input)![1]) / 100 : null;
    return { ...c, index, dim, halfLife: c.half_life_days ?? doc.decay[c.kind], q };
  });
  return { checks, byId: new Map(checks.map((c) => [c.id, c])) };
}

function statusOf(s: Stats, na: Semantics["na"]): "measured" | "na" | "unmeasured" {
  const weighed = s.pass + s.fail > 0;
  if (na === "latest" || s.c.kind === "free") return s.latest === "na" ? "na" : weighed ? "measured" : "unmeasured";
  return weighed ? "measured" : s.na > 0 ? "na" : "unmeasured";
}

/** Dimension-weighted score of per-check rates (null: drops out), or null when nothing is measured. */
function weighted(doc: RubricDoc, checks: Check[], rates: Array<number | null>): number | null {
  const num = new Float64Array(doc.dimensions.length);
  const den = new Float64Array(doc.dimensions.length);
  for (const c of checks) {
    const r = rates[c.index];
    if (r === null || c.weight <= 0) continue;
    num[c.dim] += c.weight * r;
    den[c.dim] += c.weight;
  }
  let total = 0;
  let w = 0;
  doc.dimensions.forEach((d, i) => {
    if (den[i] <= 0) return;
    total += d.weight * ((100 * num[i]) / den[i]);
    w += d.weight;
  });
  return w > 0 ? total / w : null;
}

// ---- the grade ---------------------------------------------------------------------------------

export function gradeSubject(doc: RubricDoc, sem: Semantics, subject: Subject, scoring: Scoring): Grade {
  const { checks, byId } = compile(doc);
  const now = instant(scoring.now, "/scoring/now");
  const v = doc.verdict;
  let rev = 1;
  for (const r of subject.revisions) if (instant(r.startedAt, "revision startedAt") <= now && r.revision > rev) rev = r.revision;

  const st: Stats[] = checks.map((c) => ({ c, pass: 0, fail: 0, seenFail: 0, na: 0, latest: null, latestAt: null, lastFail: null, lastPass: null, since: 0, failingSince: null, values: [], weights: [], sampleOf: [], sampleW: [], gt: [], go: [] }));
  const gated = new Set(doc.gates.map((g) => byId.get(g.check)!.index));
  const probe = byId.get(v.probe_check)!.index;
  const paidFrom = now - v.paid_within_days * DAY;
  let probes = 0;
  let first = Infinity;
  let last = -Infinity;
  let lastPaid: number | null = null;
  const sampleIdx = new Map<number, number>();
  const sampleAt: number[] = [];

  subject.observations.forEach((o, i) => {
    const c = byId.get(o.check);
    if (!c) throw new Error(`/subject/observations/${i}/check names no check of the rubric`);
    const t = instant(o.observedAt, `/subject/observations/${i}/observedAt`);
    if (t > now) return;
    if (!OUTCOMES.has(o.outcome)) throw new Error(`/subject/observations/${i}/outcome is not an outcome`);
    const s = st[c.index];
    const counted = o.outcome === "pass" || o.outcome === "fail";
    if (counted && c.index === probe) {
      probes++;
      first = Math.min(first, t);
      last = Math.max(last, t);
    }
    if (counted && c.kind === "paid" && t >= paidFrom && (lastPaid === null || t > lastPaid)) lastPaid = t;
    const behind = rev - Math.min(o.revision, rev);
    if (behind > 0 && c.on_revision === "reset") return;
    const factor = behind > 0 && c.on_revision === "half" ? Math.pow(0.5, behind) : 1;
    if (o.outcome === "unmeasured") return;
    if (s.latestAt === null || t >= s.latestAt) {
      s.latestAt = t;
      s.latest = o.outcome;
    }
    if (o.outcome === "na") return void s.na++;
    const decay = Math.exp(-(Math.LN2 / (c.halfLife * DAY)) * (now - t));
    const w = factor * decay;
    if (c.kind === "paid") {
      let k = sampleIdx.get(t);
      if (k === undefined) sampleIdx.set(t, (k = sampleAt.push(t) - 1));
      s.sampleOf.push(k);
      s.sampleW.push(w);
    }
    if (c.metric === "curve") {
      const val = o.value ?? (o.outcome === "fail" ? Infinity : NaN);
      if (typeof val !== "number" || Number.isNaN(val)) throw new Error(`/subject/observations/${i} passes a curve check with no value`);
      s.values.push(val);
      s.weights.push(w);
    }
    if (o.outcome === "pass") {
      s.pass += w;
      if (s.lastPass === null || t > s.lastPass) s.lastPass = t;
    } else {
      s.fail += w;
      s.seenFail += decay;
      if (s.lastFail === null || t > s.lastFail) s.lastFail = t;
    }
    if (gated.has(c.index)) {
      s.gt.push(t);
      s.go.push(o.outcome);
    }
  });
  for (const i of gated) {
    const s = st[i];
    let fs = Infinity;
    s.gt.forEach((t, j) => {
      if (s.go[j] === "pass" && (s.lastFail === null || t > s.lastFail)) s.since++;
      if (s.go[j] === "fail" && (s.lastPass === null || t > s.lastPass) && t < fs) fs = t;
    });
    s.failingSince = fs === Infinity ? null : fs;
  }
  // Paid samples ranked newest first: the rank picks the sample's luck from the seed.
  const rankOf = new Map([...sampleAt].sort((a, b) => b - a).map((t, r) => [sampleIdx.get(t)!, r]));
  for (const s of st) s.sampleOf = s.sampleOf.map((k) => rankOf.get(k)!);

  const rates = st.map((s) => {
    if (statusOf(s, sem.na) !== "measured") return null;
    if (s.c.metric === "rate") return s.pass / (s.pass + s.fail);
    const total = s.weights.reduce((a, b) => a + b, 0);
    return curveAt(s.c.curve!.points, s.c.curve!.space, weightedQ(s.values, s.weights, ascending(s.values), total, s.c.q!)) / 100;
  });
  const uncapped = weighted(doc, checks, rates);

  const fired = doc.gates.filter((g) => {
    const s = st[byId.get(g.check)!.index];
    const cleared = g.clear_after_passes !== undefined && s.lastFail !== null && s.since >= g.clear_after_passes;
    let hit: boolean;
    if (g.when === "fail_weight_gte") hit = (sem.gates === "seen" ? s.seenFail : s.fail) >= g.value;
    else if (g.when === "failing_for_hours") hit = s.failingSince !== null && (now - s.failingSince) / HOUR >= g.value;
    else hit = (s.lastFail === null ? Infinity : (now - s.lastFail) / HOUR) <= g.value;
    return hit && !cleared;
  });
  const caps = fired.filter((g) => g.cap !== undefined).map((g) => g.cap!);
  const cap = caps.length ? Math.min(...caps) : null;
  const score = uncapped === null ? null : r1(cap === null ? uncapped : Math.min(uncapped, cap));
  const grades = [...doc.grades].sort((a, b) => b.min - a.min);
  const grade = score === null ? null : (grades.find((g) => score >= g.min) ?? grades[grades.length - 1]).grade;

  let band: Grade["band"] = null;
  let confidence: string | null = null;
  if (uncapped !== null) {
    const b = drawBand(doc, checks, st, sampleAt.length, rates, cap, scoring.seed, { ...GRID, rho: sem.rho, ...scoring.bandOptions }, sem.paidDraws === "per-sample");
    band = { low: r1(b.low), high: r1(b.high), width: r1(b.high - b.low) };
    const conf = [...doc.confidence].sort((a, b) => a.max_width - b.max_width);
    confidence = (conf.find((c) => band!.width <= c.max_width) ?? conf[conf.length - 1]).level;
  }

  const by = (k: string) => fired.some((g) => g.verdict === k);
  let verdict: Grade["verdict"];
  if (by("avoid")) verdict = "avoid";
  else if (by("down")) verdict = "down";
  else if (by("caution")) verdict = "caution";
  else if (probes < v.min_probes || (probes > 0 ? (last - first) / DAY : 0) < v.min_span_days || lastPaid === null || grade === null) verdict = "insufficient_evidence";
  else if (v.avoid_grades.includes(grade)) verdict = "avoid";
  else if (v.caution_grades.includes(grade) || (confidence !== null && v.caution_confidence.includes(confidence))) verdict = "caution";
  else verdict = "ok";
  return { score, grade, band, confidence, verdict };
}

// ---- the band ----------------------------------------------------------------------------------

let stream: { key: string; z: Float64Array } | null = null;
let lucks: { key: string; blocks: Float64Array[] } | null = null;

function drawBand(doc: RubricDoc, checks: Check[], st: Stats[], samples: number, rates: Array<number | null>, cap: number | null, seed: number, o: { rho: number; gridStep: number; gridMax: number }, perSample: boolean): { low: number; high: number } {
  const K = Math.round((2 * o.gridMax) / o.gridStep) + 1;
  const up = Array.from({ length: K }, (_, k) => phi(-o.gridMax + k * o.gridStep));
  const den = new Float64Array(doc.dimensions.length);
  for (const c of checks) if (rates[c.index] !== null && c.weight > 0) den[c.dim] += c.weight;
  let dimTotal = 0;
  doc.dimensions.forEach((d, i) => {
    if (den[i] > 0) dimTotal += d.weight;
  });
  const draws = doc.monte_carlo.draws;
  const width = 1 + checks.length;
  const zKey = `${seed}:${draws}:${width}`;
  if (stream?.key !== zKey) stream = { key: zKey, z: normals(draws * width, mulberry32(seed)) };
  const z = stream.z;
  const lKey = `${seed}:${draws}`;
  if (lucks?.key !== lKey) lucks = { key: lKey, blocks: [] };
  const blocks = lucks.blocks;
  if (perSample) while (blocks.length < samples) blocks.push(normals(draws, mulberry32((Math.imul(seed, 0x9e3779b1) ^ Math.imul(blocks.length + 1, 0x85ebca6b)) >>> 0)));

  const terms: Array<{ coef: number; table: Float64Array; own: Float64Array | null; col: number }> = [];
  const rateTables = new Map<string, Float64Array>();
  const latents = new Map<string, Float64Array>();
  for (const c of checks) {
    if (rates[c.index] === null || c.weight <= 0) continue;
    const s = st[c.index];
    let table: Float64Array;
    if (c.metric === "curve") {
      const total = s.weights.reduce((a, b) => a + b, 0);
      const order = ascending(s.values);
      table = Float64Array.from(up, (u) => curveAt(c.curve!.points, c.curve!.space, weightedQ(s.values, s.weights, order, total, betaQuantile(1 - u, c.q! * total + 0.5, (1 - c.q!) * total + 0.5))) / 100);
    } else {
      const key = `${s.pass + 0.5}|${s.fail + 0.5}`;
      table = rateTables.get(key) ?? Float64Array.from(up, (u) => betaQuantile(u, s.pass + 0.5, s.fail + 0.5));
      rateTables.set(key, table);
    }
    let own: Float64Array | null = null;
    if (perSample && c.kind === "paid" && s.sampleOf.length > 0) {
      // A paid check's own luck: Σ w_s·u_s / √Σ w_s² over the samples it counts.
      const w = new Map<number, number>();
      s.sampleOf.forEach((k, j) => w.set(k, (w.get(k) ?? 0) + s.sampleW[j]));
      const ks = [...w.keys()].sort((a, b) => a - b);
      const key = ks.map((k) => `${k}:${w.get(k)}`).join(",");
      own = latents.get(key) ?? null;
      if (!own) {
        let norm = 0;
        for (const k of ks) norm += w.get(k)! ** 2;
        norm = Math.sqrt(norm);
        own = new Float64Array(draws);
        for (const k of ks) {
          const a = w.get(k)! / norm;
          const u = blocks[k];
          for (let d = 0; d < draws; d++) own[d] += a * u[d];
        }
        latents.set(key, own);
      }
    }
    terms.push({ coef: (100 * doc.dimensions[c.dim].weight * c.weight) / (dimTotal * den[c.dim]), table, own, col: 1 + c.index });
  }

  const ls = Math.sqrt(o.rho);
  const li = Math.sqrt(1 - o.rho);
  const inv = 1 / o.gridStep;
  const top = K - 1;
  const capAt = cap === null ? Infinity : cap;
  const scores = new Float64Array(draws);
  for (let d = 0; d < draws; d++) {
    const row = d * width;
    const common = ls * z[row];
    let score = 0;
    for (const t of terms) {
      let p = (common + li * (t.own === null ? z[row + t.col] : t.own[d]) + o.gridMax) * inv;
      p = p < 0 ? 0 : p > top ? top : p;
      const k = p < top ? Math.floor(p) : top - 1;
      score += t.coef * (t.table[k] + (p - k) * (t.table[k + 1] - t.table[k]));
    }
    scores[d] = score < capAt ? score : capAt;
  }
  scores.sort();
  return { low: quantileR7(scores, doc.monte_carlo.band[0] / 100), high: quantileR7(scores, doc.monte_carlo.band[1] / 100) };
}
