/** The canary's payment sequence for one endpoint (docs/CANARY.md "A run", steps 2–5) and its reconciliation. */
import crypto from "node:crypto";
import { x402Client, x402HTTPClient } from "@x402/fetch";
import type { PaymentRequired, PaymentRequirements } from "@x402/fetch";
import { toClientEvmSigner } from "@x402/evm";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { getAddress, isAddress, parseAbi, type Hex, type PublicClient } from "viem";
import type { PrivateKeyAccount } from "viem/accounts";
import { askedAboveStated } from "@/lib/amounts";
import { publicClientFor, readChain } from "@/lib/chain/rpc";
import { isUsdToken } from "@/lib/x402/assets";
import { db } from "@/lib/db";
import { AppError } from "@/lib/errors";
import { confirmPayment, transfersFrom } from "@/lib/ledger/confirm-payment";
import { decodeSettlement } from "@/lib/router/payment-headers";
import { RELAY_DEADLINE_MS, relayCall } from "@/lib/router/relay-call";
import { outputFactsOf } from "@/lib/trust/observe";
import { reservePayTo } from "./budget";
import { requestOf, type CanaryOptions, type EndpointRow } from "./choose";
import { checkOutput, judge, relayErrorCode, rowFacts, type LedgerRow, type Relayed, type ReplayResult, type SampleOutcome } from "./judge";
import { writeSignedSample, type Completion, type Quoted, type SampleIdentity } from "./record";

const EIP3009_STATE = parseAbi(["function authorizationState(address authorizer, bytes32 nonce) view returns (bool)"]);

