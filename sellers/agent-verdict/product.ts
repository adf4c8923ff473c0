/**
 * The agent-verdict product as its document publishes it (docs/spec/products.md "Agent verdict
 * product", kept verbatim in lib/scoring/readiness/fixtures/seed-products/002-agent-verdict.json):
 * the input and output schemas are served and enforced exactly as written there, and the example
 * request its summary publishes is the bazaar example. Nothing here restates a schema by hand.
 */
import document from "@/lib/scoring/readiness/fixtures/seed-products/002-agent-verdict.json";

export const PRODUCT_DOCUMENT: Readonly<Record<string, unknown>> = document;
export const PRODUCT_ID = "AGENT_VERDICT";
export const PRODUCT_VERSION = "1.0.0";
export const RESOURCE_PATH = "/api/x402/AGENT_VERDICT";
export const DOCS_PATH = "/docs/AGENT_VERDICT.json";
/** Where the receipt-signing public keys are published (docs/AGENT-VERDICT.md "Signature"). */
export const KEYS_PATH = "/.well-known/agent-verdict-keys.json";

/** The document's inputSchema and outputSchema, verbatim. */
export const INPUT_SCHEMA = document.inputSchema as Record<string, unknown>;
export const OUTPUT_SCHEMA = document.outputSchema as Record<string, unknown>;

/** The deliverable limit and criteria bounds the input schema's descriptions state. */
export const MAX_DELIVERABLE_BYTES = 45_056;
export const MIN_CRITERIA = 1;
export const MAX_CRITERIA = 64;

/** $0.04, the document's pricing.floorUsd, in USDC atomic units (6 decimals). */
export const FLOOR_ATOMIC = 40_000n;

/** The headers the document's payment block names. */
export const QUOTE_HEADER = "ARBITER-QUOTE-ID";
export const LOGICAL_PAYMENT_HEADER = "ARBITER-LOGICAL-PAYMENT-ID";

/** The example request the document's summary publishes ("Example request: {...}"), parsed from it. */
export const EXAMPLE_REQUEST: Record<string, unknown> = (() => {
  const summary = document.summary;
  const at = summary.indexOf("Example request: ");
  if (at < 0) throw new Error("the agent-verdict product summary no longer carries its example request");
  const text = summary.slice(at + "Example request: ".length).replace(/\.\s*$/, "");
  return JSON.parse(text) as Record<string, unknown>;
})();

/** The fixed scope every verdict states (the output schema's warrantyScope description). */
export const WARRANTY_SCOPE =
  "The fixed scope of this verdict: the criteria you supplied, as documented; not a legal ruling. Each criterion is judged by its documented deterministic rule over the exact bytes evaluated; a PASS says the bytes meet that rule, not that the work is correct, complete or fit for any purpose beyond it.";
