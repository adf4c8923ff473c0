/**
 * The agent-verdict product (docs/spec/products.md): POST /api/x402/AGENT_VERDICT, a dynamic quote from $0.04, x402 v2 in
 * the PAYMENT-REQUIRED header and the body, on the networks and asset contracts the seed's
 * payment.destination lists, with the seed's input and output schemas in the bazaar extension.
 */
import type { PaymentRequired, PaymentRequirements } from "@x402/core/types";
import type { FixtureSeller } from "./types";
import { AGENT_VERDICT_PAY_TO, BASE, bazaarExtension, operations, usdcAccept } from "./common";
import { makeLogoPng } from "./images";
import { parseJsonBody, sendJson, sendX402 } from "./respond";

/** $0.04 (the seed's floorUsd / publicStartingPriceUsd) in USDC atomic units (6 decimals). */
const FLOOR_ATOMIC = "40000";

export const AGENT_VERDICT_INPUT_SCHEMA = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  additionalProperties: false,
  required: ["deliverable", "criteria"],
  properties: {
    deliverable: { type: "object", description: "The work to judge: {kind: text|json|bytes, value}; at most 45056 bytes. Never echoed or stored." },
    criteria: { type: "array", items: {}, description: "1 to 64 criteria {id, check, ...params, requirement?, weight?} from a closed deterministic menu." },
    grading: { type: "object", description: "Optional {scale: PASS_FAIL | A_F | SCORE_0_100} (default PASS_FAIL)." },
    jobRef: { type: "string", description: "Optional job reference; only its SHA-256 is returned, it is never fetched." },
  },
};

export const AGENT_VERDICT_OUTPUT_SCHEMA = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  required: ["verdict", "criteria", "counts", "grade", "deliverableDigest", "warrantyScope", "signature", "program", "provenance", "uncertainty"],
  properties: {
    verdict: { type: "string", description: "ACCEPT, REJECT or NO_VERDICT; never a guess." },
    criteria: { type: "array", items: {}, description: "Per criterion: {index, id, check, result: PASS|FAIL|INCONCLUSIVE, weight, points, evidence}." },
    counts: { type: "object" },
    grade: { type: "object" },
    deliverableDigest: { type: "object" },
    jobRefSha256: { type: "string" },
    program: { type: "object" },
    provenance: { type: "object" },
    signature: { type: "object" },
    uncertainty: { type: "string" },
    warrantyScope: { type: "string" },
  },
};

/** The example request the seed's summary publishes. */
export const AGENT_VERDICT_EXAMPLE = {
  deliverable: { kind: "json", value: { status: "done", tests: { passed: 12, failed: 0 } } },
  criteria: [
    { id: "r1", requirement: "Status is done", check: "json_path_equals", path: "status", value: "done" },
    { id: "r2", requirement: "No failing tests", check: "numeric_range", path: "tests.failed", max: 0 },
  ],
  grading: { scale: "A_F" },
};

