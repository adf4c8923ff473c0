/** The trust rubric is data: pinned JSON files, validated and compiled once (docs/TRUST.md "The rubric file and its pin"). */
import Ajv2020, { type ErrorObject } from "ajv/dist/2020";
import schema from "./swarmmemo.rubric-1.schema.json";
import x402Endpoint_1_0_0_draft_1 from "./x402-endpoint-1.0.0-draft.1.json";
import { canonicalJson, contentDigest, RubricError, sha256, type RubricProblem } from "./pin";
import { currentReadingOf, loadReading, type TrustReading } from "./reading";

export { canonicalJson, contentDigest, RubricError, type RubricProblem };
export { checkReadingText, currentReadingOf, loadReading, READING_FILES, type ReadingSemantics, type TrustReading } from "./reading";

export type CheckKind = "free" | "paid";
export type OnRevision = "half" | "reset";
export type GateWhen = "fail_weight_gte" | "failing_for_hours" | "failed_within_hours";
export type GateVerdict = "avoid" | "down" | "caution";
export type ConfidenceLevel = "high" | "medium" | "low";

export interface RubricCheck {
  id: string;
  dimension: string;
  weight: number;
  kind: CheckKind;
  metric: "rate" | "curve";
  half_life_days?: number;
  on_revision?: OnRevision;
  title: string;
  measure: string;
  validity: string;
  curve?: { input: string; space: "log" | "linear"; points: Array<[number, number]> };
}

export interface RubricGate {
  flag: string;
  check: string;
  when: GateWhen;
  value: number;
  clear_after_passes?: number;
  cap?: number;
  verdict?: GateVerdict;
  stale?: boolean;
  watch?: boolean;
}

export interface RubricFile {
  schema: "swarmmemo.rubric/1";
  id: string;
  version: string;
  title: string;
  description: string;
  url?: string;
  notes?: string;
  subject_types: string[];
  dimensions: Array<{ id: string; weight: number }>;
  decay: { free: number; paid: number };
  checks: RubricCheck[];
  gates: RubricGate[];
  grades: Array<{ grade: string; min: number }>;
  confidence: Array<{ level: ConfidenceLevel; max_width: number }>;
  verdict: {
    probe_check: string;
    min_probes: number;
    min_span_days: number;
    paid_within_days: number;
    avoid_grades: string[];
    caution_grades: string[];
    caution_confidence: ConfidenceLevel[];
  };
  outlook: { recent_days: number; baseline_days: number; delta: number };
  watch: { revision_days: number };
  monte_carlo: { draws: number; band: [number, number] };
  value: { inside_score: false; metrics: string[]; price_percentile_among: string };
  changelog: string[];
}

export interface CompiledCheck extends RubricCheck {
  index: number;
  dimensionIndex: number;
  /** Its own half_life_days, else the rubric's decay for its kind. */
  halfLifeDays: number;
  /** From `input` ("p95" → 0.95). */
  quantile: number | null;
}

export interface TrustRubric {
  file: RubricFile;
  ref: string;
  checks: CompiledCheck[];
  checkById: Map<string, CompiledCheck>;
  dimensions: Array<{ id: string; weight: number; index: number }>;
  /** Highest minimum first; confidence levels narrowest first. */
  gradesDescending: Array<{ grade: string; min: number }>;
  confidenceAscending: Array<{ level: ConfidenceLevel; max_width: number }>;
  /** `value.price_percentile_among`: the checks and pass rate a peer needs. */
  pricePeers: { sameCategory: true; checks: string[]; minRate: number };
  /** Set by loadRubric; without one, the current rubric's current reading. */
  reading?: TrustReading;
}

interface PinnedFile {
  file: string;
  json: unknown;
  sha256: string;
  contentSha256: string;
}

/** Never edit a pinned file: add one. */
export const RUBRIC_FILES: Record<string, PinnedFile> = {
  "x402-endpoint/1.0.0-draft.1": {
    file: "x402-endpoint-1.0.0-draft.1.json",
    json: x402Endpoint_1_0_0_draft_1,
    sha256: "2e5b69639b4cda5476d766786996a7a9cc4d3d1425e823bf182d2b55b72b24de",
    contentSha256: "74887cd9fad894a2ee80cb5dce200027c009a07aa45248056783a4f460b3346f",
  },
};

export const CURRENT_RUBRIC_REF = "x402-endpoint/1.0.0-draft.1";

