/**
 * The CI check on rubric files (scripts/check-rubric-versions.ts), run as CI runs it, against
 * temporary git commits: an edit to a released file fails, a new version with its changelog entry
 * passes, a new version without one fails.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkRubricChanges } from "./rubric-changes";

const ROOT = path.join(__dirname, "../../..");
const DIR = "lib/scoring/readiness/rubrics";
let repo: string;
const git = (...args: string[]) => execFileSync("git", ["-C", repo, "-c", "user.email=ci@tollgate.test", "-c", "user.name=CI", ...args], { encoding: "utf8" });

beforeAll(() => {
  repo = mkdtempSync(path.join(os.tmpdir(), "rubric-ci-"));
  git("init", "-q", "-b", "main");
  mkdirSync(path.join(repo, DIR), { recursive: true });
  cpSync(path.join(ROOT, DIR), path.join(repo, DIR), { recursive: true });
  git("add", ".");
  git("commit", "-qm", "base: the released rubrics");
});
afterAll(() => rmSync(repo, { recursive: true, force: true }));

/** Commit `edit` on a branch off main and run the check against main, as CI would. */
function check(branch: string, edit: () => void): { code: number | null; out: string } {
  git("checkout", "-q", "-b", branch, "main");
  edit();
  git("add", "-A");
  git("commit", "-qm", branch, "--allow-empty");
  const r = spawnSync("npx", ["tsx", path.join(ROOT, "scripts/check-rubric-versions.ts"), "--repo", repo, "--base", "main"], { cwd: ROOT, encoding: "utf8" });
  git("checkout", "-q", "main");
  return { code: r.status, out: r.stdout + r.stderr };
}

const file = (v: string) => path.join(repo, DIR, `readiness-${v}.json`);
const read = (v: string) => JSON.parse(readFileSync(file(v), "utf8"));
const write = (v: string, r: unknown) => writeFileSync(file(v), JSON.stringify(r, null, 2) + "\n");

describe("check-rubric-versions against a temporary commit", () => {
  it("fails an unversioned edit of a released rubric file", () => {
    const r = check("edit-released", () => {
      const x = read("1.2.0");
      x.rules.find((y: { id: string }) => y.id === "D2").effort = "low";
      write("1.2.0", x);
    });
    expect(r.code).toBe(1);
    expect(r.out).toContain("readiness-1.2.0.json: readiness/1.2.0 is released and never changes; put the change in a new version file with its changelog entry");
  }, 60_000);

  it("fails a new version without its changelog entry", () => {
    const r = check("no-changelog", () => {
      const x = read("1.2.0");
      x.version = "1.2.1";
      write("1.2.1", x);
    });
    expect(r.code).toBe(1);
    expect(r.out).toContain("readiness-1.2.1.json: no changelog entry for readiness/1.2.1");
  }, 60_000);

  it("passes a new version with its changelog entry", () => {
    const r = check("patch", () => {
      const x = read("1.2.0");
      x.version = "1.2.1";
      x.changelog.push({ version: "1.2.1", date: "2026-12-06", kind: "patch", changes: ["Wording of the D2 action."] });
      write("1.2.1", x);
    });
    expect(r.out).toContain("1 rubric file changed against main, each a new version with its changelog entry");
    expect(r.code).toBe(0);
  }, 60_000);
});

describe("checkRubricChanges", () => {
  const base = JSON.parse(readFileSync(path.join(ROOT, DIR, "readiness-1.2.0.json"), "utf8"));
  const as = (v: string, kind: string) => JSON.stringify({ ...base, version: v, changelog: [...base.changelog, { version: v, date: "2026-12-04", kind, changes: ["x"] }] });
  it.each<[string, Parameters<typeof checkRubricChanges>[0], RegExp | null]>([
    ["a removed version", [{ status: "D", file: "readiness-1.0.0.json", before: "{}", after: null }], /never removed/],
    ["a minor bump labelled patch", [{ status: "A", file: "readiness-1.3.0.json", before: null, after: as("1.3.0", "patch") }], /says "patch", but readiness\/1\.2\.0 → readiness\/1\.3\.0 is a minor bump/],
    ["an older version", [{ status: "A", file: "readiness-1.1.5.json", before: null, after: as("1.1.5", "patch") }], /is not newer than readiness\/1\.2\.0/],
    ["a file named after another version", [{ status: "A", file: "readiness-1.4.0.json", before: null, after: as("1.3.0", "minor") }], /its version field says 1\.3\.0/],
    ["a well-formed minor", [{ status: "A", file: "readiness-1.3.0.json", before: null, after: as("1.3.0", "minor") }], null],
  ])("%s", (_n, changes, want) => {
    const problems = checkRubricChanges(changes, ["1.0.0", "1.1.0", "1.2.0"]);
    if (want) expect(problems.join("\n")).toMatch(want);
    else expect(problems).toEqual([]);
  });
});

describe("CODEOWNERS", () => {
  it("names owners for every rubric file and the files that read them", () => {
    const owners = readFileSync(path.join(ROOT, ".github/CODEOWNERS"), "utf8").split("\n").filter((l) => l.trim() && !l.startsWith("#"));
    const owned = (p: string) => owners.some((l) => {
      const [pattern, ...who] = l.trim().split(/\s+/);
      return who.length > 0 && (pattern.endsWith("/") ? `/${p}`.startsWith(pattern) : `/${p}` === pattern);
    });
    for (const p of [`${DIR}/readiness-1.0.0.json`, `${DIR}/readiness-1.1.0.json`, `${DIR}/readiness-1.2.0.json`, "lib/scoring/readiness/rubric.ts", "lib/scoring/readiness/rules.ts", "scripts/check-rubric-versions.ts"]) expect(owned(p), p).toBe(true);
  });
});
