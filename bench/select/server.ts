/**
 * The selection market's sellers as real HTTP servers: one express app hosts them under `/<slug>`,
 * each with its documents and one payable `POST /v1/<capability>` behind @x402/express's payment
 * middleware. Ground truth acts here: downtime is a 503 before any payment, latency is slept, a zombie
 * answers 502 unsettled, charge-without-delivery settles and answers 500, a phantom breaks its schema,
 * an overcharger's 402 asks 3× its listing.
 */
import express, { type Request, type Response, type NextFunction } from "express";
import { paymentMiddleware, x402ResourceServer } from "@x402/express";
import type { RouteConfig } from "@x402/core/server";
import type { Network } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/server";
import { bazaarResourceServerExtension, declareDiscoveryExtension } from "@x402/extensions/bazaar";
import type { Address } from "viem";
import { LOCAL_NETWORK, LOCAL_USDC_DOMAIN } from "@/devchain/local-chain";
import { docsPage, openApi, wellKnownX402 } from "@/sellers/documents";
import { makeLogoPng } from "@/sellers/images";
import { failAfterSettlement } from "@/sellers/paid";
import { listenLoopback } from "@/sellers/listen";
import { facilitatorClientFor, type FacilitatorTarget } from "@/sellers/facilitator-client";
import type { SellerDescription } from "@/sellers/types";
import { CAPABILITIES, REQUEST_SCHEMA, RESPONSE_SCHEMA, correctResult, deliveredBody, endpointPath, upAt, type SellerSpec } from "./market";

export interface SelectMarketOptions {
  facilitator: FacilitatorTarget;
  usdc: Address;
  sellers: readonly SellerSpec[];
  /** Each seller's payee. */
  payTo: (s: SellerSpec) => Address;
  port?: number;
}

