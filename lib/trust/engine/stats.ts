/** The numerics the band needs, self-contained and reproducible: mulberry32, Box–Muller, ln Γ, the incomplete beta and its inverse. */

/** Same seed, same stream; uniform in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Box–Muller, both values used. */
export function fillNormals(out: Float64Array, rand: () => number): Float64Array {
  for (let i = 0; i < out.length; i += 2) {
    const u1 = 1 - rand();
    const u2 = rand();
    const r = Math.sqrt(-2 * Math.log(u1));
    out[i] = r * Math.cos(2 * Math.PI * u2);
    if (i + 1 < out.length) out[i + 1] = r * Math.sin(2 * Math.PI * u2);
  }
  return out;
}

const LANCZOS = [57.1562356658629235, -59.5979603554754912, 14.1360979747417471, -0.491913816097620199, 0.339946499848118887e-4, 0.465236289270485756e-4, -0.983744753048795646e-4, 0.158088703224912494e-3, -0.210264441724104883e-3, 0.217439618115212643e-3, -0.164318106536763890e-3, 0.844182239838527433e-4, -0.261908384015814087e-4, 0.368991826595316234e-5];

/** ln Γ(x) for x > 0. */
export function lnGamma(x: number): number {
  let y = x;
  const tmp0 = x + 5.2421875;
  const tmp = (x + 0.5) * Math.log(tmp0) - tmp0;
  let ser = 0.999999999999997092;
  for (let j = 0; j < 14; j++) ser += LANCZOS[j] / ++y;
  return tmp + Math.log((2.5066282746310005 * ser) / x);
}

const FPMIN = 1e-300;

function betaContinuedFraction(a: number, b: number, x: number): number {
  const qab = a + b;
  const qap = a + 1;
  const qam = a - 1;
  let c = 1;
  let d = 1 - (qab * x) / qap;
  if (Math.abs(d) < FPMIN) d = FPMIN;
  d = 1 / d;
  let h = d;
  for (let m = 1; m < 10000; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((qam + m2) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < FPMIN) d = FPMIN;
    c = 1 + aa / c;
    if (Math.abs(c) < FPMIN) c = FPMIN;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (qab + m) * x) / ((a + m2) * (qap + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < FPMIN) d = FPMIN;
    c = 1 + aa / c;
    if (Math.abs(c) < FPMIN) c = FPMIN;
    d = 1 / d;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < 1e-11) break;
  }
  return h;
}

/** I_x(a, b) = P(X ≤ x), X ~ Beta(a, b). `lnB` = ln B(a, b) if known. */
export function betaCdf(x: number, a: number, b: number, lnB = lnGamma(a) + lnGamma(b) - lnGamma(a + b)): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const bt = Math.exp(a * Math.log(x) + b * Math.log1p(-x) - lnB);
  if (x < (a + 1) / (a + b + 2)) return (bt * betaContinuedFraction(a, b, x)) / a;
  return 1 - (bt * betaContinuedFraction(b, a, 1 - x)) / b;
}

/** The p-quantile of Beta(a, b); `guess` (a nearby quantile) saves most iterations. */
export function betaQuantile(p: number, a: number, b: number, guess?: number, lnB = lnGamma(a) + lnGamma(b) - lnGamma(a + b)): number {
  if (p <= 0) return 0;
  if (p >= 1) return 1;
  const a1 = a - 1;
  const b1 = b - 1;
  let x: number;
  if (guess !== undefined && guess > 0 && guess < 1) x = guess;
  else if (a >= 1 && b >= 1) {
    const pp = p < 0.5 ? p : 1 - p;
    const t = Math.sqrt(-2 * Math.log(pp));
    let z = (2.30753 + t * 0.27061) / (1 + t * (0.99229 + t * 0.04481)) - t;
    if (p < 0.5) z = -z;
    const al = (z * z - 3) / 6;
    const h = 2 / (1 / (2 * a - 1) + 1 / (2 * b - 1));
    const w = (z * Math.sqrt(al + h)) / h - (1 / (2 * b - 1) - 1 / (2 * a - 1)) * (al + 5 / 6 - 2 / (3 * h));
    x = a / (a + b * Math.exp(2 * w));
  } else {
    const lna = Math.log(a / (a + b));
    const lnb = Math.log(b / (a + b));
    const t = Math.exp(a * lna) / a;
    const u = Math.exp(b * lnb) / b;
    const w = t + u;
    x = p < t / w ? Math.pow(a * w * p, 1 / a) : 1 - Math.pow(b * w * (1 - p), 1 / b);
  }
  for (let j = 0; j < 40; j++) {
    if (x <= 0 || x >= 1) return Math.min(1, Math.max(0, x));
    const err = betaCdf(x, a, b, lnB) - p;
    let t = Math.exp(a1 * Math.log(x) + b1 * Math.log1p(-x) - lnB);
    const u = err / t;
    t = u / (1 - 0.5 * Math.min(1, u * (a1 / x - b1 / (1 - x))));
    x -= t;
    if (x <= 0) x = 0.5 * (x + t);
    if (x >= 1) x = 0.5 * (x + t + 1);
    if (Math.abs(t) < 1e-9 * x && (j > 0 || guess !== undefined)) break;
  }
  return x;
}

/** Φ(z) via Numerical Recipes' Chebyshev erfc (relative error < 1.2e-7). */
export function normalCdf(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.5 * x);
  const y =
    t *
    Math.exp(
      -x * x -
        1.26551223 +
        t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return z >= 0 ? 1 - 0.5 * y : 0.5 * y;
}

/** Linear between order statistics ("R-7"). */
export function sortedQuantile(sorted: ArrayLike<number>, p: number): number {
  const n = sorted.length;
  if (n === 0) return NaN;
  const h = (n - 1) * p;
  const lo = Math.floor(h);
  const hi = Math.min(n - 1, lo + 1);
  return sorted[lo] + (h - lo) * (sorted[hi] - sorted[lo]);
}

/** Beta(a, b) quantiles at ascending `ps`, each started from the previous answer. */
export function betaQuantiles(ps: ArrayLike<number>, a: number, b: number, out = new Float64Array(ps.length)): Float64Array {
  const lnB = lnGamma(a) + lnGamma(b) - lnGamma(a + b);
  const mid = Math.floor(ps.length / 2);
  out[mid] = betaQuantile(ps[mid], a, b, undefined, lnB);
  for (let k = mid + 1; k < ps.length; k++) out[k] = betaQuantile(ps[k], a, b, out[k - 1], lnB);
  for (let k = mid - 1; k >= 0; k--) out[k] = betaQuantile(ps[k], a, b, out[k + 1], lnB);
  return out;
}
