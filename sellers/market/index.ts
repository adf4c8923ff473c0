/**
 * The demo market: sellers described by a listing document, served for real on the local chain.
 * Each seller answers every endpoint its document lists as its service would (./answers.ts), its payable ones only after a payment
 * verified and settled through a facilitator by the real x402 seller middleware (`paymentMiddleware`
 * from @x402/express, the exact EVM scheme), at the document's own price in the local test USDC.
 * Beside its endpoints each publishes what a real seller does: `/.well-known/x402`, `/openapi.json`,
 * a docs page and a logo (sellers/documents.ts), so the catalog's probes read it as they would any
 * seller.
 *
 * A seller whose document lists MPP alone is served behind mppx instead (`Mppx.create` from
 * `mppx/express` with the EVM charge method of `mppx/evm/server`, settling through the same
 * facilitator): its 402 is `WWW-Authenticate: Payment …`, its delivery carries `Payment-Receipt`.
 *
 * A seller behaves in one of the ways the paid reference sellers do (sellers/paid/index.ts): honest,
 * never settles (its settle answers success with a transaction the chain never saw), fails after
 * payment (settles, then answers 500), overcharges (requires twice its listed price), or pays out
 * to another wallet than the one it names (`wrong-payee`). A wash seller is an honest one whose
 * payee is the wallet that buys from it.
 *
 * `localiseDocument` turns a document written for a public chain into the one this seller serves:
 * its URLs under the seller's prefix, its network the local chain, its prices in the local USDC.
 */
import express, { type Request, type Response } from "express";
import { paymentMiddleware, x402ResourceServer } from "@x402/express";
import { type FacilitatorClient, type RouteConfig } from "@x402/core/server";
import type { Network } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/server";
import { bazaarResourceServerExtension, declareDiscoveryExtension } from "@x402/extensions/bazaar";
import { Mppx as MppxExpress } from "mppx/express";
import { charge as mppCharge } from "mppx/evm/server";
import { formatUnits, keccak256, toHex, type Address } from "viem";
import type { JsonSchema, ListingDocument, ListingEndpoint } from "@/lib/listing-document/document";
import { LOCAL_CHAIN_ID, LOCAL_NETWORK, LOCAL_USDC_DOMAIN } from "@/devchain/local-chain";
import { docsPage, openApi, wellKnownX402 } from "../documents";
import { makeLogoPng } from "../images";
import type { SellerDescription } from "../types";
import { failAfterSettlement, neverSettlingClient } from "../paid";
import { listenLoopback } from "../listen";
import { facilitatorClientFor, type FacilitatorTarget } from "../facilitator-client";
import { answer, checkRequest, handlerFor } from "./answers";

export const MARKET_BEHAVIOURS = ["honest", "never-settles", "fails-after-payment", "overcharges", "wrong-payee"] as const;
export type MarketBehaviour = (typeof MARKET_BEHAVIOURS)[number];

export interface MarketSellerSpec {
  /** The path prefix the seller is served under. */
  slug: string;
  /** The seller's listing document as written (public URLs and chain); it is localised here. */
  document: ListingDocument;
  behaviour: MarketBehaviour;
  /** The wallet the seller names, and (all but wrong-payee) is paid to. */
  payTo: Address;
  /** wrong-payee only: where its payment requirement actually pays. */
  otherPayTo?: Address;
}

export interface MarketOptions {
  /** 0 (default) picks a free port on 127.0.0.1. */
  port?: number;
  /** A facilitator URL, a URL with its caller credential ({url, token}), or a FacilitatorClient (../facilitator-client.ts). */
  facilitator: FacilitatorTarget;
  /** The USDC the sellers charge in (on the local chain: LOCAL_USDC_ADDRESS). */
  usdc: Address;
  network?: Network;
  sellers: readonly MarketSellerSpec[];
}

export interface Market {
  url: string;
  port: number;
  /** Each seller's document as served (localised), by slug: what the catalog lists. */
  documents: Record<string, ListingDocument>;
  close(): Promise<void>;
}