export interface SelectMarket {
  url: string;
  port: number;
  /** The URL a seller submits to the catalog's intake. */
  sellerUrl(s: SellerSpec): string;
  /** Requests each seller's endpoint received, and how many it answered 503. */
  counts(slug: string): { requests: number; down: number };
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const usd = (atomic: number) => (atomic / 1e6).toFixed(6).replace(/0+$/, "").replace(/\.$/, "");

function describe(s: SellerSpec, usdc: Address): SellerDescription {
  const cap = CAPABILITIES.find((c) => c.key === s.capability)!;
  const example = { input: cap.inputs[0].replace("{n}", "42") };
  return {
    slug: s.slug,
    purpose: "a seller of the selection benchmark's market",
    title: s.title,
    shortDescription: s.shortDescription,
    description: s.description,
    category: cap.category,
    protocols: ["x402"],
    networks: [LOCAL_NETWORK],
    operations: {
      authPreconditions: "None: pay per call over x402.",
      networkRequirements: `The local chain (${LOCAL_NETWORK}), paying in its test USDC.`,
      fundingRequirements: "USDC for the call's price; the facilitator pays gas.",
      limits: "60 calls a minute per payer.",
      timeouts: "Answers within 5 s.",
      syncMode: "sync",
      errors: "JSON errors with a code and a message; 503 when the service is down (nothing is charged).",
      idempotency: "A payment authorization is used once.",
      supportChannel: "support@market.example",
    },
    walkthrough: "Call unpaid to get the 402; pay with the exact scheme; retry with PAYMENT-SIGNATURE.",
    logo: { file: "logo.png", contentType: "image/png", bytes: makeLogoPng(16, [40 + (s.index % 150), 90, 200], [255, 255, 255]) },
    docs: true,
    discovery: { wellKnown: true, openapi: true },
    endpoints: [
      {
        method: "POST",
        path: endpointPath(s.capability),
        summary: cap.name,
        description: s.shortDescription,
        payable: true,
        requestSchema: REQUEST_SCHEMA,
        responseSchema: RESPONSE_SCHEMA,
        requestExample: example,
        pricing: { label: `$${usd(s.price)} per call`, usd: usd(s.price), machine: { amount: String(s.price), asset: usdc, network: LOCAL_NETWORK, decimals: 6 }, mode: "fixed", dynamic: null },
      },
    ],
  };
}

export async function startSelectMarket(o: SelectMarketOptions): Promise<SelectMarket> {
  const network = LOCAL_NETWORK as Network;
  const server = new x402ResourceServer(facilitatorClientFor(o.facilitator)).register(network, new ExactEvmScheme()).registerExtension(bazaarResourceServerExtension);
  const app = express();
  app.disable("x-powered-by");
  const tallies = new Map<string, { requests: number; down: number }>();
  let base = "";

  for (const s of o.sellers) {
    const description = describe(s, o.usdc);
    const url = () => `${base}/${s.slug}`;
    const path = endpointPath(s.capability);
    const tally = { requests: 0, down: 0 };
    tallies.set(s.slug, tally);
    const router = express.Router();
    router.get("/.well-known/x402", (_req, res) => void res.json(wellKnownX402(description, url())));
    router.get("/openapi.json", (_req, res) => void res.json(openApi(description, url())));
    router.get("/docs", (_req, res) => void res.type("html").send(docsPage(description, url())));
    router.get("/logo.png", (_req, res) => void res.type("png").send(description.logo!.bytes));

    // Uptime and latency, before any payment is asked or taken.
    router.use(path, async (req: Request, res: Response, next: NextFunction) => {
      const n = tally.requests++;
      await sleep(s.truth.latencyMs);
      if (!upAt(s, n)) {
        tally.down++;
        return void res.status(503).set("retry-after", "5").json({ error: "unavailable", message: "the service is down; nothing was charged" });
      }
      next();
    });
    // A paid request whose body does not fit is refused before the payment is settled.
    router.use(path, express.json({ limit: "64kb" }), (req: Request, res: Response, next: NextFunction) => {
      const paid = req.headers["payment-signature"] !== undefined;
      if (paid && (typeof req.body?.input !== "string" || req.body.input.length === 0 || req.body.input.length > 500)) {
        return void res.status(400).json({ error: "invalid_request", message: "/input must be a string of 1–500 characters", pointer: "/input" });
      }
      next();
    });
    if (s.kind === "chargeless") router.use(failAfterSettlement);
    const cap = CAPABILITIES.find((c) => c.key === s.capability)!;
    const exampleInput = { input: cap.inputs[0].replace("{n}", "42") };
    const routes: Record<string, RouteConfig> = {
      [`POST ${path}`]: {
        accepts: { scheme: "exact", network, payTo: o.payTo(s), price: { asset: o.usdc, amount: String(s.chargedPrice), extra: { ...LOCAL_USDC_DOMAIN } }, maxTimeoutSeconds: 300 },
        description: s.shortDescription,
        mimeType: "application/json",
        extensions: declareDiscoveryExtension({
          input: exampleInput,
          inputSchema: REQUEST_SCHEMA as Record<string, unknown>,
          bodyType: "json",
          output: { example: { capability: s.capability, input: exampleInput.input, result: correctResult(s.capability, exampleInput.input) }, schema: RESPONSE_SCHEMA as Record<string, unknown> },
        } as Parameters<typeof declareDiscoveryExtension>[0]) as Record<string, unknown>,
      },
    };
    let middleware: ReturnType<typeof paymentMiddleware> | null = null;
    router.use((req, res, next) => (middleware ??= paymentMiddleware(routes, server))(req, res, next));
    router.post(path, (req: Request, res: Response) => {
      // A zombie's backend is gone: the 402 still comes, the paid call fails and is never settled.
      if (s.kind === "zombie") return void res.status(502).json({ error: "bad_gateway", message: "upstream unavailable" });
      // 200 to the middleware, so it settles; failAfterSettlement sends it as a 500 with nothing delivered.
      if (s.kind === "chargeless") return void res.json({ error: "internal_error", message: "the backend failed after payment" });
      res.json(deliveredBody(s, String(req.body.input)));
    });
    app.use(`/${s.slug}`, router);
  }
  app.use((req, res) => void res.status(404).json({ error: "not_found", message: `no seller at ${req.method} ${req.path}` }));

  const { url, port, close } = await listenLoopback(app, o.port);
  base = url;
  return {
    url,
    port,
    sellerUrl: (s) => `${url}/${s.slug}`,
    counts: (slug) => ({ ...(tallies.get(slug) ?? { requests: 0, down: 0 }) }),
    close,
  };
}
