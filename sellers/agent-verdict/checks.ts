/**
 * The closed criteria menu (docs/spec/products.md "Agent verdict service: criteria"; the parameters,
 * rules and reason codes are docs/AGENT-VERDICT.md "Criteria menu"). Each check is deterministic over
 * the deliverable's exact bytes: no network, no clock, no randomness, and nothing of the deliverable
 * is ever executed. A check's evidence names its fixed rule and a fixed reason code; its detail holds
 * only measurements (lengths, counts, indices, schema locations), never the deliverable's content.
 *
 * Every determinate answer is PASS or FAIL (a deliverable that is not JSON FAILS a JSON requirement;
 * one that is not UTF-8 text FAILS a text requirement). INCONCLUSIVE is kept for what the program
 * cannot decide: a `statement`, and a check that could not finish (EVALUATION_ERROR).
 */
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { encodePaymentRequiredHeader } from "@x402/core/http";
import { PaymentPayloadSchema, PaymentRequirementsSchema } from "@x402/core/schemas";
import type { PaymentRequired } from "@x402/core/types";
import { canonicalJson } from "@/lib/badges/canonical-json";
import { parseX402 } from "@/lib/x402";
import type { Evaluated } from "./digest";
import { parsePath, PathError, resolvePath, type Segment } from "./paths";

export const CHECKS = [
  "sha256_equals",
  "keccak256_equals",
  "byte_length",
  "char_length",
  "line_count",
  "contains",
  "not_contains",
  "starts_with",
  "ends_with",
  "is_json",
  "json_schema",
  "json_path_equals",
  "json_path_present",
  "numeric_range",
  "numeric_close",
  "array_length",
  "unique_values",
  "x402_valid",
  "claims_consistent",
  "statement",
] as const;
export type CheckName = (typeof CHECKS)[number];

export type Result = "PASS" | "FAIL" | "INCONCLUSIVE";
export interface Outcome {
  result: Result;
  reason: string;
  detail?: string;
}

/** A parameter problem found before any payment: a JSON pointer relative to the criterion, and words. */
export class ParamError extends Error {
  constructor(
    readonly pointer: string,
    message: string,
  ) {
    super(message);
  }
}

type Params = Record<string, unknown>;

interface CheckDef<P> {
  /** The fixed rule, in words; it is the evidence's `rule` and part of the registry root. */
  rule: string;
  /** Every reason code this check can give. */
  reasons: readonly string[];
  /** JSON Schema of the check's own parameters (the common id/check/requirement/weight are added by the request schema). */
  params: { properties: Record<string, unknown>; required?: string[]; anyOf?: Array<{ required: string[] }> };
  /** Turn validated parameters into what evaluate needs; throws ParamError for what a schema cannot say. */
  prepare(p: Params): P;
  evaluate(p: P, d: Evaluated): Outcome;
}

const pass = (reason: string, detail?: string): Outcome => (detail === undefined ? { result: "PASS", reason } : { result: "PASS", reason, detail });
const fail = (reason: string, detail?: string): Outcome => (detail === undefined ? { result: "FAIL", reason } : { result: "FAIL", reason, detail });

// ---------------------------------------------------------------- parameter schemas and helpers

const HEX256 = { type: "string", pattern: "^(0x)?[0-9a-fA-F]{64}$" };
const COUNT = { type: "integer", minimum: 0, maximum: 1_000_000_000 };
const NUMBER = { type: "number" };
const NEEDLE = { type: "string", minLength: 1, maxLength: 4096 };
const PATH = { type: "string", maxLength: 512 };
const LENGTH_PARAMS = { properties: { min: COUNT, max: COUNT, equals: COUNT }, anyOf: [{ required: ["min"] }, { required: ["max"] }, { required: ["equals"] }] };

function pathParam(p: Params, key = "path"): Segment[] {
  const raw = p[key];
  if (raw === undefined) return [];
  try {
    return parsePath(raw as string);
  } catch (e) {
    if (e instanceof PathError) throw new ParamError(`/${key}`, e.message);
    throw e;
  }
}

interface Bounds {
  min?: number;
  max?: number;
  equals?: number;
}

function bounds(p: Params): Bounds {
  const b: Bounds = {};
  if (p.min !== undefined) b.min = p.min as number;
  if (p.max !== undefined) b.max = p.max as number;
  if (p.equals !== undefined) b.equals = p.equals as number;
  if (b.min !== undefined && b.max !== undefined && b.min > b.max) throw new ParamError("/min", `min (${b.min}) is greater than max (${b.max}); no value could pass`);
  return b;
}

