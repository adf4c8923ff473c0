/**
 * `npm run rank -- <components.json | listing-id>` — see lib/rank/score/cli.ts for the logic and
 * docs/RANK.md for the formulas. This file only wires real I/O to it.
 */
import { readFile } from "node:fs/promises";
import { isMissingModule, main, type RankInputsModule } from "@/lib/rank/score/cli";

// Written by the database layer, possibly later than this script: import it only in listing-id mode,
// through a non-literal specifier so the type-checker does not require it to exist.
const RANK_INPUTS_MODULE = "../lib/ledger/rank-inputs";

async function loadRankInputs(): Promise<Partial<RankInputsModule> | null> {
  const specifier: string = RANK_INPUTS_MODULE;
  try {
    return (await import(specifier)) as Partial<RankInputsModule>;
  } catch (err) {
    if (isMissingModule(err, specifier)) return null;
    throw err;
  }
}

main(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  readFile: (path) => readFile(path, "utf8"),
  loadRankInputs,
}).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`rank: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  },
);
