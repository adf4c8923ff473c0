/**
 * The Monte-Carlo band: draws from each measured check's posterior, correlated by one shared factor
 * per subject, on seeded normals (common random numbers). The reasons: docs/TRUST.md "band-draws".
 */
import type { ReadingSemantics, TrustRubric } from "../rubric";
import { ascendingOrder, curveScore, weightedQuantile, type SubjectStats } from "./aggregate";
import { betaQuantile, fillNormals, mulberry32, normalCdf, sortedQuantile } from "./stats";

export const DEFAULT_SEED = 402;

export interface BandOptions {
  /** Shared factor's share of each check's latent variance (0 independent, 1 one luck for all). */
  rho: number;
  /** The latent grid: ±gridMax in steps of gridStep. */
  gridStep: number;
  gridMax: number;
}

export const DEFAULT_BAND_OPTIONS: BandOptions = { rho: 0.5, gridStep: 0.25, gridMax: 4 };

const PRIOR = 0.5;

interface NormalStream {
  seed: number;
  draws: number;
  width: number;
  z: Float64Array;
}
let cached: NormalStream | null = null;

/** Per seed, each paid sample's lucks (sample-major), grown on demand; block s depends on seed and s only. */
let sampleLucks: { seed: number; draws: number; blocks: Float64Array[] } | null = null;
function lucksOf(seed: number, draws: number, samples: number): Float64Array[] {
  if (!sampleLucks || sampleLucks.seed !== seed || sampleLucks.draws !== draws) sampleLucks = { seed, draws, blocks: [] };
  const b = sampleLucks.blocks;
  while (b.length < samples) b.push(fillNormals(new Float64Array(draws), mulberry32((Math.imul(seed, 0x9e3779b1) ^ Math.imul(b.length + 1, 0x85ebca6b)) >>> 0)));
  return b;
}

/** A per-sample paid check's latent per draw: Σ_s w_s·u_ds / √(Σ_s w_s²) (a standard normal); shared by equal checks. */
function sampleLatents(s: SubjectStats["checks"][number], lucks: Float64Array[], draws: number, memo: Map<string, Float64Array>): Float64Array {
  const w = new Map<number, number>();
  for (let j = 0; j < s.sampleOf.length; j++) w.set(s.sampleOf[j], (w.get(s.sampleOf[j]) ?? 0) + s.sampleWeights[j]);
  const ks = [...w.keys()].sort((a, b) => a - b);
  const key = ks.map((k) => `${k}:${w.get(k)}`).join(",");
  let out = memo.get(key);
  if (out) return out;
  let norm = 0;
  for (const k of ks) norm += w.get(k)! ** 2;
  norm = Math.sqrt(norm);
  out = new Float64Array(draws);
  for (const k of ks) {
    const a = w.get(k)! / norm;
    const u = lucks[k];
    for (let d = 0; d < draws; d++) out[d] += a * u[d];
  }
  memo.set(key, out);
  return out;
}

/** draws × (1 + checks) seeded standard normals, draw-major: [z_d, e_d0, e_d1, …]. */
function normals(seed: number, draws: number, checks: number): NormalStream {
  const width = 1 + checks;
  if (cached && cached.seed === seed && cached.draws === draws && cached.width === width) return cached;
  cached = { seed, draws, width, z: fillNormals(new Float64Array(draws * width), mulberry32(seed)) };
  return cached;
}

export interface Band {
  low: number;
  high: number;
  scores: Float64Array;
}

export function drawBand(rubric: TrustRubric, st: SubjectStats, rates: Array<number | null>, cap: number | null, seed: number, options: Partial<BandOptions> = {}, paidDraws: ReadingSemantics["paidDraws"] = "per-check"): Band {
  const o = { ...DEFAULT_BAND_OPTIONS, ...options };
  const f = rubric.file;
  const K = Math.round((2 * o.gridMax) / o.gridStep) + 1;
  const grid = new Float64Array(K);
  const up = new Float64Array(K);
  for (let k = 0; k < K; k++) {
    grid[k] = -o.gridMax + k * o.gridStep;
    up[k] = normalCdf(grid[k]);
  }

  // The score is linear in the rates once the measured set is fixed.
  const dimDen = new Float64Array(rubric.dimensions.length);
  for (const c of rubric.checks) if (rates[c.index] !== null && c.weight > 0) dimDen[c.dimensionIndex] += c.weight;
  let dimTotal = 0;
  for (const d of rubric.dimensions) if (dimDen[d.index] > 0) dimTotal += d.weight;

  const active: number[] = [];
  const coef: number[] = [];
  const tables: Float64Array[] = [];
  const own: Array<Float64Array | null> = [];
  const draws = f.monte_carlo.draws;
  const perSample = paidDraws === "per-sample";
  const lucks = perSample ? lucksOf(seed, draws, st.samples.length) : [];
  const memo = new Map<string, Float64Array>();
  const shared = new Map<string, Float64Array>();
  for (const c of rubric.checks) {
    if (rates[c.index] === null || c.weight <= 0) continue;
    const s = st.checks[c.index];
    let table: Float64Array;
    if (c.metric === "curve") {
      const total = s.weights.reduce((a, b) => a + b, 0);
      const order = ascendingOrder(s.values);
      const q = c.quantile!;
      table = new Float64Array(K);
      for (let k = 0; k < K; k++) {
        // A higher latent reads a lower quantile level: lower latency.
        const level = betaQuantile(1 - up[k], q * total + PRIOR, (1 - q) * total + PRIOR);
        table[k] = curveScore(c.curve!.points, c.curve!.space, weightedQuantile(s.values, s.weights, order, total, level)) / 100;
      }
    } else {
      const a = s.passWeight + PRIOR;
      const b = s.failWeight + PRIOR;
      const key = `${a}|${b}`;
      let t = shared.get(key);
      if (!t) {
        t = new Float64Array(K);
        for (let k = 0; k < K; k++) t[k] = betaQuantile(up[k], a, b);
        shared.set(key, t);
      }
      table = t;
    }
    own.push(perSample && c.kind === "paid" && s.sampleOf.length > 0 ? sampleLatents(s, lucks, draws, memo) : null);
    active.push(c.index);
    coef.push((100 * rubric.dimensions[c.dimensionIndex].weight * c.weight) / (dimTotal * dimDen[c.dimensionIndex]));
    tables.push(table);
  }

  const stream = normals(seed, draws, rubric.checks.length);
  const z = stream.z;
  const width = stream.width;
  const ls = Math.sqrt(o.rho);
  const li = Math.sqrt(1 - o.rho);
  const inv = 1 / o.gridStep;
  const top = K - 1;
  const scores = new Float64Array(draws);
  const n = active.length;
  const capValue = cap === null ? Infinity : cap;
  for (let d = 0; d < draws; d++) {
    const row = d * width;
    const common = ls * z[row];
    let score = 0;
    for (let j = 0; j < n; j++) {
      const mine = own[j];
      const x = common + li * (mine === null ? z[row + 1 + active[j]] : mine[d]);
      let p = (x + o.gridMax) * inv;
      if (p < 0) p = 0;
      else if (p > top) p = top;
      const k = p < top ? Math.floor(p) : top - 1;
      const t = tables[j];
      score += coef[j] * (t[k] + (p - k) * (t[k + 1] - t[k]));
    }
    scores[d] = score < capValue ? score : capValue;
  }
  scores.sort();
  return { low: sortedQuantile(scores, f.monte_carlo.band[0] / 100), high: sortedQuantile(scores, f.monte_carlo.band[1] / 100), scores };
}
