/** Rubric governance: a patch candidate must be a changelogged patch bump that scores a corpus exactly as its base. */
import type { ListingDocument } from "@/lib/listing-document/document";
import { scoreReadiness } from "./engine";
import { checkRubric, parseVersion, type Rubric } from "./rubric";
import type { ReadinessEvidence, ReadinessResult } from "./types";

export interface CorpusEntry {
  id: string;
  listing: ListingDocument;
  evidence: ReadinessEvidence | null;
  /** Fixed, so the settle gate does not read the clock. */
  now: Date;
  provisional?: boolean;
}

export interface ScoreMove {
  id: string;
  /** e.g. "total", "rules.E4.earned", "caps". */
  field: string;
  base: unknown;
  candidate: unknown;
}

export interface PatchComparison {
  ok: boolean;
  /** The candidate is not a well-formed patch. */
  problems: string[];
  moved: ScoreMove[];
  scored: number;
}

/** The score's parts; wording may change in a patch. */
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
  // Keyed by name, so reordering rules in the file moves nothing.
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