/** The document a seller serves at `sellerUrl`: URLs under it, the local network, prices in the local USDC. */
export function localiseDocument(doc: ListingDocument, sellerUrl: string, usdc: Address, network: string = LOCAL_NETWORK): ListingDocument {
  const anchor = (e: ListingEndpoint) => `${sellerUrl}/docs#${e.method.toLowerCase()}${e.path.replace(/\//g, "-")}`;
  return {
    ...doc,
    logoUrl: `${sellerUrl}/logo.png`,
    homepageUrl: sellerUrl,
    baseUrl: sellerUrl,
    docsUrl: `${sellerUrl}/docs`,
    discoveryUrl: doc.protocols.includes("x402") ? `${sellerUrl}/.well-known/x402` : `${sellerUrl}/openapi.json`,
    networks: [network],
    operations: { ...doc.operations, networkRequirements: `The local chain (${network}), paying in its test USDC.` },
    endpoints: doc.endpoints.map((e) => ({
      ...e,
      docsUrl: anchor(e),
      pricing: e.pricing?.machine ? { ...e.pricing, machine: { ...e.pricing.machine, asset: usdc, network, decimals: 6 } } : e.pricing,
    })),
  };
}

/** The description sellers/documents.ts publishes from (the document's own words). */
function describe(slug: string, doc: ListingDocument): SellerDescription {
  return {
    slug,
    purpose: "a seller of the demo market",
    title: doc.title,
    shortDescription: doc.shortDescription ?? doc.title,
    description: doc.description ?? doc.shortDescription ?? doc.title,
    category: doc.category ?? "other",
    protocols: doc.protocols,
    networks: doc.networks,
    operations: doc.operations,
    walkthrough: doc.walkthrough ?? "Call unpaid to get the 402; pay with the exact scheme; retry with PAYMENT-SIGNATURE.",
    logo: { file: "logo.png", contentType: "image/png", bytes: makeLogoPng(16, [40, 90, 200], [255, 255, 255]) },
    docs: true,
    discovery: { wellKnown: doc.protocols.includes("x402"), openapi: true },
    endpoints: doc.endpoints.map((e) => ({
      method: e.method,
      path: e.path,
      summary: e.description ?? `${e.method} ${e.path}`,
      description: e.description ?? "",
      payable: e.payable,
      requestSchema: e.requestSchema,
      noParameters: e.noParameters,
      responseSchema: e.responseSchema,
      requestExample: e.requestExample,
      pricing: e.pricing,
    })),
  };
}

/**
 * A value that satisfies `schema` as far as its structure goes (required properties, types, enums,
 * minimums, array minimums): what a seller of the market answers for an endpoint without a handler
 * in ./answers.ts.
 */
export function instanceOf(schema: JsonSchema | null | undefined, depth = 0): unknown {
  const s = (schema ?? {}) as Record<string, unknown>;
  if (depth > 8) return null;
  if ("const" in s) return s.const;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  if (Array.isArray(s.examples) && s.examples.length > 0) return s.examples[0];
  if ("default" in s) return s.default;
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== "null") : s.type;
  const oneOf = (s.oneOf ?? s.anyOf) as unknown[] | undefined;
  if (!type && Array.isArray(oneOf) && oneOf.length > 0) return instanceOf(oneOf[0] as JsonSchema, depth + 1);
  switch (type) {
    case "object": {
      const props = (s.properties ?? {}) as Record<string, JsonSchema>;
      const required = Array.isArray(s.required) ? (s.required as string[]) : Object.keys(props);
      return Object.fromEntries(required.filter((k) => k in props).map((k) => [k, instanceOf(props[k], depth + 1)]));
    }
    case "array": {
      const n = typeof s.minItems === "number" ? s.minItems : 1;
      return Array.from({ length: n }, () => instanceOf(s.items as JsonSchema, depth + 1));
    }
    case "integer":
    case "number":
      return typeof s.minimum === "number" ? s.minimum : typeof s.exclusiveMinimum === "number" ? s.exclusiveMinimum + 1 : 1;
    case "boolean":
      return true;
    case "string": {
      if (s.format === "date-time") return "2026-12-03T12:00:00.000Z";
      if (s.format === "uri" || s.format === "url") return "https://example.com/";
      const min = typeof s.minLength === "number" ? s.minLength : 0;
      return "example".padEnd(min, "x");
    }
    default:
      return {};
  }
}

