/**
 * Paid reference sellers: an express app whose resources sit behind the real x402 seller middleware
 * (`paymentMiddleware` from @x402/express over an `x402ResourceServer` with @x402/evm's exact
 * scheme), verifying and settling every payment through a facilitator: an x402 facilitator URL
 * (our /api/facilitator, through @x402/core's HTTPFacilitatorClient) or any `FacilitatorClient`
 * (lib/chain's `facilitatorClient` in process). Nothing here fakes the buyer's side: a 402 here is
 * the middleware's own PAYMENT-REQUIRED, and a 200 follows a real verify and settle — except where a
 * seller's breakage is exactly that.
 *
 * Five sellers, one path prefix each, each selling `GET /<seller>/weather`:
 *
 * - `honest`: settles through the facilitator, then delivers JSON.
 * - `never-settles`: verifies through the facilitator, but its settle never reaches the chain: its
 *   facilitator client answers settle with a fabricated success naming a made-up transaction hash.
 *   The buyer gets 200 and a PAYMENT-RESPONSE claiming a transaction the chain does not have.
 * - `fails-after-payment`: settles (the handler answers 200 to the middleware, so it settles), then
 *   the buyer gets a 500: the status is rewritten after settlement as the response leaves.
 * - `overcharges`: with x402's exact scheme the buyer signs the amount of the requirement it
 *   answers, so no seller can take more than the 402's `accepts` asks. What a seller can do is quote
 *   one price where buyers choose (its price document `GET /overcharges/terms`, the 402's JSON body
 *   `advertised` field, the `X-Price` header) and require more in the payment requirement the
 *   middleware verifies and settles (twice the advertised amount). The chain shows the larger amount.
 * - `wrong-payee`: the same shape for the recipient: it advertises `payTo` A (its terms, body and
 *   `X-Pay-To` header) while its payment requirement, and so the transfer on chain, pays B.
 *
 * `GET /<seller>/terms` answers every seller's advertised terms (free, JSON).
 */
import express, { type NextFunction, type Request, type Response } from "express";
import { paymentMiddleware, x402ResourceServer } from "@x402/express";
import type { FacilitatorClient } from "@x402/core/server";
import type { Network, PaymentPayload, PaymentRequirements, SettleResponse } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/server";
import { bazaarResourceServerExtension, declareDiscoveryExtension } from "@x402/extensions/bazaar";
import { keccak256, toHex, type Address } from "viem";
import { settle as facilitatorSettle, supported as facilitatorSupported, verify as facilitatorVerify, type FacilitatorRequest, type FacilitatorSetup } from "@/lib/chain/facilitator";
import { LOCAL_NETWORK, LOCAL_USDC_DOMAIN } from "@/devchain/local-chain";
import { listenLoopback } from "../listen";
import { facilitatorClientFor, type FacilitatorTarget } from "../facilitator-client";

const WEATHER = { city: "Lisbon", temperatureC: 19, conditions: "clear" };
const WEATHER_SCHEMA = {
  type: "object",
  properties: { city: { type: "string" }, temperatureC: { type: "number" }, conditions: { type: "string" } },
  required: ["city", "temperatureC", "conditions"],
};

export const PAID_SELLERS = ["honest", "never-settles", "fails-after-payment", "overcharges", "wrong-payee"] as const;
export type PaidSellerName = (typeof PAID_SELLERS)[number];

export interface PaidSellersOptions {
  /** 0 (default) picks a free port on 127.0.0.1. */
  port?: number;
  /** A facilitator URL, a URL with its caller credential ({url, token}), or a FacilitatorClient (../facilitator-client.ts). */
  facilitator: FacilitatorTarget;
  /** The USDC contract the sellers charge in (on the local chain: LOCAL_USDC_ADDRESS). */
  usdc: Address;
  /** Where the sellers are paid: what every seller advertises, and what all but wrong-payee require. */
  payTo: Address;
  /** Where wrong-payee's requirement actually pays. */
  otherPayTo: Address;
  /** The advertised price in atomic units (default 10000 = 0.01 USDC). */
  price?: string;
  network?: Network;
  /** The token's EIP-712 domain the requirement names (default the test USDC's, "USD Coin" / "2"). */
  domain?: { name: string; version: string };
}

export interface PaidSellers {
  url: string;
  port: number;
  /** The full URL of a seller's paid resource. */
  resource(seller: PaidSellerName): string;
  /** What each seller advertises and what its payment requirement asks. */
  terms: Record<PaidSellerName, SellerTerms>;
  close(): Promise<void>;
}

export interface SellerTerms {
  advertised: { amount: string; payTo: Address };
  required: { amount: string; payTo: Address };
}

/** The terms each seller advertises and requires (see the file comment for why they differ). */
export function paidSellerTerms(o: Pick<PaidSellersOptions, "payTo" | "otherPayTo" | "price">): Record<PaidSellerName, SellerTerms> {
  const price = o.price ?? "10000";
  const same = { advertised: { amount: price, payTo: o.payTo }, required: { amount: price, payTo: o.payTo } };
  return {
    honest: same,
    "never-settles": same,
    "fails-after-payment": same,
    overcharges: { advertised: { amount: price, payTo: o.payTo }, required: { amount: String(BigInt(price) * 2n), payTo: o.payTo } },
    "wrong-payee": { advertised: { amount: price, payTo: o.payTo }, required: { amount: price, payTo: o.otherPayTo } },
  };
}

