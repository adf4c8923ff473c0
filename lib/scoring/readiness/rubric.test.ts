import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { checkRubric, CURRENT_RUBRIC, loadRubric, RUBRIC_VERSIONS, type Rubric } from "./rubric";

const DIR = path.join(__dirname, "rubrics");

/**
 * Released rubric files, pinned by SHA-256. docs/spec/scoring-system.md "Governance": "a released version never changes". An edit to
 * a released file fails here; a change belongs in a new version file with its changelog entry.
 */
const RELEASED: Record<string, string> = {
  "readiness-1.0.0.json": "a2fa53d6667a59204dfe9b51fe980afb7ab3dee82095d4cb36fae213e5d9ea51",
  "readiness-1.1.0.json": "0f6b9a1bba368f3e52fbbfe46b63ac64492fbafef4095c7c8fed5a1acbabcdf8",
  "readiness-1.2.0.json": "e055b352a32d34923b298089f7416b905661726f04c7c8847ca7c41fd69ed41f",
};

const files = readdirSync(DIR).filter((f) => /^readiness-\d+\.\d+\.\d+\.json$/.test(f));
const clone = (): Rubric => JSON.parse(JSON.stringify(CURRENT_RUBRIC));

describe("released rubric files", () => {
  it.each(Object.entries(RELEASED))("%s is unchanged since release", (file, sha) => {
    const bytes = readFileSync(path.join(DIR, file));
    expect(createHash("sha256").update(bytes).digest("hex")).toBe(sha);
  });

  it.each(files)("%s has a changelog entry for its own version and is registered", (file) => {
    const r = JSON.parse(readFileSync(path.join(DIR, file), "utf8")) as Rubric;
    expect(file).toBe(`readiness-${r.version}.json`);
    expect(r.changelog.map((c) => c.version)).toContain(r.version);
    expect(RUBRIC_VERSIONS).toContain(r.version);
    if (r.status === "released") expect(Object.keys(RELEASED)).toContain(file);
  });

  it("every registered version has its file", () => {
    for (const v of RUBRIC_VERSIONS) expect(files).toContain(`readiness-${v}.json`);
  });
});

describe("readiness/1.0.0 says what the seed says", () => {
  const r = loadRubric("readiness/1.0.0");
  const points = Object.fromEntries(r.rules.map((x) => [x.id, x.points]));
  it("rule points", () => {
    expect(points).toEqual({
      M1: 3, M2: 3, M3: 3, M4: 3, M5: 3, E1: 5, E2: 5, E3: 5, E4: 5, E5: 5, P1: 6, P2: 6, P3: 4, P4: 4,
      D1: 4, D2: 4, D3: 4, D4: 3, O1: 3, O2: 3, O3: 2, O4: 2, H1: 5, H2: 5, H3: 5,
    });
  });
  it("dimensions, scopes, caps and settleability", () => {
    expect(r.dimensions.map((d) => [d.id, d.points])).toEqual([["metadata", 15], ["endpoints", 25], ["pricing", 20], ["documentation", 15], ["operations", 10], ["health", 15]]);
    expect(r.rules.filter((x) => x.scope === "endpoint").map((x) => x.id)).toEqual(["E2", "E3", "E4", "E5", "D3"]);
    expect(r.rules.filter((x) => x.scope === "payable").map((x) => x.id)).toEqual(["P1", "P2", "P3"]);
    expect(r.rules.filter((x) => x.scope === "dynamic").map((x) => x.id)).toEqual(["P4"]);
    expect(r.scopes.dynamic.whenEmpty).toBe("full");
    expect(r.caps.map((c) => [c.id, c.value])).toEqual([["noReachableEndpoint", 39], ["knownUnpayable", 39], ["noPaymentMechanism", 59]]);
    expect(r.settleability).toEqual({ settleable: 5, unknown: 3.33, unpayable: 0 });
  });
  it("records the product's readings", () => {
    const ids = r.readings.map((x) => x.id);
    for (const id of ["total", "bands", "pro-rata", "duplicates", "payable-scope", "dynamic-scope", "measured", "caps", "provisional", "declared-not-observed", "title"]) expect(ids).toContain(id);
  });
  it("CURRENT_RUBRIC is the newest version", () => {
    expect(CURRENT_RUBRIC.version).toBe("1.2.0");
    expect(() => loadRubric("0.9.0")).toThrow(/unknown rubric version/);
  });
});

describe("checkRubric refuses an inconsistent file", () => {
  it.each<[string, (r: Rubric) => void, RegExp]>([
    ["a version without a changelog entry", (r) => { r.version = "1.0.1"; }, /no changelog entry for version 1\.0\.1/],
    ["a missing rule", (r) => { r.rules = r.rules.filter((x) => x.id !== "O4"); }, /rule O4 missing/],
    ["an unknown rule", (r) => { r.rules.push({ ...r.rules[0], id: "Z9" as never }); }, /unknown rule id Z9/],
    ["dimension points that do not add up", (r) => { r.rules.find((x) => x.id === "D2")!.points = 5; }, /documentation: rules sum to 16/],
    ["a band gap", (r) => { r.bands[1].min = 61; }, /band almost-ready starts at 61/],
    ["a cap fixed by an unknown rule", (r) => { r.caps[0].fixedBy.push("Q1" as never); }, /fixed by unknown rule Q1/],
    ["a bad version", (r) => { r.version = "1.0"; }, /MAJOR\.MINOR\.PATCH/],
    ["settleability above H3's points", (r) => { r.settleability.settleable = 6; }, /settleability/],
  ])("%s", (_n, breakIt, message) => {
    const r = clone();
    breakIt(r);
    expect(() => checkRubric(r)).toThrow(message);
  });
});
