/** A TrustSubject from outside (the CLI's file) plus optional `now`, `seed`: ajv, then against the rubric; problems by JSON pointer. */
import Ajv2020 from "ajv/dist/2020";
import type { TrustSubject } from "../observation";
import { ajvProblem, type TrustRubric } from "../rubric";

export interface SubjectInput extends TrustSubject {
  now?: string;
  seed?: number;
}

export interface SubjectProblem {
  pointer: string;
  message: string;
}

const ISO = "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?(Z|[+-]\\d{2}:\\d{2})$";

export const SUBJECT_SCHEMA = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  title: "A trust subject: one endpoint's observations and revisions (lib/trust/observation.ts)",
  type: "object",
  additionalProperties: false,
  required: ["endpointId", "observations", "revisions"],
  properties: {
    endpointId: { type: "string", minLength: 1 },
    now: { type: "string", pattern: ISO },
    seed: { type: "integer", minimum: 0, maximum: 4294967295 },
    revisions: {
      type: "array",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["revision", "startedAt", "changes", "note"],
        properties: {
          revision: { type: "integer", minimum: 1 },
          startedAt: { type: "string", pattern: ISO },
          changes: { type: "array", items: { type: "string" } },
          note: { type: ["string", "null"] },
        },
      },
    },
    observations: {
      type: "array",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["endpointId", "check", "kind", "outcome", "value", "observedAt", "vantage", "revision", "receipt"],
        properties: {
          endpointId: { type: "string", minLength: 1 },
          check: { type: "string", minLength: 1 },
          kind: { enum: ["free", "paid"] },
          outcome: { enum: ["pass", "fail", "na", "unmeasured"] },
          value: { type: ["number", "null"], minimum: 0 },
          observedAt: { type: "string", pattern: ISO },
          vantage: { type: "string", minLength: 1 },
          revision: { type: "integer", minimum: 1 },
          receipt: { type: "object" },
        },
      },
    },
  },
} as const;

const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
const validateShape = ajv.compile(SUBJECT_SCHEMA);

export function validateSubjectInput(rubric: TrustRubric, input: unknown): { ok: true; value: SubjectInput } | { ok: false; problems: SubjectProblem[] } {
  if (!validateShape(input)) return { ok: false, problems: (validateShape.errors ?? []).map(ajvProblem) };
  const s = input as SubjectInput;
  const problems: SubjectProblem[] = [];
  if (s.now !== undefined && Number.isNaN(Date.parse(s.now))) problems.push({ pointer: "/now", message: "is not a real instant" });
  const revisions = new Set<number>();
  s.revisions.forEach((r, i) => {
    if (revisions.has(r.revision)) problems.push({ pointer: `/revisions/${i}/revision`, message: `revision ${r.revision} is listed twice` });
    revisions.add(r.revision);
    if (Number.isNaN(Date.parse(r.startedAt))) problems.push({ pointer: `/revisions/${i}/startedAt`, message: "is not a real instant" });
  });
  s.observations.forEach((o, i) => {
    const at = `/observations/${i}`;
    if (o.endpointId !== s.endpointId) problems.push({ pointer: `${at}/endpointId`, message: `is ${JSON.stringify(o.endpointId)}, not the subject's ${JSON.stringify(s.endpointId)}` });
    const c = rubric.checkById.get(o.check);
    if (!c) {
      problems.push({ pointer: `${at}/check`, message: `names no check of ${rubric.ref} (${o.check})` });
      return;
    }
    if (o.kind !== c.kind) problems.push({ pointer: `${at}/kind`, message: `must be "${c.kind}" for check ${c.id}` });
    if (c.metric === "curve" && o.outcome === "pass" && o.value === null) problems.push({ pointer: `${at}/value`, message: `check ${c.id} is a curve: a pass needs its value in ms` });
    if (c.metric === "rate" && o.value !== null) problems.push({ pointer: `${at}/value`, message: `check ${c.id} is a rate: its value must be null` });
    if (Number.isNaN(Date.parse(o.observedAt))) problems.push({ pointer: `${at}/observedAt`, message: "is not a real instant" });
    if (revisions.size ? !revisions.has(o.revision) : o.revision !== 1) problems.push({ pointer: `${at}/revision`, message: `revision ${o.revision} is not listed in /revisions` });
  });
  return problems.length ? { ok: false, problems } : { ok: true, value: s };
}
