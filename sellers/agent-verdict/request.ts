/**
 * The request, validated before any quote or payment (docs/spec/products.md "Agent verdict service:
 * input"): first against the product's input schema exactly as published, then against what its
 * descriptions state (a deliverable of kind text, json or bytes and at most 45,056 bytes; 1 to 64
 * criteria from the closed menu with their parameters; an optional grading scale; an optional
 * jobRef). Every problem is reported with a JSON pointer; the deliverable's content is never quoted
 * in an error.
 */
import Ajv2020, { type ErrorObject, type ValidateFunction } from "ajv/dist/2020";
import { canonicalJson, CanonicalJsonError } from "@/lib/badges/canonical-json";
import { AppError, type ErrorDetail } from "@/lib/errors";
import { CHECKS, MENU, ParamError, type CheckName } from "./checks";
import { evaluateDeliverable, hashCanonical, isStandardBase64, type DeliverableKind, type Evaluated } from "./digest";
import { INPUT_SCHEMA, MAX_CRITERIA, MAX_DELIVERABLE_BYTES, MIN_CRITERIA } from "./product";

export const SCALES = ["PASS_FAIL", "A_F", "SCORE_0_100"] as const;
export type Scale = (typeof SCALES)[number];

/** Nesting deeper than this anywhere in the request is refused (docs/AGENT-VERDICT.md "Limits"). */
export const MAX_DEPTH = 128;
export const MAX_WEIGHT = 1000;
const MAX_ERRORS = 20;

export interface PreparedCriterion {
  index: number;
  id: string;
  requirement?: string;
  check: CheckName;
  weight: number;
  prepared: unknown;
}

export interface PreparedRequest {
  deliverable: Evaluated;
  criteria: PreparedCriterion[];
  scale: Scale;
  jobRef?: string;
  /** hashCanonical of the exact request. */
  inputRoot: string;
}

const ajv = new Ajv2020({ strict: true, strictRequired: false, allowUnionTypes: true, allErrors: true, logger: false });
// The product's schemas carry two annotation keywords of its own.
ajv.addKeyword({ keyword: "x-arbiter-contentType", schemaType: "string" });
ajv.addKeyword({ keyword: "x-arbiter-schemaVersion", schemaType: "string" });

export const validatePublishedInput: ValidateFunction = ajv.compile(INPUT_SCHEMA);

const COMMON = {
  id: { type: "string", pattern: "^[A-Za-z0-9._:-]{1,64}$" },
  check: { type: "string" },
  requirement: { type: "string", minLength: 1, maxLength: 1000 },
  weight: { type: "integer", minimum: 0, maximum: MAX_WEIGHT },
};

const criterionValidators = new Map<CheckName, ValidateFunction>(
  CHECKS.map((name) => {
    const def = MENU[name].params;
    const schema: Record<string, unknown> = {
      type: "object",
      additionalProperties: false,
      required: ["id", "check", ...(def.required ?? [])],
      properties: { ...COMMON, ...def.properties },
    };
    if (def.anyOf) schema.anyOf = def.anyOf;
    return [name, ajv.compile(schema)];
  }),
);

const validateDeliverableShape = ajv.compile({
  type: "object",
  additionalProperties: false,
  required: ["kind", "value"],
  properties: { kind: { enum: ["text", "json", "bytes"] }, value: {} },
});
const validateGrading = ajv.compile({ type: "object", additionalProperties: false, properties: { scale: { enum: [...SCALES] } } });

/** Ajv errors in plain words, each with a JSON pointer under `base`. */
export function ajvDetails(errors: ErrorObject[] | null | undefined, base = ""): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  for (const e of errors ?? []) {
    if (e.keyword === "anyOf" || e.keyword === "if") continue;
    let pointer = base + e.instancePath;
    let message = e.message ?? e.keyword;
    if (e.keyword === "additionalProperties") {
      const name = String(e.params.additionalProperty);
      pointer = `${pointer}/${name.replace(/~/g, "~0").replace(/\//g, "~1")}`;
      message = "is not a field here (additionalProperties is false)";
    } else if (e.keyword === "required") {
      message = `is missing its required field "${String(e.params.missingProperty)}"`;
    } else if (e.keyword === "enum") {
      message = `must be one of ${(e.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`;
    }
    if (!out.some((o) => o.pointer === pointer && o.message === message)) out.push({ pointer, message });
  }
  return out;
}

/** The deepest nesting of arrays and objects, counted without recursion. */
function depthExceeds(value: unknown, limit: number): string | null {
  const stack: Array<[unknown, number, string]> = [[value, 0, ""]];
  while (stack.length) {
    const [v, d, ptr] = stack.pop()!;
    if (v === null || typeof v !== "object") continue;
    if (d >= limit) return ptr;
    const entries = Array.isArray(v) ? v.map((x, i) => [String(i), x] as const) : Object.entries(v as Record<string, unknown>);
    for (const [k, x] of entries) stack.push([x, d + 1, `${ptr}/${k.replace(/~/g, "~0").replace(/\//g, "~1")}`]);
  }
  return null;
}