const describeBounds = (b: Bounds) =>
  [b.equals !== undefined ? `equals ${b.equals}` : null, b.min !== undefined ? `min ${b.min}` : null, b.max !== undefined ? `max ${b.max}` : null].filter(Boolean).join(", ");

/** Length outcome with the fixed LENGTH_* reasons; `what` names the measure in the detail. */
function lengthOutcome(n: number, b: Bounds, what: string): Outcome {
  const detail = `${what} ${n}; required ${describeBounds(b)}`;
  if (b.equals !== undefined && n !== b.equals) return fail("LENGTH_NOT_EQUAL", detail);
  if (b.min !== undefined && n < b.min) return fail("LENGTH_BELOW_MIN", detail);
  if (b.max !== undefined && n > b.max) return fail("LENGTH_ABOVE_MAX", detail);
  return pass("LENGTH_IN_RANGE", detail);
}

/** The JSON value a path names in the deliverable, or the FAIL outcome saying why there is none. */
function atPath(d: Evaluated, path: Segment[]): { ok: true; value: unknown } | { ok: false; outcome: Outcome } {
  if (!d.json.ok) return { ok: false, outcome: fail("NOT_JSON", "the deliverable's bytes are not JSON") };
  const r = resolvePath(d.json.value, path);
  if (!r.found) return { ok: false, outcome: fail("PATH_NOT_FOUND", "the path names nothing in the deliverable") };
  return { ok: true, value: r.value };
}

const typeOf = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);

/** Unicode code points, not UTF-16 units. */
function charLength(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/** Lines: 0 for empty text; else line terminators (CRLF, LF or CR) plus one, a final terminator not opening a new line. */
export function lineCount(text: string): number {
  if (text === "") return 0;
  const breaks = text.match(/\r\n|\n|\r/g)?.length ?? 0;
  return /(\r\n|\n|\r)$/.test(text) ? breaks : breaks + 1;
}

function digestParam(p: Params): string {
  return (p.value as string).toLowerCase().replace(/^0x/, "");
}

// ---------------------------------------------------------------- json_schema

/**
 * A fresh Ajv (2020-12, with ajv-formats) per distinct criterion schema, so one buyer's `$id` never
 * meets another's (a compiled schema is reused for the same canonical schema). Remote `$ref`s are
 * not fetched (no network): they fail to compile. Regular-expression keywords (`pattern`,
 * `patternProperties`) are refused at compile time: a regular expression's running time over
 * hostile input is unbounded, and a verdict must finish (docs/AGENT-VERDICT.md "Limits").
 */
const AJV_OPTIONS = {
  strictSchema: true,
  strictNumbers: true,
  strictTypes: false,
  strictTuples: false,
  strictRequired: false,
  allowUnionTypes: true,
  allErrors: false,
  logger: false,
} as const;

/** One instance only checks buyer schemas against the 2020-12 meta-schema (its own fixed patterns admitted). */
const metaAjv = addFormats(new Ajv2020({ ...AJV_OPTIONS }));

/** Compiled buyer schemas by their canonical JSON: a validator is a pure function of its schema. Bounded. */
const compiled = new Map<string, ValidateFunction>();
const MAX_COMPILED = 256;

function compileBuyerSchema(schema: unknown): ValidateFunction {
  if (schema !== null && typeof schema === "object" && "$schema" in schema && (schema as Params).$schema !== "https://json-schema.org/draft/2020-12/schema") {
    throw new ParamError("/schema/$schema", `only JSON Schema draft 2020-12 is evaluated ("https://json-schema.org/draft/2020-12/schema"); got ${JSON.stringify((schema as Params).$schema)}`);
  }
  const key = canonicalJson(schema);
  const hit = compiled.get(key);
  if (hit) return hit;
  if (!metaAjv.validateSchema(schema as object)) throw new ParamError("/schema", `is not a valid JSON Schema: ${metaAjv.errorsText(metaAjv.errors, { dataVar: "schema" })}`);
  const refuse = Object.assign(
    (pattern: string) => {
      throw new ParamError("/schema", `regular-expression keywords (pattern, patternProperties) are not admitted; found pattern ${JSON.stringify(pattern.slice(0, 64))}`);
    },
    { code: "new RegExp" },
  );
  // Its own instance, so one buyer's $id never meets another's; the schema was checked above.
  const ajv = addFormats(new Ajv2020({ ...AJV_OPTIONS, validateSchema: false, code: { regExp: refuse as never } }));
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(schema as object);
  } catch (e) {
    if (e instanceof ParamError) throw e;
    throw new ParamError("/schema", `the schema does not compile: ${(e as Error).message}`);
  }
  compiled.set(key, validate);
  if (compiled.size > MAX_COMPILED) compiled.delete(compiled.keys().next().value as string);
  return validate;
}

