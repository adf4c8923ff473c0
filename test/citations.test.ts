/**
 * Citations point inside the repository. The design text the code is built to is kept under
 * docs/spec/ (docs/spec/README.md), so a tracked file must not carry a path of a machine, must not
 * cite a design document by the name it had outside the repository (docs/spec/README.md "Old names"),
 * and every `docs/spec/<file>.md "<place>"`, `docs/spec/trust-rubric.md <check>` and
 * `docs/spec/style.md practice <n>` it names must exist.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(__dirname, "..");
const SPEC = "docs/spec";

/** A path of this kind of machine (the shared checkout lives under it). */
const MACHINE_PATH = /\/work\//;
/** The names the design documents had outside the repository (the numbered ones in any case). */
const OLD_NAMES = [/SCORING-NOTE[S]|STYLE\.md|shared\/(?:seeds|design)/g, /\bseeds?\s+0\d\d\b|\bseeds?\/0\d\d/gi];

/**
 * Files that keep the old names because they may never change: released rubric files (pinned by
 * SHA-256 in rubric.test.ts) and applied migrations (checksummed by lib/migrate.ts); and the
 * README's own table of old names.
 */
const OLD_NAMES_ALLOWED_IN = [/^lib\/scoring\/readiness\/rubrics\//, /^prisma\/migrations\//, /^docs\/spec\/README\.md$/];
/** Text shown to people (demo organisation names, fixture-seller purposes): a line holding one keeps its words. */
const SHOWN_TO_PEOPLE = ['name: "Arbiter (seed 002)"', 'name: "Validity Check (seed 003)"', 'purpose: "Seed 002 as published', 'purpose: "Seed 003 as published'];

export interface Finding {
  file: string;
  line: number;
  problem: string;
}

function lineOf(text: string, index: number): number {
  return text.slice(0, index).split("\n").length;
}

/** The places a spec file can be cited by: its headings, and each list item's lead term. */
export function namedPlaces(markdown: string): Set<string> {
  const places = new Set<string>();
  for (const raw of markdown.split("\n")) {
    const heading = /^#{1,6}\s+(.*?)\s*$/.exec(raw);
    if (heading) places.add(collapse(heading[1]));
    const item = /^\s*[-*]\s+(.*)$/.exec(raw);
    if (item) {
      const text = item[1].replace(/`|\*\*/g, "");
      const ends = [":", " (", " ="].map((s) => text.indexOf(s)).filter((i) => i > 0);
      places.add(collapse(ends.length ? text.slice(0, Math.min(...ends)) : text));
    }
  }
  return places;
}

/** Whitespace, and the comment markers of a wrapped comment line, read as one space. */
function collapse(s: string): string {
  return s.replace(/\s*\n\s*(?:\*(?!\*)|\/\/|--|#)?\s*/g, " ").replace(/\s+/g, " ").trim();
}

const CLOSE: Record<string, string> = { '"': '"', "'": "'", "“": "”" };

/** Every docs/spec citation in one file's text that names a file, place, check or practice that does not exist. */
export function brokenCitations(file: string, text: string, readSpec: (name: string) => string | null): Finding[] {
  const found: Finding[] = [];
  const mention = /docs\/spec\/([\w.-]+\.md)/g;
  for (let m = mention.exec(text); m; m = mention.exec(text)) {
    const name = m[1];
    const line = lineOf(text, m.index);
    const spec = readSpec(name);
    if (spec === null) {
      found.push({ file, line, problem: `${SPEC}/${name} does not exist` });
      continue;
    }
    const after = text.slice(m.index + m[0].length, m.index + m[0].length + 400);
    // `docs/spec/<file>.md "<place>"` (the quote may wrap onto the next comment line; JSON escapes it).
    // A possessive ('s) is not a quote; a citation wraps only where a comment line does.
    const quoted = /^(?:`?[ \t]+|[ \t]*\n[ \t]*(?:(?:\*|\/\/|--)[ \t]*)?)\\?(["“]|'(?!s\b))/.exec(after);
    if (quoted) {
      const open = quoted[1];
      const rest = after.slice(quoted[0].length);
      const end = rest.indexOf(CLOSE[open]);
      const place = collapse((end < 0 ? rest : rest.slice(0, end)).replace(/\\$/, ""));
      if (end < 0 || !namedPlaces(spec).has(place)) found.push({ file, line, problem: `${SPEC}/${name} has no heading or item "${place}"` });
      continue;
    }
    if (name === "trust-rubric.md") {
      const check = /^`?'?s?\s+([A-Z]\d+)\b/.exec(after);
      if (check && !spec.includes(`"id": "${check[1]}"`)) found.push({ file, line, problem: `${SPEC}/${name} has no check ${check[1]}` });
    }
    if (name === "style.md") {
      const practice = /^`?\s+(?:\*\s+)?practice (\d+)/.exec(after);
      if (practice && !new RegExp(`^${practice[1]}\\. `, "m").test(spec)) found.push({ file, line, problem: `${SPEC}/${name} has no practice ${practice[1]}` });
    }
  }
  return found;
}

/** Machine paths, and old names outside the files that may keep them. */
export function outsideCitations(file: string, text: string): Finding[] {
  const found: Finding[] = [];
  const oldNamesAllowed = OLD_NAMES_ALLOWED_IN.some((p) => p.test(file));
  const lines = text.split("\n");
  lines.forEach((l, i) => {
    if (MACHINE_PATH.test(l)) found.push({ file, line: i + 1, problem: `a machine path: ${l.trim().slice(0, 120)}` });
  });
  if (oldNamesAllowed) return found;
  // Old names may wrap ("seed\n000"), so look across line ends, then skip the lines shown to people.
  for (const pattern of OLD_NAMES) {
    for (const m of text.matchAll(pattern)) {
      const line = lineOf(text, m.index);
      if (SHOWN_TO_PEOPLE.some((s) => lines[line - 1].includes(s))) continue;
      if (found.some((f) => f.line === line && f.problem.startsWith("cites"))) continue;
      found.push({ file, line, problem: `cites "${m[0].replace(/\s+/g, " ")}" instead of ${SPEC}/ (docs/spec/README.md "Old names")` });
    }
  }
  found.sort((a, b) => a.line - b.line);
  return found;
}

function trackedTextFiles(): { file: string; text: string }[] {
  const files = execFileSync("git", ["ls-files", "-z"], { cwd: ROOT, encoding: "utf8" }).split("\0").filter(Boolean);
  const out: { file: string; text: string }[] = [];
  for (const file of files) {
    const full = path.join(ROOT, file);
    if (!existsSync(full)) continue;
    const bytes = readFileSync(full);
    if (bytes.includes(0)) continue;
    out.push({ file, text: bytes.toString("utf8") });
  }
  return out;
}

function readSpecFile(name: string): string | null {
  const full = path.join(ROOT, SPEC, name);
  return existsSync(full) ? readFileSync(full, "utf8") : null;
}

const show = (f: Finding[]) => f.map((x) => `${x.file}:${x.line}: ${x.problem}`);

describe("citations of the design documents", () => {
  const files = trackedTextFiles();

  it("reads the repository's tracked files", () => {
    expect(files.some((f) => f.file === "docs/spec/README.md")).toBe(true);
    expect(files.length).toBeGreaterThan(100);
  });

  it("no tracked file carries a machine path or an old name of a design document", () => {
    expect(show(files.flatMap((f) => outsideCitations(f.file, f.text)))).toEqual([]);
  });

  it("every docs/spec citation names a file, heading, check or practice that exists", () => {
    expect(show(files.flatMap((f) => brokenCitations(f.file, f.text, readSpecFile)))).toEqual([]);
  });
});

describe("the checks themselves", () => {
  // "~" keeps these samples from being citations or old names in this file itself.
  const unmask = (s: string) => s.replaceAll("~", "");
  const spec = (name: string) =>
    ({
      "scoring-system.md": "# Catalog\n\n## Rank score\n\ntext\n\n### New · canary\n",
      "scoring-notes.md": "## Rank\n\n- Browse order: tier ascending\n- `/router/select`: among payable matches\n- Search (catalog `?search=`): relevance\n",
      "trust-rubric.md": '{"id": "R1", "x": 1}, {"id": "S5"}',
      "style.md": "1. **Scoring is pure.**\n6. **Authorise inside every action**\n",
    })[name] ?? null;

  it("accepts headings, item lead terms, check ids and practice numbers, also wrapped over comment lines", () => {
    const text = [
      'a (docs/~spec/scoring-system.md "Rank score") b',
      ' * x docs/~spec/scoring-system.md "New ·',
      ' * canary" y',
      'docs/~spec/scoring-notes.md "Browse order", docs/~spec/scoring-notes.md "/router/select", docs/~spec/scoring-notes.md "Search"',
      "docs/~spec/trust-rubric.md R1, docs/~spec/trust-rubric.md's S5; (docs/~spec/style.md",
      " * practice 6); `docs/~spec/scoring-notes.md`",
      "\"_about\": \"row of docs/~spec/scoring-system.md 'Rank score' and docs/~spec/scoring-system.md \\\"Rank score\\\"\"",
    ].join("\n");
    expect(brokenCitations("t.ts", unmask(text), spec)).toEqual([]);
  });

  it("names each missing file, place, check and practice", () => {
    const text = [
      'docs/~spec/scoring-system.md "Rank"',
      'docs/~spec/scoring-notes.md "Rank score"',
      "docs/~spec/nope.md",
      "docs/~spec/trust-rubric.md R9",
      "docs/~spec/style.md practice 7",
    ].join("\n");
    expect(show(brokenCitations("t.ts", unmask(text), spec))).toEqual(
      [
        't.ts:1: docs/~spec/scoring-system.md has no heading or item "Rank"',
        't.ts:2: docs/~spec/scoring-notes.md has no heading or item "Rank score"',
        "t.ts:3: docs/~spec/nope.md does not exist",
        "t.ts:4: docs/~spec/trust-rubric.md has no check R9",
        "t.ts:5: docs/~spec/style.md has no practice 7",
      ].map(unmask),
    );
  });

  it("finds machine paths and old names, wrapped or capitalised, but not in text shown to people or files that never change", () => {
    const text = unmask(["a /wo~rk/shared/x b", "(seed~ 004)", "Seed~ 000 R1", "are seed~", "000's", "SCORING~-NOTES", "STYLE~.md practice 3", "shared/~design/X.md", 'name: "Arbiter (seed 002)"', "seedless 0042", "the seed's table"].join("\n"));
    expect(outsideCitations("x.ts", text).map((f) => f.line)).toEqual([1, 2, 3, 4, 6, 7, 8]);
    expect(outsideCitations("prisma/migrations/1_x/migration.sql", unmask("-- seed~ 004 /wo~rk/")).map((f) => f.line)).toEqual([1]);
    expect(outsideCitations("lib/scoring/readiness/rubrics/readiness-1.0.0.json", unmask('"source": "seeds~/004 … design/SCORING~-NOTES.md"'))).toEqual([]);
  });
});
