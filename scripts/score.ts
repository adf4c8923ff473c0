/**
 * npm run score -- <listing.json> [--evidence <evidence.json>] [--provisional] [--format json|text]
 *                  [--min-score N] [--now ISO] [--rubric VERSION]
 * Sellers run this in their own CI (docs/SCORING-CLI.md). The logic lives in
 * lib/scoring/readiness/cli.ts; this file only connects it to the process.
 */
import { readFileSync } from "node:fs";
import { runScoreCli } from "../lib/scoring/readiness/cli";

const code = runScoreCli(process.argv.slice(2), {
  readFile: (p) => readFileSync(p, "utf8"),
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(s),
  now: () => new Date(),
});
process.exitCode = code;