// ---------------------------------------------------------------- x402_valid

const ARTIFACTS = ["payment_required", "payment_requirements", "payment_payload"] as const;
type Artifact = (typeof ARTIFACTS)[number];

/** An artifact given as a string is read as its header form: base64 of its JSON. */
function artifactValue(v: unknown): { ok: true; value: unknown } | { ok: false } {
  if (typeof v !== "string") return { ok: true, value: v };
  const s = v.trim();
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(s)) return { ok: false };
  try {
    return { ok: true, value: JSON.parse(Buffer.from(s, "base64").toString("utf8")) as unknown };
  } catch {
    return { ok: false };
  }
}

function x402Problems(artifact: Artifact, value: unknown): string[] {
  if (artifact === "payment_required") {
    if (value === null || typeof value !== "object" || Array.isArray(value)) return ["not_object"];
    let header: string | undefined;
    try {
      header = encodePaymentRequiredHeader(value as PaymentRequired);
    } catch {
      header = undefined;
    }
    const read = parseX402({ status: 402, headers: header ? { "payment-required": header } : {}, body: JSON.stringify(value) });
    // Protocol validity: the shape (C1), each requirement (C2) and the asset (C3). C4 compares a header
    // with a body (the same object here) and C5 is discovery quality, not validity.
    return read.findings.filter((f) => f.severity === "fail" && ["C1", "C2", "C3"].includes(f.check)).map((f) => `${f.code}${f.pointer ? ` at ${f.pointer}` : ""}`);
  }
  const parsed = artifact === "payment_payload" ? PaymentPayloadSchema.safeParse(value) : PaymentRequirementsSchema.safeParse(value);
  if (parsed.success) return [];
  return parsed.error.issues.map((i) => `${i.code} at /${i.path.join("/")}`);
}

// ---------------------------------------------------------------- claims_consistent

const CLAIM_KEYS = ["kind", "byteLength", "charLength", "lineCount", "sha256", "keccak256", "isJson", "jsonPaths"] as const;

interface Claims {
  kind?: string;
  byteLength?: number;
  charLength?: number;
  lineCount?: number;
  sha256?: string;
  keccak256?: string;
  isJson?: boolean;
  jsonPaths?: Array<{ path: string; segments: Segment[]; canonical: string }>;
}

// ---------------------------------------------------------------- the menu

const textOf = (d: Evaluated) => d.text;

