/**
 * What the paid routes publish in their bazaar extension: the output schemas, and one example per
 * op, input and output. The examples are proven: examples.test.ts computes each output from its
 * input at its stated instant with logic.ts, and the paid test on anvil gets the validity example's
 * output from the live service for the example input.
 */
import { VERDICTS, MACHINERY_STATUSES, NOT_ESTABLISHABLE, type UptoStatement, type ValidityAnalysis } from "./logic";

const JSON_SCHEMA = "https://json-schema.org/draft/2020-12/schema";

const ENVELOPE_PROPERTIES = {
  service: { const: "validity-check" },
  version: { const: "1.0.0" },
  criteria_id: { const: "payer-preflight/v1" },
  criteria_revision: { const: "1.0.0" },
};
const ENVELOPE_REQUIRED = ["service", "version", "criteria_id", "criteria_revision", "op"];

export const UPTO_OUTPUT_SCHEMA = {
  $schema: JSON_SCHEMA,
  type: "object",
  required: [
    ...ENVELOPE_REQUIRED,
    "issued_at_unix",
    "issued_at",
    "scheme",
    "network",
    "network_kind",
    "payTo",
    "asset",
    "maximum_signable_atomic",
    "asset_decimals",
    "maximum_signable_decimal",
    "permit2_allowance_sufficient",
    "facilitator_sponsors_approval",
    "machinery_status",
    "settlement_property",
    "not_establishable",
  ],
  additionalProperties: false,
  properties: {
    ...ENVELOPE_PROPERTIES,
    op: { const: "upto" },
    issued_at_unix: { type: "integer" },
    issued_at: { type: "string" },
    scheme: { const: "upto" },
    network: { type: "string" },
    network_kind: { enum: ["evm", "svm", "other"] },
    payTo: { type: "string" },
    asset: { type: "string" },
    maximum_signable_atomic: { type: "string", pattern: "^[0-9]+$" },
    asset_decimals: { anyOf: [{ type: "integer", minimum: 0, maximum: 18 }, { const: NOT_ESTABLISHABLE }] },
    maximum_signable_decimal: { anyOf: [{ type: "string", pattern: "^[0-9]+(?:\\.[0-9]+)?$" }, { const: NOT_ESTABLISHABLE }] },
    permit2_allowance_sufficient: { anyOf: [{ type: "boolean" }, { const: NOT_ESTABLISHABLE }] },
    facilitator_sponsors_approval: { anyOf: [{ type: "boolean" }, { const: NOT_ESTABLISHABLE }] },
    machinery_status: { enum: [...MACHINERY_STATUSES] },
    settlement_property: { type: "string" },
    not_establishable: { type: "array", items: { type: "string" } },
  },
};

const VALIDITY_COMMON_REQUIRED = [...ENVELOPE_REQUIRED, "rail", "evaluation_instant_unix", "evaluation_instant", "evaluation_instant_source", "threshold", "verdict", "guidance"];
const VALIDITY_COMMON_PROPERTIES = {
  ...ENVELOPE_PROPERTIES,
  op: { const: "validity" },
  evaluation_instant_unix: { type: "integer", minimum: 0 },
  evaluation_instant: { type: "string" },
  evaluation_instant_source: { enum: ["submitted", "server-time"] },
  threshold: { type: "object", required: ["unit", "tight_max_remaining", "rule"] },
  verdict: { enum: [...VERDICTS] },
  guidance: { type: "string" },
};

export const VALIDITY_OUTPUT_SCHEMA = {
  $schema: JSON_SCHEMA,
  type: "object",
  oneOf: [
    {
      type: "object",
      required: [...VALIDITY_COMMON_REQUIRED, "valid_before", "remaining_seconds"],
      additionalProperties: false,
      properties: { ...VALIDITY_COMMON_PROPERTIES, rail: { const: "evm" }, valid_before: { type: "integer" }, remaining_seconds: { type: "integer" } },
    },
    {
      type: "object",
      required: [...VALIDITY_COMMON_REQUIRED, "last_valid_block_height", "current_block_height", "remaining_slots", "approximate_remaining_seconds", "approximate_remaining_seconds_label"],
      additionalProperties: false,
      properties: {
        ...VALIDITY_COMMON_PROPERTIES,
        rail: { const: "svm" },
        last_valid_block_height: { type: "integer" },
        current_block_height: { type: "integer" },
        remaining_slots: { type: "integer" },
        approximate_remaining_seconds: { type: "string", pattern: "^-?[0-9]+\\.[0-9]$" },
        approximate_remaining_seconds_label: { type: "string" },
      },
    },
  ],
};

/** The upto example: Base USDC, a 1 USDC ceiling, decimals stated, the Permit2 allowance stated short and approval sponsored. */
export const UPTO_EXAMPLE_INPUT = {
  challenge: {
    scheme: "upto",
    network: "eip155:8453",
    payTo: "0x209693Bc6afc0C5328bA36FaF03C514EF312287C",
    asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
    max_amount_required: "1000000",
    asset_decimals: 6,
    permit2_allowance_sufficient: false,
    facilitator_sponsors_approval: true,
  },
} as const;
/** The instant the upto example's statement was issued (it only dates the statement). */
export const UPTO_EXAMPLE_ISSUED_AT_UNIX = 1796212700;

export const UPTO_EXAMPLE_OUTPUT: UptoStatement = {
  service: "validity-check",
  version: "1.0.0",
  criteria_id: "payer-preflight/v1",
  criteria_revision: "1.0.0",
  op: "upto",
  issued_at_unix: 1796212700,
  issued_at: "2026-12-02T11:58:20.000Z",
  scheme: "upto",
  network: "eip155:8453",
  network_kind: "evm",
  payTo: "0x209693Bc6afc0C5328bA36FaF03C514EF312287C",
  asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
  maximum_signable_atomic: "1000000",
  asset_decimals: 6,
  maximum_signable_decimal: "1.000000",
  permit2_allowance_sufficient: false,
  facilitator_sponsors_approval: true,
  machinery_status: "APPROVAL-SPONSORED-BY-FACILITATOR",
  settlement_property:
    "ONE-SIGNATURE-ONE-SETTLEMENT: under the upto scheme one payer signature authorizes one settlement, of any amount up to maximum_signable_atomic and never more; the signed authorization's nonce is spent by that settlement, so a further settlement needs a new signature.",
  not_establishable: [],
};

/** The validity example: an EVM payload 100 s from its validBefore at the stated instant. */
export const VALIDITY_EXAMPLE_INPUT = { payload: { rail: "evm", valid_before: 1796212800 }, evaluation_at_unix: 1796212700 } as const;

export const VALIDITY_EXAMPLE_OUTPUT: ValidityAnalysis = {
  service: "validity-check",
  version: "1.0.0",
  criteria_id: "payer-preflight/v1",
  criteria_revision: "1.0.0",
  op: "validity",
  evaluation_instant_unix: 1796212700,
  evaluation_instant: "2026-12-02T11:58:20.000Z",
  evaluation_instant_source: "submitted",
  rail: "evm",
  valid_before: 1796212800,
  remaining_seconds: 100,
  threshold: { unit: "seconds", tight_max_remaining: 60, rule: "STALE when remaining <= 0; TIGHT when 0 < remaining <= 60; OK when remaining > 60." },
  verdict: "OK",
  guidance:
    "OK — the payload remains valid at the stated evaluation instant. Submit promptly: validity is still bounded by the printed expiry, and this verdict does not extend it.",
};
