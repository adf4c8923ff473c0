/**
 * The router's paying relay (`ANY /router/call/<listing slug>/<endpoint path>`): the only writer of
 * the settlement ledger. A buyer (or its agent) calls the router instead of the seller; the router
 * never holds a buyer's key, it carries the buyer's own signed payment.
 *
 * 1. The caller is authenticated: an API key (`Authorization: Bearer tg_…`, or `X-Tollgate-Key: tg_…`
 *    when `Authorization` carries an MPP credential); a session cookie is no authority here.
 * 2. The listing (published or unlisted) and its endpoint (method and path) are looked up; an
 *    unknown one is a 404 naming it.
 * 3. The request goes to the seller through lib/net's safeFetch (the SSRF guard; loopback sellers
 *    only through TOLLGATE_PROBE_ALLOW_HOSTS), with an allow-list of the buyer's headers (never its
 *    cookies, its X-Tollgate-Key, or an Authorization other than an MPP `Payment` credential), a 30 s
 *    deadline and a 10 MB cap. An unpaid request's answer (the seller's 402) comes back untouched and
 *    nothing is recorded.
 * 4. A request carrying a payment is a payment attempt, recorded once per (payer, authorization
 *    nonce) with its protocol: x402's `PAYMENT-SIGNATURE` (or v1's `X-PAYMENT`) or MPP's
 *    `Authorization: Payment …` (lib/router/payment-headers.ts reads each with its own library):
 *    payer and nonce from the signed EIP-3009 authorization, the quoted amount, asset, network and
 *    payTo from the requirement the payment answered (x402 v2's `accepted`, the MPP challenge's
 *    request; x402 v1: the authorization's value and recipient), the seller's status, the latency and
 *    its decoded claim (PAYMENT-RESPONSE, or MPP's Payment-Receipt). A header that does not decode is
 *    recorded `rejected` `malformed_payment` (the buyer's fault; the seller's answer is still
 *    returned); a seller answer without a successful claim is `failed` `not_settled`, or `rejected`
 *    with the buyer's fault when its x402 authorization could never have settled
 *    (lib/router/buyer-fault.ts).
 * 5. A claimed settlement is recorded `unconfirmed` with its transaction (one insert, before the
 *    answer leaves) and then confirmed on chain (lib/ledger/confirm-payment.ts): `settled` with the
 *    chain's amount and recipient, `failed` `unproven`, or left `unconfirmed` for the ledger tick
 *    while the chain cannot be read. With `afterAnswer` (the route: Next's after()) the confirmation
 *    runs once the answer has gone; without it, before the relay answers.
 *
 * The seller's answer leaves as it came (status, headers, body), minus hop-by-hop framing, and inert
 * for a browser (lib/router/relay-response.ts: sandbox CSP, nosniff, active types as attachments).
 * A seller that redirects off-host, answers past the deadline or sends more than the cap gets the
 * buyer a 502 with a code (`seller_<refusal or error>`), and a payment attempt is recorded `failed`.
 */
import { authenticateApiKey } from "@/lib/apikeys";
import { db } from "@/lib/db";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { readBodyBytes } from "@/lib/http";
import type { ReadOptions } from "@/lib/ledger/confirm-payment";
import { recordPayment, type PaymentInput } from "@/lib/ledger/record";
import { buyerFault } from "@/lib/router/buyer-fault";
import { safeFetch } from "@/lib/net";
import { decodePaymentSignatureHeader } from "@x402/core/http";
import { confirmRecorded } from "./confirm-after-answer";
import { relayedResponse, withRelayHeaders } from "./relay-response";
import { decodePayment, decodeSettlement, findPaymentHeader, isPaymentScheme, type PaymentHeader } from "./payment-headers";

export const RELAY_DEADLINE_MS = 30_000;
export const RELAY_MAX_BODY_BYTES = 10 * 1024 * 1024;

/** Request headers carried to the seller; everything else (Cookie, X-Tollgate-Key, …) stays here. */
const FORWARDED_REQUEST_HEADERS = ["accept", "accept-language", "content-type", "payment-signature", "x-payment", "user-agent"];
/** Carried only when they hold an MPP credential (`Payment …`): a Bearer Authorization is the buyer's Tollgate key. */
const FORWARDED_PAYMENT_CREDENTIAL_HEADERS = ["authorization", "payment-authorization"];
/** The Tollgate API key's header when Authorization carries an MPP credential. */
export const API_KEY_HEADER = "x-tollgate-key";

