/** The logic of `npm run score` (docs/SCORING-CLI.md), I/O injected. Exit: 0 scored, 1 below --min-score, 2 could not score. */
import { validateListingDocument } from "@/lib/listing-document/validate";
import { scoreReadiness } from "./engine";
import { checkReadinessEvidence } from "./evidence";
import { formatTextReport } from "./report";
import { CURRENT_RUBRIC, loadRubric, type Rubric } from "./rubric";

export interface CliIO {
  readFile: (path: string) => string;
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  now: () => Date;
}

export const USAGE = `Usage: npm run score -- <listing.json> [options]

Scores a Tollgate listing document against the readiness rubric.

Options:
  --evidence <file>   ReadinessEvidence JSON ({probe, settle, liveness}); without it the run is provisional
  --provisional       score provisionally even with evidence (H1-H3 not observed, no caps)
  --format json|text  json (default): the full result on stdout; text: a report for people
  --min-score <N>     exit 1 when the total is below N (0-100), for CI
  --now <ISO time>    the instant the settle gate is read at (default: now)
  --rubric <version>  rubric version, e.g. 1.0.0 (default: ${CURRENT_RUBRIC.version})
  -h, --help          this text

Exit codes: 0 scored; 1 below --min-score; 2 bad flags, unreadable or invalid input.
`;

interface Args {
  listing: string;
  evidence: string | null;
  provisional: boolean;
  format: "json" | "text";
  minScore: number | null;
  now: Date | null;
  rubric: Rubric;
}

type Parsed = { ok: true; args: Args } | { ok: false; message: string } | { ok: "help" };

export function parseArgs(argv: string[]): Parsed {
  const positional: string[] = [];
  let evidence: string | null = null;
  let provisional = false;
  let format: Args["format"] = "json";
  let minScore: number | null = null;
  let now: Date | null = null;
  let rubric: Rubric = CURRENT_RUBRIC;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const eq = a.startsWith("--") ? a.indexOf("=") : -1;
    const flag = eq > 0 ? a.slice(0, eq) : a;
    const takesValue = ["--evidence", "--format", "--min-score", "--now", "--rubric"].includes(flag);
    let value: string | undefined;
    if (takesValue) {
      value = eq > 0 ? a.slice(eq + 1) : argv[++i];
      if (value === undefined || (eq < 0 && value.startsWith("--"))) return { ok: false, message: `${flag} needs a value` };
    } else if (eq > 0) return { ok: false, message: `${flag} takes no value` };
    switch (flag) {
      case "-h":
      case "--help":
        return { ok: "help" };
      case "--provisional":
        provisional = true;
        break;
      case "--evidence":
        evidence = value!;
        break;
      case "--format":
        if (value !== "json" && value !== "text") return { ok: false, message: `--format must be json or text, not "${value}"` };
        format = value;
        break;
      case "--min-score": {
        const n = Number(value);
        if (!/^\d+(\.\d+)?$/.test(value!) || n > 100) return { ok: false, message: `--min-score must be a number from 0 to 100, not "${value}"` };
        minScore = n;
        break;
      }
      case "--now": {
        const t = Date.parse(value!);
        if (Number.isNaN(t)) return { ok: false, message: `--now must be an ISO date-time, not "${value}"` };
        now = new Date(t);
        break;
      }
      case "--rubric":
        try {
          rubric = loadRubric(value!);
        } catch (e) {
          return { ok: false, message: (e as Error).message };
        }
        break;
      default:
        if (a.startsWith("-")) return { ok: false, message: `unknown option ${a}` };
        positional.push(a);
    }
  }
  if (positional.length === 0) return { ok: false, message: "missing <listing.json>" };
  if (positional.length > 1) return { ok: false, message: `one listing at a time; got ${positional.length} paths (${positional.join(", ")})` };
  return { ok: true, args: { listing: positional[0], evidence, provisional, format, minScore, now, rubric } };
}

function readJson(path: string, what: string, io: CliIO): { ok: true; value: unknown } | { ok: false } {
  let text: string;
  try {
    text = io.readFile(path);
  } catch (e) {
    io.stderr(`score: cannot read ${what} ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}\n`);
    return { ok: false };
  }
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (e) {
    io.stderr(`score: ${what} ${path} is not JSON: ${(e as Error).message}\n`);
    return { ok: false };
  }
}

export function runScoreCli(argv: string[], io: CliIO): number {
  const parsed = parseArgs(argv);
  if (parsed.ok === "help") {
    io.stdout(USAGE);
    return 0;
  }
  if (!parsed.ok) {
    io.stderr(`score: ${parsed.message}\n\n${USAGE}`);
    return 2;
  }
  const args = parsed.args;

  const raw = readJson(args.listing, "listing", io);
  if (!raw.ok) return 2;
  const listing = validateListingDocument(raw.value);
  if (!listing.ok) {
    io.stderr(`score: ${args.listing} is not a valid listing document (public/schemas/listing.schema.json):\n`);
    for (const e of listing.errors) io.stderr(`  ${e.pointer || "(document)"}: ${e.message}\n`);
    return 2;
  }

  let evidence = null;
  if (args.evidence !== null) {
    const rawEv = readJson(args.evidence, "evidence", io);
    if (!rawEv.ok) return 2;
    const ev = checkReadinessEvidence(rawEv.value);
    if (!ev.ok) {
      io.stderr(`score: ${args.evidence} is not valid ReadinessEvidence:\n`);
      for (const e of ev.errors) io.stderr(`  ${e.pointer || "(document)"}: ${e.message}\n`);
      return 2;
    }
    evidence = ev.value;
  }

  const result = scoreReadiness(listing.value, evidence, args.rubric, { now: args.now ?? io.now(), provisional: args.provisional });
  io.stdout(args.format === "text" ? formatTextReport(result, args.rubric) : JSON.stringify(result, null, 2) + "\n");

  if (args.minScore !== null && result.total < args.minScore) {
    io.stderr(`score: readiness ${result.total}${result.provisional ? " (provisional)" : ""} is below --min-score ${args.minScore}\n`);
    return 1;
  }
  return 0;
}
