/** The engine's pinned readings of a rubric, where the seed leaves room; old versions stay loadable (docs/TRUST.md "The engine's readings"). */
import reading_1 from "./x402-endpoint-1.0.0-draft.1.reading-1.json";
import reading_2 from "./x402-endpoint-1.0.0-draft.1.reading-2.json";
import reading_3 from "./x402-endpoint-1.0.0-draft.1.reading-3.json";
import { contentDigest, RubricError, sha256, type RubricProblem } from "./pin";

export interface ReadingSemantics {
  /** docs/TRUST.md "na and unmeasured". */
  na: "latest" | "endpoint";
  /** `per-sample`: the paid checks of one sample share its luck. */
  paidDraws: "per-check" | "per-sample";
  rho: number;
  /** A `fail_weight_gte` gate's weight: `seen` (reading 3) has no revision factor; absent, the rate's. */
  gates?: "revision-weighted" | "seen";
}

export interface ReadingFile {
  schema: "tollgate.trust-reading/1";
  rubric: string;
  rubricSha256: string;
  version: number;
  status: "released";
  releasedAt: string;
  source: string;
  readings: Array<{ id: string; seed: Array<{ check: string; field: "measure" | "validity"; words: string }>; text: string }>;
  semantics: ReadingSemantics;
  changelog: string[];
}

export interface TrustReading {
  ref: string;
  version: number;
  /** Byte pin. */
  sha256: string;
  semantics: ReadingSemantics;
  file: ReadingFile;
}

interface PinnedReading {
  file: string;
  json: unknown;
  sha256: string;
  contentSha256: string;
}

/** A new reading is a new file and a line; never an edit. */
export const READING_FILES: Record<string, Record<number, PinnedReading>> = {
  "x402-endpoint/1.0.0-draft.1": {
    1: {
      file: "x402-endpoint-1.0.0-draft.1.reading-1.json",
      json: reading_1,
      sha256: "44d1c34892e4e9068fc6ff1490bfcdbe2ed999230be3c511c2ea089a3c0b544f",
      contentSha256: "3e0a3cc3d69808d5f8f356872738fa5c983ef91525e38113341e7ea959c36760",
    },
    2: {
      file: "x402-endpoint-1.0.0-draft.1.reading-2.json",
      json: reading_2,
      sha256: "90bf17127dda146d7df42e3bd590418c9e84952ea171261ec64e2f1acb0bdb1d",
      contentSha256: "2a07ac378c212b196e07be8dcd7c710f6cdb16ba5b2806dc8c47274b1189558f",
    },
    3: {
      file: "x402-endpoint-1.0.0-draft.1.reading-3.json",
      json: reading_3,
      sha256: "a177412228a68575079f9360da19ee68e08be92db94e0e51550707f9479d61f4",
      contentSha256: "6bca825cb4c82ed4ff2d6796c6085356062102f838f295b7aa745a49c9ccdd0e",
    },
  },
};

/** The newest: what the engine scores with unless asked. */
export function currentReadingOf(rubricRef: string): number {
  const versions = Object.keys(READING_FILES[rubricRef] ?? {}).map(Number);
  if (!versions.length) throw new RubricError(rubricRef, [{ pointer: "", message: "no engine reading is declared for this rubric" }]);
  return Math.max(...versions);
}

const readingRef = (rubricRef: string, version: number) => `${rubricRef}/reading-${version}`;

function pinned(rubricRef: string, version: number): PinnedReading {
  const p = READING_FILES[rubricRef]?.[version];
  if (!p) throw new RubricError(readingRef(rubricRef, version), [{ pointer: "", message: `unknown reading; known: ${Object.keys(READING_FILES[rubricRef] ?? {}).join(", ") || "none"}` }]);
  return p;
}

const str = (v: unknown) => typeof v === "string" && v.length > 0;

