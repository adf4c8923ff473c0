/**
 * Exact arithmetic for the readiness total (readiness/1.1.0 reading "total"). Every amount a rule
 * earns is a rational number: whole points, points × passing ÷ endpoints, 5 × liveness (a share of
 * monitor samples, or a one-decimal baseline or confidence) and 3.33 for an unknown settle gate. A
 * float sum of them carries noise of about 1e-13, which can push an exact 89.49999987 to 89.5 once it
 * is rounded to a few decimals; summed as fractions it cannot.
 *
 * The fast path: the float sum is within 1e-9 of the exact one (25 terms, each within a few ulp), so
 * when it lies more than 1e-7 away from every multiple of 1e-6 (which include every whole number and
 * every half), its truncation to 6 decimals and its half-up rounding are already those of the exact
 * sum. Only sums near such a point are recomputed as fractions.
 */

export interface Fraction {
  n: bigint;
  d: bigint;
}

function gcd(a: bigint, b: bigint): bigint {
  if (a < 0n) a = -a;
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

export function frac(n: bigint, d: bigint = 1n): Fraction {
  if (d === 0n) throw new Error("fraction with denominator 0");
  if (d < 0n) [n, d] = [-n, -d];
  const g = gcd(n, d) || 1n;
  return { n: n / g, d: d / g };
}

export const ZERO: Fraction = { n: 0n, d: 1n };

export function add(a: Fraction, b: Fraction): Fraction {
  return frac(a.n * b.d + b.n * a.d, a.d * b.d);
}

export function mul(a: Fraction, b: Fraction): Fraction {
  return frac(a.n * b.n, a.d * b.d);
}

export function min(a: Fraction, b: Fraction): Fraction {
  return a.n * b.d <= b.n * a.d ? a : b;
}

/** Largest denominator a rule's inputs carry: monitor samples in a window (30 days of 5-minute sweeps is 8,640). */
export const MAX_DENOMINATOR = 1_000_000n;
/**
 * How far a float may lie from the fraction it stands for. Two fractions with denominators up to
 * MAX_DENOMINATOR differ by at least 1e-12, and a float computed from one (up ÷ samples, 5 × 4 ÷ 9,
 * the literal 3.33) lies within a few ulp (below 1e-15 for values up to 6), so at most one fraction
 * is this close and it is the one the float was computed from.
 */
export const FRACTION_TOLERANCE = 1e-14;

/**
 * The fraction a float stands for: the first continued-fraction convergent with a denominator up to
 * MAX_DENOMINATOR within FRACTION_TOLERANCE (scaled for values above 1); a float no such fraction
 * explains (an arbitrary number typed into an evidence file) is taken at its exact binary value.
 */
export function fractionOf(x: number): Fraction {
  if (!Number.isFinite(x)) throw new Error(`not a finite number: ${x}`);
  if (Number.isInteger(x)) return frac(BigInt(x));
  const neg = x < 0;
  const v = Math.abs(x);
  const tol = FRACTION_TOLERANCE * Math.max(1, v);
  let [h0, h1, k0, k1] = [0n, 1n, 1n, 0n];
  let rest = v;
  for (let i = 0; i < 64; i++) {
    const a = Math.floor(rest);
    const A = BigInt(a);
    [h0, h1] = [h1, A * h1 + h0];
    [k0, k1] = [k1, A * k1 + k0];
    if (k1 > MAX_DENOMINATOR) break;
    if (Math.abs(Number(h1) / Number(k1) - v) <= tol) return frac(neg ? -h1 : h1, k1);
    const f = rest - a;
    if (f === 0) break;
    rest = 1 / f;
  }
  return binaryValue(x);
}

/** The exact rational value of a double. */
function binaryValue(x: number): Fraction {
  let m = x;
  let e = 0n;
  while (!Number.isInteger(m)) {
    m *= 2;
    e++;
  }
  return frac(BigInt(m), 1n << e);
}

/** floor(x × 10^6) ÷ 10^6 of an exact fraction, as a number: the raw total shown, never rounded up. */
export function truncate6(x: Fraction): number {
  const scaled = (x.n * 1_000_000n) / x.d - (x.n < 0n && (x.n * 1_000_000n) % x.d !== 0n ? 1n : 0n);
  return Number(scaled) / 1e6;
}

/** Round half up of a non-negative fraction: floor(x + 1/2). */
export function roundHalfUpExact(x: Fraction): number {
  return Number((2n * x.n + x.d) / (2n * x.d));
}

/** True when a float sum lies so close to a multiple of 1e-6 that only the exact sum can say which side it is on. */
export function nearGrid(x: number): boolean {
  const s = x * 1e6;
  return Math.abs(s - Math.round(s)) < 0.1;
}
