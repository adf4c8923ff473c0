/**
 * The validity-check input contract as JSON Schema (docs/spec/products.md "Validity-check input
 * contract"), checked with ajv, and ajv's errors mapped onto the named refusal codes of
 * docs/spec/products.md "Validity-check malformed rule". The schemas are also the input schemas the
 * paid routes' bazaar extension publishes.
 *
 * A refusal names a code and the JSON pointer of the field it is about, both static strings: no
 * part of the submitted artefact ever enters a refusal (docs/spec/products.md "Validity-check
 * custody": "static strings plus numeric facts only").
 *
 * Where the text leaves room, docs/VALIDITY-CHECK.md "Readings" says how it is read here: required
 * strings must be non-empty strings, integers must be exact in JSON (safe integers, non-negative),
 * and an evaluation instant must be one an ISO timestamp can print.
 */
import Ajv2020, { type ErrorObject, type ValidateFunction } from "ajv/dist/2020";

/** 10^18: the ceiling cap (docs/spec/products.md "Validity-check caps"). */
export const CEILING_CAP = 10n ** 18n;
/** The largest instant an ISO timestamp can print (ECMAScript's time range), in unix seconds. */
export const MAX_EVALUATION_UNIX = 8_640_000_000_000;

const JSON_SCHEMA = "https://json-schema.org/draft/2020-12/schema";
const WALLET = "^(?:0x[0-9a-fA-F]{40}|[1-9A-HJ-NP-Za-km-z]{32,44})$";
const REQUIRED_STRING = { type: "string", minLength: 1 };
/** An unsigned integer JSON holds exactly. */
const UINT = { type: "integer", minimum: 0, maximum: Number.MAX_SAFE_INTEGER };
const EVALUATION_AT = { type: "integer", minimum: 0, maximum: MAX_EVALUATION_UNIX, description: "The evaluation instant, unix seconds." };

