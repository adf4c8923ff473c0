/**
 * `npm run measure:house`: the house's figures (docs/ARCHITECTURE.md "Measuring the house"): lib/
 * rooms, the import rules' entries in test/architecture.test.ts, the comment share of characters,
 * files over 400 lines and functions over 80 lines in lib/, app/ and components/ (non-test sources).
 * `--list` also names the long files and functions.
 */
import fs from "node:fs";
import path from "node:path";
import ts from "typescript";

const ROOT = path.resolve(__dirname, "..");
const MEASURED = ["lib", "app", "components"];
const LONG_FILE = 400;
const LONG_FUNCTION = 80;
const isTest = (name: string) => /\.(test|spec)\.tsx?$/.test(name);

export function sources(dir: string): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const d of fs.readdirSync(path.join(ROOT, rel), { withFileTypes: true })) {
      const p = `${rel}/${d.name}`;
      if (d.isDirectory()) {
        if (d.name !== "node_modules" && p !== "lib/generated") walk(p);
      } else if (/\.tsx?$/.test(d.name) && !d.name.endsWith(".d.ts") && !isTest(d.name)) out.push(p);
    }
  };
  walk(dir);
  return out.sort();
}

export function parse(file: string): ts.SourceFile {
  const text = fs.readFileSync(path.join(ROOT, file), "utf8");
  return ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
}

/** Characters inside comments: the trivia before every token (and at the end of the file), each range once. */
export function commentChars(sf: ts.SourceFile): number {
  const text = sf.getFullText();
  const seen = new Set<number>();
  let chars = 0;
  const take = (ranges: ts.CommentRange[] | undefined) => {
    for (const r of ranges ?? []) {
      if (seen.has(r.pos)) continue;
      seen.add(r.pos);
      chars += r.end - r.pos;
    }
  };
  const visit = (n: ts.Node) => {
    if (n.kind === ts.SyntaxKind.JsxText) return;
    take(ts.getLeadingCommentRanges(text, n.pos));
    take(ts.getTrailingCommentRanges(text, n.end));
    for (const c of n.getChildren(sf)) visit(c);
  };
  visit(sf);
  return chars;
}

/** Lines of the file's header: the comments before its first statement ("use client" counted as a statement). */
export function headerLines(sf: ts.SourceFile): number {
  const text = sf.getFullText();
  const first = sf.statements[0];
  const ranges = ts.getLeadingCommentRanges(text, first ? first.pos : 0) ?? [];
  return ranges.reduce((n, r) => n + text.slice(r.pos, r.end).split("\n").length, 0);
}

export const HEADER_LINES = 6;
export const MEASURED_DIRS = MEASURED;

interface LongFunction {
  file: string;
  name: string;
  lines: number;
}

function functionName(n: ts.Node): string {
  if ((ts.isFunctionDeclaration(n) || ts.isMethodDeclaration(n) || ts.isGetAccessor(n) || ts.isSetAccessor(n)) && n.name) return n.name.getText();
  if (ts.isConstructorDeclaration(n)) return "constructor";
  const p = n.parent;
  if (p && ts.isVariableDeclaration(p)) return p.name.getText();
  if (p && ts.isPropertyAssignment(p)) return p.name.getText();
  return "(anonymous)";
}

