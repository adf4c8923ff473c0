/**
 * Rubric governance (docs/spec/scoring-system.md "Governance"): "A PATCH is reserved for changes that move no score." A patch
 * candidate is accepted only if it is a patch bump of its base, carries its own changelog entry, and
 * scores every listing of a corpus exactly as the base does. Every future patch release runs this
 * over the fixture corpus (see governance.test.ts).
 */
import type { ListingDocument } from "@/lib/listing-document/document";
import { scoreReadiness } from "./engine";
import { checkRubric, parseVersion, type Rubric } from "./rubric";
import type { ReadinessEvidence, ReadinessResult } from "./types";

export interface CorpusEntry {
  id: string;
  listing: ListingDocument;
  evidence: ReadinessEvidence | null;
  /** Fixed instant for the settle gate, so the comparison does not depend on the clock. */
  now: Date;
  provisional?: boolean;
}

export interface ScoreMove {
  id: string;
  /** What moved, e.g. "total", "rules.E4.earned", "caps". */
  field: string;
  base: unknown;
  candidate: unknown;
}

export interface PatchComparison {
  ok: boolean;
  /** Version and changelog problems (the candidate is not a well-formed patch). */
  problems: string[];
  /** Every score that differs between base and candidate. */
  moved: ScoreMove[];
  scored: number;
}

/** The parts of a result that are "the score"; wording (reasons, actions) may change in a patch. */
function scoreFields(r: ReadinessResult): Map<string, unknown> {
  const out: Array<[string, unknown]> = [
    ["total", r.total],
    ["rawTotal", r.rawTotal],
    ["band", r.band.id],
    ["provisional", r.provisional],
    ["caps", r.caps.map((c) => `${c.id}=${c.value}`).join(",")],
  ];
  for (const d of r.dimensions) out.push([`dimensions.${d.id}`, `${d.earned}/${d.max}`]);
  for (const rule of r.rules) {
    out.push([`rules.${rule.id}.earned`, `${rule.earned}/${rule.max}`]);
    out.push([`rules.${rule.id}.status`, rule.status]);
  }
  out.push(["improvements", r.improvements.map((i) => `${i.ruleId}:${i.points}`).sort().join(",")]);
  // Keyed by name, so a patch that only reorders rules or dimensions in the file moves nothing.
  return new Map(out);
}

export function comparePatchCandidate(base: Rubric, candidate: Rubric, corpus: CorpusEntry[]): PatchComparison {
  const problems: string[] = [];
  try {
    checkRubric(candidate);
  } catch (e) {
    problems.push((e as Error).message);
  }
  try {
    const [bM, bm, bp] = parseVersion(base.version);
    const [cM, cm, cp] = parseVersion(candidate.version);
    if (cM !== bM || cm !== bm || cp <= bp) problems.push(`readiness/${candidate.version} is not a patch bump of readiness/${base.version}`);
  } catch (e) {
    problems.push((e as Error).message);
  }
  const entry = candidate.changelog?.find((c) => c.version === candidate.version);
  if (!entry) problems.push(`no changelog entry for readiness/${candidate.version}`);
  else if (entry.kind !== "patch") problems.push(`the changelog entry for readiness/${candidate.version} is "${entry.kind}", not "patch"`);

  const moved: ScoreMove[] = [];
  for (const item of corpus) {
    const opts = { now: item.now, provisional: item.provisional };
    const a = scoreFields(scoreReadiness(item.listing, item.evidence, base, opts));
    const b = scoreFields(scoreReadiness(item.listing, item.evidence, candidate, opts));
    for (const field of new Set([...a.keys(), ...b.keys()])) {
      if (a.get(field) !== b.get(field)) moved.push({ id: item.id, field, base: a.get(field), candidate: b.get(field) });
    }
  }
  return { ok: problems.length === 0 && moved.length === 0, problems, moved, scored: corpus.length };
}
