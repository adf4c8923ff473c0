/** The readiness rubric is data: released versions as JSON in ./rubrics, typed and checked once at load; never edited. */
import rubric_1_0_0 from "./rubrics/readiness-1.0.0.json";
import rubric_1_1_0 from "./rubrics/readiness-1.1.0.json";
import rubric_1_2_0 from "./rubrics/readiness-1.2.0.json";

export type DimensionId = "metadata" | "endpoints" | "pricing" | "documentation" | "operations" | "health";
export type RuleScope = "listing" | "endpoint" | "payable" | "dynamic" | "measured";
export type Effort = "low" | "medium" | "high";
export type CapId = "noReachableEndpoint" | "knownUnpayable" | "noPaymentMechanism";

/** A rubric naming any other id is refused at load. */
export const RULE_IDS = [
  "M1", "M2", "M3", "M4", "M5",
  "E1", "E2", "E3", "E4", "E5",
  "P1", "P2", "P3", "P4",
  "D1", "D2", "D3", "D4",
  "O1", "O2", "O3", "O4",
  "H1", "H2", "H3",
] as const;
export type RuleId = (typeof RULE_IDS)[number];
export const CAP_IDS: readonly CapId[] = ["noReachableEndpoint", "knownUnpayable", "noPaymentMechanism"];

export interface RubricDimension {
  id: DimensionId;
  title: string;
  points: number;
}

export interface RubricRule {
  id: RuleId;
  dimension: DimensionId;
  title: string;
  points: number;
  scope: RuleScope;
  effort: Effort;
  /** `{endpoints}` becomes the affected "METHOD path" list. */
  action: string;
  actionWhenEmpty?: string;
}

export interface RubricCap {
  id: CapId;
  value: number;
  title: string;
  description: string;
  /** Their improvements are blockers while this cap is triggered. */
  fixedBy: RuleId[];
}

export interface RubricBand {
  id: string;
  label: string;
  min: number;
  max: number;
}

export interface RubricChangelogEntry {
  version: string;
  date: string;
  kind: "major" | "minor" | "patch";
  changes: string[];
}

/** How a version reads the rules where versions differ; no `semantics` reads as readiness/1.0.0. */
export interface RubricSemantics {
  /** "exact": fractions (exact.ts); absent: normalised to 6 decimals. */
  arithmetic?: "exact" | "normalised-6";
  /** M4, D1, D4 in a probed run pass only on what the probe observed. */
  observedOnlyWhenProbed?: boolean;
  /** D3 in a probed run reads the docs page the probe fetched. */
  endpointDocsFetched?: boolean;
  /** P1 also passes on a complete machine-readable price. */
  machinePricePublishes?: boolean;
  /** P4 needs min and max to be decimal numbers with min ≤ max. */
  orderedRange?: boolean;
  /** E5 fails an example that carries a secret (lib/screen/secrets.ts; reading unsafe-example). */
  unsafeExampleFails?: boolean;
  /** D3 reads oneOf/anyOf/allOf branches; a schema naming no property asks for no names. */
  schemaShapeFromBranches?: boolean;
  schemePolicies?: boolean;
}

/** Per-scheme reading of C2 findings (readiness/1.2.0): a matched requirement is judged by its own window; listed codes are excused. */
export interface SchemePolicy {
  id: string;
  title: string;
  match: { scheme?: string | string[]; network?: string; extraName?: string };
  timeout: { min: number; max: number; optional: boolean };
  excuses: string[];
  source: string;
}

export interface Rubric {
  id: "readiness";
  version: string;
  status: "released" | "candidate";
  releasedAt: string | null;
  source: string;
  total: number;
  rounding: "half-up";
  dimensions: RubricDimension[];
  scopes: Record<RuleScope, { title: string; whenEmpty: "zero" | "full" }>;
  rules: RubricRule[];
  settleability: { settleable: number; unknown: number; unpayable: number };
  thresholds: {
    titleMinChars: number;
    shortDescriptionMinChars: number;
    descriptionMinChars: number;
    endpointDescriptionMinChars: number;
    walkthroughMinChars: number;
  };
  placeholders: { titles: string[]; words: string[]; hostPrefixes: string[] };
  caps: RubricCap[];
  bands: RubricBand[];
  readings: Array<{ id: string; source: string; text: string }>;
  changelog: RubricChangelogEntry[];
  semantics?: RubricSemantics;
  schemePolicies?: SchemePolicy[];
}

const SEMVER = /^(\d+)\.(\d+)\.(\d+)$/;

export function parseVersion(version: string): [number, number, number] {
  const m = SEMVER.exec(version);
  if (!m) throw new Error(`rubric version "${version}" is not MAJOR.MINOR.PATCH`);
  return [Number(m[1]), Number(m[2]), Number(m[3])];
}

