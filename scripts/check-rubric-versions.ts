/**
 * CI: fail when a rubric file changed without a new version and its changelog entry
 * (lib/scoring/readiness/rubric-changes.ts). Compares a base commit with HEAD:
 *
 *   npm run check:rubric -- [--base <ref>] [--repo <dir>]      (default base: origin/main, else main)
 *
 * Exit 0: every change under lib/scoring/readiness/rubrics/ is a new, changelogged version (or none
 * changed). Exit 1: each problem printed as "file: what is wrong". Exit 2: git could not answer.
 */
import { execFileSync } from "node:child_process";
import { checkRubricChanges, type RubricFileChange } from "../lib/scoring/readiness/rubric-changes";

const DIR = "lib/scoring/readiness/rubrics";

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const repo = arg("--repo") ?? process.cwd();
const git = (...args: string[]) => execFileSync("git", ["-C", repo, ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
const show = (ref: string, file: string): string | null => {
  try {
    return git("show", `${ref}:${DIR}/${file}`);
  } catch {
    return null;
  }
};

function main(): number {
  let base = arg("--base");
  try {
    if (!base) base = ["origin/main", "main"].find((r) => { try { git("rev-parse", "--verify", "--quiet", r); return true; } catch { return false; } });
    if (!base) throw new Error("no --base given and neither origin/main nor main exists");
    const mergeBase = git("merge-base", base, "HEAD").trim();
    const lines = git("diff", "--name-status", "--no-renames", mergeBase, "HEAD", "--", DIR).split("\n").filter(Boolean);
    const changes: RubricFileChange[] = lines.map((l) => {
      const [status, path] = l.split("\t");
      const file = path.slice(DIR.length + 1);
      return { status: status as RubricFileChange["status"], file, before: status === "A" ? null : show(mergeBase, file), after: status === "D" ? null : show("HEAD", file) };
    });
    const baseVersions = git("ls-tree", "--name-only", mergeBase, `${DIR}/`).split("\n").filter(Boolean).map((p) => /readiness-(\d+\.\d+\.\d+)\.json$/.exec(p)?.[1]).filter((v): v is string => !!v);
    const problems = checkRubricChanges(changes, baseVersions);
    if (problems.length) {
      process.stderr.write(`check-rubric-versions: ${problems.length} rubric change${problems.length === 1 ? "" : "s"} without a new version and changelog entry (against ${base}):\n${problems.map((p) => `  ${p}`).join("\n")}\n`);
      return 1;
    }
    process.stdout.write(`check-rubric-versions: ${changes.length} rubric file${changes.length === 1 ? "" : "s"} changed against ${base}, each a new version with its changelog entry\n`);
    return 0;
  } catch (e) {
    process.stderr.write(`check-rubric-versions: git could not answer: ${(e as Error).message}\n`);
    return 2;
  }
}

process.exit(main());