const invalid = (details: ErrorDetail[]) => new AppError("bad_request", "The request field is invalid.", details.slice(0, MAX_ERRORS));

/**
 * Validate and prepare a parsed request body. Throws AppError bad_request (400) naming every problem
 * found (up to 20), each with a JSON pointer.
 */
export function prepareRequest(body: unknown): PreparedRequest {
  if (body === null || typeof body !== "object" || Array.isArray(body)) throw invalid([{ pointer: "", message: "the request must be a JSON object" }]);
  const deep = depthExceeds(body, MAX_DEPTH);
  if (deep !== null) throw invalid([{ pointer: deep, message: `nesting deeper than ${MAX_DEPTH} levels is not admitted` }]);
  try {
    canonicalJson(body);
  } catch (e) {
    if (e instanceof CanonicalJsonError) throw invalid([{ pointer: e.pointer, message: `cannot be hashed canonically (RFC 8785): ${e.message.replace(/ at \S*$/, "")}` }]);
    throw e;
  }
  if (!validatePublishedInput(body)) throw invalid(ajvDetails(validatePublishedInput.errors));
  const req = body as Record<string, unknown>;
  const errors: ErrorDetail[] = [];

  // --- the deliverable
  let deliverable: Evaluated | null = null;
  if (!validateDeliverableShape(req.deliverable)) {
    errors.push(...ajvDetails(validateDeliverableShape.errors, "/deliverable"));
  } else {
    const { kind, value } = req.deliverable as { kind: DeliverableKind; value: unknown };
    if ((kind === "text" || kind === "bytes") && typeof value !== "string") {
      errors.push({ pointer: "/deliverable/value", message: `must be a string for kind "${kind}"` });
    } else if (kind === "bytes" && !isStandardBase64(value as string)) {
      errors.push({ pointer: "/deliverable/value", message: "must be standard padded base64 (RFC 4648 section 4: A-Z a-z 0-9 + /, = padding, no whitespace, canonical final bits)" });
    } else {
      const e = evaluateDeliverable(kind, value);
      if (e.bytes.length > MAX_DELIVERABLE_BYTES) errors.push({ pointer: "/deliverable/value", message: `is ${e.bytes.length} bytes; at most ${MAX_DELIVERABLE_BYTES} bytes are judged` });
      else deliverable = e;
    }
  }

  // --- the criteria
  const criteria: PreparedCriterion[] = [];
  const list = req.criteria as unknown[];
  if (list.length < MIN_CRITERIA || list.length > MAX_CRITERIA) {
    errors.push({ pointer: "/criteria", message: `has ${list.length} criteria; between ${MIN_CRITERIA} and ${MAX_CRITERIA} are required` });
  } else {
    const ids = new Map<string, number>();
    list.forEach((raw, index) => {
      const base = `/criteria/${index}`;
      if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
        errors.push({ pointer: base, message: "must be an object {id, check, ...params, requirement?, weight?}" });
        return;
      }
      const c = raw as Record<string, unknown>;
      if (typeof c.check !== "string" || !(CHECKS as readonly string[]).includes(c.check)) {
        errors.push({ pointer: `${base}/check`, message: `must be one of the menu's checks: ${CHECKS.join(", ")}` });
        return;
      }
      const check = c.check as CheckName;
      const validate = criterionValidators.get(check)!;
      if (!validate(c)) {
        const details = ajvDetails(validate.errors, base);
        errors.push(...(details.length ? details : [{ pointer: base, message: `needs at least one of its bounds for ${check}` }]));
        return;
      }
      const id = c.id as string;
      if (ids.has(id)) {
        errors.push({ pointer: `${base}/id`, message: `repeats the id of /criteria/${ids.get(id)}; ids must be unique` });
        return;
      }
      ids.set(id, index);
      let prepared: unknown;
      try {
        prepared = MENU[check].prepare(c);
      } catch (e) {
        if (e instanceof ParamError) {
          errors.push({ pointer: `${base}${e.pointer}`, message: e.message });
          return;
        }
        throw e;
      }
      criteria.push({
        index,
        id,
        ...(c.requirement !== undefined ? { requirement: c.requirement as string } : {}),
        check,
        weight: (c.weight as number | undefined) ?? 1,
        prepared,
      });
    });
  }

  // --- grading and jobRef
  let scale: Scale = "PASS_FAIL";
  if (req.grading !== undefined) {
    if (!validateGrading(req.grading)) errors.push(...ajvDetails(validateGrading.errors, "/grading"));
    else scale = ((req.grading as { scale?: Scale }).scale ?? "PASS_FAIL") as Scale;
  }
  if (req.jobRef !== undefined && ((req.jobRef as string).length < 1 || (req.jobRef as string).length > 2048)) {
    errors.push({ pointer: "/jobRef", message: "must be 1 to 2048 characters" });
  }

  if (errors.length || !deliverable) throw invalid(errors);
  return {
    deliverable,
    criteria,
    scale,
    ...(req.jobRef !== undefined ? { jobRef: req.jobRef as string } : {}),
    inputRoot: hashCanonical(body),
  };
}