/** Shape, and the seed quotes found word for word in the named check's `measure` or `validity`. */
export function readingProblems(json: unknown, rubricRef: string, version: number, rubric: { checks: Array<{ id: string; measure: string; validity: string }> }, rubricSha256: string): RubricProblem[] {
  const p: RubricProblem[] = [];
  if (json === null || typeof json !== "object" || Array.isArray(json)) return [{ pointer: "", message: "must be an object" }];
  const f = json as Partial<ReadingFile>;
  if (f.schema !== "tollgate.trust-reading/1") p.push({ pointer: "/schema", message: `must be "tollgate.trust-reading/1"` });
  if (f.rubric !== rubricRef) p.push({ pointer: "/rubric", message: `must be ${rubricRef}` });
  if (f.rubricSha256 !== rubricSha256) p.push({ pointer: "/rubricSha256", message: `must be the rubric file's pin ${rubricSha256}` });
  if (f.version !== version) p.push({ pointer: "/version", message: `must be ${version}` });
  if (f.status !== "released") p.push({ pointer: "/status", message: `must be "released"` });
  if (!str(f.releasedAt) || !/^\d{4}-\d{2}-\d{2}$/.test(f.releasedAt!)) p.push({ pointer: "/releasedAt", message: "must be a date (YYYY-MM-DD)" });
  const s = f.semantics as Partial<ReadingSemantics> | undefined;
  if (!s || typeof s !== "object") p.push({ pointer: "/semantics", message: "is required" });
  else {
    if (s.na !== "latest" && s.na !== "endpoint") p.push({ pointer: "/semantics/na", message: `must be one of "latest", "endpoint"` });
    if (s.paidDraws !== "per-check" && s.paidDraws !== "per-sample") p.push({ pointer: "/semantics/paidDraws", message: `must be one of "per-check", "per-sample"` });
    if (typeof s.rho !== "number" || !(s.rho >= 0 && s.rho <= 1)) p.push({ pointer: "/semantics/rho", message: "must be a number from 0 to 1" });
    if (s.gates !== undefined && s.gates !== "revision-weighted" && s.gates !== "seen") p.push({ pointer: "/semantics/gates", message: `must be one of "revision-weighted", "seen" when given` });
  }
  if (!Array.isArray(f.changelog) || !f.changelog.length || !f.changelog.every(str)) p.push({ pointer: "/changelog", message: "must list at least one entry" });
  else if (!f.changelog.some((c) => c.startsWith(`${version} (`))) p.push({ pointer: "/changelog", message: `has no entry for version ${version}` });
  if (!Array.isArray(f.readings) || !f.readings.length) return [...p, { pointer: "/readings", message: "must list at least one reading" }];
  const byId = new Map(rubric.checks.map((c) => [c.id, c]));
  f.readings.forEach((r, i) => {
    const at = `/readings/${i}`;
    if (!str(r?.id)) p.push({ pointer: `${at}/id`, message: "is required" });
    if (!str(r?.text)) p.push({ pointer: `${at}/text`, message: "is required" });
    if (!Array.isArray(r?.seed)) return void p.push({ pointer: `${at}/seed`, message: "must list the seed's words it reads" });
    r.seed.forEach((q, j) => {
      const c = byId.get(q?.check);
      if (!c) p.push({ pointer: `${at}/seed/${j}/check`, message: `names no check of the rubric (${String(q?.check)})` });
      else if (q.field !== "measure" && q.field !== "validity") p.push({ pointer: `${at}/seed/${j}/field`, message: `must be "measure" or "validity"` });
      else if (!str(q.words) || !c[q.field].includes(q.words)) p.push({ pointer: `${at}/seed/${j}/words`, message: `are not the words of ${c.id}'s ${q.field}` });
    });
  });
  return p;
}

/** Byte pin, then read (the tests run this over each file). */
export function checkReadingText(text: string, rubricRef: string, version: number, rubric: Parameters<typeof readingProblems>[3], rubricSha256: string): TrustReading {
  const pin = pinned(rubricRef, version);
  const got = sha256(text);
  if (got !== pin.sha256) throw new RubricError(readingRef(rubricRef, version), [{ pointer: "", message: `the file's SHA-256 is ${got}, pinned ${pin.sha256}: a released reading never changes; a change is a new reading version` }]);
  return readingOf(JSON.parse(text), rubricRef, version, rubric, rubricSha256, pin);
}

export function loadReading(rubricRef: string, version: number, rubric: Parameters<typeof readingProblems>[3], rubricSha256: string): TrustReading {
  const pin = pinned(rubricRef, version);
  const got = contentDigest(pin.json);
  if (got !== pin.contentSha256) throw new RubricError(readingRef(rubricRef, version), [{ pointer: "", message: `the content's SHA-256 is ${got}, pinned ${pin.contentSha256}: a released reading never changes; a change is a new reading version` }]);
  return readingOf(pin.json, rubricRef, version, rubric, rubricSha256, pin);
}

function readingOf(json: unknown, rubricRef: string, version: number, rubric: Parameters<typeof readingProblems>[3], rubricSha256: string, pin: PinnedReading): TrustReading {
  const problems = readingProblems(json, rubricRef, version, rubric, rubricSha256);
  if (problems.length) throw new RubricError(readingRef(rubricRef, version), problems);
  const file = json as ReadingFile;
  return { ref: readingRef(rubricRef, version), version, sha256: pin.sha256, semantics: file.semantics, file };
}
