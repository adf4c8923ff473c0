/**
 * A rubric file turned into the lookup structures the engine needs, once per rubric object. Scoring
 * 100,000 listings (bench/score.ts) must not rebuild sets or sort caps per call.
 */
import type { Rubric, RubricBand, RubricCap, RubricDimension, RubricRule, RuleId } from "./rubric";
import { countAlnum, hostOf, normaliseTitle, normaliseWords, wordsEqual } from "./text";

export interface CompiledRubric {
  rubric: Rubric;
  version: string;
  rules: RubricRule[];
  ruleById: Map<RuleId, RubricRule>;
  placeholderTitles: Set<string>;
  placeholderWords: Set<string>;
  hostPrefixes: string[];
  /** Ascending, so the first triggered cap is the lowest. */
  capsAscending: RubricCap[];
  capsFixedBy: Map<RuleId, RubricCap["id"][]>;
  bandsAscending: RubricBand[];
  dimensions: RubricDimension[];
  /** Rule index → index of its dimension in `dimensions` (-1 when the rubric does not define it). */
  ruleDimension: number[];
  /** Rule id → its index in `rules` (the improvements' final tie-break). */
  ruleOrder: Map<RuleId, number>;
  /** The rules' action texts that hold the "{endpoints}" placeholder. */
  actionsNamingEndpoints: Set<string>;
}

const cache = new WeakMap<Rubric, CompiledRubric>();

export function compileRubric(rubric: Rubric): CompiledRubric {
  const hit = cache.get(rubric);
  if (hit) return hit;
  const capsFixedBy = new Map<RuleId, RubricCap["id"][]>();
  for (const cap of rubric.caps) {
    for (const id of cap.fixedBy) capsFixedBy.set(id, [...(capsFixedBy.get(id) ?? []), cap.id]);
  }
  const compiled: CompiledRubric = {
    rubric,
    version: `${rubric.id}/${rubric.version}`,
    rules: rubric.rules,
    ruleById: new Map(rubric.rules.map((r) => [r.id, r])),
    // Compared in the normalised form, like titles.
    placeholderTitles: new Set(rubric.placeholders.titles.map(normaliseTitle)),
    placeholderWords: new Set(rubric.placeholders.words.map(normaliseWords)),
    hostPrefixes: rubric.placeholders.hostPrefixes.map((p) => p.toLowerCase()),
    capsAscending: [...rubric.caps].sort((a, b) => a.value - b.value),
    capsFixedBy,
    bandsAscending: [...rubric.bands].sort((a, b) => a.min - b.min),
    dimensions: rubric.dimensions,
    ruleDimension: rubric.rules.map((r) => rubric.dimensions.findIndex((d) => d.id === r.dimension)),
    ruleOrder: new Map(rubric.rules.map((r, i) => [r.id, i])),
    actionsNamingEndpoints: new Set(rubric.rules.flatMap((r) => [r.action, r.actionWhenEmpty ?? ""]).filter((a) => a.includes("{endpoints}"))),
  };
  cache.set(rubric, compiled);
  return compiled;
}

/** M1: why a title is a placeholder (plain words for the seller), or null (rubric reading "title"). */
export function titlePlaceholderReason(title: string | null | undefined, baseUrl: string | null | undefined, c: CompiledRubric): string | null {
  const raw = typeof title === "string" ? title.trim() : "";
  if (raw.length === 0) return "the title is empty";
  const letters = countAlnum(raw);
  if (letters === 0) return "the title has no letters or digits";
  // The list before the length test, so "API" is named a placeholder, not merely short.
  const norm = normaliseTitle(raw);
  if (norm.length === 0 || c.placeholderTitles.has(norm)) return `"${raw}" is a placeholder title`;
  for (const word of norm.split(" ")) {
    if (c.placeholderWords.has(word)) return `the title contains the placeholder word "${word}"`;
  }
  if (typeof baseUrl === "string" && baseUrl.length > 0) {
    const host = hostOf(baseUrl);
    if (wordsEqual(baseUrl, norm)) return "the title is just the base URL";
    if (host) {
      if (wordsEqual(host, norm)) return "the title is just the host name";
      for (const p of c.hostPrefixes) {
        if (host.startsWith(p) && wordsEqual(host.slice(p.length), norm)) return "the title is just the host name";
      }
    }
  }
  const min = c.rubric.thresholds.titleMinChars;
  if (letters < min) return `the title has fewer than ${min} letters or digits`;
  return null;
}