/** What the endpoint's request reads as: a GET's query, otherwise its JSON body. */
const requestOf = (e: ListingEndpoint, req: Request): unknown => (e.method === "GET" ? { ...(req.query as Record<string, unknown>) } : req.body);

/** Answer one delivered call: the service's own answer (./answers.ts), else a structural instance of the schema. */
function deliver(e: ListingEndpoint, req: Request, res: Response): void {
  const a = answer(e, requestOf(e, req));
  if (!a) return void res.json(instanceOf(e.responseSchema));
  res.status(a.status).json(a.body);
}

/** The answer the endpoint's published example gets (discovery's output example), else the structural instance. */
function exampleOutput(e: ListingEndpoint): unknown {
  const a = e.requestExample != null || e.noParameters ? answer(e, e.requestExample ?? {}) : null;
  return a?.status === 200 ? a.body : instanceOf(e.responseSchema);
}

const isMppOnly = (doc: ListingDocument) => doc.protocols.includes("mpp") && !doc.protocols.includes("x402");

/** The test USDC's decimals (6, like USDC): what an MPP charge's display amount is written in. */
const USDC_DECIMALS = 6;

/**
 * An MPP seller's endpoints: each payable one behind an mppx EVM charge of its listed price in the
 * local USDC, settled through the market's facilitator; only an honest MPP seller is offered.
 */
function mountMpp(router: express.Router, spec: MarketSellerSpec, options: MarketOptions, facilitator: FacilitatorClient): void {
  if (spec.behaviour !== "honest") throw new RangeError(`market seller ${spec.slug}: an MPP seller here is honest, not ${spec.behaviour}`);
  const mppx = MppxExpress.create({
    methods: [
      mppCharge({
        currency: options.usdc,
        recipient: spec.payTo,
        chainId: LOCAL_CHAIN_ID,
        decimals: USDC_DECIMALS,
        authorization: { ...LOCAL_USDC_DOMAIN },
        // @x402/core's FacilitatorClient and mppx's facilitator share the wire (x402 v2 verify/settle).
        x402: { facilitator: facilitator as never },
      }),
    ],
    // Challenge ids are HMAC-bound with this key: derived per seller, stable across restarts.
    secretKey: keccak256(toHex(`tollgate demo market mpp secret: ${spec.slug}`)).slice(2),
    realm: `tollgate-market-${spec.slug}`,
  });
  for (const e of spec.document.endpoints) {
    const verb = e.method.toLowerCase() as "get" | "post" | "put" | "patch" | "delete";
    const respond = (req: Request, res: Response) => deliver(e, req, res);
    if (e.payable && e.pricing?.machine) {
      const amount = formatUnits(BigInt(e.pricing.machine.amount), USDC_DECIMALS);
      // mppx settles before the handler runs: a request carrying a credential is checked first, so a
      // malformed one is refused before its payment is taken (an unpaid one still gets its 402).
      const checkBeforeCharge = (req: Request, res: Response, next: () => void) => {
        const checked = /^Payment\s/i.test(req.headers.authorization ?? "") && handlerFor(e) ? checkRequest(e, requestOf(e, req)) : null;
        if (checked && "refused" in checked) return void res.status(checked.refused.status).json(checked.refused.body);
        next();
      };
      router[verb](e.path, express.json({ limit: "256kb" }), checkBeforeCharge, mppx.charge({ amount, description: e.description ?? `${e.method} ${e.path}` }), respond);
    } else {
      router[verb](e.path, express.json({ limit: "256kb" }), respond);
    }
  }
}

