/**
 * The validity-check service (docs/spec/products.md "Validity-check endpoints"): an express app with
 *
 * - `GET /criteria` (free): the published criteria document, byte for byte (criteria.json is the
 *   document docs/spec/products.md "Validity-check criteria document" keeps);
 * - `GET /openapi.json` (free): the same contract as data, with the published examples (openapi.ts);
 * - `POST /precheck` (free): the contract check and the artefact facts, no statement, no time
 *   remaining, no verdict; 100 a day per caller wallet, at least 5,000 ms apart, 402 when exhausted;
 * - `POST /upto` and `POST /validity` ($0.01 each): the artefact is checked FREE first (a malformed
 *   one is refused before any payment), then the real x402 seller middleware (@x402/express over
 *   an x402ResourceServer with @x402/evm's exact scheme) answers 402 with the offer and its bazaar
 *   extension, verifies and settles through the facilitator it is given, and releases the delivery
 *   only after the settlement succeeded; the settled delivery's closed-field row goes to the
 *   payments ledger;
 * - `GET /metrics`: Prometheus counters over closed label sets (routes, refusal codes, ops,
 *   verdicts, machinery statuses);
 * - `NOT COVERED` for any other POST path.
 *
 * Custody (docs/spec/products.md "Validity-check custody" and "Validity-check retention"): the body
 * is read into memory by this request and dropped with it. Nothing here logs; every error answer is
 * a static string with numeric facts; the error handler never echoes an exception's message (a JSON
 * parser's message can quote the body). The ledger row and the metrics are built from closed lists.
 */
import express, { type NextFunction, type Request, type Response } from "express";
import { paymentMiddleware, x402ResourceServer } from "@x402/express";
import type { FacilitatorClient } from "@x402/core/server";
import { decodePaymentResponseHeader } from "@x402/core/http";
import type { Network } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/server";
import { bazaarResourceServerExtension, declareDiscoveryExtension } from "@x402/extensions/bazaar";
import { Counter, Registry } from "prom-client";
import type { Address } from "viem";
import { LOCAL_NETWORK, LOCAL_USDC_DOMAIN } from "@/devchain/local-chain";
import criteriaDocument from "./criteria.json";
import { checkPaid, deliveryFor, precheckAnswer } from "./answers";
import { callerWallet, REFUSAL_CODES, UPTO_INPUT_SCHEMA, VALIDITY_INPUT_SCHEMA, type Op, type UptoInput, type ValidityInput } from "./contract";
import { UPTO_EXAMPLE_INPUT, UPTO_EXAMPLE_OUTPUT, UPTO_OUTPUT_SCHEMA, VALIDITY_EXAMPLE_INPUT, VALIDITY_EXAMPLE_OUTPUT, VALIDITY_OUTPUT_SCHEMA } from "./examples";
import { FreeAllowance } from "./free-tier";
import { PaymentsLedger, type LedgerRow } from "./ledger";
import { CRITERIA_ID, CRITERIA_REVISION, envelope, MACHINERY_STATUSES, VERDICTS, verdictLine } from "./logic";
import { listenLoopback } from "../listen";
import { OPENAPI_PATH, openApiDocument } from "./openapi";
import { facilitatorClientFor, type FacilitatorTarget } from "../facilitator-client";

/** The criteria document as published (criteria.json round-trips through JSON byte for byte). */
export const CRITERIA_TEXT = JSON.stringify(criteriaDocument);
/** docs/spec/products.md "Validity-check caps". */
export const BODY_CAP_BYTES = 262_144;
/** docs/spec/products.md "Validity-check price": 10000 atomic USDC, $0.01. */
export const PRICE_USDC_UNITS = "10000";
const CRITERIA_VERSION = `${CRITERIA_ID}@${CRITERIA_REVISION}`;

const ROUTES = ["GET /criteria", "GET /openapi.json", "POST /precheck", "POST /upto", "POST /validity", "GET /metrics"] as const;