function longFunctions(sf: ts.SourceFile): LongFunction[] {
  const out: LongFunction[] = [];
  const visit = (n: ts.Node) => {
    if (ts.isFunctionLike(n) && "body" in n && n.body) {
      const first = sf.getLineAndCharacterOfPosition(n.getStart(sf)).line;
      const last = sf.getLineAndCharacterOfPosition(n.getEnd()).line;
      const lines = last - first + 1;
      if (lines > LONG_FUNCTION) out.push({ file: sf.fileName, name: functionName(n), lines });
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

/** The array literal a top-level `const NAME = [...]` of the architecture test holds. */
function arrayOf(sf: ts.SourceFile, name: string): ts.ArrayLiteralExpression | undefined {
  for (const st of sf.statements) {
    if (!ts.isVariableStatement(st)) continue;
    for (const d of st.declarationList.declarations) {
      if (ts.isIdentifier(d.name) && d.name.text === name && d.initializer) {
        let init: ts.Expression = d.initializer;
        while (ts.isAsExpression(init) || ts.isSatisfiesExpression(init)) init = init.expression;
        if (ts.isArrayLiteralExpression(init)) return init;
      }
    }
  }
  return undefined;
}

/** How many patterns an array literal names, spreads of the file's own constant arrays counted out. */
function patternCount(sf: ts.SourceFile, arr: ts.ArrayLiteralExpression): number {
  let n = 0;
  for (const el of arr.elements) {
    if (ts.isSpreadElement(el) && ts.isIdentifier(el.expression)) {
      const named = arrayOf(sf, el.expression.text);
      n += named ? patternCount(sf, named) : 1;
    } else n += 1;
  }
  return n;
}

/** Rooms, rules and the lib/ patterns the room table grants one by one (`may`, or `also` beyond a band). */
function architectureFigures() {
  const sf = parse("test/architecture.test.ts");
  const rooms = arrayOf(sf, "ROOMS");
  const rules = arrayOf(sf, "RULES");
  let granted = 0;
  for (const room of rooms?.elements ?? []) {
    if (!ts.isObjectLiteralExpression(room)) continue;
    for (const p of room.properties) {
      if (ts.isPropertyAssignment(p) && ["may", "also"].includes(p.name.getText()) && ts.isArrayLiteralExpression(p.initializer)) {
        granted += patternCount(sf, p.initializer);
      }
    }
  }
  return { roomEntries: rooms?.elements.length ?? 0, rules: rules?.elements.length ?? 0, granted };
}

function libRooms(): number {
  return fs.readdirSync(path.join(ROOT, "lib"), { withFileTypes: true }).filter((d) => (d.isDirectory() && d.name !== "generated") || (/\.tsx?$/.test(d.name) && !isTest(d.name))).length;
}

function main() {
  const list = process.argv.includes("--list");
  let total = 0;
  let comments = 0;
  const longFiles: { file: string; lines: number }[] = [];
  const longFns: LongFunction[] = [];
  const longHeaders: { file: string; lines: number }[] = [];
  for (const dir of MEASURED) {
    for (const file of sources(dir)) {
      const sf = parse(file);
      total += sf.getFullText().length;
      comments += commentChars(sf);
      const lines = sf.getLineStarts().length;
      if (lines > LONG_FILE) longFiles.push({ file, lines });
      longFns.push(...longFunctions(sf));
      const header = headerLines(sf);
      if (header > HEADER_LINES) longHeaders.push({ file, lines: header });
    }
  }
  const arch = architectureFigures();
  const share = total === 0 ? 0 : (100 * comments) / total;
  console.log(`lib/ rooms (folders and top-level files): ${libRooms()}`);
  console.log(`architecture test: ${arch.roomEntries} room entries, ${arch.rules} rules, ${arch.granted} patterns granted room by room`);
  console.log(`comment share (${MEASURED.join("/, ")}/): ${share.toFixed(1)}% of ${total} characters`);
  console.log(`files over ${LONG_FILE} lines: ${longFiles.length}`);
  if (list) for (const f of longFiles.sort((a, b) => b.lines - a.lines)) console.log(`  ${f.file} ${f.lines}`);
  console.log(`file headers over ${HEADER_LINES} lines: ${longHeaders.length}`);
  if (list) for (const f of longHeaders.sort((a, b) => b.lines - a.lines)) console.log(`  ${f.file} ${f.lines}`);
  console.log(`functions over ${LONG_FUNCTION} lines: ${longFns.length}`);
  if (list) for (const f of longFns.sort((a, b) => b.lines - a.lines)) console.log(`  ${f.file} ${f.name} ${f.lines}`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(__filename)) main();
