import { describe, expect, it } from "vitest";
import { stepLabel, stepOf } from "./analysis-steps";

describe("the analysis steps the owner sees", () => {
  it("queued, probing (endpoint n of m), scoring, stored", () => {
    expect(stepOf({ state: "queued", step: "queued" })).toBe("queued");
    expect(stepOf({ state: "deferred", step: "queued" })).toBe("queued");
    expect(stepOf({ state: "running", step: "probing" })).toBe("probing");
    expect(stepOf({ state: "running", step: "scoring" })).toBe("scoring");
    expect(stepOf({ state: "succeeded", step: "done" })).toBe("stored");
    expect(stepLabel("probing", { progress: { done: 0, total: 4 } })).toBe("probing (endpoint 1 of 4)");
    expect(stepLabel("probing", { progress: { done: 3, total: 4 } })).toBe("probing (endpoint 4 of 4)");
    expect(stepLabel("probing", { progress: { done: 4, total: 4 } })).toBe("probing (endpoint 4 of 4)");
    expect(stepLabel("probing", { progress: null })).toBe("probing");
    expect(stepLabel("probing", { progress: { done: 0, total: 0 } })).toBe("probing");
    expect(stepLabel("scoring", { progress: { done: 2, total: 4 } })).toBe("scoring");
  });
});