export interface ValidityCheckOptions {
  /** A facilitator URL, a URL with its caller credential ({url, token}), or a FacilitatorClient (../facilitator-client.ts). */
  facilitator: FacilitatorTarget;
  /** The USDC contract the paid ops charge in (on the local chain: LOCAL_USDC_ADDRESS). */
  usdc: Address;
  payTo: Address;
  /** 0 (default) picks a free port on 127.0.0.1. */
  port?: number;
  /** Default: the local chain. */
  network?: Network;
  /** The USDC's EIP-712 domain (default: the local test USDC's). */
  usdcDomain?: { name: string; version: string };
  /** Wallets whose payments are the house's own (the ledger's house flag). payTo always is. */
  houseWallets?: string[];
  /** The clock (ms since the epoch): the free allowance, server-time instants and ledger timestamps. */
  now?: () => number;
}

export interface ValidityCheck {
  url: string;
  port: number;
  /** The payments ledger's rows (copies). */
  ledger(): LedgerRow[];
  close(): Promise<void>;
}

interface Metrics {
  registry: Registry;
  requests: Counter<"route" | "status">;
  refusals: Counter<"code">;
  deliveries: Counter<"op">;
  verdicts: Counter<"verdict">;
  machinery: Counter<"status">;
  freeRefused: Counter<"refusal">;
}

function metrics(): Metrics {
  const registry = new Registry();
  const m: Metrics = {
    registry,
    requests: new Counter({ name: "validity_check_requests_total", help: "Requests answered, by route and status.", labelNames: ["route", "status"], registers: [registry] }),
    refusals: new Counter({ name: "validity_check_refusals_total", help: "Free refusals, by refusal code.", labelNames: ["code"], registers: [registry] }),
    deliveries: new Counter({ name: "validity_check_paid_deliveries_total", help: "Deliveries released after a settled payment, by op.", labelNames: ["op"], registers: [registry] }),
    verdicts: new Counter({ name: "validity_check_verdicts_total", help: "Settled validity analyses, by verdict.", labelNames: ["verdict"], registers: [registry] }),
    machinery: new Counter({ name: "validity_check_machinery_statuses_total", help: "Settled upto statements, by machinery status.", labelNames: ["status"], registers: [registry] }),
    freeRefused: new Counter({ name: "validity_check_free_allowance_refusals_total", help: "Pre-checks refused with 402 by the free allowance.", labelNames: ["refusal"], registers: [registry] }),
  };
  // Every label value is known up front: start them at zero so a scrape shows the closed lists.
  for (const code of [...REFUSAL_CODES, "body_too_large"]) m.refusals.inc({ code }, 0);
  for (const op of ["upto", "validity"]) m.deliveries.inc({ op }, 0);
  for (const verdict of VERDICTS) m.verdicts.inc({ verdict }, 0);
  for (const status of MACHINERY_STATUSES) m.machinery.inc({ status }, 0);
  for (const refusal of ["free_daily_allowance_exhausted", "free_min_interval"]) m.freeRefused.inc({ refusal }, 0);
  return m;
}