export interface RelayOptions {
  /** host:port entries the relay may reach over plain http on loopback; default TOLLGATE_PROBE_ALLOW_HOSTS. */
  allowHosts?: string[];
  /** How the chain is read for confirmation (default: the configured RPCs). */
  chain?: ReadOptions;
  /** The caller, when the route has already authenticated it (for its rate limit): not looked up again. */
  caller?: Caller;
  /**
   * Runs the on-chain confirmation once the answer has been handed back (the route passes Next's
   * after()). The task never rejects, and the row is recorded before it runs. Absent, the relay
   * confirms before answering.
   */
  afterAnswer?: (task: () => Promise<void>) => void;
  /**
   * The catalog's own canary calling (lib/canary): no API key or session is asked, and its payment's
   * row is `house` (never traction or price evidence). Set by server code only, never from a request.
   */
  house?: boolean;
}

export interface Caller {
  kind: "api_key" | "house";
  id: string;
}

/**
 * The API key (`Authorization: Bearer tg_…`, else `X-Tollgate-Key: tg_…`, the carrier when
 * Authorization holds an MPP credential), holding the scope `router:call` (else 403
 * `insufficient_scope`); a 401 naming both headers when neither is sent. A browser's session is no
 * authority here: the relay is an API, and a cookie a page sends along never calls through it.
 */
export async function authenticateCaller(req: Request): Promise<Caller> {
  const authorization = req.headers.get("authorization");
  if (authorization && /^Bearer\s/i.test(authorization)) return { kind: "api_key", id: (await authenticateApiKey(authorization, "router:call")).id };
  const key = req.headers.get(API_KEY_HEADER)?.trim();
  if (key) return { kind: "api_key", id: (await authenticateApiKey(`Bearer ${key}`, "router:call")).id };
  throw new AppError(
    "unauthorized",
    "Calling through the router needs an API key with the scope router:call: Authorization: Bearer tg_…, or X-Tollgate-Key: tg_… when Authorization carries an MPP credential. A signed-in session does not call the router.",
    [{ pointer: "/headers/authorization", message: "no API key (Authorization: Bearer tg_… or X-Tollgate-Key: tg_…)" }],
    { scheme: "Bearer" },
  );
}

interface Target {
  listingId: string;
  endpointId: string;
  url: string;
  /** The endpoint's listed price asset and network: the asset of an x402 v1 payment, which names none. */
  price: { asset: string | null; network: string | null };
}

async function findTarget(slug: string, method: string, path: string, query: string): Promise<Target> {
  const prisma = await db();
  const listing = await prisma.listing.findUnique({
    where: { slug },
    select: { id: true, baseUrl: true, publicationState: true, endpoints: { select: { id: true, method: true, path: true, priceAsset: true, priceNetwork: true } } },
  });
  if (!listing || (listing.publicationState !== "published" && listing.publicationState !== "unlisted")) {
    throw new AppError("not_found", `No listing ${JSON.stringify(slug)} is in the catalog.`, [{ pointer: "/listing", message: `unknown listing ${slug}` }]);
  }
  const wanted = "/" + path.replace(/^\/+/, "");
  const endpoint = listing.endpoints.find((e) => e.method === method && "/" + e.path.replace(/^\/+/, "") === wanted);
  if (!endpoint) {
    const known = listing.endpoints.map((e) => `${e.method} ${e.path}`).join(", ") || "none";
    throw new AppError("not_found", `Listing ${JSON.stringify(slug)} has no endpoint ${method} ${wanted} (it has: ${known}).`, [
      { pointer: "/endpoint", message: `unknown endpoint ${method} ${wanted}` },
    ]);
  }
  return { listingId: listing.id, endpointId: endpoint.id, url: listing.baseUrl.replace(/\/+$/, "") + wanted + query, price: { asset: endpoint.priceAsset, network: endpoint.priceNetwork } };
}

/**
 * A payment the seller did not settle: `failed` (the seller's: `not_settled`, or the relay's code when
 * the seller could not be relayed), unless the buyer's own authorization could never have settled:
 * then `rejected` with the buyer's fault (lib/router/buyer-fault.ts), which counts against no seller.
 */
async function recordUnsettled(
  common: Pick<PaymentInput, "listingId" | "endpointId" | "latencyMs" | "httpStatus" | "house">,
  quote: Pick<PaymentInput, "payer" | "advertisedAmount" | "asset" | "network" | "quotedPayTo" | "authorizationNonce">,
  failure: { code: string } | null,
  claim: unknown,
  header: PaymentHeader,
  options: RelayOptions,
) {
  // The signed EIP-3009 authorization is judged where the payload carries the requirement it answers (x402 v2).
  const fault = failure || header.header !== "payment-signature" ? null : await buyerFault(x402Payload(header.value), options.chain);
  return recordPayment({ ...common, ...quote, status: fault ? "rejected" : "failed", reason: fault ?? failure?.code ?? "not_settled", paymentResponse: claim });
}