export async function startMarket(options: MarketOptions): Promise<Market> {
  const network = options.network ?? (LOCAL_NETWORK as Network);
  const real: FacilitatorClient = facilitatorClientFor(options.facilitator);
  const app = express();
  app.disable("x-powered-by");
  const slugs = new Set<string>();
  // The URL is known once listening; documents are filled in then (routes read them per request).
  const served: Record<string, { description: SellerDescription; url: string }> = {};

  for (const spec of options.sellers) {
    if (slugs.has(spec.slug) || !/^[a-z0-9-]+$/.test(spec.slug)) throw new RangeError(`market seller slug ${JSON.stringify(spec.slug)} is repeated or not [a-z0-9-]`);
    slugs.add(spec.slug);
    if (spec.behaviour === "wrong-payee" && !spec.otherPayTo) throw new RangeError(`market seller ${spec.slug}: wrong-payee needs otherPayTo`);
    const facilitator = spec.behaviour === "never-settles" ? neverSettlingClient(real) : real;
    const server = new x402ResourceServer(facilitator).register(network, new ExactEvmScheme()).registerExtension(bazaarResourceServerExtension);
    const router = express.Router();
    const published = () => served[spec.slug];

    if (spec.document.protocols.includes("x402")) router.get("/.well-known/x402", (_req, res) => void res.json(wellKnownX402(published().description, published().url)));
    router.get("/openapi.json", (_req, res) => void res.json(openApi(published().description, published().url)));
    router.get("/docs", (_req, res) => void res.type("html").send(docsPage(published().description, published().url)));
    router.get("/logo.png", (_req, res) => void res.type("png").set("cache-control", "public, max-age=3600").send(published().description.logo!.bytes));

    if (spec.behaviour === "fails-after-payment") router.use(failAfterSettlement);

    if (isMppOnly(spec.document)) {
      mountMpp(router, spec, options, real);
      app.use(`/${spec.slug}`, router);
      continue;
    }

    const routes: Record<string, RouteConfig> = {};
    for (const e of spec.document.endpoints) {
      if (!e.payable || !e.pricing?.machine) continue;
      const amount = spec.behaviour === "overcharges" ? String(BigInt(e.pricing.machine.amount) * 2n) : e.pricing.machine.amount;
      routes[`${e.method} ${e.path}`] = {
        accepts: {
          scheme: "exact",
          network,
          payTo: spec.behaviour === "wrong-payee" ? spec.otherPayTo! : spec.payTo,
          price: { asset: options.usdc, amount, extra: { ...LOCAL_USDC_DOMAIN } },
          maxTimeoutSeconds: 300,
        },
        description: e.description ?? `${e.method} ${e.path}`,
        mimeType: "application/json",
        extensions: declareDiscoveryExtension({
          ...(e.requestExample != null || e.requestSchema ? { input: (e.requestExample ?? instanceOf(e.requestSchema)) as Record<string, unknown> } : {}),
          ...(e.requestSchema ? { inputSchema: e.requestSchema as Record<string, unknown> } : {}),
          ...(e.method === "GET" ? {} : { bodyType: "json" as const }),
          output: { example: exampleOutput(e), ...(e.responseSchema ? { schema: e.responseSchema as Record<string, unknown> } : {}) },
        } as Parameters<typeof declareDiscoveryExtension>[0]) as Record<string, unknown>,
      };
    }
    if (Object.keys(routes).length > 0) {
      // Made on the first request, not at start: the middleware asks the facilitator what it supports
      // when it is made, and the demo's facilitator (the app's /api/facilitator) starts after the market.
      let middleware: ReturnType<typeof paymentMiddleware> | null = null;
      router.use((req, res, next) => (middleware ??= paymentMiddleware(routes, server))(req, res, next));
    }

    for (const e of spec.document.endpoints) {
      const respond = (req: Request, res: Response) => {
        if (spec.behaviour === "fails-after-payment" && e.payable) {
          // 200 to the middleware (so it settles); failAfterSettlement turns it into a 500 on the way out.
          res.status(200).json({ error: "internal_error", message: "the backend failed after payment" });
          return;
        }
        deliver(e, req, res);
      };
      router[e.method.toLowerCase() as "get" | "post" | "put" | "patch" | "delete"](e.path, express.json({ limit: "256kb" }), respond);
    }
    app.use(`/${spec.slug}`, router);
  }

  app.use((req, res) => {
    res.status(404).json({ error: "not_found", message: `no market seller resource at ${req.method} ${req.path}` });
  });

  const { url, port, close } = await listenLoopback(app, options.port);
  const documents: Record<string, ListingDocument> = {};
  for (const spec of options.sellers) {
    const sellerUrl = `${url}/${spec.slug}`;
    const doc = localiseDocument(spec.document, sellerUrl, options.usdc, network);
    documents[spec.slug] = doc;
    served[spec.slug] = { description: describe(spec.slug, doc), url: sellerUrl };
  }
  return {
    url,
    port,
    documents,
    close,
  };
}
