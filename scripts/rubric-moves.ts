/**
 * npm run rubric:moves -- [--from 1.1.0] [--to 1.2.0] [--format text|json] [--now ISO]
 * (default: the served version against the release before it)
 * Which listings a rubric release moves, on the configured database (DATABASE_URL, else the embedded
 * PGlite in TOLLGATE_DATA_DIR): lib/analyses/rubric-moves.ts. Exit 2 names a bad flag or version.
 */
import { database } from "@/lib/db";
import { formatMoves, rubricMoves } from "@/lib/analyses/rubric-moves";
import { CURRENT_RUBRIC, RUBRIC_VERSIONS } from "@/lib/scoring/readiness/rubric";

function flag(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1] : fallback;
}

async function main(): Promise<number> {
  const to = flag("to", CURRENT_RUBRIC.version);
  const from = flag("from", RUBRIC_VERSIONS[RUBRIC_VERSIONS.indexOf(to) - 1] ?? RUBRIC_VERSIONS[0]);
  const format = flag("format", "text");
  const nowText = flag("now", "");
  for (const [name, v] of [["from", from], ["to", to]] as const) {
    if (!RUBRIC_VERSIONS.includes(v)) {
      process.stderr.write(`rubric:moves: --${name} ${JSON.stringify(v)} is not a released readiness rubric (${RUBRIC_VERSIONS.join(", ")})\n`);
      return 2;
    }
  }
  if (format !== "text" && format !== "json") {
    process.stderr.write(`rubric:moves: --format must be text or json, not ${JSON.stringify(format)}\n`);
    return 2;
  }
  const now = nowText ? new Date(nowText) : new Date();
  if (Number.isNaN(now.getTime())) {
    process.stderr.write(`rubric:moves: --now ${JSON.stringify(nowText)} is not an ISO instant\n`);
    return 2;
  }
  const handle = await database();
  try {
    const moves = await rubricMoves(handle, { from, to, now });
    process.stdout.write(format === "json" ? JSON.stringify(moves, null, 2) + "\n" : formatMoves(moves));
    return 0;
  } finally {
    await handle.close();
  }
}

main().then(
  (code) => { process.exitCode = code; },
  (err: unknown) => {
    process.stderr.write(`rubric:moves: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
