/**
 * The agent-verdict service (docs/spec/products.md "Agent verdict service"): `POST
 * /api/x402/AGENT_VERDICT` behind the real x402 seller middleware (`paymentMiddleware` from
 * @x402/express over an `x402ResourceServer` with @x402/evm's exact scheme), verifying and settling
 * through a facilitator, and delivering only after settlement. Around the middleware, in order:
 *
 * 1. admission: past `maxInFlight` concurrent calls, 503 (the product's "not currently admitting");
 * 2. the request is parsed and validated before any quote (400 naming each problem by pointer);
 * 3. the dynamic quote is computed from the request (ARBITER-QUOTE-ID); a paid call naming another
 *    quote is refused (400);
 * 4. the payment identifier (the `payment-identifier` extension in PAYMENT-SIGNATURE, or the
 *    ARBITER-LOGICAL-PAYMENT-ID header): a delivered identifier replays its cached delivery with the
 *    same receipt (no verify, no settle, no work); one still settling answers 202;
 * 5. the middleware answers 402 with the offer (the bazaar extension with the published schemas and
 *    the published example, and the payment-identifier extension), or verifies, runs the handler,
 *    settles, and only then releases the verdict; a facilitator that fails is a 503.
 *
 * The deliverable is data: it is parsed, hashed and read by the checks, and never executed, logged,
 * echoed or stored (only its digest is in the verdict; only the verdict is cached).
 */
import type { KeyObject } from "node:crypto";
import express, { type NextFunction, type Request, type Response } from "express";
import Ajv2020 from "ajv/dist/2020";
import { paymentMiddleware, x402ResourceServer } from "@x402/express";
import { FacilitatorResponseError, type FacilitatorClient } from "@x402/core/server";
import { decodePaymentRequiredHeader, decodePaymentSignatureHeader } from "@x402/core/http";
import type { Network, PaymentPayload } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/server";
import { bazaarResourceServerExtension, declareDiscoveryExtension } from "@x402/extensions/bazaar";
import {
  declarePaymentIdentifierExtension,
  extractPaymentIdentifier,
  isValidPaymentId,
  PAYMENT_IDENTIFIER,
  paymentIdentifierResourceServerExtension,
} from "@x402/extensions/payment-identifier";
import type { Address } from "viem";
import { AppError } from "@/lib/errors";
import { LOCAL_NETWORK, LOCAL_USDC_DOMAIN } from "@/devchain/local-chain";
import { DeliveryStore } from "./deliveries";
import { hashCanonical } from "./digest";
import { quoteFor, type Quote } from "./pricing";
import { DOCS_PATH, EXAMPLE_REQUEST, INPUT_SCHEMA, KEYS_PATH, LOGICAL_PAYMENT_HEADER, OUTPUT_SCHEMA, PRODUCT_DOCUMENT, QUOTE_HEADER, RESOURCE_PATH } from "./product";
import { prepareRequest, type PreparedRequest } from "./request";
import { receiptSigner, type ReceiptSigner } from "./signer";
import { judge as program, type JudgeOptions } from "./verdict";
import { listenLoopback } from "../listen";
import { facilitatorClientFor, type FacilitatorTarget } from "../facilitator-client";

export interface AgentVerdictOptions {
  /** A facilitator URL, a URL with its caller credential ({url, token}), or a FacilitatorClient (../facilitator-client.ts). */
  facilitator: FacilitatorTarget;
  /** The USDC contract the service charges in (on the local chain: LOCAL_USDC_ADDRESS). */
  usdc: Address;
  /** Where the service is paid. */
  payTo: Address;
  /** 0 (default) picks a free port on 127.0.0.1. */
  port?: number;
  /** An Ed25519 private key (KeyObject or PKCS#8 PEM); without one every verdict is UNSIGNED_SIGNER_NOT_COMMISSIONED. */
  receiptKey?: KeyObject | string;
  /** Default: the local chain (LOCAL_NETWORK) and its test USDC's EIP-712 domain. */
  network?: Network;
  usdcDomain?: { name: string; version: string };
  /** Concurrent calls admitted before 503 (default 32). */
  maxInFlight?: number;
  /** The program (default: `judge`). Replaced only to inject a fault in tests: its envelope is still checked before delivery. */
  judge?: (p: PreparedRequest, o: JudgeOptions) => unknown;
}

export interface AgentVerdictService {
  url: string;
  port: number;
  /** The paid resource: `${url}/api/x402/AGENT_VERDICT`. */
  resourceUrl: string;
  /** The product document as served at the path it names (`${url}/docs/AGENT_VERDICT.json`). */
  docsUrl: string;
  /** What the service holds between calls: delivered verdicts by payment identifier. */
  deliveries: DeliveryStore;
  close(): Promise<void>;
}

