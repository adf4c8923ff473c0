import { describe, expect, it } from "vitest";
import { BAND_COLORS, LABEL_COLORS, UNSCORED_COLORS, colorsFor, contrastRatio } from "./colors";

describe("badge colours", () => {
  it.each([["label", LABEL_COLORS], ["not yet scored", UNSCORED_COLORS], ...Object.entries(BAND_COLORS)] as const)("%s text meets WCAG AA (4.5:1)", (_name, c) => {
    expect(contrastRatio(c.background, c.text)).toBeGreaterThanOrEqual(4.5);
  });

  it("gives every band its own colour, distinct from grey", () => {
    const all = [...Object.values(BAND_COLORS).map((c) => c.background), UNSCORED_COLORS.background, LABEL_COLORS.background];
    expect(new Set(all).size).toBe(all.length);
  });

  it("computes known contrast ratios", () => {
    expect(contrastRatio("#000", "#fff")).toBeCloseTo(21, 5);
    expect(contrastRatio("#777", "#fff")).toBeCloseTo(4.48, 2);
  });

  it("picks dark text on light colours and refuses non-hex input", () => {
    expect(colorsFor("#ffff00").text).not.toBe("#fff");
    expect(colorsFor("#000080").text).toBe("#fff");
    expect(() => colorsFor("red;stroke:url(javascript:x)")).toThrow(/colour/);
  });
});