/**
 * lib/chain's facilitator as a FacilitatorClient in this process: the same verify, settle and
 * supported that /api/facilitator/* serve (an RPC outage is thrown as AppError `unavailable`, which
 * the middleware answers as an error rather than a verdict), without an HTTP hop.
 */
export function inProcessFacilitator(setup: FacilitatorSetup): FacilitatorClient {
  const body = (paymentPayload: PaymentPayload, paymentRequirements: PaymentRequirements) =>
    JSON.parse(JSON.stringify({ x402Version: 2, paymentPayload, paymentRequirements })) as FacilitatorRequest;
  return {
    verify: (payload, requirements) => facilitatorVerify(setup, body(payload, requirements)),
    settle: (payload, requirements) => facilitatorSettle(setup, body(payload, requirements)),
    getSupported: async () => facilitatorSupported(setup),
  };
}

/**
 * A facilitator client whose verify is the real one and whose settle never reaches the chain: it
 * answers success with a transaction hash made up from the authorization's nonce.
 */
export function neverSettlingClient(real: FacilitatorClient): FacilitatorClient {
  return {
    verify: (payload, requirements) => real.verify(payload, requirements),
    getSupported: () => real.getSupported(),
    async settle(payload: PaymentPayload, requirements: PaymentRequirements): Promise<SettleResponse> {
      const auth = (payload.payload as { authorization?: { from?: string; nonce?: string } }).authorization;
      return {
        success: true,
        transaction: keccak256(toHex(`never settled ${auth?.nonce ?? Math.random()}`)),
        network: requirements.network,
        payer: auth?.from,
      };
    },
  };
}

export async function startPaidSellers(options: PaidSellersOptions): Promise<PaidSellers> {
  const network = options.network ?? LOCAL_NETWORK;
  const real: FacilitatorClient = facilitatorClientFor(options.facilitator);
  const terms = paidSellerTerms(options);
  const app = express();
  app.disable("x-powered-by");

  for (const seller of PAID_SELLERS) {
    const t = terms[seller];
    const facilitator = seller === "never-settles" ? neverSettlingClient(real) : real;
    const server = new x402ResourceServer(facilitator).register(network, new ExactEvmScheme()).registerExtension(bazaarResourceServerExtension);
    const router = express.Router();

    // What the seller advertises where buyers choose: free.
    router.get("/terms", (_req, res) => {
      res.json({ seller, network, asset: options.usdc, price: t.advertised.amount, payTo: t.advertised.payTo });
    });

    // Advertised terms ride along on every answer, as headers.
    router.use((_req, res, next) => {
      res.setHeader("X-Price", t.advertised.amount);
      res.setHeader("X-Pay-To", t.advertised.payTo);
      next();
    });

    if (seller === "fails-after-payment") router.use(failAfterSettlement);

    router.use(
      paymentMiddleware(
        {
          "GET /weather": {
            accepts: {
              scheme: "exact",
              network,
              payTo: t.required.payTo,
              price: { asset: options.usdc, amount: t.required.amount, extra: { ...(options.domain ?? LOCAL_USDC_DOMAIN) } },
              maxTimeoutSeconds: 300,
            },
            description: `Weather from the ${seller} reference seller`,
            mimeType: "application/json",
            extensions: declareDiscoveryExtension({
              input: { city: "Lisbon" },
              inputSchema: { type: "object", properties: { city: { type: "string" } } },
              output: { example: WEATHER, schema: WEATHER_SCHEMA },
            }) as Record<string, unknown>,
            // The 402's JSON body: where the advertised price shows next to the challenge header.
            unpaidResponseBody: () => ({ contentType: "application/json", body: { advertised: { amount: t.advertised.amount, payTo: t.advertised.payTo, asset: options.usdc } } }),
          },
        },
        server,
      ),
    );

    router.get("/weather", (_req, res) => {
      if (seller === "fails-after-payment") {
        // 200 to the middleware (so it settles); failAfterSettlement turns it into a 500 on the way out.
        res.status(200).json({ error: "internal_error", message: "the weather backend failed after payment" });
        return;
      }
      res.json({ seller, ...WEATHER });
    });

    app.use(`/${seller}`, router);
  }

  app.use((req, res) => {
    res.status(404).json({ error: "not_found", message: `no paid seller resource at ${req.method} ${req.path}` });
  });

  const { url, port, close } = await listenLoopback(app, options.port);
  return {
    url,
    port,
    resource: (seller) => `${url}/${seller}/weather`,
    terms,
    close,
  };
}

/**
 * Installed before the payment middleware, so the middleware's buffered response is released
 * through it: once a response carries PAYMENT-RESPONSE (the payment settled), its status leaves as
 * 500. A response without one (the 402, a refused payment) leaves untouched.
 */
export function failAfterSettlement(_req: Request, res: Response, next: NextFunction): void {
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => Response;
  res.writeHead = ((status: number, ...rest: unknown[]) => {
    const settled = res.getHeader("payment-response") !== undefined;
    if (settled && status < 400) res.statusCode = 500;
    return writeHead(settled && status < 400 ? 500 : status, ...rest);
  }) as Response["writeHead"];
  next();
}
