/**
 * A payment of nothing is no purchase (lib/router/relay-call.ts, lib/ledger/confirm-payment.ts): zero-value
 * EIP-3009 authorizations from fresh, never-funded wallets, which the seller settles itself, are `rejected`
 * `payer_zero_amount` and never count as payers. Before, the relay recorded them, the binding confirmed a real
 * Transfer of 0 as `settled`, the wash check found no funding (there was none to find) and traction counted each:
 * 12 fresh wallets gave 12 distinct payers, traction 0.24.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { encodePaymentRequiredHeader, encodePaymentResponseHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { keccak256, toHex, type Address, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { settleOnToken, startFundedChain } from "@/test/chain";
import { type AnvilNode } from "@/devchain/anvil";
import { LOCAL_CHAIN_ID, LOCAL_NETWORK, LOCAL_USDC_ADDRESS, LOCAL_USDC_DOMAIN, type LocalChain } from "@/devchain/local-chain";
import { TRANSFER_WITH_AUTHORIZATION_TYPES } from "@/lib/x402/eip3009";
import { confirmationsSettled } from "@/lib/router/confirm-after-answer";
import { relayCall } from "@/lib/router/relay-call";
import type { SignedAuthorization } from "@/lib/router/payment-headers";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { createTestListing } from "@/test/ledger";
import { rankForListing } from "./inputs";

const PRICE = 10_000n;
let node: AnvilNode;
let local: LocalChain;
let t: TestDatabase;
let payTo: Address;
let server: Server;
let url: string;
let listing: { id: string; slug: string };

function requirement(over: Partial<PaymentRequirements> = {}): PaymentRequirements {
  return { scheme: "exact", network: LOCAL_NETWORK, amount: PRICE.toString(), asset: LOCAL_USDC_ADDRESS, payTo, maxTimeoutSeconds: 300, extra: { ...LOCAL_USDC_DOMAIN }, ...over };
}

/** The seller: an honest 402 at the listed price to anyone unpaid; any signed authorization it is handed, it settles itself. */
async function handler(req: IncomingMessage, res: ServerResponse) {
  const header = req.headers["payment-signature"];
  if (typeof header !== "string") {
    res.writeHead(402, { "payment-required": encodePaymentRequiredHeader({ x402Version: 2, resource: { url: `${url}/x` }, accepts: [requirement()] } as never), "content-type": "application/json" });
    res.end("{}");
    return;
  }
  const decoded = JSON.parse(Buffer.from(header, "base64").toString("utf8")) as { payload: { signature: Hex; authorization: Record<string, string> } };
  const a = decoded.payload.authorization;
  const auth: SignedAuthorization = { from: a.from as Address, to: a.to as Address, value: BigInt(a.value), validAfter: BigInt(a.validAfter), validBefore: BigInt(a.validBefore), nonce: a.nonce as Hex };
  const tx = await settleOnToken(local, auth, decoded.payload.signature);
  const response = encodePaymentResponseHeader({ success: true, transaction: tx, network: LOCAL_NETWORK, payer: auth.from } as never);
  res.writeHead(200, { "payment-response": response, "content-type": "application/json" }).end("{}");
}

beforeAll(async () => {
  ({ node, local, payTo } = await startFundedChain());
  server = createServer((req, res) => void handler(req, res).catch((e: unknown) => res.writeHead(500).end(String(e))));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  process.env.TOLLGATE_CHAIN_RPC_URL = node.rpcUrl;
  t = await createTestDatabase();
  const id = await createTestListing(t.prisma, {
    baseUrl: url,
    networks: [LOCAL_NETWORK],
    endpoints: [{ method: "GET" as const, path: "/x", priceAmount: PRICE.toString(), priceAsset: LOCAL_USDC_ADDRESS, priceNetwork: LOCAL_NETWORK, priceUsd: "0.01" }],
  });
  listing = { id, slug: (await t.prisma.listing.findUniqueOrThrow({ where: { id }, select: { slug: true } })).slug };
}, 120_000);
afterAll(async () => {
  await t?.close();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  await node?.stop();
});

let n = 0;
async function zeroPayment(wallet: PrivateKeyAccount): Promise<void> {
  const now = BigInt(Math.floor(Date.now() / 1000));
  const auth: SignedAuthorization = { from: wallet.address, to: payTo, value: 0n, validAfter: now - 60n, validBefore: now + 300n, nonce: keccak256(toHex(`zero ${n++} ${Date.now()}`)) };
  const signature = await wallet.signTypedData({ domain: { ...LOCAL_USDC_DOMAIN, chainId: LOCAL_CHAIN_ID, verifyingContract: LOCAL_USDC_ADDRESS }, types: TRANSFER_WITH_AUTHORIZATION_TYPES, primaryType: "TransferWithAuthorization", message: auth });
  const payload = { x402Version: 2, resource: { url: `${url}/x` }, accepted: requirement({ amount: "0" }), payload: { signature, authorization: { from: auth.from, to: auth.to, value: "0", validAfter: auth.validAfter.toString(), validBefore: auth.validBefore.toString(), nonce: auth.nonce } } } as PaymentPayload;
  const res = await relayCall(new Request(`http://127.0.0.1/router/call/${listing.slug}/x`, { headers: { "payment-signature": encodePaymentSignatureHeader(payload) } }), listing.slug, "x", {
    caller: { kind: "api_key", id: "seller-itself" },
    allowHosts: [new URL(url).host],
  });
  expect(res.status).toBe(200);
}

describe("zero-value self-payments from unfunded wallets", () => {
  it("12 fresh wallets, never funded, each 'pay' 0 and the seller settles it: 12 rejected rows, no payer, no traction", async () => {
    const wallets = Array.from({ length: 12 }, () => privateKeyToAccount(generatePrivateKey()));
    for (const w of wallets) expect(await local.publicClient.getBalance({ address: w.address })).toBe(0n);
    for (const w of wallets) await zeroPayment(w);
    await confirmationsSettled();
    const rows = await t.prisma.routerPayment.findMany({ where: { listingId: listing.id } });
    expect(rows.map((r) => [r.status, r.reason, r.settledAmount])).toEqual(wallets.map(() => ["rejected", "payer_zero_amount", null]));
    const r = await rankForListing(listing.id);
    expect(r!.inputs.ledger.distinctPayers30d).toBe(0);
    expect(r!.components.traction.value).toBe(0);
  });
});

describe("the binding refuses a transfer of nothing", () => {
  it("a row quoting 0, whatever recorded it, is failed unproven, never settled", async () => {
    const { confirmPayment } = await import("@/lib/ledger/confirm-payment");
    const { recordPayment } = await import("@/lib/ledger/record");
    const { id } = await recordPayment({ listingId: listing.id, payer: privateKeyToAccount(generatePrivateKey()).address, status: "unconfirmed", advertisedAmount: "0", asset: LOCAL_USDC_ADDRESS, network: LOCAL_NETWORK, transactionId: `0x${"ab".repeat(32)}`, quotedPayTo: payTo, authorizationNonce: keccak256(toHex(`zero row ${Date.now()}`)), relayedAt: new Date(), protocol: "x402" });
    await confirmPayment(id);
    const row = await t.prisma.routerPayment.findUniqueOrThrow({ where: { id } });
    expect([row.status, row.reason]).toEqual(["failed", "unproven"]);
    expect(row.detail).toContain("amount is 0");
  });
});
