import { describe, expect, it } from "vitest";
import { labelRuleError } from "./label";
import { visibleText } from "./text";

describe("labelRuleError", () => {
  it.each(["readiness", "api", "Quality check", "x-api", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\u2026"])("accepts %s", (label) => {
    expect(labelRuleError(label)).toBeNull();
  });

  it.each([
    ["", /empty/],
    ["readiness 99 · Excellent", /ASCII letters/],
    ["readiness 99", /ASCII letters/],
    ["٩٩", /ASCII letters/],
    ["Ƽ", /ASCII letters/],
    ["a/b", /ASCII letters/],
    ["100%", /ASCII letters/],
    ["a  b", /ASCII letters/],
    ["score: x", /ASCII letters/],
    ["Excellent", /band name "Excellent"/],
    ["already", /band name "Ready"/],
    ["ALMOST READY", /band name "Almost ready"/],
    ["getting started", /band name "Getting started"/],
    ["lOO", /reads as digits/],
    ["grade SO", /reads as digits/],
    ["a".repeat(41), /longer than 40/],
  ])("refuses %j", (label, why) => {
    expect(labelRuleError(label)).toMatch(why);
  });

  it("is applied after visibleText, so hidden characters cannot split a band name", () => {
    expect(labelRuleError(visibleText("Ex\u200Bcellent"))).toMatch(/band name/);
  });
});