/** The request being served, found again from the parsed body the middleware's dynamic price reads. */
const preparedByBody = new WeakMap<object, { prepared: PreparedRequest; quote: Quote }>();

const outputAjv = new Ajv2020({ strict: false, logger: false });
const validatePublishedOutput = outputAjv.compile(OUTPUT_SCHEMA);

const NOT_ADMITTING = "The seller or the product quote path is not currently admitting this request.";
const NOT_DELIVERED = "The result could not be delivered.";
const PENDING = "Verification or settlement is still in progress; retry the same call with the same payment and the same payment identifier.";

function sendError(res: Response, e: AppError, headers: Record<string, string> = {}) {
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  res.status(e.status).json(e.toJSON());
}

/** The facilitator, with any failure it throws turned into the boundary error the middleware answers as such (then 503 here). */
function boundary(client: FacilitatorClient): FacilitatorClient {
  const wrap =
    <A extends unknown[], T>(fn: (...a: A) => Promise<T>) =>
    async (...a: A): Promise<T> => {
      try {
        return await fn(...a);
      } catch (e) {
        if (e instanceof FacilitatorResponseError) throw e;
        throw new FacilitatorResponseError(`facilitator unavailable: ${e instanceof Error ? e.message : String(e)}`);
      }
    };
  return { verify: wrap(client.verify.bind(client)), settle: wrap(client.settle.bind(client)), getSupported: wrap(client.getSupported.bind(client)) };
}

/** The product document as this instance serves it: the published one, with where it lives and is paid. */
export function servedProductDocument(url: string, terms: { network: string; asset: string; payTo: string }): Record<string, unknown> {
  const doc = structuredClone(PRODUCT_DOCUMENT) as Record<string, any>;
  doc.resourceUrl = `${url}${RESOURCE_PATH}`;
  const destination = { address: terms.payTo, assetContracts: [terms.asset], networks: [terms.network] };
  doc.payment.destination = { ...doc.payment.destination, ...destination, bindingVersion: hashCanonical(destination) };
  return doc;
}

