/** The router's paying relay, the only writer of the settlement ledger (docs/ROUTER.md "Binding"). */
import { readCache } from "@/lib/read-cache";
import { authenticateApiKey } from "@/lib/apikeys";
import { db } from "@/lib/db";
import { isListed } from "@/lib/listings/visibility";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { readBodyBytes } from "@/lib/http";
import type { ReadOptions, WrittenRow } from "@/lib/ledger/confirm-payment";
import { heldAuthorization, normalisePayer, recordPayment, type PaymentInput } from "@/lib/ledger/record";
import { safeFetch } from "@/lib/net";
import type { SafeFetchResult } from "@/lib/net/types";
import { referencesAnswer, resolverFailed } from "@/lib/net/references";
import { judgeUnsettled } from "./blame";
import { startBuyerSideCheck, type BuyerSideCheck, type PaymentTerms } from "./buyer-side";
import { confirmRecorded } from "./confirm-after-answer";
import { decodePayment, decodeSettlement, findPaymentHeader, isPaymentScheme, type DecodedPayment } from "./payment-headers";
import { relayedResponse, withRelayHeaders } from "./relay-response";
import type { UnpaidAnswer } from "./seller-requirements";

export const RELAY_DEADLINE_MS = 30_000;
export const RELAY_MAX_BODY_BYTES = 10 * 1024 * 1024;

/** Everything else (Cookie, X-Tollgate-Key, …) stays here. */
const FORWARDED_REQUEST_HEADERS = ["accept", "accept-language", "content-type", "payment-signature", "x-payment", "user-agent"];
/** Only holding an MPP credential: a Bearer Authorization is the buyer's Tollgate key. */
const FORWARDED_PAYMENT_CREDENTIAL_HEADERS = ["authorization", "payment-authorization"];
export const API_KEY_HEADER = "x-tollgate-key";

export interface RelayOptions {
  allowHosts?: string[];
  chain?: ReadOptions;
  caller?: Caller;
  /** The route passes Next's after(); absent, the relay confirms before answering. */
  afterAnswer?: (task: () => Promise<void>) => void;
  /** The catalog's canary: its row is `house`. Set by server code only, never from a request. */
  house?: boolean;
  /** bench:router's "cold" leg only. */
  cold?: boolean;
}

export interface Caller {
  kind: "api_key" | "house";
  id: string;
}

/** A browser session is no authority here. */
export async function authenticateCaller(req: Request, opts: { fresh?: boolean } = {}): Promise<Caller> {
  const authorization = req.headers.get("authorization");
  if (authorization && /^Bearer\s/i.test(authorization)) return { kind: "api_key", id: (await authenticateApiKey(authorization, "router:call", opts)).id };
  const key = req.headers.get(API_KEY_HEADER)?.trim();
  if (key) return { kind: "api_key", id: (await authenticateApiKey(`Bearer ${key}`, "router:call", opts)).id };
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
  price: { asset: string | null; network: string | null };
}

type ListingTarget = { id: string; baseUrl: string; publicationState: string; endpoints: Array<{ id: string; method: string; path: string; priceAsset: string | null; priceNetwork: string | null }> } | null;

/** Every call is still checked by the guard as it is sent. */
export const TARGET_CACHE_TTL_MS = 1000;
const targets = readCache<ListingTarget>(TARGET_CACHE_TTL_MS);

function readListing(prisma: Awaited<ReturnType<typeof db>>, slug: string, cached: boolean): Promise<ListingTarget> {
  const read = () =>
    prisma.listing.findUnique({
      where: { slug },
      select: { id: true, baseUrl: true, publicationState: true, endpoints: { select: { id: true, method: true, path: true, priceAsset: true, priceNetwork: true } } },
    });
  return cached ? targets.get(prisma, slug, read) : read();
}