/** Refuses the mistakes that silently mis-score (unknown ids, totals, band gaps, missing changelog): a build error, not seller data. */
export function checkRubric(input: unknown): Rubric {
  const r = input as Rubric;
  const problems: string[] = [];
  if (!r || typeof r !== "object") throw new Error("rubric is not an object");
  if (r.id !== "readiness") problems.push(`id must be "readiness", got ${JSON.stringify(r.id)}`);
  try {
    parseVersion(r.version);
  } catch (e) {
    problems.push((e as Error).message);
  }
  const ruleIds = new Set<string>();
  for (const rule of r.rules ?? []) {
    if (!(RULE_IDS as readonly string[]).includes(rule.id)) problems.push(`unknown rule id ${rule.id}`);
    if (ruleIds.has(rule.id)) problems.push(`rule ${rule.id} listed twice`);
    ruleIds.add(rule.id);
    if (!(rule.scope in (r.scopes ?? {}))) problems.push(`rule ${rule.id} has unknown scope ${rule.scope}`);
    if (!["low", "medium", "high"].includes(rule.effort)) problems.push(`rule ${rule.id} has unknown effort ${rule.effort}`);
    if (!(rule.points > 0)) problems.push(`rule ${rule.id} has no points`);
  }
  for (const id of RULE_IDS) if (!ruleIds.has(id)) problems.push(`rule ${id} missing`);
  let sum = 0;
  for (const d of r.dimensions ?? []) {
    const inDim = (r.rules ?? []).filter((x) => x.dimension === d.id).reduce((a, x) => a + x.points, 0);
    if (Math.abs(inDim - d.points) > 1e-9) problems.push(`dimension ${d.id}: rules sum to ${inDim}, dimension says ${d.points}`);
    sum += d.points;
  }
  if (sum !== r.total) problems.push(`dimensions sum to ${sum}, total says ${r.total}`);
  for (const rule of r.rules ?? []) {
    if (!(r.dimensions ?? []).some((d) => d.id === rule.dimension)) problems.push(`rule ${rule.id} in unknown dimension ${rule.dimension}`);
  }
  const h3 = (r.rules ?? []).find((x) => x.id === "H3");
  const s = r.settleability;
  if (!s || !h3 || s.settleable > h3.points || s.unknown > h3.points || s.unpayable < 0) problems.push("settleability points must lie within H3's points");
  for (const cap of r.caps ?? []) {
    if (!CAP_IDS.includes(cap.id)) problems.push(`unknown cap ${cap.id}`);
    for (const f of cap.fixedBy) if (!ruleIds.has(f)) problems.push(`cap ${cap.id} fixed by unknown rule ${f}`);
  }
  const bands = [...(r.bands ?? [])].sort((a, b) => a.min - b.min);
  let next = 0;
  for (const b of bands) {
    if (b.min !== next) problems.push(`band ${b.id} starts at ${b.min}, expected ${next}`);
    next = b.max + 1;
  }
  if (next !== r.total + 1) problems.push(`bands end at ${next - 1}, expected ${r.total}`);
  if (!(r.changelog ?? []).some((c) => c.version === r.version)) problems.push(`no changelog entry for version ${r.version}`);
  const SEMANTICS = new Set(["arithmetic", "observedOnlyWhenProbed", "endpointDocsFetched", "machinePricePublishes", "orderedRange", "unsafeExampleFails", "schemaShapeFromBranches", "schemePolicies"]);
  const POLICY_CODES = new Set(["scheme_unknown", "network_not_caip2", "timeout_missing", "timeout_out_of_range"]);
  for (const p of r.schemePolicies ?? []) {
    const at = `scheme policy ${p.id ?? "?"}`;
    if (typeof p.id !== "string" || !p.id) problems.push("a scheme policy has no id");
    if (!p.match || !Object.values(p.match).some((v) => (typeof v === "string" && v) || (Array.isArray(v) && v.length > 0))) problems.push(`${at} matches nothing`);
    if (!p.timeout || !(p.timeout.min >= 0) || !(p.timeout.max >= p.timeout.min)) problems.push(`${at}: timeout window must have 0 <= min <= max`);
    for (const c of p.excuses ?? []) if (!POLICY_CODES.has(c)) problems.push(`${at} excuses ${c}, which no policy may excuse`);
    if (typeof p.source !== "string" || p.source.length < 20) problems.push(`${at} names no source for its numbers`);
  }
  if (r.semantics?.schemePolicies && !(r.schemePolicies ?? []).length) problems.push("semantics.schemePolicies is set but no scheme policy is listed");
  for (const k of Object.keys(r.semantics ?? {})) if (!SEMANTICS.has(k)) problems.push(`unknown semantics flag ${k}`);
  if (r.semantics?.arithmetic !== undefined && !["exact", "normalised-6"].includes(r.semantics.arithmetic)) problems.push(`semantics.arithmetic must be "exact" or "normalised-6"`);
  if (problems.length) throw new Error(`rubric readiness/${r.version ?? "?"} is inconsistent:\n- ${problems.join("\n- ")}`);
  return r;
}

const RUBRICS: Record<string, Rubric> = {
  "1.0.0": checkRubric(rubric_1_0_0),
  "1.1.0": checkRubric(rubric_1_1_0 as unknown),
  "1.2.0": checkRubric(rubric_1_2_0 as unknown),
};

export const RUBRIC_VERSIONS: readonly string[] = Object.keys(RUBRICS);
export const CURRENT_RUBRIC: Rubric = RUBRICS["1.2.0"];

export function loadRubric(version: string): Rubric {
  const v = version.startsWith("readiness/") ? version.slice("readiness/".length) : version;
  const r = RUBRICS[v];
  if (!r) throw new Error(`unknown rubric version readiness/${v}; known: ${RUBRIC_VERSIONS.join(", ")}`);
  return r;
}

export function rubricVersionString(r: Rubric): string {
  return `${r.id}/${r.version}`;
}
