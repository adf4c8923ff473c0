/**
 * A canary run (docs/CANARY.md "A run"): the house wallet pays every listable endpoint of a listing
 * through the router's relay, one immutable sample per endpoint, and the run's outcome becomes the
 * listing's verification status, re-ranked at once.
 *
 * Per endpoint:
 * 1. The unpaid call through the relay (`relayCall` with `house: true`): the seller's 402 is read with
 *    @x402/core's HTTP client. The requirement in the listed network and asset is the quote; above
 *    the listed price it is refused (`degraded: quote_above_listing`, nothing signed).
 * 2. The sample row is written `pending` with the quote BEFORE the payment is signed; the house
 *    account signs with x402Client + ExactEvmScheme; the signed authorization's nonce is written to
 *    the sample before the payment is sent.
 * 3. The paid call through the relay, which records the payment (`house`) and confirms it on chain;
 *    the sample reads the router's row (by payer and nonce) for the chain's amount, recipient and
 *    block, and checks the answer: status, time to the last byte, size, content type, SHA-256, and
 *    the endpoint's declared response schema (ajv, JSON Schema 2020-12).
 * 4. The replay probe: the same payment header sent again must be refused, or answered without a
 *    second transfer (a different transaction the seller claims is read from the chain).
 *
 * A run interrupted after a sample got its nonce (a killed worker; its lease expires and the run is
 * retried) never signs for that endpoint again: the retry reconciles the pending sample from the
 * router's row found by the authorization nonce (or, without one, from the chain's authorizationState).
 */