// Compiled once per process: compiling costs far more than validating.
const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
const validateShape = ajv.compile(schema);

const escapeToken = (t: string) => t.replace(/~/g, "~0").replace(/\//g, "~1");

export function ajvProblem(e: ErrorObject): RubricProblem {
  const at = e.instancePath;
  switch (e.keyword) {
    case "required":
      return { pointer: `${at}/${escapeToken(String(e.params.missingProperty))}`, message: "is required" };
    case "additionalProperties":
      return { pointer: `${at}/${escapeToken(String(e.params.additionalProperty))}`, message: "is not a known field" };
    case "enum":
      return { pointer: at, message: `must be one of ${(e.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}` };
    case "const":
      return { pointer: at, message: `must be ${JSON.stringify(e.params.allowedValue)}` };
    case "type":
      return { pointer: at, message: `must be of type ${Array.isArray(e.params.type) ? e.params.type.join(" or ") : e.params.type}` };
    case "pattern":
      return { pointer: at, message: `has the wrong shape (must match ${e.params.pattern})` };
    default:
      return { pointer: at, message: e.message ?? e.keyword };
  }
}

const PRICE_PEERS = /same category whose ([A-Z][0-9]+) and ([A-Z][0-9]+) pass rate is at least ([0-9]*\.?[0-9]+)/;

/** Validates (shape, consistency) and compiles; throws a RubricError naming every problem. No pin check. */
export function compileRubric(input: unknown, ref = "(unpinned)"): TrustRubric {
  if (!validateShape(input)) {
    throw new RubricError(ref, (validateShape.errors ?? []).map(ajvProblem));
  }
  const f = input as unknown as RubricFile;
  const problems: RubricProblem[] = [];
  const dims = f.dimensions.map((d, index) => ({ ...d, index }));
  const dimIndex = new Map(dims.map((d) => [d.id, d.index]));
  if (dimIndex.size !== dims.length) problems.push({ pointer: "/dimensions", message: "a dimension id is listed twice" });

  const checks: CompiledCheck[] = [];
  const byId = new Map<string, CompiledCheck>();
  f.checks.forEach((c, i) => {
    const at = `/checks/${i}`;
    if (byId.has(c.id)) problems.push({ pointer: `${at}/id`, message: `check ${c.id} is listed twice` });
    const di = dimIndex.get(c.dimension);
    if (di === undefined) problems.push({ pointer: `${at}/dimension`, message: `names no dimension of the rubric (${c.dimension})` });
    let quantile: number | null = null;
    if (c.metric === "curve") {
      if (!c.curve) problems.push({ pointer: `${at}/curve`, message: "a curve check needs its curve" });
      else {
        quantile = Number(/^p(\d+)$/.exec(c.curve.input)![1]) / 100;
        c.curve.points.forEach((p, j) => {
          if (j > 0 && !(p[0] > c.curve!.points[j - 1][0])) problems.push({ pointer: `${at}/curve/points/${j}/0`, message: "curve inputs must ascend" });
        });
      }
    } else if (c.curve) problems.push({ pointer: `${at}/curve`, message: "only a curve check has a curve" });
    const compiled: CompiledCheck = { ...c, index: i, dimensionIndex: di ?? -1, halfLifeDays: c.half_life_days ?? f.decay[c.kind], quantile };
    checks.push(compiled);
    byId.set(c.id, compiled);
  });
  dims.forEach((d, i) => {
    if (!checks.some((c) => c.dimensionIndex === d.index && c.weight > 0)) problems.push({ pointer: `/dimensions/${i}`, message: `dimension ${d.id} has no weighted check` });
  });
  f.gates.forEach((g, i) => {
    if (!byId.has(g.check)) problems.push({ pointer: `/gates/${i}/check`, message: `names no check of the rubric (${g.check})` });
    if (g.cap === undefined && g.verdict === undefined && !g.stale && !g.watch) problems.push({ pointer: `/gates/${i}`, message: "a gate must cap, give a verdict, mark stale or watch" });
  });
  const grades = [...f.grades].sort((a, b) => b.min - a.min);
  if (grades[grades.length - 1].min !== 0) problems.push({ pointer: "/grades", message: "the lowest grade must start at 0" });
  if (new Set(grades.map((g) => g.min)).size !== grades.length) problems.push({ pointer: "/grades", message: "two grades share a minimum" });
  const known = new Set(f.grades.map((g) => g.grade));
  for (const k of ["avoid_grades", "caution_grades"] as const) {
    f.verdict[k].forEach((g, i) => {
      if (!known.has(g)) problems.push({ pointer: `/verdict/${k}/${i}`, message: `names no grade of the rubric (${g})` });
    });
  }
  if (!byId.has(f.verdict.probe_check)) problems.push({ pointer: "/verdict/probe_check", message: `names no check of the rubric (${f.verdict.probe_check})` });
  const conf = [...f.confidence].sort((a, b) => a.max_width - b.max_width);
  if (conf[conf.length - 1].max_width !== 100) problems.push({ pointer: "/confidence", message: "the widest confidence level must reach a width of 100" });
  if (!(f.monte_carlo.band[0] < f.monte_carlo.band[1])) problems.push({ pointer: "/monte_carlo/band", message: "the band's low percentile must lie below its high one" });
  if (!(f.outlook.recent_days < f.outlook.baseline_days)) problems.push({ pointer: "/outlook", message: "the recent window must be shorter than the baseline" });
  const peers = PRICE_PEERS.exec(f.value.price_percentile_among);
  if (!peers) problems.push({ pointer: "/value/price_percentile_among", message: `cannot be read as "…same category whose <check> and <check> pass rate is at least <rate>"` });
  else for (const id of [peers[1], peers[2]]) if (!byId.has(id)) problems.push({ pointer: "/value/price_percentile_among", message: `names no check of the rubric (${id})` });
  if (problems.length) throw new RubricError(ref, problems);
  return {
    file: f,
    ref: `${f.id}/${f.version}`,
    checks,
    checkById: byId,
    dimensions: dims,
    gradesDescending: grades,
    confidenceAscending: conf,
    pricePeers: { sameCategory: true, checks: [peers![1], peers![2]], minRate: Number(peers![3]) },
  };
}

function refOf(ref: string): PinnedFile {
  const pinned = RUBRIC_FILES[ref];
  if (!pinned) throw new RubricError(ref, [{ pointer: "", message: `unknown rubric; known: ${Object.keys(RUBRIC_FILES).join(", ")}` }]);
  return pinned;
}

/** A pinned file's stored text: byte pin, then validated and compiled. */
export function checkRubricText(text: string, ref = CURRENT_RUBRIC_REF): TrustRubric {
  const pinned = refOf(ref);
  const got = sha256(text);
  if (got !== pinned.sha256) throw new RubricError(ref, [{ pointer: "", message: `the file's SHA-256 is ${got}, pinned ${pinned.sha256}: a pinned rubric never changes; a change is a new version file` }]);
  const compiled = compileRubric(JSON.parse(text), ref);
  checkRef(compiled, ref);
  return compiled;
}

export function checkRubricContent(json: unknown, ref = CURRENT_RUBRIC_REF): TrustRubric {
  const pinned = refOf(ref);
  const got = contentDigest(json);
  if (got !== pinned.contentSha256) throw new RubricError(ref, [{ pointer: "", message: `the content's SHA-256 is ${got}, pinned ${pinned.contentSha256}: a pinned rubric never changes; a change is a new version file` }]);
  const compiled = compileRubric(json, ref);
  checkRef(compiled, ref);
  return compiled;
}

function checkRef(r: TrustRubric, ref: string) {
  if (r.ref !== ref) throw new RubricError(ref, [{ pointer: "/version", message: `the file says ${r.ref}` }]);
}

const compiled = new Map<string, TrustRubric>();
const loaded = new Map<string, TrustRubric>();

/** Default the current rubric and its newest reading; pin-checked and validated once per process. */
export function loadRubric(ref: string = CURRENT_RUBRIC_REF, reading?: number): TrustRubric {
  const version = reading ?? currentReadingOf(ref);
  const key = `${ref}#${version}`;
  let r = loaded.get(key);
  if (!r) {
    let c = compiled.get(ref);
    if (!c) {
      c = checkRubricContent(refOf(ref).json, ref);
      compiled.set(ref, c);
    }
    r = { ...c, reading: loadReading(ref, version, c.file, refOf(ref).sha256) };
    loaded.set(key, r);
  }
  return r;
}

export function readingOf(rubric: TrustRubric): TrustReading {
  return rubric.reading ?? loadRubric().reading!;
}