async function findTarget(slug: string, method: string, path: string, query: string, cached: boolean): Promise<Target> {
  const prisma = await db();
  const listing = await readListing(prisma, slug, cached);
  if (!listing || !isListed(listing)) {
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

const PAYMENT_HEADERS = new Set(["payment-signature", "x-payment", ...FORWARDED_PAYMENT_CREDENTIAL_HEADERS]);

function termsOf(payment: DecodedPayment, target: Target): PaymentTerms {
  const asset = payment.asset ?? (target.price.network === payment.network && target.price.asset ? target.price.asset : "unknown");
  const timeout = Number(payment.requirement.maxTimeoutSeconds);
  return { asset, network: payment.network, ...(Number.isSafeInteger(timeout) && timeout > 0 ? { maxTimeoutSeconds: timeout } : {}) };
}

interface Attempt {
  common: Pick<PaymentInput, "listingId" | "endpointId" | "latencyMs" | "relayedAt" | "httpStatus" | "house" | "protocol">;
  payment: DecodedPayment;
  terms: PaymentTerms;
  check: BuyerSideCheck;
  failure: { code: string } | null;
  settlement: { claim: unknown; transaction: string | null };
  window: { from: number; to: number };
  unpaid: () => Promise<UnpaidAnswer | null>;
  options: RelayOptions;
}

async function recordAttempt(a: Attempt): Promise<{ id: string; created: boolean; transaction: string | null; input: PaymentInput }> {
  const { payment, terms } = a;
  const quote = { payer: payment.payer, advertisedAmount: payment.amount, asset: terms.asset, network: payment.network, quotedPayTo: payment.payTo, paymentResponse: a.settlement.claim };
  // A payment of nothing buys nothing: a wallet that was never funded could sign it, so it would add a distinct
  // payer no wash check can trace (docs/RANK.md "Wash"). Recorded, never counted, whatever the seller claims.
  if (payment.authorization.value === 0n || BigInt(payment.amount) === 0n) {
    const input: PaymentInput = { ...a.common, ...quote, status: "rejected", reason: "payer_zero_amount", detail: "the signed authorization moves 0: a payment of nothing is no purchase" };
    return { ...(await recordPayment(input)), transaction: null, input };
  }
  const signature = await a.check.signature;
  if (signature.ok && signature.value === null) {
    const input: PaymentInput = { ...a.common, ...quote, status: "rejected", reason: "payer_bad_signature", detail: `the signature is not ${payment.payer}'s over this authorization in ${terms.asset}'s EIP-712 domain` };
    return { ...(await recordPayment(input)), transaction: null, input };
  }
  const bound = { ...a.common, ...quote, authorizationNonce: payment.nonce };
  if (a.settlement.transaction) {
    const input: PaymentInput = { ...bound, status: "unconfirmed", transactionId: a.settlement.transaction };
    return { ...(await recordPayment(input)), transaction: a.settlement.transaction, input };
  }
  if (a.failure) {
    const input: PaymentInput = { ...bound, status: "failed", reason: a.failure.code };
    return { ...(await recordPayment(input)), transaction: null, input };
  }
  // A replay of an authorization the ledger already holds writes nothing (one row per authorization),
  // so it is not judged: judging reads the chain, and a stranger could replay one header at will.
  const held = await heldAuthorization(payment.payer, payment.nonce);
  if (held !== null) return { id: held, created: false, transaction: null, input: { ...bound, status: "unmeasured", reason: "replayed_authorization" } };
  const verdict = await judgeUnsettled({ payment, terms, side: await a.check.side(), window: a.window, unpaid: a.unpaid, chain: a.options.chain });
  if (verdict.status === "unconfirmed") {
    const input: PaymentInput = { ...bound, status: "unconfirmed", transactionId: verdict.transaction, detail: verdict.detail };
    return { ...(await recordPayment(input)), transaction: verdict.transaction, input };
  }
  const input: PaymentInput = { ...bound, status: verdict.status, reason: verdict.reason, detail: verdict.detail };
  return { ...(await recordPayment(input)), transaction: null, input };
}

function writtenRow(input: PaymentInput, transactionId: string, target: Target): WrittenRow {
  return {
    endpointAsset: target.price.network === input.network ? target.price.asset : null,
    transactionId,
    network: input.network,
    asset: input.asset,
    payer: normalisePayer(input.payer),
    authorizationNonce: input.authorizationNonce ? input.authorizationNonce.toLowerCase() : null,
    quotedPayTo: input.quotedPayTo ? normalisePayer(input.quotedPayTo) : null,
    advertisedAmount: input.advertisedAmount,
    relayedAt: input.relayedAt ?? null,
    listingId: input.listingId,
    endpointId: input.endpointId ?? null,
  };
}

/** The buyer's URL itself is malformed: the answer names it, as a 400. */
const URL_SHAPE_REFUSALS = new Set(["invalid_url", "ambiguous_url", "credentials_in_url", "query_not_allowed", "fragment_not_allowed"]);

/** How long the references' answer stands for every relay of this process. */
const EGRESS_CHECK_TTL_MS = 30_000;
const egressChecked = new Map<"network" | "resolver", { at: number; down: Promise<boolean> }>();

/** Our egress is down: the references (TOLLGATE_MONITOR_REFERENCES; `resolver`: named ones) all went unanswered. Unknown is not down. */
function egressDown(through: "network" | "resolver"): Promise<boolean> {
  const now = Date.now();
  const last = egressChecked.get(through);
  if (last && now - last.at <= EGRESS_CHECK_TTL_MS) return last.down;
  const down = referencesAnswer(env().monitorReferences, undefined, { through }).then((answered) => answered === false, () => false);
  egressChecked.set(through, { at: now, down });
  return down;
}

/** For tests: forget the references' last answer. */
export function resetEgressCheck(): void {
  egressChecked.clear();
}

/** Our failure, not the seller's (docs/ROUTER.md "Whose failure it is"): nothing reached it, no row holds the authorization. */
async function relayOwnFault(answer: SafeFetchResult): Promise<{ status: number; code: string; message: string } | null> {
  if (answer.ok) return null;
  if ("refusal" in answer) {
    if (answer.stage === "validate") {
      return URL_SHAPE_REFUSALS.has(answer.refusal)
        ? { status: 400, code: "url_refused", message: `The relay refuses this URL before sending it (${answer.refusal}): ${answer.detail}` }
        : { status: 502, code: "relay_refused", message: `The relay does not send to this listing's address (${answer.refusal}): ${answer.detail}` };
    }
    if (answer.refusal === "connection_limit") return { status: 503, code: "relay_busy", message: `The relay is at its connection limit; nothing was sent to the seller. Retry shortly. (${answer.detail})` };
  }
  const unresolved = resolverFailed(answer.resolverError);
  const unreached = unresolved || ("refusal" in answer ? answer.refusal === "dns_failed" : answer.error === "connection_failed");
  if (unreached && (await egressDown(unresolved ? "resolver" : "network"))) return { status: 503, code: "relay_outage", message: "Tollgate's own network is down (its reference hosts do not answer); nothing was sent to the seller, and nothing is held against it." };
  return null;
}

function relayError(status: number, code: string, message: string): Response {
  return withRelayHeaders(Response.json({ error: { code, message } }, { status, headers: { "cache-control": "no-store" } }));
}

export async function relayCall(req: Request, slug: string, path: string, options: RelayOptions = {}): Promise<Response> {
  const caller: Caller = options.house ? { kind: "house", id: "canary" } : (options.caller ?? (await authenticateCaller(req)));
  const method = req.method.toUpperCase();
  // The canary reads the listing as it is now: a run claimed the moment a seller switches its base URL
  // must pay the new server, not the one a target cached up to TARGET_CACHE_TTL_MS ago points at.
  const target = await findTarget(slug, method, path, new URL(req.url).search, options.cold !== true && options.house !== true);

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
  const payment = paymentHeader ? decodePayment(paymentHeader) : null;
  const terms = payment ? termsOf(payment, target) : null;

  const send = (extra: Record<string, string> = headers) =>
    safeFetch(target.url, {
      method,
      headers: extra,
      body: body && body.byteLength > 0 ? body : undefined,
      allowHosts: options.allowHosts ?? env().probeAllowHosts,
      allowQuery: true,
      deadlineMs: RELAY_DEADLINE_MS,
      maxBodyBytes: RELAY_MAX_BODY_BYTES,
      bodyOverflow: "error",
      requireValidTls: true,
      pool: options.cold !== true,
    });
  const relayedAt = new Date();
  const started = performance.now();
  const answering = send();
  // The buyer-side check runs beside the seller's answer; its CPU (an ECDSA recovery, the exact
  // scheme's reads) starts once the request is on its way, not ahead of it (docs/ROUTER.md "The hot path").
  const check = payment && terms ? startBuyerSideCheck(payment, terms, options.chain, { afterTurn: true }) : null;
  const answer = await answering;
  const latencyMs = Math.round(performance.now() - started);

  const own = await relayOwnFault(answer);
  if (own) return withRelayHeaders(Response.json({ error: { code: own.code, message: own.message } }, { status: own.status, headers: { "cache-control": "no-store", ...(own.status === 503 ? { "retry-after": "1" } : {}) } }));
  let failure: { code: string; message: string } | null = null;
  if (!answer.ok) {
    const code = "refusal" in answer ? answer.refusal : answer.error;
    failure = { code: `seller_${code}`, message: `The seller could not be relayed: ${answer.detail}` };
  } else if (answer.redirects.some((r) => !r.followed)) {
    failure = { code: "seller_redirect_off_host", message: `The seller redirected to another host (${answer.redirects.find((r) => !r.followed)?.to}); the relay does not follow it.` };
  }

  if (paymentHeader !== null) {
    const common = {
      listingId: target.listingId,
      endpointId: target.endpointId,
      latencyMs,
      relayedAt,
      httpStatus: answer.ok ? answer.status : ("status" in answer ? (answer.status ?? null) : null),
      house: options.house ?? false,
      protocol: paymentHeader.protocol,
    };
    if (!payment || !terms || !check) {
      await recordPayment({ ...common, payer: `${caller.kind}:${caller.id}`, status: "rejected", reason: "malformed_payment", detail: "the payment header does not decode to a signed EIP-3009 authorization", advertisedAmount: "0", asset: "unknown", network: "unknown" });
    } else {
      const unpaid = async (): Promise<UnpaidAnswer | null> => {
        const bare = Object.fromEntries(Object.entries(headers).filter(([k]) => !PAYMENT_HEADERS.has(k)));
        const a = await send(bare);
        return a.ok ? { status: a.status, headers: a.headers, body: a.body } : null;
      };
      const settlement = answer.ok && !failure ? decodeSettlement(payment.protocol, answer.headers) : { claim: null, transaction: null };
      const row = await recordAttempt({ common, payment, terms, check, failure, settlement, window: { from: relayedAt.getTime(), to: Date.now() }, unpaid, options });
      if (row.created && row.transaction) {
        const transaction = row.transaction;
        // After the answer: the arrival block (read beside the seller's call) spares the settling block's read.
        const written = options.cold ? undefined : check.arrival.then((arrival) => ({ ...writtenRow(row.input, transaction, target), arrivalBlock: arrival.ok ? arrival.value : null }));
        const confirm = () => confirmRecorded(row.id, options.chain, written);
        if (options.afterAnswer) options.afterAnswer(confirm);
        else await confirm();
      }
    }
  }

  if (failure || !answer.ok) return relayError(502, failure?.code ?? "seller_failed", failure?.message ?? "The seller could not be relayed.");
  return relayedResponse(answer, method);
}
