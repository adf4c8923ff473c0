/**
 * npm run trust -- <observations.json> [--json] [--no-band]
 * Scores one endpoint's observations (a TrustSubject with optional now and seed) against the trust
 * rubric. The logic lives in lib/trust/engine/cli.ts; this file only connects it to the process.
 */
import { readFileSync } from "node:fs";
import { runTrustCli } from "../lib/trust/engine/cli";

process.exitCode = runTrustCli(process.argv.slice(2), {
  readFile: (p) => readFileSync(p, "utf8"),
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(s),
  now: () => new Date(),
});