import crypto from "node:crypto";
import { x402Client, x402HTTPClient } from "@x402/fetch";
import type { PaymentRequired, PaymentRequirements } from "@x402/fetch";
import { toClientEvmSigner } from "@x402/evm";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { getAddress, isAddress, parseAbi, type Hex, type PublicClient } from "viem";
import { privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { publicClientFor, readChain } from "@/lib/chain/rpc";
import { db } from "@/lib/db";
import { AppError } from "@/lib/errors";
import { SchemaRefused, sellerSchemas, type ValidateFunction } from "@/lib/seller-schema";
import { rows } from "@/lib/sql";
import { isListed } from "@/lib/listings/visibility";
import { confirmPayment, transfersFrom, type ReadOptions } from "@/lib/ledger/confirm-payment";
import { recomputeListingRank } from "@/lib/rank/sweep-ranks";
import { decodeSettlement } from "@/lib/router/payment-headers";
import { RELAY_DEADLINE_MS, relayCall } from "@/lib/router/relay-call";
import { outputFactsOf, recordSampleObservations, type OutputFacts } from "@/lib/trust/observe";
import { release, reserve, reservePayTo, type BudgetCaps } from "./budget";
import { aboveCeiling, approvedUpTo, priceCeiling } from "./price-ceiling";
import { anyHouseKey, houseKeyFor } from "./house";

export type SampleOutcome = "pass" | "degraded" | "broken";
export type Verification = "verified" | "degraded" | "unverified";

/** Where a run may be interrupted on purpose (tests simulate a killed worker by throwing there). */
export type CanaryStage = "sample_written" | "signed" | "paid";

export interface CanaryOptions {
  /** The house wallet's key for every network (default: the network's TOLLGATE_CANARY_KEY_<namespace>_<reference>, else TOLLGATE_CANARY_KEY). */
  key?: Hex;
  /** host:port the relay may reach on loopback (default TOLLGATE_PROBE_ALLOW_HOSTS). */
  allowHosts?: string[];
  chain?: ReadOptions;
  caps?: BudgetCaps;
  /** The most paid per call without a moderator's approval (default TOLLGATE_CANARY_PRICE_CEILING). */
  priceCeiling?: bigint;
  /** Called as each endpoint's call passes a stage; throwing there interrupts the run as a killed worker would. */
  onStage?: (stage: CanaryStage, endpoint: { method: string; path: string }) => void | Promise<void>;
}

export interface RunResult {
  runId: string;
  state: "done" | "deferred";
  outcome: Verification | null;
  reason: string;
}

const ENDPOINT_SELECT = {
  id: true,
  method: true,
  path: true,
  position: true,
  payable: true,
  requestExample: true,
  noParameters: true,
  responseSchema: true,
  priceAmount: true,
  priceAsset: true,
  priceNetwork: true,
} as const;

type EndpointRow = {
  id: string;
  method: string;
  path: string;
  payable: boolean;
  requestExample: unknown;
  noParameters: boolean;
  responseSchema: unknown;
  priceAmount: string | null;
  priceAsset: string | null;
  priceNetwork: string | null;
};

const EIP3009_STATE = parseAbi(["function authorizationState(address authorizer, bytes32 nonce) view returns (bool)"]);

/**
 * The slow threshold: the listing's declared timeout (its free-text `timeouts`), read as the longest
 * duration the text states (a listing promising "lookups within 1 s; batches within 30 s" is held to
 * 30 s, since the text does not say which endpoint is which), capped at the relay's 30 s.
 */
export function declaredTimeoutMs(timeouts: string | null): number {
  let longest = 0;
  for (const m of (timeouts ?? "").matchAll(/(\d+(?:\.\d+)?)\s*(ms|milliseconds?|s|secs?|seconds?|min|minutes?)\b/gi)) {
    const unit = m[2].toLowerCase();
    const ms = unit.startsWith("ms") || unit.startsWith("milli") ? Number(m[1]) : unit.startsWith("min") ? Number(m[1]) * 60_000 : Number(m[1]) * 1000;
    longest = Math.max(longest, ms);
  }
  return longest > 0 && longest < RELAY_DEADLINE_MS ? Math.round(longest) : RELAY_DEADLINE_MS;
}

/** The endpoint's request example as the relay request: a GET's flat example as its query, otherwise a JSON body. */
function requestOf(e: EndpointRow): { query: string; body: string | undefined } {
  if (e.method === "GET" || e.method === "DELETE") {
    const ex = e.requestExample;
    if (!ex || typeof ex !== "object" || Array.isArray(ex)) return { query: "", body: undefined };
    const flat = Object.entries(ex as Record<string, unknown>).filter(([, v]) => ["string", "number", "boolean"].includes(typeof v));
    return { query: flat.length ? `?${new URLSearchParams(flat.map(([k, v]) => [k, String(v)])).toString()}` : "", body: undefined };
  }
  return { query: "", body: JSON.stringify(e.requestExample ?? {}) };
}

interface Relayed {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  ttlbMs: number;
}

/** One call through the router's relay as the house; the body is read to its last byte. */
async function relayAsHouse(slug: string, e: EndpointRow, extra: Record<string, string>, options: CanaryOptions): Promise<Relayed> {
  const { query, body } = requestOf(e);
  const path = e.path.replace(/^\/+/, "");
  const headers: Record<string, string> = { accept: "application/json", "user-agent": "tollgate-canary/1", ...extra };
  if (body !== undefined) headers["content-type"] = "application/json";
  const req = new Request(`http://tollgate.canary/router/call/${encodeURIComponent(slug)}/${path}${query}`, { method: e.method, headers, body });
  const started = performance.now();
  const res = await relayCall(req, slug, path, { house: true, allowHosts: options.allowHosts, chain: options.chain });
  const buf = Buffer.from(await res.arrayBuffer());
  const ttlbMs = Math.round(performance.now() - started);
  const out: Record<string, string> = {};
  res.headers.forEach((v, k) => (out[k.toLowerCase()] = v));
  return { status: res.status, headers: out, body: buf, ttlbMs };
}

/** The output against the endpoint's declared response schema: null when it declares none. */
export function checkOutput(schema: unknown, body: Buffer, contentType: string | null): { valid: boolean | null; errors: unknown } {
  if (!schema || typeof schema !== "object") return { valid: null, errors: null };
  let fn: ValidateFunction;
  try {
    fn = sellerSchemas.compile(schema);
  } catch (e) {
    if (!(e instanceof SchemaRefused)) throw e;
    const why = e.code === "schema_does_not_compile" ? "does not compile" : "is refused";
    return { valid: null, errors: [{ message: `the declared response schema ${why}: ${e.message}`, code: e.code }] };
  }
  if (contentType && !/json/i.test(contentType)) return { valid: false, errors: [{ message: `content type ${contentType} is not JSON` }] };
  let value: unknown;
  try {
    value = JSON.parse(body.toString("utf8"));
  } catch {
    return { valid: false, errors: [{ message: "the body is not JSON" }] };
  }
  const valid = fn(value);
  return { valid, errors: valid ? null : (fn.errors ?? []).slice(0, 10).map((x) => ({ instancePath: x.instancePath, keyword: x.keyword, message: x.message })) };
}

const accounts = new Map<Hex, PrivateKeyAccount>();
/**
 * The house account that pays on `network`: the options' key, else the network's own
 * (TOLLGATE_CANARY_KEY_<namespace>_<reference>), else TOLLGATE_CANARY_KEY (lib/canary/house.ts).
 */
function houseAccount(options: CanaryOptions, network: string): PrivateKeyAccount | null {
  const key = options.key ?? houseKeyFor(network);
  if (!key) return null;
  let account = accounts.get(key);
  if (!account) accounts.set(key, (account = privateKeyToAccount(key)));
  return account;
}

/** The listing's verification from its samples: every one passed → verified; any degraded or broken → degraded; else unverified. */
export function verificationOf(outcomes: Array<SampleOutcome | null>): Verification {
  if (outcomes.some((o) => o === "degraded" || o === "broken")) return "degraded";
  if (outcomes.length > 0 && outcomes.every((o) => o === "pass")) return "verified";
  return "unverified";
}

/**
 * Execute a leased run (state running, this lease token): the whole run, or what an interrupted
 * attempt left. Answers the run's result; throws when interrupted (the lease will expire and the run
 * be retried).
 */
export async function executeRun(runId: string, leaseToken: string, options: CanaryOptions = {}): Promise<RunResult> {
  const prisma = await db();
  const run = await prisma.canaryRun.findUnique({ where: { id: runId } });
  if (!run || run.state !== "running" || run.leaseToken !== leaseToken) throw new AppError("conflict", `canary run ${runId} is not leased with this token`);
  const listing = await prisma.listing.findUnique({
    where: { id: run.listingId },
    select: { id: true, slug: true, publicationState: true, protocols: true, timeouts: true, canarySuspendedAt: true, endpoints: { select: ENDPOINT_SELECT, orderBy: { position: "asc" } } },
  });
  const finish = (state: "done" | "deferred", outcome: Verification | null, reason: string) => finishRun(runId, leaseToken, run.listingId, state, outcome, reason);
  if (!listing) throw new AppError("not_found", `listing ${run.listingId} does not exist`);
  if (listing.canarySuspendedAt) return finish("deferred", null, "suspended");
  if (!isListed(listing)) return finish("done", "unverified", `not_listed: ${listing.publicationState}`);
  const endpoints = listing.endpoints.filter((e) => e.payable) as EndpointRow[];
  if (endpoints.length === 0) return finish("done", "unverified", "no_payable_endpoint");
  if (!listing.protocols.includes("x402")) return finish("done", "unverified", `protocol_not_supported: ${listing.protocols.join(", ") || "none"} (the canary pays over x402)`);
  if (!options.key && !anyHouseKey()) return finish("done", "unverified", "no_house_wallet");

  // An endpoint the canary cannot call (no request example, no machine-readable price) is named in a
  // sample without a verdict: the listing cannot be verified, but the endpoints it can call still are.
  // An endpoint on a network with no house key (neither its own nor the default) cannot be paid.
  // An endpoint priced above the canary's ceiling is not paid until a moderator approves the listing's price.
  const [ceiling, approved] = [options.priceCeiling ?? priceCeiling(), await approvedUpTo(listing.id)];
  const unrunnable = (e: EndpointRow) =>
    e.requestExample === null && !e.noParameters
      ? "no_request_example"
      : !e.priceAmount || !e.priceAsset || !e.priceNetwork || !/^\d{1,60}$/.test(e.priceAmount)
        ? "no_machine_price"
        : !houseAccount(options, e.priceNetwork)
          ? "no_house_wallet"
          : aboveCeiling(BigInt(e.priceAmount), ceiling, approved);
  const runnable = endpoints.filter((e) => unrunnable(e) === null);
  const reservation = await reserve({ runId, listingId: listing.id, amount: runnable.reduce((s, e) => s + BigInt(e.priceAmount!), 0n), caps: options.caps });
  if (!reservation.ok) return finish("deferred", null, `budget: the ${reservation.scope} cap has ${reservation.left} left`);

  const slowMs = declaredTimeoutMs(listing.timeouts);
  for (const e of endpoints) {
    const prior = await prisma.canarySample.findUnique({ where: { runId_endpointId: { runId, endpointId: e.id } } });
    if (prior?.state === "completed") continue;
    const cannot = unrunnable(e);
    if (cannot) {
      const id = prior?.id ?? (await prisma.canarySample.create({ data: { runId, listingId: listing.id, endpointId: e.id, method: e.method, path: e.path, listedAmount: e.priceAmount }, select: { id: true } })).id;
      await complete(id, { outcome: null, reason: cannot });
    } else if (prior?.authorizationNonce) await reconcile(prior.id, options);
    else await callEndpoint({ runId, listingId: listing.id, slug: listing.slug, endpoint: e, account: houseAccount(options, e.priceNetwork!)!, slowMs, priorId: prior?.id ?? null }, options);
  }

  const samples = await prisma.canarySample.findMany({ where: { runId }, select: { method: true, path: true, outcome: true, reason: true } });
  const outcome = verificationOf(samples.map((s) => s.outcome));
  const notPassed = samples.filter((s) => s.outcome !== "pass").map((s) => `${s.method} ${s.path}: ${s.outcome ?? "no verdict"} (${s.reason})`);
  return finish("done", outcome, notPassed.length ? notPassed.join("; ") : `all ${samples.length} endpoint${samples.length === 1 ? "" : "s"} passed`);
}

interface CallInput {
  runId: string;
  listingId: string;
  slug: string;
  endpoint: EndpointRow;
  account: PrivateKeyAccount;
  slowMs: number;
  /** A pending sample with no nonce yet: nothing was sent for it. */
  priorId: string | null;
}

/**
 * Complete a sample with what happened (once: a completed sample is immutable), and write the trust
 * grade's paid observations of it in the same transaction (docs/TRUST.md "Observations"). `output` is
 * what the answer's body told while it was in hand (the body itself is never kept).
 */
async function complete(id: string, data: Record<string, unknown> & { outcome: SampleOutcome | null; reason: string }, output: OutputFacts | null = null): Promise<void> {
  const prisma = await db();
  await prisma.$transaction(async (tx) => {
    const moved = await tx.canarySample.updateMany({ where: { id, state: "pending" }, data: { ...data, state: "completed", completedAt: new Date() } });
    if (moved.count === 1) await recordSampleObservations(tx, id, output);
  });
}

async function callEndpoint(input: CallInput, options: CanaryOptions): Promise<void> {
  const prisma = await db();
  const e = input.endpoint;
  const listed = BigInt(e.priceAmount!);
  const identity = { runId: input.runId, listingId: input.listingId, endpointId: e.id, method: e.method, path: e.path, listedAmount: e.priceAmount, payer: input.account.address.toLowerCase() };
  // An endpoint judged before anything is signed still leaves its sample.
  const judgedUnpaid = async (outcome: SampleOutcome | null, reason: string, extra: Record<string, unknown> = {}) => {
    const id = input.priorId ?? (await prisma.canarySample.create({ data: identity, select: { id: true } })).id;
    await complete(id, { outcome, reason, ...extra });
  };

  const unpaid = await relayAsHouse(input.slug, e, {}, options);
  if (unpaid.status !== 402) {
    const delivered = unpaid.status >= 200 && unpaid.status < 300;
    return judgedUnpaid(delivered ? "degraded" : "broken", delivered ? "delivered_unpaid" : `unpaid_http_${unpaid.status}`, { httpStatus: unpaid.status });
  }
  const http = new x402HTTPClient(new x402Client());
  let required: PaymentRequired;
  try {
    let body: unknown;
    try {
      body = JSON.parse(unpaid.body.toString("utf8"));
    } catch {
      body = undefined;
    }
    required = http.getPaymentRequiredResponse((n) => unpaid.headers[n.toLowerCase()], body);
  } catch {
    return judgedUnpaid("broken", "no_payable_quote", { httpStatus: 402 });
  }
  const same = (a: string | undefined | null, b: string | null) => !!a && !!b && a.toLowerCase() === b.toLowerCase();
  const quote: PaymentRequirements | undefined = required.accepts.find((a) => a.scheme === "exact" && a.network === e.priceNetwork && same(a.asset, e.priceAsset));
  if (!quote || !/^\d+$/.test(String(quote.amount))) return judgedUnpaid("broken", "no_payable_quote", { httpStatus: 402 });
  const quoted = {
    quotedAmount: String(quote.amount),
    quotedPayTo: String(quote.payTo).toLowerCase(),
    quotedAsset: String(quote.asset).toLowerCase(),
    quotedNetwork: quote.network,
  };
  if (BigInt(quote.amount) > listed) return judgedUnpaid("degraded", "quote_above_listing", { ...quoted, httpStatus: 402 });
  // The payTo's share of the day, taken once the quote names it and before anything is signed.
  const share = input.priorId ? { ok: true as const } : await reservePayTo({ network: quote.network, payTo: String(quote.payTo), amount: BigInt(quote.amount), caps: options.caps });
  if (!share.ok) return judgedUnpaid(null, `budget_payto: the payTo's share has ${share.left} left today`, { ...quoted, httpStatus: 402 });

  // The sample exists, pending, with its quote, before anything is signed.
  const sampleId = input.priorId ?? (await prisma.canarySample.create({ data: { ...identity, ...quoted }, select: { id: true } })).id;
  if (input.priorId) await prisma.canarySample.updateMany({ where: { id: sampleId, state: "pending", quotedAmount: null }, data: quoted });
  await options.onStage?.("sample_written", e);

  const client = new x402Client()
    .register(quote.network, new ExactEvmScheme(toClientEvmSigner(input.account, (publicClientFor(quote.network) ?? undefined) as PublicClient | undefined)))
    .setSpendControls({ allowedAssets: [{ network: quote.network, asset: quote.asset }] });
  const payer = new x402HTTPClient(client);
  const payload = await payer.createPaymentPayload({ ...required, accepts: [quote] });
  const nonce = String((payload.payload as { authorization?: { nonce?: unknown } }).authorization?.nonce ?? "").toLowerCase();
  if (!/^0x[0-9a-f]{64}$/.test(nonce)) throw new AppError("internal", "the signed payment carries no EIP-3009 nonce");
  // The nonce is on the sample before the payment leaves: a retry finds the payment by it.
  await prisma.canarySample.update({ where: { id: sampleId }, data: { authorizationNonce: nonce } });
  await options.onStage?.("signed", e);

  const paymentHeaders = payer.encodePaymentSignatureHeader(payload);
  const paid = await relayAsHouse(input.slug, e, paymentHeaders, options);
  await options.onStage?.("paid", e);

  const row = await ledgerRow(identity.payer, nonce, options);
  const delivered = paid.status >= 200 && paid.status < 300;
  const contentType = paid.headers["content-type"] ?? null;
  const output = delivered ? checkOutput(e.responseSchema, paid.body, contentType) : { valid: null, errors: null };
  // What only the body can tell (the output screen, a reference's recomputation), read before it is dropped.
  const outputFacts = outputFactsOf(paid.body, e.requestExample);
  const replay = await replayProbe(input.slug, e, paymentHeaders, row, identity.payer, options);
  // The seller's time to its last byte is the relay's measure (around the seller's call, body read
  // whole), not the relay's own on-chain confirmation after it.
  const ttlbMs = row?.latencyMs ?? paid.ttlbMs;
  const verdict = judge({ row, httpStatus: paid.status, quoted, schemaValid: output.valid, ttlbMs, slowMs: input.slowMs, replay: replay.result, relayError: relayErrorCode(paid) });
  await complete(sampleId, {
    ...verdict,
    ...rowFacts(row),
    httpStatus: paid.status,
    ttlbMs,
    responseBytes: paid.body.byteLength,
    contentType,
    outputSha256: crypto.createHash("sha256").update(paid.body).digest("hex"),
    schemaValid: output.valid,
    schemaErrors: output.errors ?? undefined,
    replay: replay.result,
    replayStatus: replay.status,
  }, outputFacts);
}

type LedgerRow = {
  id: string;
  status: string;
  reason: string | null;
  transactionId: string | null;
  chainAmount: string | null;
  chainTo: string | null;
  network: string;
  asset: string;
  blockNumber: bigint | null;
  httpStatus: number | null;
  latencyMs: number | null;
  house: boolean;
};

/** The router's row for (payer, nonce), confirmed on chain if it still waits. */
async function ledgerRow(payer: string, nonce: string, options: CanaryOptions): Promise<LedgerRow | null> {
  const prisma = await db();
  const select = { id: true, status: true, reason: true, transactionId: true, chainAmount: true, chainTo: true, network: true, asset: true, blockNumber: true, httpStatus: true, latencyMs: true, house: true, confirmedAt: true } as const;
  const where = { payer_authorizationNonce: { payer, authorizationNonce: nonce } };
  const row = await prisma.routerPayment.findUnique({ where, select });
  if (row && row.transactionId && !row.confirmedAt) {
    await confirmPayment(row.id, options.chain);
    return prisma.routerPayment.findUnique({ where, select });
  }
  return row;
}

function rowFacts(row: LedgerRow | null) {
  if (!row) return {};
  return {
    paymentId: row.id,
    paymentStatus: row.status,
    transactionId: row.transactionId,
    chainAmount: row.chainAmount,
    chainTo: row.chainTo,
    chainNetwork: row.status === "settled" ? row.network : null,
    chainAsset: row.status === "settled" ? row.asset.toLowerCase() : null,
    blockNumber: row.blockNumber,
  };
}

/** The relay's own failure code (a 502 it answered for the seller), or null. */
function relayErrorCode(r: Relayed): string | null {
  if (r.status !== 502 || !/json/.test(r.headers["content-type"] ?? "")) return null;
  try {
    const code = (JSON.parse(r.body.toString("utf8")) as { error?: { code?: unknown } }).error?.code;
    return typeof code === "string" && code.startsWith("seller_") ? code : null;
  } catch {
    return null;
  }
}

type ReplayResult = "refused" | "idempotent" | "charged_twice" | "skipped";

/**
 * The same payment header sent again. Refused (not 2xx) or answered without a second transfer
 * (no new settlement claimed, the same transaction, or one the chain does not show moving the
 * house's money) is fine; a different transaction the chain shows paying from the house is not.
 * The router records the replay on the existing row (one row per payer and nonce).
 */
async function replayProbe(slug: string, e: EndpointRow, headers: Record<string, string>, row: LedgerRow | null, payer: string, options: CanaryOptions): Promise<{ result: ReplayResult; status: number | null }> {
  if (!row) return { result: "skipped", status: null };
  const again = await relayAsHouse(slug, e, headers, options);
  if (again.status < 200 || again.status >= 300) return { result: "refused", status: again.status };
  const claim = decodeSettlement("x402", again.headers);
  if (!claim.transaction || claim.transaction.toLowerCase() === row.transactionId?.toLowerCase()) return { result: "idempotent", status: again.status };
  const second = await transfersFrom({ transaction: claim.transaction, network: row.network, asset: row.asset, payer }, options.chain);
  return { result: second === true ? "charged_twice" : "idempotent", status: again.status };
}

interface JudgeInput {
  row: LedgerRow | null;
  httpStatus: number;
  quoted: { quotedAmount: string; quotedPayTo: string };
  schemaValid: boolean | null;
  ttlbMs: number | null;
  slowMs: number;
  replay: ReplayResult;
  relayError: string | null;
}

/** One endpoint's outcome from its evidence (docs/CANARY.md "Outcomes"): the worst finding, with every code of that grade. */
export function judge(x: JudgeInput): { outcome: SampleOutcome | null; reason: string } {
  const broken: string[] = [];
  const degraded: string[] = [];
  const none: string[] = [];
  const delivered = x.httpStatus >= 200 && x.httpStatus < 300;
  if (x.relayError === "seller_timeout") broken.push("timeout");
  else if (x.relayError) broken.push(x.relayError);
  if (!x.row) broken.push("unrecorded");
  else if (x.row.status === "rejected") none.push(`house_${x.row.reason ?? "rejected"}`);
  else if (x.row.status === "unconfirmed") none.push("chain_unreadable");
  else if (x.row.status === "unmeasured") none.push(x.row.reason ?? "unmeasured");
  else if (x.row.status === "failed") broken.push(x.row.reason === "unproven" ? "unproven" : "not_settled");
  else if (x.row.status === "settled") {
    if (!delivered && !x.relayError) broken.push("charged_without_delivery");
    if (x.row.chainAmount !== x.quoted.quotedAmount) degraded.push("charged_other_amount");
    if (x.row.chainTo?.toLowerCase() !== x.quoted.quotedPayTo.toLowerCase()) degraded.push("paid_other_payto");
  }
  if (!delivered && !x.relayError && x.row?.status !== "settled") broken.push(`http_${x.httpStatus}`);
  if (x.replay === "charged_twice") broken.push("charged_twice");
  if (delivered && x.schemaValid === false) degraded.push("invalid_output");
  if (delivered && x.ttlbMs !== null && x.ttlbMs > x.slowMs) degraded.push("slow");
  if (broken.length) return { outcome: "broken", reason: broken.join(",") };
  if (degraded.length) return { outcome: "degraded", reason: degraded.join(",") };
  if (none.length) return { outcome: null, reason: none.join(",") };
  return { outcome: "pass", reason: "pass" };
}

/**
 * A sample an interrupted attempt left pending with its nonce: its payment may have been sent. It is
 * never signed again: the router's row found by (payer, nonce) completes it (the answer's body was
 * not kept, so its output is not judged); with no row, the chain's authorizationState says whether
 * the authorization was used, and the sample is completed without a verdict either way.
 */
async function reconcile(sampleId: string, options: CanaryOptions): Promise<void> {
  const prisma = await db();
  const s = await prisma.canarySample.findUniqueOrThrow({ where: { id: sampleId } });
  const row = await ledgerRow(s.payer!, s.authorizationNonce!, options);
  if (row) {
    const verdict = judge({
      row,
      httpStatus: row.httpStatus ?? 0,
      quoted: { quotedAmount: s.quotedAmount ?? "", quotedPayTo: s.quotedPayTo ?? "" },
      schemaValid: null,
      ttlbMs: null,
      slowMs: RELAY_DEADLINE_MS,
      replay: "skipped",
      relayError: null,
    });
    await complete(sampleId, { ...verdict, reason: `${verdict.reason},reconciled`, ...rowFacts(row), httpStatus: row.httpStatus, replay: "skipped" });
    return;
  }
  let used: boolean | null = null;
  if (s.quotedNetwork && s.quotedAsset && isAddress(s.quotedAsset) && s.payer && isAddress(s.payer)) {
    const read = await readChain(
      s.quotedNetwork,
      (client: PublicClient) => client.readContract({ address: getAddress(s.quotedAsset!), abi: EIP3009_STATE, functionName: "authorizationState", args: [getAddress(s.payer!), s.authorizationNonce as Hex] }),
      options.chain,
    );
    used = read.ok ? read.value : null;
  }
  await complete(sampleId, { outcome: null, reason: used === null ? "interrupted_chain_unreadable" : used ? "interrupted_paid_unrecorded" : "interrupted_unsent", replay: "skipped" });
}

/**
 * Finish a run (fenced by its lease token): its state, outcome and reason; the listing's verification
 * from a done run; the budget of endpoints never signed for given back. Then the listing is re-ranked.
 */
async function finishRun(runId: string, leaseToken: string, listingId: string, state: "done" | "deferred", outcome: Verification | null, reason: string): Promise<RunResult> {
  const prisma = await db();
  await prisma.$transaction(async (tx) => {
    const run = await tx.canaryRun.findUnique({ where: { id: runId }, select: { reserved: true, budgetDay: true } });
    const moved = await tx.canaryRun.updateMany({
      where: { id: runId, state: "running", leaseToken },
      data: { state, outcome: state === "done" ? outcome : null, reason: reason.slice(0, 2000), finishedAt: new Date(), leaseToken: null, leaseExpiresAt: null },
    });
    if (moved.count !== 1) throw new AppError("conflict", `canary run ${runId} lost its lease before it finished`);
    // A listing changed since this run started (its verification reset meanwhile) keeps the reset's
    // status: the run judged what was listed before; a run of what is listed now goes to the front.
    const [listing] = await rows<{ stale: boolean; resetReason: string | null }>(
      tx,
      `SELECT COALESCE(l."verificationResetAt" > r."startedAt", false) AS stale, l."verificationResetReason" AS "resetReason"
         FROM "listings" l JOIN "canary_runs" r ON r."id" = $2 WHERE l."id" = $1 FOR UPDATE OF l`,
      listingId,
      runId,
    );
    if (listing?.stale) await rows(tx, `SELECT tollgate_canary_queue_front($1, $2)`, listingId, `the listing changed during run ${runId}: ${listing.resetReason}`);
    else if (state === "done" && outcome) await tx.listing.update({ where: { id: listingId }, data: { verificationStatus: outcome } });
    if (run?.reserved && run.budgetDay) {
      const signed = await tx.canarySample.findMany({ where: { runId, authorizationNonce: { not: null } }, select: { quotedAmount: true } });
      const spent = signed.reduce((sum, x) => sum + BigInt(x.quotedAmount ?? "0"), 0n);
      const unspent = BigInt(run.reserved.toFixed(0)) - spent;
      await release(tx, { listingId, budgetDay: run.budgetDay.toISOString().slice(0, 10), amount: unspent });
    }
  });
  if (state === "done") await recomputeListingRank(listingId);
  return { runId, state, outcome: state === "done" ? outcome : null, reason };
}