const CHALLENGE_SCHEMA = {
  type: "object",
  description: "The upto challenge as the seller offered it.",
  required: ["scheme", "network", "payTo", "asset", "max_amount_required"],
  properties: {
    scheme: { const: "upto" },
    network: { ...REQUIRED_STRING, description: "CAIP-2 network, e.g. eip155:8453." },
    payTo: REQUIRED_STRING,
    asset: REQUIRED_STRING,
    max_amount_required: {
      description: "The ceiling in atomic units: a digit string or a safe integer, at most 10^18.",
      anyOf: [
        { type: "string", pattern: "^0*(?:[0-9]{1,18}|10{18})$" },
        { type: "integer", minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
      ],
    },
    asset_decimals: { type: "integer", minimum: 0, maximum: 18 },
    permit2_allowance_sufficient: { type: "boolean" },
    facilitator_sponsors_approval: { type: "boolean" },
  },
};

const PAYLOAD_SCHEMA = {
  type: "object",
  description: "The signed payload's validity fields.",
  required: ["rail"],
  properties: {
    rail: { enum: ["evm", "svm"] },
    evaluation_at_unix: EVALUATION_AT,
  },
  allOf: [
    {
      if: { required: ["rail"], properties: { rail: { const: "evm" } } },
      then: { required: ["valid_before"], properties: { valid_before: { ...UINT, description: "validBefore, unix seconds." } } },
    },
    {
      if: { required: ["rail"], properties: { rail: { const: "svm" } } },
      then: { required: ["last_valid_block_height", "current_block_height"], properties: { last_valid_block_height: UINT, current_block_height: UINT } },
    },
  ],
};

/** caller is read by the free pre-check only (its allowance is counted per caller wallet); the paid ops ignore it. */
const CALLER = { type: "string", pattern: WALLET, description: "The caller's wallet (free pre-check only: the free allowance is counted per caller wallet)." };

export const UPTO_INPUT_SCHEMA = {
  $schema: JSON_SCHEMA,
  type: "object",
  required: ["challenge"],
  properties: { challenge: CHALLENGE_SCHEMA },
};

export const VALIDITY_INPUT_SCHEMA = {
  $schema: JSON_SCHEMA,
  type: "object",
  required: ["payload"],
  properties: { payload: PAYLOAD_SCHEMA, evaluation_at_unix: EVALUATION_AT },
};

export const PRECHECK_INPUT_SCHEMA = {
  $schema: JSON_SCHEMA,
  type: "object",
  required: ["op"],
  properties: { op: { enum: ["upto", "validity"] }, caller: CALLER, challenge: CHALLENGE_SCHEMA, payload: PAYLOAD_SCHEMA, evaluation_at_unix: EVALUATION_AT },
};

export type Op = "upto" | "validity";

export interface UptoChallenge {
  scheme: "upto";
  network: string;
  payTo: string;
  asset: string;
  max_amount_required: string | number;
  asset_decimals?: number;
  permit2_allowance_sufficient?: boolean;
  facilitator_sponsors_approval?: boolean;
}
export interface UptoInput {
  challenge: UptoChallenge;
}
export interface ValidityPayload {
  rail: "evm" | "svm";
  valid_before?: number;
  last_valid_block_height?: number;
  current_block_height?: number;
  evaluation_at_unix?: number;
}
export interface ValidityInput {
  payload: ValidityPayload;
  evaluation_at_unix?: number;
}

export const REFUSAL_CODES = [
  "challenge_required",
  "scheme_required",
  "scheme_not_upto",
  "network_required",
  "payto_required",
  "asset_required",
  "ceiling_required",
  "ceiling_malformed",
  "decimals_malformed",
  "machinery_flag_malformed",
  "payload_required",
  "rail_required",
  "rail_unsupported",
  "evaluation_at_malformed",
  "valid_before_required",
  "valid_before_malformed",
  "block_height_required",
  "block_height_malformed",
  "op_required",
  "op_unsupported",
  "caller_malformed",
] as const;
export type RefusalCode = (typeof REFUSAL_CODES)[number];

export interface Refusal {
  refusal: RefusalCode;
  /** The JSON pointer of the field the refusal is about ("" for the body itself). */
  pointer: string;
}
export type Checked<T> = { ok: true; value: T } | ({ ok: false } & Refusal);

/**
 * Each ajv error reduced to a place and a kind: `<pointer>:missing` for a required member that is
 * absent, `<pointer>:invalid` for a value present and wrong. In the malformed rule's order: the
 * first one present in a body's errors is the refusal.
 */
const UPTO_RULES: [string, RefusalCode][] = [
  [":invalid", "challenge_required"],
  ["/challenge:missing", "challenge_required"],
  ["/challenge:invalid", "challenge_required"],
  ["/challenge/scheme:missing", "scheme_required"],
  ["/challenge/scheme:invalid", "scheme_not_upto"],
  ["/challenge/network:missing", "network_required"],
  ["/challenge/network:invalid", "network_required"],
  ["/challenge/payTo:missing", "payto_required"],
  ["/challenge/payTo:invalid", "payto_required"],
  ["/challenge/asset:missing", "asset_required"],
  ["/challenge/asset:invalid", "asset_required"],
  ["/challenge/max_amount_required:missing", "ceiling_required"],
  ["/challenge/max_amount_required:invalid", "ceiling_malformed"],
  ["/challenge/asset_decimals:invalid", "decimals_malformed"],
  ["/challenge/permit2_allowance_sufficient:invalid", "machinery_flag_malformed"],
  ["/challenge/facilitator_sponsors_approval:invalid", "machinery_flag_malformed"],
];

const VALIDITY_RULES: [string, RefusalCode][] = [
  [":invalid", "payload_required"],
  ["/payload:missing", "payload_required"],
  ["/payload:invalid", "payload_required"],
  ["/payload/rail:missing", "rail_required"],
  ["/payload/rail:invalid", "rail_unsupported"],
  ["/evaluation_at_unix:invalid", "evaluation_at_malformed"],
  ["/payload/evaluation_at_unix:invalid", "evaluation_at_malformed"],
  ["/payload/valid_before:missing", "valid_before_required"],
  ["/payload/valid_before:invalid", "valid_before_malformed"],
  ["/payload/last_valid_block_height:missing", "block_height_required"],
  ["/payload/current_block_height:missing", "block_height_required"],
  ["/payload/last_valid_block_height:invalid", "block_height_malformed"],
  ["/payload/current_block_height:invalid", "block_height_malformed"],
];

const PRECHECK_RULES: [string, RefusalCode][] = [
  [":invalid", "op_required"],
  ["/op:missing", "op_required"],
  ["/op:invalid", "op_unsupported"],
  ["/caller:invalid", "caller_malformed"],
];

const ajv = new Ajv2020({ allErrors: true, strict: false });
const validateUptoBody = ajv.compile(UPTO_INPUT_SCHEMA);
const validateValidityBody = ajv.compile(VALIDITY_INPUT_SCHEMA);
/** The pre-check's own members (op, caller); the artefact is then checked under its op's contract. */
const validatePrecheckEnvelope = ajv.compile({
  $schema: JSON_SCHEMA,
  type: "object",
  required: ["op"],
  properties: { op: { enum: ["upto", "validity"] }, caller: CALLER },
});

function keyOf(e: ErrorObject): string | null {
  // Conditional branches (if/then) and combinators report again on the member that failed; those
  // reports carry the information, the wrappers do not.
  if (e.keyword === "if") return null;
  if (e.keyword === "required") return `${e.instancePath}/${(e.params as { missingProperty: string }).missingProperty}:missing`;
  return `${e.instancePath}:invalid`;
}

function firstRefusal(errors: ErrorObject[], rules: [string, RefusalCode][]): Refusal {
  const keys = new Set(errors.map(keyOf).filter((k): k is string => k !== null));
  for (const [key, refusal] of rules) if (keys.has(key)) return { refusal, pointer: key.slice(0, key.lastIndexOf(":")) };
  // Every schema keyword above has a rule; an error without one is this module's bug, not the caller's.
  throw new Error("validity-check contract: an ajv error without a refusal rule");
}

function check<T>(validate: ValidateFunction, rules: [string, RefusalCode][], body: unknown): Checked<T> {
  if (validate(body)) return { ok: true, value: body as T };
  return { ok: false, ...firstRefusal(validate.errors ?? [], rules) };
}

/** The upto body `{ challenge, caller? }` under the contract. `undefined` stands for no body (or one that is not JSON). */
export function checkUpto(body: unknown): Checked<UptoInput> {
  return check<UptoInput>(validateUptoBody, UPTO_RULES, body);
}

/** The validity body `{ payload, evaluation_at_unix?, caller? }` under the contract. */
export function checkValidity(body: unknown): Checked<ValidityInput> {
  return check<ValidityInput>(validateValidityBody, VALIDITY_RULES, body);
}

export type PrecheckInput = { op: "upto"; input: UptoInput } | { op: "validity"; input: ValidityInput };

/** The pre-check body: op (and caller) first, then the artefact under the named op's contract. */
export function checkPrecheck(body: unknown): Checked<PrecheckInput> & { op: Op | null } {
  const envelope = check<{ op: Op }>(validatePrecheckEnvelope, PRECHECK_RULES, body);
  if (!envelope.ok) {
    const op = envelope.refusal === "caller_malformed" ? (body as { op: Op }).op : null;
    return { ...envelope, op };
  }
  const op = envelope.value.op;
  if (op === "upto") {
    const r = checkUpto(body);
    return r.ok ? { ok: true, op, value: { op, input: r.value } } : { ...r, op };
  }
  const r = checkValidity(body);
  return r.ok ? { ok: true, op, value: { op, input: r.value } } : { ...r, op };
}

/** The caller wallet a pre-check names, normalised (EVM addresses are case-insensitive), or null. */
export function callerWallet(body: unknown): string | null {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return null;
  const caller = (body as { caller?: unknown }).caller;
  if (typeof caller !== "string" || !new RegExp(WALLET).test(caller)) return null;
  return caller.startsWith("0x") ? caller.toLowerCase() : caller;
}