function x402Payload(value: string): unknown {
  try {
    return decodePaymentSignatureHeader(value);
  } catch {
    return null;
  }
}

function relayError(status: number, code: string, message: string): Response {
  return withRelayHeaders(Response.json({ error: { code, message } }, { status, headers: { "cache-control": "no-store" } }));
}

/**
 * Relay one call. `slug` and `path` come from the route (`/router/call/<slug>/<path…>`). Errors
 * before the seller is reached (401, 404) are thrown as AppError for the route to answer.
 */
export async function relayCall(req: Request, slug: string, path: string, options: RelayOptions = {}): Promise<Response> {
  const caller: Caller = options.house ? { kind: "house", id: "canary" } : (options.caller ?? (await authenticateCaller(req)));
  const method = req.method.toUpperCase();
  const target = await findTarget(slug, method, path, new URL(req.url).search);

  const headers: Record<string, string> = {};
  for (const name of FORWARDED_REQUEST_HEADERS) {
    const v = req.headers.get(name);
    if (v !== null) headers[name] = v;
  }
  for (const name of FORWARDED_PAYMENT_CREDENTIAL_HEADERS) {
    const v = req.headers.get(name);
    if (isPaymentScheme(v)) headers[name] = v;
  }
  const paymentHeader = findPaymentHeader(new Headers(headers));
  const body = method === "GET" || method === "HEAD" ? undefined : await readBodyBytes(req, RELAY_MAX_BODY_BYTES, "a relayed request (the relay's 10 MB cap)");

  const started = performance.now();
  const answer = await safeFetch(target.url, {
    method,
    headers,
    body: body && body.byteLength > 0 ? body : undefined,
    allowHosts: options.allowHosts ?? env().probeAllowHosts,
    allowQuery: true,
    deadlineMs: RELAY_DEADLINE_MS,
    maxBodyBytes: RELAY_MAX_BODY_BYTES,
    bodyOverflow: "error",
    requireValidTls: true,
  });
  const latencyMs = Math.round(performance.now() - started);

  let failure: { code: string; message: string } | null = null;
  if (!answer.ok) {
    const code = "refusal" in answer ? answer.refusal : answer.error;
    failure = { code: `seller_${code}`, message: `The seller could not be relayed: ${answer.detail}` };
  } else if (answer.redirects.some((r) => !r.followed)) {
    failure = { code: "seller_redirect_off_host", message: `The seller redirected to another host (${answer.redirects.find((r) => !r.followed)?.to}); the relay does not follow it.` };
  }

  if (paymentHeader !== null) {
    const payment = decodePayment(paymentHeader);
    const common = {
      listingId: target.listingId,
      endpointId: target.endpointId,
      latencyMs,
      httpStatus: answer.ok ? answer.status : ("status" in answer ? (answer.status ?? null) : null),
      house: options.house ?? false,
    };
    if (!payment) {
      // Who sent it is all we know: the caller stands in as the payer.
      await recordPayment({ ...common, protocol: paymentHeader.protocol, payer: `${caller.kind}:${caller.id}`, status: "rejected", reason: "malformed_payment", advertisedAmount: "0", asset: "unknown", network: "unknown" });
    } else {
      const settlement = answer.ok && !failure ? decodeSettlement(payment.protocol, answer.headers) : { claim: null, transaction: null };
      // x402 v1 names no asset: the listing's price asset on that network stands in.
      const asset = payment.asset ?? (target.price.network === payment.network && target.price.asset ? target.price.asset : "unknown");
      const quote = { protocol: payment.protocol, payer: payment.payer, advertisedAmount: payment.amount, asset, network: payment.network, quotedPayTo: payment.payTo, authorizationNonce: payment.nonce };
      const row = settlement.transaction
        ? await recordPayment({ ...common, ...quote, status: "unconfirmed", transactionId: settlement.transaction, paymentResponse: settlement.claim })
        : await recordUnsettled(common, quote, failure, settlement.claim, paymentHeader, options);
      if (row.created && settlement.transaction) {
        const confirm = () => confirmRecorded(row.id, options.chain);
        if (options.afterAnswer) options.afterAnswer(confirm);
        else await confirm();
      }
    }
  }

  if (failure || !answer.ok) return relayError(502, failure?.code ?? "seller_failed", failure?.message ?? "The seller could not be relayed.");
  return relayedResponse(answer, method);
}
