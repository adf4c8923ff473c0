/** The number path of the exact sums (SMALL) against the BigInt path it stands in for. */
import { describe, expect, it } from "vitest";
import { add, addSmall, frac, fractionOf, MAX_DENOMINATOR, SMALL, smallFractionOf, type Fraction } from "./exact";

const same = (f: Fraction) => ({ n: Number(f.n), d: Number(f.d) });

describe("smallFractionOf", () => {
  it("gives fractionOf's convergent for every float a rule earns (shares of up to 40 endpoints, liveness readings, their products)", () => {
    let checked = 0;
    for (let den = 1; den <= 40; den++) {
      for (let num = 0; num <= den; num++) {
        for (const points of [1, 3, 4, 5, 7, 10]) {
          const x = (points * num) / den;
          expect(smallFractionOf(x)).toBe(true);
          expect({ ...SMALL }).toEqual(same(fractionOf(x)));
          checked++;
        }
      }
    }
    // Liveness values as the monitor writes them: shares of up to 8,640 samples, and 4 of them summed.
    for (const den of [7, 288, 2016, 8640]) {
      for (let num = 1; num < den; num += Math.ceil(den / 97)) {
        const x = num / den;
        expect(smallFractionOf(x)).toBe(true);
        expect({ ...SMALL }).toEqual(same(fractionOf(x)));
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(5000);
  });

  it("declines (false) exactly where fractionOf falls back to the float's binary value", () => {
    for (const x of [0.1234567890123, Math.PI, 1 / 1_000_003, 2 ** -40]) {
      const f = fractionOf(x);
      expect(f.d > MAX_DENOMINATOR).toBe(true);
      expect(smallFractionOf(x)).toBe(false);
    }
    expect(smallFractionOf(Number.NaN)).toBe(false);
    expect(smallFractionOf(2 ** 53)).toBe(false);
  });

  it("keeps the sign", () => {
    expect(smallFractionOf(-0.75)).toBe(true);
    expect({ ...SMALL }).toEqual({ n: -3, d: 4 });
  });
});

describe("addSmall", () => {
  it("sums like the BigInt fractions, reduced", () => {
    let n = 0;
    let d = 1;
    let big = frac(0n);
    for (let i = 1; i <= 12; i++) {
      expect(addSmall(n, d, i, i + 1)).toBe(true);
      n = SMALL.n;
      d = SMALL.d;
      big = add(big, frac(BigInt(i), BigInt(i + 1)));
      expect({ n, d }).toEqual(same(big));
    }
  });

  it("declines when a product would leave the safe integers", () => {
    expect(addSmall(1, 2 ** 30, 1, 2 ** 23 - 1)).toBe(false);
    expect(addSmall(2 ** 51, 1, 2 ** 51, 1)).toBe(false);
    expect(addSmall(1, 3, 1, 6)).toBe(true);
    expect({ ...SMALL }).toEqual({ n: 1, d: 2 });
  });
});
