/** Shared pieces of the fixture sellers: payees, accepts entries, operations text. */
import { getAddress, keccak256, toHex } from "viem";
import type { PaymentRequirements } from "@x402/core/types";
import { bazaarResourceServerExtension, declareDiscoveryExtension, type DeclareDiscoveryExtensionInput } from "@x402/extensions/bazaar";
import type { ListingOperations } from "@/lib/listing-document/document";
import { canonicalUsdc } from "@/lib/x402/assets";

/** The agent-verdict product's payee, x402_seller_configuration.payTo (docs/spec/products.md). */
export const AGENT_VERDICT_PAY_TO = "0x63aA5960943865e7d57FDdF0D899eE36B6D2046E";

/**
 * A fixture payee for the other sellers: an address derived from a label (nobody holds its key),
 * so no real person's wallet appears in a fixture.
 */
export function fixturePayTo(label: string): `0x${string}` {
  return getAddress(`0x${keccak256(toHex(`tollgate fixture payee: ${label}`)).slice(26)}`);
}

/** An `exact` requirement in the canonical USDC of a network from lib/x402/assets.ts. */
export function usdcAccept(network: string, amount: string, payTo: string, maxTimeoutSeconds = 300): PaymentRequirements {
  const usdc = canonicalUsdc(network);
  if (!usdc) throw new Error(`fixture bug: no canonical USDC for ${network}`);
  return {
    scheme: "exact",
    network: network as PaymentRequirements["network"],
    amount,
    asset: usdc.address,
    payTo,
    maxTimeoutSeconds,
    extra: { name: usdc.domains[0].name, version: usdc.domains[0].version },
  };
}

export const BASE = "eip155:8453";

export function operations(overrides: Partial<ListingOperations> = {}): ListingOperations {
  return {
    authPreconditions: "None: no account or API key; the x402 payment is the only credential.",
    networkRequirements: "Pay in USDC on Base (eip155:8453).",
    fundingRequirements: "The payer holds USDC on the chosen network; the facilitator pays gas.",
    limits: "60 requests per minute per payer wallet.",
    timeouts: "Answers within 5 s; the payment authorization is valid for maxTimeoutSeconds.",
    syncMode: "sync",
    errors: "JSON errors {error, detail} with 400 for invalid input and 402 for payment.",
    idempotency: "A retry with the same payment returns the same result and settles once.",
    supportChannel: "support@example.invalid",
    ...overrides,
  };
}

/**
 * A bazaar extension as an @x402 seller's middleware emits it: declared with
 * `declareDiscoveryExtension`, then enriched by `bazaarResourceServerExtension.enrichDeclaration`
 * with the request's method (the declaration type omits `method`; the server adds it per request).
 */
export function bazaarExtension(method: string, path: string, config: DeclareDiscoveryExtensionInput): { bazaar: Record<string, unknown> } {
  const declared = declareDiscoveryExtension(config) as unknown as { bazaar: Record<string, unknown> };
  const adapter = { getPath: () => path, getHeader: () => undefined, getMethod: () => method } as unknown;
  const enrich = bazaarResourceServerExtension.enrichDeclaration;
  const bazaar = enrich ? (enrich(declared.bazaar, { adapter, path, method, routePattern: `${method} ${path}` }) as Record<string, unknown>) : declared.bazaar;
  return { bazaar };
}
