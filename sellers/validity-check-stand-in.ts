/**
 * The validity-check criteria document (docs/spec/products.md; payer-preflight/v1): GET /criteria and POST /precheck free, POST /upto
 * and POST /validity paid $0.01 (10000 atomic USDC) on Base. The 402 travels in the header only,
 * with the coinbase bazaar reading (no foundation-only fields), so it differs from agent-verdict
 * in exactly the ways real sellers differ.
 */
import type { PaymentRequired } from "@x402/core/types";
import type { FixtureEndpoint, FixtureSeller, SellerRequest } from "./types";
import { BASE, bazaarExtension, fixturePayTo, operations, usdcAccept } from "./common";
import { makeLogoSvg } from "./images";
import { parseJsonBody, sendJson, sendX402 } from "./respond";

const PAY_TO = fixturePayTo("validity-check");
const PRICE_ATOMIC = "10000"; // the validity-check document's price.usdc_units_per_call (docs/spec/products.md)

const CHALLENGE_SCHEMA = {
  type: "object",
  required: ["scheme", "network", "payTo", "asset", "max_amount_required"],
  properties: {
    scheme: { const: "upto" },
    network: { type: "string" },
    payTo: { type: "string" },
    asset: { type: "string" },
    max_amount_required: { type: "string", pattern: "^[0-9]{1,19}$" },
    asset_decimals: { type: "integer", minimum: 0, maximum: 18 },
    permit2_allowance_sufficient: { type: "boolean" },
    facilitator_sponsors_approval: { type: "boolean" },
  },
};
const PAYLOAD_SCHEMA = {
  type: "object",
  required: ["rail"],
  properties: {
    rail: { enum: ["evm", "svm"] },
    valid_before: { type: "integer" },
    last_valid_block_height: { type: "integer" },
    current_block_height: { type: "integer" },
    evaluation_at_unix: { type: "integer", minimum: 0 },
  },
};
export const UPTO_INPUT = { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object", required: ["challenge"], properties: { challenge: CHALLENGE_SCHEMA, caller: { type: "string" } } };
export const VALIDITY_INPUT = { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object", required: ["payload"], properties: { payload: PAYLOAD_SCHEMA, evaluation_at_unix: { type: "integer", minimum: 0 }, caller: { type: "string" } } };
const PRECHECK_INPUT = { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object", required: ["op"], properties: { op: { enum: ["upto", "validity"] }, challenge: CHALLENGE_SCHEMA, payload: PAYLOAD_SCHEMA } };
const STATEMENT_OUTPUT = {
  type: "object",
  required: ["op", "criteria_id", "evaluation_instant_unix"],
  properties: {
    op: { enum: ["upto", "validity"] },
    criteria_id: { const: "payer-preflight/v1" },
    evaluation_instant_unix: { type: "integer" },
    verdict: { enum: ["STALE", "TIGHT", "OK"] },
    maximum_signable_atomic: { type: "string" },
  },
};
const UPTO_EXAMPLE = { challenge: { scheme: "upto", network: BASE, payTo: PAY_TO, asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", max_amount_required: "1000000", asset_decimals: 6 } };
const VALIDITY_EXAMPLE = { payload: { rail: "evm", valid_before: 1796212800 }, evaluation_at_unix: 1796212700 };
const UPTO_OUTPUT_EXAMPLE = { op: "upto", criteria_id: "payer-preflight/v1", evaluation_instant_unix: 1796212700, maximum_signable_atomic: "1000000" };
const VALIDITY_OUTPUT_EXAMPLE = { op: "validity", criteria_id: "payer-preflight/v1", evaluation_instant_unix: 1796212700, verdict: "OK" };

/** The criteria document (an excerpt of the one docs/spec/products.md names: the fields a caller needs to decide). */
const CRITERIA = {
  criteria_id: "payer-preflight/v1",
  criteria_revision: "1.0.0",
  service: "validity-check",
  version: "1.0.0",
  ops: ["upto", "validity"],
  price: { usdc_units_per_call: 10000, label: "$0.01", basis: "per challenge/payload, per op" },
  free_tier: { per_day: 100, min_interval_ms: 5000, on_exhaustion: "402" },
  verdicts: ["STALE", "TIGHT", "OK"],
  tight_thresholds: { evm: { unit: "seconds", tight_max_remaining: 60 }, svm: { unit: "slots", tight_max_remaining: 150 } },
  endpoints: { criteria: "GET /criteria (free)", precheck: "POST /precheck (free)", upto: "POST /upto (paid, $0.01)", validity: "POST /validity (paid, $0.01)" },
};

/** The validity-check document's malformed rule (docs/spec/products.md), the part the free pre-check needs: the first refusal code, or null. */
export function precheckRefusal(body: unknown): string | null {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return "op_required";
  const b = body as Record<string, unknown>;
  if (b.op === undefined) return "op_required";
  if (b.op !== "upto" && b.op !== "validity") return "op_unsupported";
  if (b.op === "upto") {
    const c = b.challenge as Record<string, unknown> | undefined;
    if (typeof c !== "object" || c === null) return "challenge_required";
    if (c.scheme === undefined) return "scheme_required";
    if (c.scheme !== "upto") return "scheme_not_upto";
    if (c.network === undefined) return "network_required";
    if (c.payTo === undefined) return "payto_required";
    if (c.asset === undefined) return "asset_required";
    if (c.max_amount_required === undefined) return "ceiling_required";
    const ceiling = String(c.max_amount_required);
    if (!/^\d+$/.test(ceiling) || BigInt(ceiling) > 10n ** 18n) return "ceiling_malformed";
    if (c.asset_decimals !== undefined && !(Number.isInteger(c.asset_decimals) && (c.asset_decimals as number) >= 0 && (c.asset_decimals as number) <= 18)) return "decimals_malformed";
    return null;
  }
  const p = b.payload as Record<string, unknown> | undefined;
  if (typeof p !== "object" || p === null) return "payload_required";
  if (p.rail === undefined) return "rail_required";
  if (p.rail !== "evm" && p.rail !== "svm") return "rail_unsupported";
  if (p.rail === "evm") {
    if (p.valid_before === undefined) return "valid_before_required";
    if (!Number.isInteger(p.valid_before)) return "valid_before_malformed";
  } else {
    if (p.last_valid_block_height === undefined || p.current_block_height === undefined) return "block_height_required";
    if (!Number.isInteger(p.last_valid_block_height) || !Number.isInteger(p.current_block_height)) return "block_height_malformed";
  }
  return null;
}

function paid(op: "upto" | "validity", input: Record<string, unknown>, example: unknown, outputExample: unknown): FixtureEndpoint["handle"] {
  return ({ res, body, sellerUrl }: SellerRequest) => {
    const parsed = parseJsonBody(body);
    // The validity-check document (docs/spec/products.md): a malformed artefact fails free, before any payment.
    const refusal = parsed.ok ? precheckRefusal({ ...(parsed.value as object), op }) : "payload_required";
    if (refusal) {
      sendJson(res, 400, { error: "malformed", refusal });
      return;
    }
    const pr: PaymentRequired = {
      x402Version: 2,
      resource: { url: `${sellerUrl}/${op}`, description: `validity-check ${op}: $0.01 per ${op === "upto" ? "challenge" : "payload"}`, mimeType: "application/json" },
      accepts: [usdcAccept(BASE, PRICE_ATOMIC, PAY_TO, 120)],
      extensions: bazaarExtension("POST", `/${op}`, {
        bodyType: "json",
        input: example as Record<string, unknown>,
        inputSchema: input,
        output: { example: outputExample, schema: STATEMENT_OUTPUT },
      }) as Record<string, unknown>,
    };
    sendX402(res, pr, "none");
  };
}

const pricing = {
  label: "$0.01 per call",
  usd: "0.01",
  machine: { amount: PRICE_ATOMIC, asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", network: BASE, decimals: 6 },
  mode: "fixed" as const,
  dynamic: null,
};

export const validityCheck: FixtureSeller = {
  slug: "validity-check",
  purpose: "Seed 003 as published: free GET/POST routes beside two paid x402 v2 routes (header only, coinbase bazaar reading).",
  title: "Validity check: is this x402 payload still safe to submit?",
  shortDescription: "Pre-flight checks for payers: the upto ceiling you sign and the time left on a signed payload.",
  description:
    "validity-check reads a payer's own submitted challenge or payload and states, at a printed evaluation instant, the maximum signable amount of an upto challenge or the time remaining on a signed payload with a STALE, TIGHT or OK verdict. It never signs, submits or broadcasts anything.",
  category: "payments",
  protocols: ["x402"],
  networks: [BASE],
  operations: operations({ limits: "Free pre-check: 100 per day per caller wallet, at least 5,000 ms apart; 402 on exhaustion." }),
  walkthrough: "Check the artefact free with POST /precheck; POST it to /upto or /validity unpaid to get the 402; pay $0.01 in Base USDC with the exact scheme; retry with PAYMENT-SIGNATURE.",
  logo: { file: "logo.svg", contentType: "image/svg+xml", bytes: makeLogoSvg("V", "#1d7a4f") },
  docs: true,
  discovery: { wellKnown: true, openapi: true },
  endpoints: [
    {
      method: "GET", path: "/criteria", summary: "The published criteria", description: "The criteria document: ops, price, thresholds and verdicts (free).",
      payable: false, requestSchema: null, noParameters: true, responseSchema: { type: "object", required: ["criteria_id"] }, requestExample: null, pricing: null,
      handle: ({ res }) => sendJson(res, 200, CRITERIA),
    },
    {
      method: "POST", path: "/precheck", summary: "Free pre-check", description: "Validates an artefact's shape for an op and returns assessability only: no ceiling, no time remaining, no verdict (free).",
      payable: false, requestSchema: PRECHECK_INPUT, responseSchema: { type: "object", required: ["assessable"] }, requestExample: { op: "upto", ...UPTO_EXAMPLE }, pricing: null,
      handle({ res, body }) {
        const parsed = parseJsonBody(body);
        const refusal = parsed.ok ? precheckRefusal(parsed.value) : "op_required";
        if (refusal) sendJson(res, 400, { assessable: false, refusal });
        else sendJson(res, 200, { assessable: true, op: (parsed as { value: { op: string } }).value.op, criteria_id: "payer-preflight/v1" });
      },
    },
    {
      method: "POST", path: "/upto", summary: "Ceiling-exposure statement", description: "The maximum signable amount of one upto challenge, exactly as stated, with its decimal rendering and machinery status ($0.01).",
      payable: true, requestSchema: UPTO_INPUT, responseSchema: STATEMENT_OUTPUT, requestExample: UPTO_EXAMPLE, pricing,
      handle: paid("upto", UPTO_INPUT, UPTO_EXAMPLE, UPTO_OUTPUT_EXAMPLE),
    },
    {
      method: "POST", path: "/validity", summary: "Validity analysis", description: "Time remaining on one signed payload at a stated evaluation instant, with a STALE, TIGHT or OK verdict ($0.01).",
      payable: true, requestSchema: VALIDITY_INPUT, responseSchema: STATEMENT_OUTPUT, requestExample: VALIDITY_EXAMPLE, pricing,
      handle: paid("validity", VALIDITY_INPUT, VALIDITY_EXAMPLE, VALIDITY_OUTPUT_EXAMPLE),
    },
  ],
};
