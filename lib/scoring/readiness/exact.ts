/**
 * Exact arithmetic for the readiness total (readiness/1.1.0 reading "total"): every rule's amount is
 * rational, and a float sum's 1e-13 noise could round an exact 89.49999987 up to 89.5. Fast path: a
 * float sum more than 1e-7 from every multiple of 1e-6 truncates and rounds like the exact sum; only
 * sums near one are recomputed as fractions.
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

/** Largest denominator a rule's inputs carry (30 days of 5-minute monitor samples is 8,640). */
export const MAX_DENOMINATOR = 1_000_000n;
/** At most one fraction with denominator ≤ MAX_DENOMINATOR lies this close to a float computed from it. */
export const FRACTION_TOLERANCE = 1e-14;

/** The continued-fraction convergent within FRACTION_TOLERANCE; else the float's exact binary value. */
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

function binaryValue(x: number): Fraction {
  let m = x;
  let e = 0n;
  while (!Number.isInteger(m)) {
    m *= 2;
    e++;
  }
  return frac(BigInt(m), 1n << e);
}

/** floor(x × 10^6) ÷ 10^6: the raw total shown, never rounded up. */
export function truncate6(x: Fraction): number {
  const scaled = (x.n * 1_000_000n) / x.d - (x.n < 0n && (x.n * 1_000_000n) % x.d !== 0n ? 1n : 0n);
  return Number(scaled) / 1e6;
}

/** floor(x + 1/2) of a non-negative fraction. */
export function roundHalfUpExact(x: Fraction): number {
  return Number((2n * x.n + x.d) / (2n * x.d));
}

/** Too close to a multiple of 1e-6 for the float to say which side it is on. */
export function nearGrid(x: number): boolean {
  const s = x * 1e6;
  return Math.abs(s - Math.round(s)) < 0.1;
}

/**
 * The same arithmetic in numbers, for sums whose every numerator and denominator stays a safe integer
 * (the usual case: a rule's share has a denominator no larger than its endpoint count). A float
 * product below 2^52 is within one part in 2^52 of the exact one, so the exact product is below 2^53
 * and the float is exact; past that the caller takes the BigInt path. Results are written to SMALL
 * (no object per term); a function answers false when the number path cannot give the BigInt answer.
 */
const SAFE_PRODUCT = 2 ** 52;
export const SMALL = { n: 0, d: 1 };

/** The greatest common divisor of two safe integers (0 when both are 0). */
function gcdNumber(a: number, b: number): number {
  a = Math.abs(a);
  while (b !== 0) {
    const r = a % b;
    a = b;
    b = r;
  }
  return a;
}

/** SMALL ← n/d reduced; false when either is not a safe integer below 2^52. */
export function setSmall(n: number, d: number): boolean {
  if (Math.abs(n) >= SAFE_PRODUCT || d >= SAFE_PRODUCT) return false;
  const g = gcdNumber(n, d) || 1;
  SMALL.n = n / g;
  SMALL.d = d / g;
  return true;
}

/** fractionOf(x) into SMALL, when its convergent is found with safe integers; false where fractionOf would go on to the float's binary value. */
export function smallFractionOf(x: number): boolean {
  if (!Number.isFinite(x)) return false;
  if (Number.isInteger(x)) return setSmall(x, 1);
  const neg = x < 0;
  const v = Math.abs(x);
  const tol = FRACTION_TOLERANCE * Math.max(1, v);
  let h0 = 0, h1 = 1, k0 = 1, k1 = 0;
  let rest = v;
  for (let i = 0; i < 64; i++) {
    const a = Math.floor(rest);
    const h = a * h1 + h0;
    const k = a * k1 + k0;
    h0 = h1;
    h1 = h;
    k0 = k1;
    k1 = k;
    if (k1 > Number(MAX_DENOMINATOR)) return false;
    if (h1 >= SAFE_PRODUCT) return false;
    if (Math.abs(h1 / k1 - v) <= tol) return setSmall(neg ? -h1 : h1, k1);
    const f = rest - a;
    if (f === 0) return false;
    rest = 1 / f;
  }
  return false;
}

/** SMALL ← acc + n/d, reduced; false when a product would leave the safe integers. */
export function addSmall(accN: number, accD: number, n: number, d: number): boolean {
  const a = accN * d;
  const b = n * accD;
  const den = accD * d;
  if (Math.abs(a) >= SAFE_PRODUCT || Math.abs(b) >= SAFE_PRODUCT) return false;
  return setSmall(a + b, den);
}
