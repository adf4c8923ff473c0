/**
 * `npm run rank -- <components.json | listing-id>` — see lib/rank/score/cli.ts for the logic and
 * docs/RANK.md for the formulas. This file only wires real I/O to it.
 */
import { readFile } from "node:fs/promises";
import { main } from "@/lib/rank/score/cli";

main(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  readFile: (path) => readFile(path, "utf8"),
  // Listing-id mode only: file mode never opens the database.
  loadRankInputs: () => import("@/lib/rank/inputs"),
}).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`rank: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  },
);