/** The agent-verdict product's payment.destination (docs/spec/products.md): networks[i] pays in assetContracts[i] (the two lists align). */
const SEED_NETWORKS: Array<{ network: string; asset: string; name: string }> = [
  { network: "eip155:1", asset: "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48", name: "USD Coin" },
  { network: "eip155:10", asset: "0x0b2C639c533813f4Aa9D7837CAf62653d097Ff85", name: "USD Coin" },
  { network: "eip155:1329", asset: "0xe15fC38F6D8c56aF07bbCBe3BAf5708A2Bf42392", name: "USDC" },
  { network: "eip155:137", asset: "0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359", name: "USD Coin" },
  { network: "eip155:143", asset: "0x754704Bc059F8C67012fEd69BC8A327a5aafb603", name: "USD Coin" },
  { network: "eip155:42161", asset: "0xaf88d065e77c8cC2239327C5EDb3A432268e5831", name: "USD Coin" },
  { network: "eip155:43114", asset: "0xB97EF9Ef8734C71904D8002F8b6Bc66Dd9c48a6E", name: "USD Coin" },
  { network: "eip155:5042", asset: "0x3600000000000000000000000000000000000000", name: "USDC" },
  { network: "eip155:8453", asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", name: "USD Coin" },
];

function accepts(): PaymentRequirements[] {
  // Base first: it is the network the seller's docs lead with; the rest in the seed's order.
  const base = usdcAccept(BASE, FLOOR_ATOMIC, AGENT_VERDICT_PAY_TO, 300);
  const rest = SEED_NETWORKS.filter((n) => n.network !== BASE).map((n) => ({
    scheme: "exact",
    network: n.network as PaymentRequirements["network"],
    amount: FLOOR_ATOMIC,
    asset: n.asset,
    payTo: AGENT_VERDICT_PAY_TO,
    maxTimeoutSeconds: 300,
    extra: { name: n.name, version: "2" },
  }));
  return [base, ...rest];
}

/**
 * The bazaar extension. `declareDiscoveryExtension` drops the output schema when no output example
 * is given, and the agent-verdict product (docs/spec/products.md) omits examples until real settled evidence exists (its no-fake-demand
 * rule), so the output half is added by hand in the same shape the library emits when it has one.
 */
export function agentVerdictBazaar(): Record<string, unknown> {
  const ext = bazaarExtension("POST", "/api/x402/AGENT_VERDICT", {
    bodyType: "json",
    input: AGENT_VERDICT_EXAMPLE,
    inputSchema: AGENT_VERDICT_INPUT_SCHEMA,
  }) as unknown as { bazaar: { info: Record<string, unknown>; schema: { properties: Record<string, unknown> } } };
  ext.bazaar.info.output = { type: "json", format: "application/json" };
  ext.bazaar.schema.properties.output = {
    type: "object",
    properties: { type: { type: "string" }, format: { type: "string" }, example: AGENT_VERDICT_OUTPUT_SCHEMA },
    required: ["type"],
  };
  return ext;
}

export const agentVerdict: FixtureSeller = {
  slug: "agent-verdict",
  purpose: "Seed 002 as published: a healthy x402 v2 seller (header and body, nine networks, foundation bazaar reading).",
  title: "Agent verdict: did the work meet your criteria (signed, per criterion)",
  shortDescription: "Send an agent's completed work and your criteria; get PASS, FAIL or INCONCLUSIVE per criterion with evidence.",
  description:
    "Did the agent actually do what you paid it to do? Send its completed work and your criteria; get PASS, FAIL or INCONCLUSIVE per criterion with evidence (the rule applied, a fixed reason code and the digest of the exact bytes judged), an optional grade, an overall ACCEPT, REJECT or NO_VERDICT, and a statement a third party can verify.",
  category: "verification",
  protocols: ["x402"],
  networks: SEED_NETWORKS.map((n) => n.network),
  operations: operations({ networkRequirements: `USDC on any of ${SEED_NETWORKS.map((n) => n.network).join(", ")}.` }),
  walkthrough: "POST the request unpaid to receive the 402 quote (PAYMENT-REQUIRED); sign the exact-scheme authorization for one offer; retry with PAYMENT-SIGNATURE and the same ARBITER-LOGICAL-PAYMENT-ID.",
  logo: { file: "logo.png", contentType: "image/png", bytes: makeLogoPng(32, [34, 94, 168], [245, 245, 245]) },
  docs: true,
  discovery: { wellKnown: true, openapi: true },
  endpoints: [
    {
      method: "POST",
      path: "/api/x402/AGENT_VERDICT",
      summary: "Judge a deliverable against criteria",
      description: "Judge an agent's deliverable against 1 to 64 deterministic criteria; returns a per-criterion verdict with evidence.",
      payable: true,
      requestSchema: AGENT_VERDICT_INPUT_SCHEMA,
      responseSchema: AGENT_VERDICT_OUTPUT_SCHEMA,
      requestExample: AGENT_VERDICT_EXAMPLE,
      pricing: {
        label: "from $0.04 per verdict (dynamic quote)",
        usd: "0.04",
        machine: { amount: FLOOR_ATOMIC, asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", network: BASE, decimals: 6 },
        mode: "dynamic",
        dynamic: { min: "0.04", max: null, driver: "criteria count and deliverable size", unit: "per verdict" },
      },
      handle({ res, body, sellerUrl }) {
        const parsed = parseJsonBody(body);
        if (!parsed.ok || typeof parsed.value !== "object" || parsed.value === null) {
          sendJson(res, 400, { error: "invalid_request", detail: "The request field is invalid." });
          return;
        }
        const pr: PaymentRequired = {
          x402Version: 2,
          resource: {
            url: `${sellerUrl}/api/x402/AGENT_VERDICT`,
            description: "Agent verdict: did the work meet your criteria",
            mimeType: "application/json",
            serviceName: "Arbiter Verify",
            tags: ["verify", "agents"],
          },
          accepts: accepts(),
          extensions: agentVerdictBazaar(),
        };
        sendX402(res, pr, "same", undefined);
      },
    },
  ],
};