export const MENU: { [K in CheckName]: CheckDef<any> } = {
  sha256_equals: {
    rule: "sha256_equals: the SHA-256 of the exact bytes evaluated equals `value` (64 hex digits, 0x optional, case-insensitive)",
    reasons: ["DIGEST_MATCH", "DIGEST_MISMATCH"],
    params: { properties: { value: HEX256 }, required: ["value"] },
    prepare: digestParam,
    evaluate: (want: string, d) => (d.sha256 === want ? pass("DIGEST_MATCH") : fail("DIGEST_MISMATCH")),
  },
  keccak256_equals: {
    rule: "keccak256_equals: the Keccak-256 of the exact bytes evaluated equals `value` (64 hex digits, 0x optional, case-insensitive)",
    reasons: ["DIGEST_MATCH", "DIGEST_MISMATCH"],
    params: { properties: { value: HEX256 }, required: ["value"] },
    prepare: digestParam,
    evaluate: (want: string, d) => (d.keccak256.slice(2) === want ? pass("DIGEST_MATCH") : fail("DIGEST_MISMATCH")),
  },
  byte_length: {
    rule: "byte_length: the number of bytes evaluated meets every given bound (equals, min, max; inclusive)",
    reasons: ["LENGTH_IN_RANGE", "LENGTH_NOT_EQUAL", "LENGTH_BELOW_MIN", "LENGTH_ABOVE_MAX"],
    params: LENGTH_PARAMS,
    prepare: bounds,
    evaluate: (b: Bounds, d) => lengthOutcome(d.bytes.length, b, "byteLength"),
  },
  char_length: {
    rule: "char_length: the bytes are UTF-8 text whose count of Unicode code points meets every given bound (equals, min, max; inclusive)",
    reasons: ["LENGTH_IN_RANGE", "LENGTH_NOT_EQUAL", "LENGTH_BELOW_MIN", "LENGTH_ABOVE_MAX", "NOT_TEXT"],
    params: LENGTH_PARAMS,
    prepare: bounds,
    evaluate: (b: Bounds, d) => {
      const t = textOf(d);
      return t === null ? fail("NOT_TEXT", "the bytes are not valid UTF-8") : lengthOutcome(charLength(t), b, "charLength");
    },
  },
  line_count: {
    rule: "line_count: the bytes are UTF-8 text whose line count (terminators CRLF, LF or CR plus one; a final terminator opens no line; empty text has 0 lines) meets every given bound",
    reasons: ["LENGTH_IN_RANGE", "LENGTH_NOT_EQUAL", "LENGTH_BELOW_MIN", "LENGTH_ABOVE_MAX", "NOT_TEXT"],
    params: LENGTH_PARAMS,
    prepare: bounds,
    evaluate: (b: Bounds, d) => {
      const t = textOf(d);
      return t === null ? fail("NOT_TEXT", "the bytes are not valid UTF-8") : lengthOutcome(lineCount(t), b, "lineCount");
    },
  },
  contains: {
    rule: "contains: the UTF-8 bytes of `value` occur in the bytes evaluated (exact, case-sensitive)",
    reasons: ["FOUND", "NOT_FOUND"],
    params: { properties: { value: NEEDLE }, required: ["value"] },
    prepare: (p) => Buffer.from(p.value as string, "utf8"),
    evaluate: (needle: Buffer, d) => {
      const at = d.bytes.indexOf(needle);
      return at >= 0 ? pass("FOUND", `first occurrence at byte ${at}`) : fail("NOT_FOUND");
    },
  },
  not_contains: {
    rule: "not_contains: the UTF-8 bytes of `value` occur nowhere in the bytes evaluated (exact, case-sensitive)",
    reasons: ["ABSENT", "PRESENT"],
    params: { properties: { value: NEEDLE }, required: ["value"] },
    prepare: (p) => Buffer.from(p.value as string, "utf8"),
    evaluate: (needle: Buffer, d) => {
      const at = d.bytes.indexOf(needle);
      return at < 0 ? pass("ABSENT") : fail("PRESENT", `first occurrence at byte ${at}`);
    },
  },
  starts_with: {
    rule: "starts_with: the bytes evaluated begin with the UTF-8 bytes of `value`",
    reasons: ["PREFIX_MATCH", "PREFIX_MISMATCH"],
    params: { properties: { value: NEEDLE }, required: ["value"] },
    prepare: (p) => Buffer.from(p.value as string, "utf8"),
    evaluate: (needle: Buffer, d) => (d.bytes.length >= needle.length && d.bytes.subarray(0, needle.length).equals(needle) ? pass("PREFIX_MATCH") : fail("PREFIX_MISMATCH")),
  },
  ends_with: {
    rule: "ends_with: the bytes evaluated end with the UTF-8 bytes of `value`",
    reasons: ["SUFFIX_MATCH", "SUFFIX_MISMATCH"],
    params: { properties: { value: NEEDLE }, required: ["value"] },
    prepare: (p) => Buffer.from(p.value as string, "utf8"),
    evaluate: (needle: Buffer, d) => (d.bytes.length >= needle.length && d.bytes.subarray(d.bytes.length - needle.length).equals(needle) ? pass("SUFFIX_MATCH") : fail("SUFFIX_MISMATCH")),
  },
  is_json: {
    rule: "is_json: the bytes evaluated are UTF-8 text that parses as one JSON value (RFC 8259; a json deliverable always does)",
    reasons: ["VALID_JSON", "NOT_JSON"],
    params: { properties: {} },
    prepare: () => null,
    evaluate: (_: null, d) => (d.json.ok ? pass("VALID_JSON", `top-level ${typeOf(d.json.value)}`) : fail("NOT_JSON")),
  },
  json_schema: {
    rule: "json_schema: the JSON value at `path` (default: the whole deliverable) is valid against `schema` (JSON Schema draft 2020-12, formats checked; no remote $ref, no regular-expression keywords)",
    reasons: ["SCHEMA_VALID", "SCHEMA_INVALID", "NOT_JSON", "PATH_NOT_FOUND"],
    params: { properties: { schema: { type: ["object", "boolean"] }, path: PATH }, required: ["schema"] },
    prepare: (p) => ({ path: pathParam(p), validate: compileBuyerSchema(p.schema) }),
    evaluate: (p: { path: Segment[]; validate: ValidateFunction }, d) => {
      const at = atPath(d, p.path);
      if (!at.ok) return at.outcome;
      if (p.validate(at.value)) return pass("SCHEMA_VALID");
      const first = p.validate.errors?.[0];
      // The schema location is the buyer's own text; the instance location would quote the deliverable's keys, so it is left out.
      return fail("SCHEMA_INVALID", first ? `failed keyword "${first.keyword}" at schema location ${first.schemaPath}` : undefined);
    },
  },
  json_path_equals: {
    rule: "json_path_equals: the JSON value at `path` equals `value` (same JSON value: equal canonical JSON, so key order does not matter and 1 equals 1.0)",
    reasons: ["VALUE_EQUAL", "VALUE_NOT_EQUAL", "NOT_JSON", "PATH_NOT_FOUND"],
    params: { properties: { path: PATH, value: {} }, required: ["path", "value"] },
    prepare: (p) => ({ path: pathParam(p), canonical: canonicalJson(p.value) }),
    evaluate: (p: { path: Segment[]; canonical: string }, d) => {
      const at = atPath(d, p.path);
      if (!at.ok) return at.outcome;
      return canonicalJson(at.value) === p.canonical ? pass("VALUE_EQUAL") : fail("VALUE_NOT_EQUAL", `found a ${typeOf(at.value)}`);
    },
  },
  json_path_present: {
    rule: "json_path_present: `path` names a value in the JSON deliverable (null counts as present)",
    reasons: ["PATH_PRESENT", "NOT_JSON", "PATH_NOT_FOUND"],
    params: { properties: { path: PATH }, required: ["path"] },
    prepare: (p) => pathParam(p),
    evaluate: (path: Segment[], d) => {
      const at = atPath(d, path);
      return at.ok ? pass("PATH_PRESENT", `found a ${typeOf(at.value)}`) : at.outcome;
    },
  },
  numeric_range: {
    rule: "numeric_range: the value at `path` (default: the whole deliverable) is a JSON number within every given bound (min, max; inclusive); a numeric string is not a number",
    reasons: ["IN_RANGE", "BELOW_MIN", "ABOVE_MAX", "NOT_A_NUMBER", "NOT_JSON", "PATH_NOT_FOUND"],
    params: { properties: { path: PATH, min: NUMBER, max: NUMBER }, anyOf: [{ required: ["min"] }, { required: ["max"] }] },
    prepare: (p) => ({ path: pathParam(p), ...bounds(p) }),
    evaluate: (p: { path: Segment[] } & Bounds, d) => {
      const at = atPath(d, p.path);
      if (!at.ok) return at.outcome;
      if (typeof at.value !== "number") return fail("NOT_A_NUMBER", `found a ${typeOf(at.value)}`);
      if (p.min !== undefined && at.value < p.min) return fail("BELOW_MIN", `required ${describeBounds(p)}`);
      if (p.max !== undefined && at.value > p.max) return fail("ABOVE_MAX", `required ${describeBounds(p)}`);
      return pass("IN_RANGE", `required ${describeBounds(p)}`);
    },
  },
  numeric_close: {
    rule: "numeric_close: the value at `path` (default: the whole deliverable) is a JSON number x with |x - value| <= max(tolerance, relativeTolerance * |value|); tolerance defaults to 1e-9, relativeTolerance to 0",
    reasons: ["WITHIN_TOLERANCE", "OUTSIDE_TOLERANCE", "NOT_A_NUMBER", "NOT_JSON", "PATH_NOT_FOUND"],
    params: {
      properties: { path: PATH, value: NUMBER, tolerance: { type: "number", minimum: 0 }, relativeTolerance: { type: "number", minimum: 0 } },
      required: ["value"],
    },
    prepare: (p) => {
      const target = p.value as number;
      const allowed = Math.max((p.tolerance as number | undefined) ?? 1e-9, ((p.relativeTolerance as number | undefined) ?? 0) * Math.abs(target));
      return { path: pathParam(p), target, allowed };
    },
    evaluate: (p: { path: Segment[]; target: number; allowed: number }, d) => {
      const at = atPath(d, p.path);
      if (!at.ok) return at.outcome;
      if (typeof at.value !== "number") return fail("NOT_A_NUMBER", `found a ${typeOf(at.value)}`);
      return Math.abs(at.value - p.target) <= p.allowed ? pass("WITHIN_TOLERANCE", `allowed difference ${p.allowed}`) : fail("OUTSIDE_TOLERANCE", `allowed difference ${p.allowed}`);
    },
  },
  array_length: {
    rule: "array_length: the value at `path` (default: the whole deliverable) is a JSON array whose length meets every given bound (equals, min, max; inclusive)",
    reasons: ["LENGTH_IN_RANGE", "LENGTH_NOT_EQUAL", "LENGTH_BELOW_MIN", "LENGTH_ABOVE_MAX", "NOT_AN_ARRAY", "NOT_JSON", "PATH_NOT_FOUND"],
    params: { properties: { path: PATH, ...LENGTH_PARAMS.properties }, anyOf: LENGTH_PARAMS.anyOf },
    prepare: (p) => ({ path: pathParam(p), ...bounds(p) }),
    evaluate: (p: { path: Segment[] } & Bounds, d) => {
      const at = atPath(d, p.path);
      if (!at.ok) return at.outcome;
      if (!Array.isArray(at.value)) return fail("NOT_AN_ARRAY", `found a ${typeOf(at.value)}`);
      return lengthOutcome(at.value.length, p, "length");
    },
  },
  unique_values: {
    rule: "unique_values: the value at `path` (default: the whole deliverable) is a JSON array whose elements (or each element's value at `key`) are pairwise distinct JSON values (compared as canonical JSON)",
    reasons: ["ALL_UNIQUE", "DUPLICATE_FOUND", "ELEMENT_KEY_MISSING", "NOT_AN_ARRAY", "NOT_JSON", "PATH_NOT_FOUND"],
    params: { properties: { path: PATH, key: PATH } },
    prepare: (p) => ({ path: pathParam(p), key: p.key === undefined ? null : pathParam(p, "key") }),
    evaluate: (p: { path: Segment[]; key: Segment[] | null }, d) => {
      const at = atPath(d, p.path);
      if (!at.ok) return at.outcome;
      if (!Array.isArray(at.value)) return fail("NOT_AN_ARRAY", `found a ${typeOf(at.value)}`);
      const seen = new Map<string, number>();
      for (let i = 0; i < at.value.length; i++) {
        let v: unknown = at.value[i];
        if (p.key) {
          const r = resolvePath(v, p.key);
          if (!r.found) return fail("ELEMENT_KEY_MISSING", `element ${i} has nothing at key`);
          v = r.value;
        }
        const c = canonicalJson(v);
        const prior = seen.get(c);
        if (prior !== undefined) return fail("DUPLICATE_FOUND", `element ${i} repeats element ${prior}`);
        seen.set(c, i);
      }
      return pass("ALL_UNIQUE", `${at.value.length} elements`);
    },
  },
  x402_valid: {
    rule: "x402_valid: the value at `path` (default: the whole deliverable; a string is read as the base64 header form) is a valid x402 `artifact` (default payment_required, read by the catalog's x402 reading checks C1-C3; payment_requirements and payment_payload by @x402/core's schemas); structure only, nothing is signed, sent or settled",
    reasons: ["X402_VALID", "X402_INVALID", "NOT_JSON", "PATH_NOT_FOUND"],
    params: { properties: { path: PATH, artifact: { enum: [...ARTIFACTS] } } },
    prepare: (p) => ({ path: pathParam(p), artifact: (p.artifact as Artifact | undefined) ?? "payment_required" }),
    evaluate: (p: { path: Segment[]; artifact: Artifact }, d) => {
      const at = atPath(d, p.path);
      if (!at.ok) return at.outcome;
      const v = artifactValue(at.value);
      if (!v.ok) return fail("X402_INVALID", "a string that is not base64 of JSON");
      const problems = x402Problems(p.artifact, v.value);
      return problems.length === 0 ? pass("X402_VALID", p.artifact) : fail("X402_INVALID", `${p.artifact}: ${problems.slice(0, 5).join("; ")}${problems.length > 5 ? `; and ${problems.length - 5} more` : ""}`);
    },
  },
  claims_consistent: {
    rule: "claims_consistent: every claim made about the deliverable (kind, byteLength, charLength, lineCount, sha256, keccak256, isJson, and jsonPaths: the value claimed at each path) agrees with the exact bytes evaluated",
    reasons: ["CLAIMS_CONSISTENT", "CLAIMS_INCONSISTENT"],
    params: {
      properties: {
        claims: {
          type: "object",
          additionalProperties: false,
          minProperties: 1,
          properties: {
            kind: { enum: ["text", "json", "bytes"] },
            byteLength: COUNT,
            charLength: COUNT,
            lineCount: COUNT,
            sha256: HEX256,
            keccak256: HEX256,
            isJson: { type: "boolean" },
            jsonPaths: { type: "object", minProperties: 1, maxProperties: 64, propertyNames: { maxLength: 512 } },
          },
        },
      },
      required: ["claims"],
    },
    prepare: (p) => {
      const c = p.claims as Params;
      const out: Claims = { ...(c as Claims) };
      if (c.sha256 !== undefined) out.sha256 = (c.sha256 as string).toLowerCase().replace(/^0x/, "");
      if (c.keccak256 !== undefined) out.keccak256 = (c.keccak256 as string).toLowerCase().replace(/^0x/, "");
      if (c.jsonPaths !== undefined) {
        out.jsonPaths = Object.entries(c.jsonPaths as Params).map(([path, value]) => {
          try {
            return { path, segments: parsePath(path), canonical: canonicalJson(value) };
          } catch (e) {
            if (e instanceof PathError) throw new ParamError(`/claims/jsonPaths/${path.replace(/~/g, "~0").replace(/\//g, "~1")}`, e.message);
            throw e;
          }
        });
      }
      return out;
    },
    evaluate: (c: Claims, d) => {
      const wrong: string[] = [];
      const checked: string[] = [];
      const claim = (name: string, holds: boolean) => {
        checked.push(name);
        if (!holds) wrong.push(name);
      };
      if (c.kind !== undefined) claim("kind", c.kind === d.kind);
      if (c.byteLength !== undefined) claim("byteLength", c.byteLength === d.bytes.length);
      if (c.charLength !== undefined) claim("charLength", d.text !== null && c.charLength === charLength(d.text));
      if (c.lineCount !== undefined) claim("lineCount", d.text !== null && c.lineCount === lineCount(d.text));
      if (c.sha256 !== undefined) claim("sha256", c.sha256 === d.sha256);
      if (c.keccak256 !== undefined) claim("keccak256", c.keccak256 === d.keccak256.slice(2));
      if (c.isJson !== undefined) claim("isJson", c.isJson === d.json.ok);
      for (const [i, jp] of (c.jsonPaths ?? []).entries()) {
        const r = d.json.ok ? resolvePath(d.json.value, jp.segments) : { found: false as const };
        claim(`jsonPaths[${i}]`, r.found && canonicalJson(r.value) === jp.canonical);
      }
      return wrong.length === 0 ? pass("CLAIMS_CONSISTENT", `${checked.length} claims checked`) : fail("CLAIMS_INCONSISTENT", `${wrong.length} of ${checked.length} claims disagree: ${wrong.join(", ")}`);
    },
  },
  statement: {
    rule: "statement: a requirement in words; the program does not judge words, so a statement criterion is always INCONCLUSIVE",
    reasons: ["STATEMENT_NOT_MACHINE_CHECKABLE"],
    params: { properties: {}, required: ["requirement"] },
    prepare: () => null,
    evaluate: () => ({ result: "INCONCLUSIVE", reason: "STATEMENT_NOT_MACHINE_CHECKABLE" }),
  },
};

/** The reason a check that threw gets (never expected; the verdict stays honest if it happens). */
export const EVALUATION_ERROR = "EVALUATION_ERROR";

export function runCheck(check: CheckName, prepared: unknown, d: Evaluated): Outcome {
  try {
    return MENU[check].evaluate(prepared, d);
  } catch {
    return { result: "INCONCLUSIVE", reason: EVALUATION_ERROR, detail: "the check could not finish over this deliverable" };
  }
}

/** What the registry root is the hash of: every check's name, rule, reasons and parameter schema. */
export function registryDescriptor() {
  return CHECKS.map((name) => ({ check: name, rule: MENU[name].rule, reasons: [...MENU[name].reasons, EVALUATION_ERROR], params: MENU[name].params }));
}

export { CLAIM_KEYS };