async function relayAsHouse(slug: string, e: EndpointRow, extra: Record<string, string>, options: CanaryOptions): Promise<Relayed> {
  const { query, body } = requestOf(e);
  const path = e.path.replace(/^\/+/, "");
  // A buyer's User-Agent (Node's fetch), never our name (docs/CANARY.md "Looking like a buyer").
  const headers: Record<string, string> = { accept: "application/json", "user-agent": "node", ...extra };
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

export interface CallInput {
  slug: string;
  endpoint: EndpointRow;
  identity: SampleIdentity;
  account: PrivateKeyAccount;
  slowMs: number;
  priorId: string | null;
}

function quoteOf(unpaid: Relayed, e: EndpointRow): { required: PaymentRequired; quote: PaymentRequirements } | null {
  let required: PaymentRequired;
  try {
    let body: unknown;
    try {
      body = JSON.parse(unpaid.body.toString("utf8"));
    } catch {
      body = undefined;
    }
    required = new x402HTTPClient(new x402Client()).getPaymentRequiredResponse((n) => unpaid.headers[n.toLowerCase()], body);
  } catch {
    return null;
  }
  const same = (a: string | undefined | null, b: string | null) => !!a && !!b && a.toLowerCase() === b.toLowerCase();
  const quote = required.accepts.find((a) => a.scheme === "exact" && a.network === e.priceNetwork && same(a.asset, e.priceAsset));
  return quote && /^\d+$/.test(String(quote.amount)) ? { required, quote } : null;
}

export async function callEndpoint(input: CallInput, options: CanaryOptions): Promise<Completion> {
  const e = input.endpoint;
  const listed = BigInt(e.priceAmount!);
  const identity = { ...input.identity, payer: input.account.address.toLowerCase() };
  const done = (sampleId: string | null, data: Completion["data"], output: Completion["output"] = null): Completion => ({ sampleId, identity, data, output, at: new Date() });
  const unpaidVerdict = (outcome: SampleOutcome | null, reason: string, extra: Record<string, unknown> = {}) => done(input.priorId, { outcome, reason, ...extra });

  const unpaid = await relayAsHouse(input.slug, e, {}, options);
  if (unpaid.status !== 402) {
    const delivered = unpaid.status >= 200 && unpaid.status < 300;
    return unpaidVerdict(delivered ? "degraded" : "broken", delivered ? "delivered_unpaid" : `unpaid_http_${unpaid.status}`, { httpStatus: unpaid.status });
  }
  const found = quoteOf(unpaid, e);
  if (!found) return unpaidVerdict("broken", "no_payable_quote", { httpStatus: 402 });
  const { required, quote } = found;
  const quoted: Quoted = {
    quotedAmount: String(quote.amount),
    quotedPayTo: String(quote.payTo).toLowerCase(),
    quotedAsset: String(quote.asset).toLowerCase(),
    quotedNetwork: quote.network,
  };
  if (BigInt(quote.amount) > listed) return unpaidVerdict("degraded", "quote_above_listing", { ...quoted, httpStatus: 402 });
  const usdToken = isUsdToken(quote.network, String(quote.asset));
  if (askedAboveStated({ usd: e.priceUsd, amount: String(quote.amount), decimals: e.priceDecimals, mode: e.priceMode, usdToken })) {
    return unpaidVerdict("degraded", "quote_above_stated", { ...quoted, httpStatus: 402 });
  }
  const share = input.priorId ? { ok: true as const } : await reservePayTo({ network: quote.network, payTo: String(quote.payTo), listingId: input.identity.listingId, amount: BigInt(quote.amount), caps: options.caps });
  if (!share.ok) return unpaidVerdict(null, `budget_payto: the payTo's share has ${share.left} left today`, { ...quoted, httpStatus: 402 });

  const client = new x402Client()
    .register(quote.network, new ExactEvmScheme(toClientEvmSigner(input.account, (publicClientFor(quote.network) ?? undefined) as PublicClient | undefined)))
    .setSpendControls({ allowedAssets: [{ network: quote.network, asset: quote.asset }] });
  const payer = new x402HTTPClient(client);
  const payload = await payer.createPaymentPayload({ ...required, accepts: [quote] });
  const nonce = String((payload.payload as { authorization?: { nonce?: unknown } }).authorization?.nonce ?? "").toLowerCase();
  if (!/^0x[0-9a-f]{64}$/.test(nonce)) throw new AppError("internal", "the signed payment carries no EIP-3009 nonce");
  // One write before the payment leaves: a retry finds it by nonce.
  const sampleId = await writeSignedSample(identity, quoted, nonce, input.priorId);
  await options.onStage?.("signed", e);

  const paymentHeaders = payer.encodePaymentSignatureHeader(payload);
  const paid = await relayAsHouse(input.slug, e, paymentHeaders, options);
  await options.onStage?.("paid", e);

  const row = await ledgerRow(identity.payer, nonce, options);
  const delivered = paid.status >= 200 && paid.status < 300;
  const contentType = paid.headers["content-type"] ?? null;
  const output = delivered ? checkOutput(e.responseSchema, paid.body, contentType) : { valid: null, errors: null };
  const outputFacts = outputFactsOf(paid.body, e.requestExample);
  const replay = await replayProbe(input.slug, e, paymentHeaders, row, identity.payer, options);
  // The relay's measure, not its on-chain confirmation after.
  const ttlbMs = row?.latencyMs ?? paid.ttlbMs;
  const verdict = judge({ row, httpStatus: paid.status, quoted, schemaValid: output.valid, ttlbMs, slowMs: input.slowMs, replay: replay.result, relayError: relayErrorCode(paid) });
  return done(
    sampleId,
    {
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
    },
    outputFacts,
  );
}

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

/** Only a different transaction paying from the house fails it. */
async function replayProbe(slug: string, e: EndpointRow, headers: Record<string, string>, row: LedgerRow | null, payer: string, options: CanaryOptions): Promise<{ result: ReplayResult; status: number | null }> {
  if (!row) return { result: "skipped", status: null };
  const again = await relayAsHouse(slug, e, headers, options);
  if (again.status < 200 || again.status >= 300) return { result: "refused", status: again.status };
  const claim = decodeSettlement("x402", again.headers);
  if (!claim.transaction || claim.transaction.toLowerCase() === row.transactionId?.toLowerCase()) return { result: "idempotent", status: again.status };
  const second = await transfersFrom({ transaction: claim.transaction, network: row.network, asset: row.asset, payer }, options.chain);
  return { result: second === true ? "charged_twice" : "idempotent", status: again.status };
}

/** Never signed again. */
export async function reconcile(s: { id: string; payer: string | null; authorizationNonce: string | null; quotedAmount: string | null; quotedPayTo: string | null; quotedNetwork: string | null; quotedAsset: string | null }, identity: SampleIdentity, options: CanaryOptions): Promise<Completion> {
  const done = (data: Completion["data"]): Completion => ({ sampleId: s.id, identity, data, output: null, at: new Date() });
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
    return done({ ...verdict, reason: `${verdict.reason},reconciled`, ...rowFacts(row), httpStatus: row.httpStatus, replay: "skipped" });
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
  return done({ outcome: null, reason: used === null ? "interrupted_chain_unreadable" : used ? "interrupted_paid_unrecorded" : "interrupted_unsent", replay: "skipped" });
}