export async function startAgentVerdict(options: AgentVerdictOptions): Promise<AgentVerdictService> {
  const network = options.network ?? LOCAL_NETWORK;
  const domain = options.usdcDomain ?? LOCAL_USDC_DOMAIN;
  const terms = { network, asset: options.usdc, payTo: options.payTo };
  const signer: ReceiptSigner | null = options.receiptKey ? receiptSigner(options.receiptKey) : null;
  const maxInFlight = options.maxInFlight ?? 32;
  const judge = options.judge ?? program;
  const deliveries = new DeliveryStore();
  const facilitator = boundary(facilitatorClientFor(options.facilitator));
  let url = "";
  const keysUrl = () => (signer ? `${url}${KEYS_PATH}` : null);

  const app = express();
  app.disable("x-powered-by");

  // --- the free documents
  app.get(DOCS_PATH, (_req, res) => {
    res.json(servedProductDocument(url, terms));
  });
  app.get(KEYS_PATH, (_req, res) => {
    res.json(signer ? { state: "SIGNED", keys: [signer.published] } : { state: "UNSIGNED_SIGNER_NOT_COMMISSIONED", keys: [] });
  });
  app.get("/.well-known/x402", (_req, res) => {
    res.json({ version: 1, resources: [`${url}${RESOURCE_PATH}`], instructions: `POST ${RESOURCE_PATH} unpaid for the 402 quote; pay it with an x402 v2 exact payment (PAYMENT-SIGNATURE), carrying a payment identifier to make retries safe. Product document: ${DOCS_PATH}.` });
  });

  // --- the paid resource
  let inFlight = 0;
  const admission = (_req: Request, res: Response, next: NextFunction) => {
    if (inFlight >= maxInFlight) {
      sendError(res, new AppError("unavailable", NOT_ADMITTING, [{ message: `${maxInFlight} calls are in progress; retry shortly` }]), { "Retry-After": "1" });
      return;
    }
    inFlight++;
    let done = false;
    const release = () => {
      if (!done) inFlight--;
      done = true;
    };
    res.on("finish", release);
    res.on("close", release);
    next();
  };

  const jsonBody = express.json({ limit: "512kb", type: () => true, strict: false });

  const prepare = (req: Request, res: Response, next: NextFunction) => {
    try {
      const prepared = prepareRequest(req.body);
      const quote = quoteFor(prepared, terms);
      res.setHeader(QUOTE_HEADER, quote.quoteId);
      const named = req.header(QUOTE_HEADER);
      if (named !== undefined && named !== quote.quoteId) {
        throw new AppError("bad_request", "The request field is invalid.", [
          { pointer: `header:${QUOTE_HEADER}`, message: `names quote ${named}, but this request's quote is ${quote.quoteId}: the request or the terms changed since it was quoted; pay the current quote` },
        ]);
      }
      preparedByBody.set(req.body as object, { prepared, quote });
      next();
    } catch (e) {
      if (e instanceof AppError) sendError(res, e);
      else next(e);
    }
  };

  /** The payment identifier of this call, from the payment's extension or the logical-payment header. */
  const identify = (req: Request, res: Response, next: NextFunction) => {
    const { prepared } = preparedByBody.get(req.body as object)!;
    const signature = req.header("payment-signature") ?? req.header("x-payment");
    let fromPayment: string | null = null;
    if (signature) {
      try {
        const payload = decodePaymentSignatureHeader(signature) as PaymentPayload;
        fromPayment = extractPaymentIdentifier(payload, false);
      } catch {
        fromPayment = null; // an unreadable payment is the middleware's to refuse (402)
      }
    }
    const fromHeader = req.header(LOGICAL_PAYMENT_HEADER) ?? null;
    const problems: Array<{ pointer: string; message: string }> = [];
    if (fromPayment !== null && !isValidPaymentId(fromPayment)) problems.push({ pointer: `payment:/extensions/${PAYMENT_IDENTIFIER}/info/id`, message: "must be 16 to 128 characters of A-Z a-z 0-9 _ -" });
    if (fromHeader !== null && !isValidPaymentId(fromHeader)) problems.push({ pointer: `header:${LOGICAL_PAYMENT_HEADER}`, message: "must be 16 to 128 characters of A-Z a-z 0-9 _ -" });
    if (fromPayment !== null && fromHeader !== null && fromPayment !== fromHeader) problems.push({ pointer: `header:${LOGICAL_PAYMENT_HEADER}`, message: "differs from the payment's payment-identifier; send one identifier" });
    if (problems.length) return sendError(res, new AppError("bad_request", "The request field is invalid.", problems));
    const id = fromPayment ?? fromHeader;
    if (id === null) return next();
    res.setHeader(LOGICAL_PAYMENT_HEADER, id);

    const known = deliveries.get(id);
    if (known) {
      const root = known.state === "pending" ? known.inputRoot : known.delivery.inputRoot;
      if (root !== prepared.inputRoot) {
        return sendError(res, new AppError("bad_request", "The request field is invalid.", [{ pointer: `header:${LOGICAL_PAYMENT_HEADER}`, message: "this payment identifier belongs to a different request; use a new identifier for a new request" }]));
      }
      if (known.state === "pending") {
        res.setHeader("Retry-After", "1");
        res.status(202).json({ status: "PENDING", message: PENDING, paymentIdentifier: id });
        return;
      }
      // The cached delivery, byte for byte, with the same PAYMENT-RESPONSE receipt: no verify, no settle, no work.
      res.status(known.delivery.status);
      for (const [k, v] of Object.entries(known.delivery.headers)) res.setHeader(k, v);
      res.setHeader("ARBITER-DELIVERY", "CACHED");
      res.end(known.delivery.body);
      return;
    }
    // Only a call carrying a payment claims the identifier; an unpaid one just gets its 402.
    if (signature) {
      deliveries.begin(id, prepared.inputRoot);
      res.locals.claimedPaymentId = id;
    }
    next();
  };

  /**
   * Installed before the payment middleware, so every answer it releases passes through here: the
   * 402 body mirrors the PAYMENT-REQUIRED header (plus the quote), a facilitator failure (the
   * middleware's 500/502) leaves as 503, and a settled delivery is cached under its identifier.
   */
  const capture = (req: Request, res: Response, next: NextFunction) => {
    const claimed = res.locals.claimedPaymentId as string | undefined;
    const originalEnd = res.end.bind(res) as (...a: unknown[]) => Response;
    res.end = ((...args: unknown[]) => {
      let chunk = args[0];
      if (!res.headersSent) {
        const header = res.getHeader("payment-required");
        if (res.statusCode === 402 && typeof header === "string") {
          chunk = JSON.stringify(decodePaymentRequiredHeader(header));
        } else if (res.statusCode === 500 || res.statusCode === 502) {
          res.statusCode = 503;
          res.setHeader("Retry-After", "5");
          chunk = JSON.stringify(new AppError("unavailable", NOT_ADMITTING, [{ message: "the payment facilitator did not answer; nothing was charged" }]).toJSON());
        }
        if (chunk !== args[0]) {
          res.setHeader("Content-Type", "application/json; charset=utf-8");
          res.setHeader("Content-Length", Buffer.byteLength(chunk as string));
          args = [chunk, "utf8", ...args.slice(2).filter((a) => typeof a === "function")];
        }
      }
      if (claimed) {
        const receipt = res.getHeader("payment-response");
        if (res.statusCode === 200 && typeof receipt === "string") {
          const headers: Record<string, string> = {};
          for (const name of ["content-type", "payment-response", QUOTE_HEADER.toLowerCase(), LOGICAL_PAYMENT_HEADER.toLowerCase(), "cache-control"]) {
            const v = res.getHeader(name);
            if (v !== undefined) headers[name] = String(v);
          }
          const body = typeof chunk === "string" ? Buffer.from(chunk) : Buffer.isBuffer(chunk) ? chunk : Buffer.alloc(0);
          deliveries.deliver(claimed, { inputRoot: preparedByBody.get(req.body as object)!.prepared.inputRoot, status: 200, headers, body });
        } else {
          deliveries.abandon(claimed);
        }
      }
      return originalEnd(...args);
    }) as Response["end"];
    next();
  };

  const exampleOutput = () => program(prepareRequest(structuredClone(EXAMPLE_REQUEST)), { signer, keysUrl: keysUrl() });
  const server402 = new x402ResourceServer(facilitator)
    .register(network, new ExactEvmScheme())
    .registerExtension(bazaarResourceServerExtension)
    .registerExtension(paymentIdentifierResourceServerExtension);

  // The route config is built once the URL is known (the example's signature block names the keys URL).
  // Made on the first paid request (the facilitator is asked what it supports when it is made, and
  // the demo's facilitator may start after this service), once the URL is known.
  let makePayment: (() => ReturnType<typeof paymentMiddleware>) | null = null;
  let payment: ReturnType<typeof paymentMiddleware> | null = null;
  const paymentGate = (req: Request, res: Response, next: NextFunction) => (payment ??= makePayment!())(req, res, next);

  app.post(RESOURCE_PATH, admission, jsonBody, prepare, identify, capture, paymentGate, (req: Request, res: Response) => {
    const { prepared } = preparedByBody.get(req.body as object)!;
    let out: unknown;
    try {
      out = judge(prepared, { signer, keysUrl: keysUrl() });
    } catch {
      out = null;
    }
    // The envelope is checked against the published output schema before it may be delivered (and paid for).
    if (out === null || !validatePublishedOutput(out)) {
      sendError(res, new AppError("unprocessable", NOT_DELIVERED, [{ message: "the verdict failed its own output schema; nothing is charged" }]));
      return;
    }
    res.status(200).json(out);
  });

  app.use((req: Request, res: Response) => {
    sendError(res, new AppError("not_found", `no resource at ${req.method} ${req.path}`));
  });
  // Body-parser failures (not JSON, too large) and anything unexpected: a clear status, and the body is neither quoted nor logged.
  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const e = err as { type?: string; limit?: number };
    if (res.headersSent) return;
    if (e?.type === "entity.parse.failed") return sendError(res, new AppError("bad_request", "The request field is invalid.", [{ pointer: "", message: "the body is not JSON" }]));
    if (e?.type === "entity.too.large") return sendError(res, new AppError("bad_request", "The request field is invalid.", [{ pointer: "", message: `the body is over ${e.limit} bytes` }]));
    if (e?.type) return sendError(res, new AppError("bad_request", "The request field is invalid.", [{ pointer: "", message: "the body could not be read" }]));
    sendError(res, new AppError("unprocessable", NOT_DELIVERED));
  });

  const listener = await listenLoopback(app, options.port);
  const port = listener.port;
  url = listener.url;

  makePayment = () => paymentMiddleware(
    {
      [`POST ${RESOURCE_PATH}`]: {
        accepts: {
          scheme: "exact",
          network,
          payTo: options.payTo,
          price: (context) => {
            const entry = preparedByBody.get(context.adapter.getBody?.() as object);
            if (!entry) throw new Error("no prepared request for this call");
            return { asset: options.usdc, amount: entry.quote.amount, extra: { ...domain } };
          },
          maxTimeoutSeconds: 300,
        },
        description: "Agent verdict: did the work meet your criteria (signed, per criterion)",
        mimeType: "application/json",
        serviceName: "Arbiter Verify",
        tags: ["verify", "agents"],
        extensions: {
          ...(declareDiscoveryExtension({
            bodyType: "json",
            input: EXAMPLE_REQUEST,
            inputSchema: INPUT_SCHEMA,
            output: { example: exampleOutput(), schema: OUTPUT_SCHEMA },
          }) as Record<string, unknown>),
          [PAYMENT_IDENTIFIER]: declarePaymentIdentifierExtension(false),
        },
      },
    },
    server402,
  );

  return {
    url,
    port,
    resourceUrl: `${url}${RESOURCE_PATH}`,
    docsUrl: `${url}${DOCS_PATH}`,
    deliveries,
    close: listener.close,
  };
}
