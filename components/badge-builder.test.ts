/** The badge builder's label check: the badge route's own rule, said before anything can be copied. */
import { describe, expect, it } from "vitest";
import { labelProblem } from "./badge-builder";

describe("labelProblem", () => {
  it("accepts the default, an empty label and words; refuses digits, a band name and digit-like words with the route's reason", () => {
    expect(labelProblem("readiness")).toBeNull();
    expect(labelProblem("  ")).toBeNull();
    expect(labelProblem("agent ready check")).toMatch(/band name "Ready"/);
    expect(labelProblem("score 99")).toMatch(/no digits or symbols/);
    expect(labelProblem("lOO")).toMatch(/reads as digits/);
    expect(labelProblem("api status")).toBeNull();
  });
});
