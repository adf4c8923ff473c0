/** The CI rule for rubric files: every change under rubrics/ must be a new, changelogged version (scripts/check-rubric-versions.ts). */
import { parseVersion, type Rubric } from "./rubric";

export interface RubricFileChange {
  /** git name-status; a rename arrives as D + A. */
  status: "A" | "M" | "D";
  file: string;
  before: string | null;
  after: string | null;
}

const FILE = /^readiness-(\d+\.\d+\.\d+)\.json$/;

function parse(text: string | null, file: string, problems: string[]): Rubric | null {
  if (text === null) return null;
  try {
    return JSON.parse(text) as Rubric;
  } catch (e) {
    problems.push(`${file}: not JSON (${(e as Error).message})`);
    return null;
  }
}

const cmp = (a: string, b: string) => {
  const [x, y, z] = parseVersion(a);
  const [p, q, r] = parseVersion(b);
  return x - p || y - q || z - r;
};

/** "file: what is wrong"; empty when each change is a new, changelogged version. */
export function checkRubricChanges(changes: RubricFileChange[], baseVersions: string[]): string[] {
  const problems: string[] = [];
  const newestBase = [...baseVersions].sort(cmp).pop() ?? null;
  for (const ch of changes) {
    const m = FILE.exec(ch.file);
    if (!m) {
      problems.push(`${ch.file}: a rubric file must be named readiness-MAJOR.MINOR.PATCH.json`);
      continue;
    }
    if (ch.status === "D") {
      problems.push(`${ch.file}: a released rubric version is never removed`);
      continue;
    }
    if (ch.status === "M") {
      const before = parse(ch.before, ch.file, problems);
      if (before?.status !== "candidate") {
        problems.push(`${ch.file}: readiness/${m[1]} is released and never changes; put the change in a new version file with its changelog entry`);
        continue;
      }
    }
    const after = parse(ch.after, ch.file, problems);
    if (!after) continue;
    if (after.version !== m[1]) problems.push(`${ch.file}: its version field says ${after.version}`);
    if (ch.status === "A" && baseVersions.includes(m[1])) problems.push(`${ch.file}: readiness/${m[1]} already exists; a change needs a new version`);
    const entry = (after.changelog ?? []).find((c) => c.version === after.version);
    if (!entry) {
      problems.push(`${ch.file}: no changelog entry for readiness/${after.version}`);
      continue;
    }
    if (!entry.changes?.length) problems.push(`${ch.file}: the changelog entry for readiness/${after.version} lists no change`);
    if (newestBase && ch.status === "A") {
      if (cmp(after.version, newestBase) <= 0) problems.push(`${ch.file}: readiness/${after.version} is not newer than readiness/${newestBase}`);
      else {
        const [a, b] = parseVersion(after.version);
        const [x, y] = parseVersion(newestBase);
        const kind = a !== x ? "major" : b !== y ? "minor" : "patch";
        if (entry.kind !== kind) problems.push(`${ch.file}: the changelog entry says "${entry.kind}", but readiness/${newestBase} → readiness/${after.version} is a ${kind} bump`);
      }
    }
  }
  return problems;
}