/** Reads the request body into memory, refusing past the cap (free, before anything else). */
function readBody(cap: number, onRefused: () => void) {
  return (req: Request, res: Response, next: NextFunction) => {
    const refuse = () => {
      onRefused();
      res.setHeader("Connection", "close");
      res.status(413).json({ error: "body_too_large", refusal: "body_too_large", cap_bytes: cap });
    };
    const declared = Number(req.headers["content-length"] ?? "0");
    if (declared > cap) {
      refuse();
      req.resume();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    req.on("data", (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > cap) {
        done = true;
        chunks.length = 0;
        refuse();
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => {
      if (done) return;
      done = true;
      res.locals.body = parseJson(Buffer.concat(chunks).toString("utf8"));
      chunks.length = 0;
      next();
    });
    req.on("error", () => {
      done = true;
      chunks.length = 0;
    });
  };
}

/** The body as JSON, or undefined (no body, or not JSON: the contract names that as the op's missing member). */
function parseJson(text: string): unknown {
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined; // the parser's message can quote the body: it goes nowhere
  }
}

export function validityCheckApp(options: ValidityCheckOptions): { app: express.Express; ledger: PaymentsLedger } {
  const now = options.now ?? Date.now;
  const network = options.network ?? LOCAL_NETWORK;
  const facilitator: FacilitatorClient = facilitatorClientFor(options.facilitator);
  const house = new Set([options.payTo, ...(options.houseWallets ?? [])].map((w) => w.toLowerCase()));
  const ledger = new PaymentsLedger(house);
  const allowance = new FreeAllowance(now);
  const m = metrics();
  const body = readBody(BODY_CAP_BYTES, () => m.refusals.inc({ code: "body_too_large" }));

  const app = express();
  app.disable("x-powered-by");
  app.disable("etag");

  app.use((req, res, next) => {
    const key = `${req.method} ${req.path}`;
    const route = (ROUTES as readonly string[]).includes(key) ? key : req.method === "POST" ? "POST other" : "other";
    res.on("finish", () => m.requests.inc({ route, status: String(res.statusCode) }));
    next();
  });

  app.get("/criteria", (_req, res) => {
    res.type("application/json").send(CRITERIA_TEXT);
  });

  // The same contract as data (request and response schemas, the published examples), for a
  // catalog or buyer that cannot call a paid op from the criteria document's prose (openapi.ts).
  const openapi = JSON.stringify(openApiDocument());
  app.get(OPENAPI_PATH, (_req, res) => {
    res.type("application/json").send(openapi);
  });

  app.get("/metrics", async (_req, res) => {
    res.type(m.registry.contentType).send(await m.registry.metrics());
  });

  app.post("/precheck", body, (req, res) => {
    const submitted = res.locals.body as unknown;
    res.locals.body = undefined;
    const answer = precheckAnswer(submitted);
    const caller = callerWallet(submitted) ?? `address ${req.socket.remoteAddress ?? "unknown"}`;
    const taken = allowance.take(caller);
    if (!taken.ok) {
      m.freeRefused.inc({ refusal: taken.refusal });
      res.setHeader("Retry-After", String(Math.ceil(taken.retryAfterMs / 1000)));
      res.status(402).json({
        ...envelope(answer.op),
        error: "free_allowance_exhausted",
        refusal: taken.refusal,
        per_day: allowance.perDay,
        min_interval_ms: allowance.minIntervalMs,
        retry_after_ms: taken.retryAfterMs,
        paid: ["POST /upto", "POST /validity"],
      });
      return;
    }
    res.setHeader("X-Free-Remaining-Today", String(taken.remainingToday));
    if (answer.code) m.refusals.inc({ code: answer.code });
    res.status(answer.status).json(answer.body);
  });

  // The paid ops: free contract check, then the middleware, then the delivery.
  const server = new x402ResourceServer(facilitator).register(network, new ExactEvmScheme()).registerExtension(bazaarResourceServerExtension);
  const accepts = {
    scheme: "exact",
    network,
    payTo: options.payTo,
    price: { asset: options.usdc, amount: PRICE_USDC_UNITS, extra: { ...(options.usdcDomain ?? LOCAL_USDC_DOMAIN) } },
    maxTimeoutSeconds: 300,
  };
  // Made on the first paid request, not at start: the middleware asks the facilitator what it supports
  // when it is made, and the demo's facilitator (the app's /api/facilitator) may start after this service.
  let middleware: ReturnType<typeof paymentMiddleware> | null = null;
  const makeMiddleware = () => paymentMiddleware(
    {
      "POST /upto": {
        accepts,
        description: "validity-check upto: one ceiling-exposure statement for one upto challenge ($0.01 per challenge)",
        mimeType: "application/json",
        extensions: declareDiscoveryExtension({
          bodyType: "json",
          input: UPTO_EXAMPLE_INPUT as unknown as Record<string, unknown>,
          inputSchema: UPTO_INPUT_SCHEMA,
          output: { example: UPTO_EXAMPLE_OUTPUT, schema: UPTO_OUTPUT_SCHEMA },
        }) as Record<string, unknown>,
      },
      "POST /validity": {
        accepts,
        description: "validity-check validity: one validity analysis of one signed payload at a stated evaluation instant ($0.01 per payload)",
        mimeType: "application/json",
        extensions: declareDiscoveryExtension({
          bodyType: "json",
          input: VALIDITY_EXAMPLE_INPUT as unknown as Record<string, unknown>,
          inputSchema: VALIDITY_INPUT_SCHEMA,
          output: { example: VALIDITY_EXAMPLE_OUTPUT, schema: VALIDITY_OUTPUT_SCHEMA },
        }) as Record<string, unknown>,
      },
    },
    server,
  );
  const pay = (req: Request, res: Response, next: NextFunction) => (middleware ??= makeMiddleware())(req, res, next);

  const contract = (op: Op) => (_req: Request, res: Response, next: NextFunction) => {
    const checked = checkPaid(op, res.locals.body);
    res.locals.body = undefined;
    if ("refused" in checked) {
      m.refusals.inc({ code: checked.refused.code });
      res.status(checked.refused.status).json(checked.refused.body);
      return;
    }
    res.locals.input = checked.input;
    next();
  };

  /**
   * Installed before the payment middleware, so the middleware's buffered answer is released
   * through it: the moment the delivery leaves with a successful PAYMENT-RESPONSE, the settlement
   * is recorded (closed fields only) and counted.
   */
  const recordSettled = (op: Op) => (_req: Request, res: Response, next: NextFunction) => {
    const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => Response;
    let recorded = false;
    res.writeHead = ((...args: unknown[]) => {
      const header = res.getHeader("payment-response");
      const line = res.locals.verdictLine as string | undefined;
      if (!recorded && header !== undefined && line !== undefined && res.statusCode < 400) {
        recorded = true;
        const settled = decodePaymentResponseHeader(String(header));
        if (settled.success && settled.payer) {
          ledger.record({
            settlement: { payer: settled.payer, transaction: settled.transaction, network: settled.network },
            atMs: now(),
            priceUsdcUnits: PRICE_USDC_UNITS,
            criteriaVersion: CRITERIA_VERSION,
            op,
            verdictLine: line,
          });
          m.deliveries.inc({ op });
          const outcome = res.locals.outcome as { verdict?: string; machinery?: string };
          if (outcome.verdict) m.verdicts.inc({ verdict: outcome.verdict });
          if (outcome.machinery) m.machinery.inc({ status: outcome.machinery });
        }
      }
      return writeHead(...args);
    }) as Response["writeHead"];
    next();
  };

  for (const op of ["upto", "validity"] as const) {
    app.post(`/${op}`, body, contract(op), recordSettled(op), pay, (_req, res) => {
      // Reached only after the middleware verified the payment; released only after it settles.
      const delivery = deliveryFor(op, res.locals.input as UptoInput | ValidityInput, Math.floor(now() / 1000));
      res.locals.input = undefined;
      res.locals.verdictLine = verdictLine(delivery);
      res.locals.outcome = delivery.op === "upto" ? { machinery: delivery.machinery_status } : { verdict: delivery.verdict };
      res.json(delivery);
    });
  }

  app.use((req, res) => {
    if (req.method === "POST") {
      res.status(404).json({ error: "NOT COVERED", message: "NOT COVERED — this worker serves ops upto and validity only." });
      return;
    }
    res.status(404).json({ error: "not_found", message: "no such route: GET /criteria, GET /openapi.json, POST /precheck, POST /upto, POST /validity, GET /metrics" });
  });

  // Closed-form: an exception's message never leaves (nor is logged): it could carry submitted text.
  app.use((_err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    res.status(500).json({ error: "internal_error", message: "the service failed on this request" });
  });

  return { app, ledger };
}

export async function startValidityCheck(options: ValidityCheckOptions): Promise<ValidityCheck> {
  const { app, ledger } = validityCheckApp(options);
  const { url, port, close } = await listenLoopback(app, options.port);
  return {
    url,
    port,
    ledger: () => ledger.list(),
    close,
  };
}
