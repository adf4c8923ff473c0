/**
 * An MPP seller: 402 with `WWW-Authenticate: Payment …`, two challenges in one header (a Tempo
 * charge and an EVM charge in Base USDC), each request built by mppx's own method schema (the
 * chain lands in `methodDetails.chainId`) and serialised by `Challenge.serialize` with HMAC-bound ids.
 */
import { Challenge, PaymentRequest } from "mppx";
import { charge as evmCharge } from "mppx/evm";
import { Methods as TempoMethods } from "mppx/tempo";
import type { FixtureSeller, SellerRequest } from "./types";
import { BASE, fixturePayTo, operations } from "./common";
import { makeLogoSvg } from "./images";
import { sendJson } from "./respond";

const PAY_TO = fixturePayTo("mpp-seller");
/** Tempo's pathUSD TIP-20 token (mppx's docs use it as the charge currency). */
const PATH_USD = "0x20c0000000000000000000000000000000000000";
const BASE_USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";
const PRICE_ATOMIC = "5000"; // $0.005 at 6 decimals
/** Tempo's testnet (Moderato), where pathUSD is mppx's default currency (mppx tempo/internal/defaults). */
const TEMPO_TESTNET = 42431;

/** An MPP charge request in the shape mppx emits: the method's input schema applied (display amount → atomic, chain → methodDetails). */
export function mppChargeRequest(method: "tempo" | "evm", input: { amount: string; currency: string; recipient: string; chainId: number }): Record<string, unknown> {
  const parsed: unknown = PaymentRequest.fromMethod(method === "tempo" ? TempoMethods.charge : evmCharge, { ...input, decimals: 6 } as never);
  return parsed as Record<string, unknown>;
}
/** Fixture-only HMAC key for challenge ids; nothing verifies a credential here. */
const SECRET = "tollgate-fixture-mpp-secret";

export interface MppChallengeSpec {
  method: string;
  intent: string;
  request: Record<string, unknown>;
  expiresInMs: number;
  realm?: string | null;
}

/** Build and send an MPP 402 from challenge specs; `realm: null` omits it (for the broken fixture). */
export function sendMpp402(ctx: SellerRequest, specs: MppChallengeSpec[]): void {
  const realm = ctx.url.host;
  const header = specs
    .map((s) => {
      const c = Challenge.from(
        { realm: s.realm === undefined ? realm : (s.realm ?? realm), method: s.method, intent: s.intent, request: s.request, expires: new Date(Date.now() + s.expiresInMs).toISOString(), secretKey: SECRET },
      );
      const serialised = Challenge.serialize(c);
      // mppx refuses to build a challenge without a realm, so the "missing realm" fixture removes it after.
      return s.realm === null ? serialised.replace(/ realm="[^"]*",/, "") : serialised;
    })
    .join(", ");
  // RFC 9457 problem details, the body mppx servers send beside the challenge.
  sendJson(ctx.res, 402, { type: "https://paymentauth.org/problems/payment-required", title: "Payment Required", status: 402, detail: "Pay with one of the WWW-Authenticate challenges." }, {
    "www-authenticate": header,
    "content-type": "application/problem+json",
    "cache-control": "no-store",
  });
}

export const mppSeller: FixtureSeller = {
  slug: "mpp-seller",
  purpose: "A healthy MPP seller: two Payment challenges in one WWW-Authenticate header, OpenAPI discovery with x-payment-info.",
  title: "Geo lookup over MPP: city and timezone for a coordinate",
  shortDescription: "Reverse geocoding for agents, paid per call over the Machine Payments Protocol.",
  description: "Send a latitude and longitude; get the nearest city, its country and its IANA timezone. Paid per call over MPP with a Tempo charge or an EVM charge in Base USDC; no account or API key.",
  category: "data",
  protocols: ["mpp"],
  networks: [BASE],
  operations: operations({ authPreconditions: "None: the MPP credential (Authorization: Payment …) is the only credential.", networkRequirements: "Tempo (pathUSD) or Base (USDC)." }),
  walkthrough: "POST unpaid to get the 402 and its WWW-Authenticate challenges; pay one with an mppx client; retry with Authorization: Payment <credential>.",
  logo: { file: "logo.svg", contentType: "image/svg+xml", bytes: makeLogoSvg("G", "#8a3ffc") },
  docs: true,
  discovery: { wellKnown: false, openapi: true },
  endpoints: [
    {
      method: "POST",
      path: "/api/reverse",
      summary: "Reverse geocode a coordinate",
      description: "Nearest city, country and IANA timezone for a latitude/longitude.",
      payable: true,
      requestSchema: { type: "object", required: ["lat", "lon"], properties: { lat: { type: "number", minimum: -90, maximum: 90 }, lon: { type: "number", minimum: -180, maximum: 180 } } },
      responseSchema: { type: "object", required: ["city", "country", "timezone"], properties: { city: { type: "string" }, country: { type: "string" }, timezone: { type: "string" } } },
      requestExample: { lat: 48.8566, lon: 2.3522 },
      pricing: {
        label: "$0.005 per call",
        usd: "0.005",
        machine: { amount: PRICE_ATOMIC, asset: BASE_USDC, network: BASE, decimals: 6 },
        mode: "fixed",
        dynamic: null,
      },
      handle(ctx) {
        sendMpp402(ctx, [
          { method: "tempo", intent: "charge", request: mppChargeRequest("tempo", { amount: "0.005", currency: PATH_USD, recipient: PAY_TO, chainId: TEMPO_TESTNET }), expiresInMs: 5 * 60_000 },
          { method: "evm", intent: "charge", request: mppChargeRequest("evm", { amount: "0.005", currency: BASE_USDC, recipient: PAY_TO, chainId: 8453 }), expiresInMs: 5 * 60_000 },
        ]);
      },
    },
  ],
};
