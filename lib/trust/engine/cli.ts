/** The logic of `npm run trust -- <observations.json>`, I/O injected. Exit: 0 scored; 2 bad flags, file or input. */
import { CURRENT_RUBRIC_REF, currentReadingOf, loadRubric, READING_FILES } from "../rubric";
import { DEFAULT_SEED } from "./band";
import { scoreSubject, type TrustResult } from "./score";
import { validateSubjectInput } from "./validate";

export interface CliIO {
  readFile: (path: string) => string;
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  now: () => Date;
}

export const USAGE = `Usage: npm run trust -- <observations.json> [--json] [--no-band] [--reading <n>]

Scores one endpoint's observations against the trust rubric (docs/spec/trust-rubric.md).
The file is a TrustSubject: {"endpointId", "observations": [...], "revisions": [...]},
with an optional "now" (ISO instant; default: now) and "seed" (integer; default ${DEFAULT_SEED}).

Options:
  --json         print the whole result as JSON
  --no-band      skip the Monte-Carlo band (band and confidence are then null)
  --reading <n>  score with the engine's reading n of the rubric (default: the newest,
                 ${currentReadingOf(CURRENT_RUBRIC_REF)}); an older one reproduces a score made under it
  -h, --help     this text

Exit codes: 0 scored; 2 bad flags, unreadable or invalid input.
`;

const fmt = (x: number | null | undefined, d = 3) => (x === null || x === undefined ? "–" : Number.isFinite(x) ? x.toFixed(d) : String(x));

export function formatTrustText(r: TrustResult): string {
  const lines: string[] = [];
  lines.push(`${r.reading}  endpoint ${r.endpointId}  at ${r.now}  seed ${r.seed}`);
  const band = r.band ? `${r.band.low}–${r.band.high} (width ${r.band.width})` : "–";
  lines.push(`score ${r.score ?? "–"}${r.uncappedScore !== r.score ? ` (uncapped ${r.uncappedScore})` : ""}  grade ${r.grade ?? "–"}  band ${band}  confidence ${r.confidence ?? "–"}`);
  lines.push(`verdict ${r.verdict}${r.verdictBecause.length ? `: ${r.verdictBecause.join("; ")}` : ""}`);
  lines.push(`flags ${r.flags.length ? r.flags.join(", ") : "none"}${r.stale ? "  (stale)" : ""}`);
  lines.push(`outlook ${r.outlook.trend ?? "–"} (recent ${r.outlook.recent ?? "–"}, baseline ${r.outlook.baseline ?? "–"})`);
  lines.push(`watch ${r.watch ? `yes: ${r.watchBecause.join("; ")}` : "no"}`);
  lines.push(`evidence ${r.evidence.probes} probes over ${r.evidence.probeSpanDays} d; last paid sample ${r.evidence.lastPaidAt ?? "none in window"}; revision ${r.evidence.currentRevision}`);
  lines.push("");
  lines.push(`dimensions ${r.dimensions.map((d) => `${d.id} ${d.score ?? "–"} (w ${d.weight}, ${d.measured} checks)`).join("; ")}`);
  lines.push("");
  lines.push("check  dim           kind  w    status      rate   pass_w    fail_w    n     facts");
  for (const c of r.checks) {
    const f = c.facts;
    const facts = [
      `${f.passes} pass / ${f.fails} fail / ${f.na} na / ${f.unmeasured} unmeasured`,
      `half-life ${f.halfLifeDays} d, on revision ${f.onRevision}${f.droppedByRevision ? ` (${f.droppedByRevision} dropped)` : ""}`,
      c.metric === "curve" ? `p95 ${c.p95 === null || c.p95 === undefined ? "–" : Number.isFinite(c.p95) ? `${c.p95} ms` : "timeout"}` : null,
      f.latestAt ? `latest ${f.latestOutcome} ${f.latestAt}` : null,
      f.lastFailAt ? `last fail ${f.lastFailAt}${f.passesSinceLastFail === null ? "" : `, ${f.passesSinceLastFail} pass(es) since`}` : null,
    ].filter(Boolean);
    lines.push(
      `${c.id.padEnd(6)} ${c.dimension.padEnd(13)} ${c.kind.padEnd(5)} ${String(c.weight).padEnd(4)} ${c.status.padEnd(11)} ${fmt(c.rate).padEnd(6)} ${fmt(c.passWeight).padEnd(9)} ${fmt(c.failWeight).padEnd(9)} ${String(c.n).padEnd(5)} ${facts.join("; ")}`,
    );
  }
  lines.push("");
  for (const g of r.gates) lines.push(`gate ${g.flag} (${g.check}, ${g.when} ${g.value}): ${g.fired ? "FIRED" : g.cleared ? "cleared" : "quiet"} — ${g.reason}`);
  return lines.join("\n") + "\n";
}

export function runTrustCli(argv: string[], io: CliIO): number {
  let file: string | null = null;
  let json = false;
  let band = true;
  let reading: number | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "-h" || a === "--help") {
      io.stdout(USAGE);
      return 0;
    } else if (a === "--json") json = true;
    else if (a === "--no-band") band = false;
    else if (a === "--reading") {
      const v = argv[++i];
      if (v === undefined || !/^[1-9][0-9]*$/.test(v) || !READING_FILES[CURRENT_RUBRIC_REF][Number(v)]) {
        io.stderr(`--reading needs a reading of ${CURRENT_RUBRIC_REF}: one of ${Object.keys(READING_FILES[CURRENT_RUBRIC_REF]).join(", ")}\n`);
        return 2;
      }
      reading = Number(v);
    }
    else if (a.startsWith("-")) {
      io.stderr(`unknown option ${a}\n\n${USAGE}`);
      return 2;
    } else if (file === null) file = a;
    else {
      io.stderr(`one observations file only (got ${file} and ${a})\n`);
      return 2;
    }
  }
  if (file === null) {
    io.stderr(USAGE);
    return 2;
  }
  let text: string;
  try {
    text = io.readFile(file);
  } catch (e) {
    io.stderr(`cannot read ${file}: ${(e as Error).message}\n`);
    return 2;
  }
  let input: unknown;
  try {
    input = JSON.parse(text);
  } catch (e) {
    io.stderr(`${file} is not JSON: ${(e as Error).message}\n`);
    return 2;
  }
  const rubric = loadRubric(CURRENT_RUBRIC_REF, reading);
  const v = validateSubjectInput(rubric, input);
  if (!v.ok) {
    io.stderr(`${file} is not a valid trust subject:\n${v.problems.map((p) => `  ${p.pointer || "/"}: ${p.message}`).join("\n")}\n`);
    return 2;
  }
  const result = scoreSubject(rubric, v.value, { now: v.value.now ?? io.now(), seed: v.value.seed, band });
  io.stdout(json ? JSON.stringify(result, (_k, x) => (x === Infinity ? "Infinity" : x), 2) + "\n" : formatTrustText(result));
  return 0;
}
