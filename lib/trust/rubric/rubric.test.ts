import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { checkReadingText, checkRubricContent, checkRubricText, compileRubric, contentDigest, currentReadingOf, CURRENT_RUBRIC_REF, loadRubric, READING_FILES, RUBRIC_FILES, RubricError, type RubricFile } from "./index";
import { readingProblems } from "./reading";

const FILE = path.join(__dirname, "x402-endpoint-1.0.0-draft.1.json");
const bytes = readFileSync(FILE, "utf8");
const clone = (): RubricFile => JSON.parse(bytes);

function problemsOf(f: () => unknown): Array<{ pointer: string; message: string }> {
  try {
    f();
  } catch (e) {
    if (e instanceof RubricError) return e.problems;
    throw e;
  }
  throw new Error("expected a RubricError");
}

describe("the rubric file", () => {
  it("is the JSON block of docs/spec/trust-rubric.md, byte for byte", () => {
    const doc = readFileSync(path.join(__dirname, "../../../docs/spec/trust-rubric.md"), "utf8");
    const block = /```json\n([\s\S]*?)\n```/.exec(doc)![1];
    expect(bytes).toBe(block);
  });

  it("matches both of its pins, and loads", () => {
    expect(() => checkRubricText(bytes)).not.toThrow();
    expect(contentDigest(JSON.parse(bytes))).toBe(RUBRIC_FILES[CURRENT_RUBRIC_REF].contentSha256);
    const r = loadRubric();
    expect(r.ref).toBe("x402-endpoint/1.0.0-draft.1");
    expect(r.checks.map((c) => c.id)).toHaveLength(27);
  });

  it("refuses a tampered copy: one weight, one byte of whitespace", () => {
    const weight = bytes.replace('{"id": "H5", "dimension": "as_described", "weight": 15', '{"id": "H5", "dimension": "as_described", "weight": 16');
    expect(weight).not.toBe(bytes);
    expect(problemsOf(() => checkRubricText(weight))[0].message).toMatch(/SHA-256 is [0-9a-f]{64}, pinned 2e5b6963/);
    expect(problemsOf(() => checkRubricText(bytes + "\n"))[0].message).toMatch(/a pinned rubric never changes/);
    const c = clone();
    c.gates[1].cap = 49;
    expect(problemsOf(() => checkRubricContent(c))[0].message).toMatch(/content's SHA-256 .* pinned 74887cd9/);
    // Reordering keys is the same content: the content pin reads canonical JSON.
    const reordered = Object.fromEntries(Object.entries(clone()).reverse());
    expect(() => checkRubricContent(reordered)).not.toThrow();
  });

  it("reads every number from the file (the engine's view follows an edited copy)", () => {
    const c = clone();
    c.decay.free = 7;
    c.checks.find((x) => x.id === "H9")!.half_life_days = 45;
    c.value.price_percentile_among = "subjects of the same category whose R4 and R6 pass rate is at least 0.9";
    const r = compileRubric(c);
    expect(r.checkById.get("R1")!.halfLifeDays).toBe(7);
    expect(r.checkById.get("H9")!.halfLifeDays).toBe(45);
    expect(r.checkById.get("R4")!.halfLifeDays).toBe(30);
    expect(r.checkById.get("R3")!.quantile).toBe(0.95);
    expect(r.pricePeers).toEqual({ sameCategory: true, checks: ["R4", "R6"], minRate: 0.9 });
    expect(loadRubric().pricePeers).toEqual({ sameCategory: true, checks: ["R4", "R5"], minRate: 0.8 });
  });
});

describe("validation against swarmmemo.rubric/1 (ajv) and consistency", () => {
  it.each<[string, (r: RubricFile) => void, string, RegExp]>([
    ["a wrong schema tag", (r) => { (r as { schema: string }).schema = "swarmmemo.rubric/2"; }, "/schema", /must be "swarmmemo.rubric\/1"/],
    ["an unknown kind", (r) => { (r.checks[0] as { kind: string }).kind = "cheap"; }, "/checks/0/kind", /must be one of "free", "paid"/],
    ["a missing weight", (r) => { delete (r.checks[3] as Partial<RubricFile["checks"][0]>).weight; }, "/checks/3/weight", /is required/],
    ["an unknown field", (r) => { (r.gates[0] as unknown as Record<string, unknown>).cpa = 1; }, "/gates/0/cpa", /not a known field/],
    ["an unknown gate kind", (r) => { (r.gates[5] as { when: string }).when = "down_for_hours"; }, "/gates/5/when", /must be one of/],
    ["a gate on an unknown check", (r) => { r.gates[0].check = "H10"; }, "/gates/0/check", /names no check/],
    ["a check in an unknown dimension", (r) => { r.checks[0].dimension = "fast"; }, "/checks/0/dimension", /names no dimension/],
    ["curve points out of order", (r) => { r.checks[2].curve!.points[2][0] = 900; }, "/checks/2/curve/points/2/0", /must ascend/],
    ["a curve on a rate check", (r) => { r.checks[0].curve = r.checks[2].curve; }, "/checks/0/curve", /only a curve check/],
    ["a verdict grade that is no grade", (r) => { r.verdict.avoid_grades = ["E"]; }, "/verdict/avoid_grades/0", /names no grade/],
    ["a price rule the engine cannot read", (r) => { r.value.price_percentile_among = "cheap ones"; }, "/value/price_percentile_among", /cannot be read/],
    ["grades not reaching 0", (r) => { r.grades[4].min = 10; }, "/grades", /lowest grade must start at 0/],
  ])("refuses %s, naming %s", (_n, breakIt, pointer, message) => {
    const c = clone();
    breakIt(c);
    const problems = problemsOf(() => compileRubric(c));
    expect(problems).toEqual(expect.arrayContaining([expect.objectContaining({ pointer, message: expect.stringMatching(message) })]));
  });
});

describe("the engine's readings, beside the rubric file", () => {
  const readingBytes = (v: number) => readFileSync(path.join(__dirname, `x402-endpoint-1.0.0-draft.1.reading-${v}.json`), "utf8");
  const rubricPin = RUBRIC_FILES[CURRENT_RUBRIC_REF].sha256;
  const compiled = () => loadRubric();

  it("every released reading matches its byte pin, quotes the seed word for word and loads; the newest is the default", () => {
    const versions = Object.keys(READING_FILES[CURRENT_RUBRIC_REF]).map(Number);
    expect(versions).toEqual([1, 2, 3]);
    for (const v of versions) {
      const r = checkReadingText(readingBytes(v), CURRENT_RUBRIC_REF, v, compiled().file, rubricPin);
      expect(r).toMatchObject({ ref: `x402-endpoint/1.0.0-draft.1/reading-${v}`, version: v });
      expect(loadRubric(CURRENT_RUBRIC_REF, v).reading).toMatchObject({ ref: r.ref, sha256: r.sha256 });
    }
    expect(currentReadingOf(CURRENT_RUBRIC_REF)).toBe(3);
    expect(loadRubric().reading!.semantics).toEqual({ na: "endpoint", paidDraws: "per-sample", rho: 0.3, gates: "seen" });
    expect(loadRubric(CURRENT_RUBRIC_REF, 2).reading!.semantics).toEqual({ na: "endpoint", paidDraws: "per-sample", rho: 0.3 });
    expect(loadRubric(CURRENT_RUBRIC_REF, 1).reading!.semantics).toEqual({ na: "latest", paidDraws: "per-check", rho: 0.5 });
    expect(loadRubric(CURRENT_RUBRIC_REF, 1).checks).toBe(loadRubric().checks); // one compiled rubric, two readings
  });

  it("refuses an edited reading (a released reading never changes), an unknown one, and a quote that is not the seed's", () => {
    const bytes = readingBytes(2);
    const edited = bytes.replace('"rho": 0.3', '"rho": 0.35');
    expect(edited).not.toBe(bytes);
    expect(problemsOf(() => checkReadingText(edited, CURRENT_RUBRIC_REF, 2, compiled().file, rubricPin))[0].message).toMatch(/a released reading never changes/);
    expect(problemsOf(() => loadRubric(CURRENT_RUBRIC_REF, 4))[0].message).toMatch(/unknown reading; known: 1, 2, 3/);
    const f = JSON.parse(bytes);
    f.readings[1].seed[0].words = "A small paid sample: its uncertainty is hidden.";
    f.semantics.paidDraws = "per-day";
    f.rubricSha256 = "0".repeat(64);
    expect(readingProblems(f, CURRENT_RUBRIC_REF, 2, compiled().file, rubricPin)).toEqual([
      { pointer: "/rubricSha256", message: expect.stringMatching(/the rubric file's pin/) },
      { pointer: "/semantics/paidDraws", message: expect.stringMatching(/must be one of/) },
      { pointer: "/readings/1/seed/0/words", message: "are not the words of R4's validity" },
    ]);
  });
});
