import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { textWidth, textWidth100 } from "./widths";

// anafanafo is badge-maker's measuring library; our table is derived from its data, so they must agree.
const anafanafo = createRequire(import.meta.url)("anafanafo") as (text: string, opts: { font: string }) => number;

describe("text width table", () => {
  it.each(["readiness", "96 · Excellent", "71 · Almost ready", "0 · Getting started", "not yet scored", "READINESS", "Ünïcødé ñame", "€100 — “quoted”"])(
    "%s measures as anafanafo does in all three fonts",
    (s) => {
      for (const font of ["11px Verdana", "10px Verdana", "bold 10px Verdana"] as const) {
        expect(textWidth100(s, font) / 100).toBeCloseTo(anafanafo(s, { font }), 6);
      }
    },
  );

  it("is exact integer arithmetic, so widths never depend on summation order", () => {
    expect(Number.isInteger(textWidth100("abc".repeat(100), "11px Verdana"))).toBe(true);
    expect(textWidth("readiness", "11px Verdana")).toBe(52);
  });

  it("counts unlisted characters as 'm' and astral characters once", () => {
    expect(textWidth100("😀", "11px Verdana")).toBe(textWidth100("m", "11px Verdana"));
    expect(textWidth100("中", "11px Verdana")).toBe(1100);
  });
});
