/**
 * The OpenAPI 3.1 document the service publishes at `GET /openapi.json`, beside its criteria
 * document. The criteria document (docs/spec/products.md "Validity-check criteria document") states
 * the input contract in prose and publishes no example; a catalog or buyer that reads it cannot
 * call a paid op, because a body that is not well-formed is refused free before any 402
 * (docs/spec/products.md "Validity-check malformed rule"). This document is where the seller states
 * the same contract as data: each route's request schema (contract.ts), response schema and the
 * published example (examples.ts, the same values the 402's bazaar extension carries). The price is
 * not restated here: the 402 is authoritative for it.
 */
import criteriaDocument from "./criteria.json";
import { PRECHECK_INPUT_SCHEMA, UPTO_INPUT_SCHEMA, VALIDITY_INPUT_SCHEMA } from "./contract";
import { UPTO_EXAMPLE_INPUT, UPTO_OUTPUT_SCHEMA, VALIDITY_EXAMPLE_INPUT, VALIDITY_OUTPUT_SCHEMA } from "./examples";

const json = (schema: object, example?: unknown) => ({ "application/json": { schema, ...(example !== undefined ? { example } : {}) } });
const REFUSAL = { description: "A free refusal, before any payment: the malformed rule's named code and the JSON pointer of the field it is about.", content: json({ type: "object", required: ["refusal"] }) };
const TOO_LARGE = { description: "The body is over 262,144 bytes (free, before anything else).", content: json({ type: "object", required: ["refusal", "cap_bytes"] }) };

export const OPENAPI_PATH = "/openapi.json";

export function openApiDocument(): Record<string, unknown> {
  const paid = (op: "upto" | "validity", description: string, input: object, example: unknown, output: object) => ({
    post: {
      operationId: op,
      description,
      requestBody: { required: true, content: json(input, example) },
      responses: {
        "200": { description: `The ${op} delivery, released after the payment settled.`, content: json(output) },
        "400": REFUSAL,
        "402": { description: "Payment Required: an x402 v2 offer (exact scheme, USDC) in PAYMENT-REQUIRED, with the bazaar extension carrying this schema and example." },
        "413": TOO_LARGE,
      },
    },
  });
  return {
    openapi: "3.1.0",
    info: { title: criteriaDocument.service, version: criteriaDocument.version, description: criteriaDocument.boundary_statement },
    paths: {
      "/criteria": {
        get: {
          operationId: "criteria",
          description: "The published criteria document (payer-preflight/v1, revision 1.0.0): the input contract, price, free tier, thresholds and custody rules.",
          responses: { "200": { description: "The criteria document, byte for byte.", content: json({ type: "object", required: ["criteria_id", "criteria_revision", "endpoints"] }) } },
        },
      },
      "/precheck": {
        post: {
          operationId: "precheck",
          description: "input validation + assessability only: no ceiling statement, no time remaining, no verdict",
          requestBody: { required: true, content: json(PRECHECK_INPUT_SCHEMA, { op: "validity", ...VALIDITY_EXAMPLE_INPUT }) },
          responses: {
            "200": { description: "assessable: true, with the artefact's facts.", content: json({ type: "object", required: ["assessable"] }) },
            "400": REFUSAL,
            "402": { description: "The free allowance (100 a day per caller wallet, at least 5,000 ms apart) is spent; not an x402 offer." },
            "413": TOO_LARGE,
          },
        },
      },
      "/upto": paid("upto", "signed ceiling-exposure statement", UPTO_INPUT_SCHEMA, UPTO_EXAMPLE_INPUT, UPTO_OUTPUT_SCHEMA),
      "/validity": paid("validity", "signed validity analysis at a stated evaluation instant", VALIDITY_INPUT_SCHEMA, VALIDITY_EXAMPLE_INPUT, VALIDITY_OUTPUT_SCHEMA),
      "/metrics": {
        get: {
          operationId: "metrics",
          description: "Prometheus counters over closed label sets: requests by route and status, refusals by code, settled deliveries by op, verdicts, machinery statuses.",
          responses: { "200": { description: "Prometheus text exposition.", content: { "text/plain": { schema: { type: "string" } } } } },
        },
      },
    },
  };
}
