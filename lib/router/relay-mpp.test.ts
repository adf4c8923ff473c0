/**
 * The router relaying MPP (and x402 v1) payments, on a real anvil, through the route handler: a buyer
 * paying with the mppx client (sellers/paid/mpp.ts mppRouterFetch: the EVM charge client method and a
 * viem account, its Tollgate key as X-Tollgate-Key) calls `/router/call/<listing>/<path>` in front of
 * the MPP reference sellers (mppx's server, settling through lib/chain's facilitator); the ledger
 * records what the chain shows. A loopback echo seller shows exactly which headers the relay carries.
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { encodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentRequirements } from "@x402/core/types";
import { toClientEvmSigner } from "@x402/evm";
import { ExactEvmSchemeV1 } from "@x402/evm/v1";
import { Receipt } from "mppx";
import { getAddress, verifyTypedData, type Address, type Hex, type PrivateKeyAccount } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFundedChain } from "@/test/chain";
import * as route from "@/app/router/call/[listing]/[...path]/route";
import { createApiKey } from "@/lib/apikeys";
import { type AnvilNode } from "@/devchain/anvil";
import { createFacilitator } from "@/lib/chain/facilitator";
import { LOCAL_DEV_KEYS, LOCAL_NETWORK, LOCAL_USDC_ADDRESS, type LocalChain } from "@/devchain/local-chain";
import { inProcessFacilitator } from "@/sellers/paid";
import { MPP_SELLERS, mppRouterFetch, startMppSellers, type MppSellerName, type MppSellers } from "@/sellers/paid/mpp";
import { confirmationsSettled } from "@/lib/router/confirm-after-answer";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { createTestListing } from "@/test/ledger";
import { decodePayment } from "./payment-headers";

const BASE_USDC: Address = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";

let node: AnvilNode;
let local: LocalChain;
let sellers: MppSellers;
let t: TestDatabase;
let payer: PrivateKeyAccount;
let payTo: Address;
let secret: string;
const slugs = {} as Record<MppSellerName, string>;
const listingIds = {} as Record<MppSellerName, string>;
/** The MPP credentials the buyer sent through the router, in order. */
const credentials: string[] = [];
let paidFetch: typeof fetch;
/** A seller that answers 402 and remembers the headers of every request it got. */
let echo: Server;
const echoed: IncomingHttpHeaders[] = [];
let echoSlug: string;
let echoListingId: string;

/** A fetch whose every request goes to the route handler (as Next would call it). */
const viaRouter = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
  const req = new Request(input, init);
  const auth = req.headers.get("authorization");
  if (auth?.startsWith("Payment ")) credentials.push(auth);
  const [, , , listing, ...path] = new URL(req.url).pathname.split("/");
  const handler = (route as unknown as Record<string, (r: Request, c: { params: Promise<{ listing: string; path: string[] }> }) => Promise<Response>>)[req.method];
  return handler(req, { params: Promise.resolve({ listing: decodeURIComponent(listing), path: path.map(decodeURIComponent) }) });
};
const callUrl = (seller: MppSellerName, path = "weather") => `http://127.0.0.1/router/call/${slugs[seller]}/${path}`;
const echoUrl = () => `http://127.0.0.1/router/call/${echoSlug}/weather`;

beforeAll(async () => {
  ({ node, local, payer, payTo } = await startFundedChain());
  sellers = await startMppSellers({ facilitator: inProcessFacilitator(createFacilitator(node.rpcUrl, LOCAL_DEV_KEYS[9])), usdc: LOCAL_USDC_ADDRESS, payTo });
  echo = createServer((req, res) => {
    echoed.push(req.headers);
    res.writeHead(402, { "content-type": "application/json" }).end(JSON.stringify({ error: "payment required" }));
  });
  await new Promise<void>((r) => echo.listen(0, "127.0.0.1", r));
  const echoPort = (echo.address() as AddressInfo).port;
  // Read by the relay (the loopback sellers through the probe allow-list) and the chain reader;
  // lib/env.ts parses the environment on first use, which is after this.
  process.env.TOLLGATE_PROBE_ALLOW_HOSTS = `127.0.0.1:${sellers.port},127.0.0.1:${echoPort}`;
  process.env.TOLLGATE_CHAIN_RPC_URL = node.rpcUrl;
  t = await createTestDatabase();
  const admin = (await t.prisma.user.create({ data: { name: "Admin", role: "admin" } })).id;
  secret = (await createApiKey({ actorId: admin, name: "buyer agent", scopes: ["router:call"] })).secret;
  for (const seller of MPP_SELLERS) {
    const id = await createTestListing(t.prisma, {
      title: `${seller} MPP weather`,
      baseUrl: `${sellers.url}/${seller}`,
      protocols: ["mpp"],
      networks: [LOCAL_NETWORK],
      endpoints: [{ method: "GET", path: "/weather", priceAmount: "10000", priceAsset: LOCAL_USDC_ADDRESS, priceNetwork: LOCAL_NETWORK, priceUsd: "0.01" }],
    });
    listingIds[seller] = id;
    slugs[seller] = (await t.prisma.listing.findUniqueOrThrow({ where: { id }, select: { slug: true } })).slug;
  }
  // The echo listing is priced in Base USDC: the asset an x402 v1 payment on "base" stands for.
  echoListingId = await createTestListing(t.prisma, {
    baseUrl: `http://127.0.0.1:${echoPort}`,
    endpoints: [{ method: "GET", path: "/weather", priceAmount: "10000", priceAsset: BASE_USDC, priceNetwork: "eip155:8453", priceUsd: "0.01" }],
  });
  echoSlug = (await t.prisma.listing.findUniqueOrThrow({ where: { id: echoListingId }, select: { slug: true } })).slug;
  paidFetch = mppRouterFetch({ account: payer, usdc: LOCAL_USDC_ADDRESS, apiKey: secret, fetch: viaRouter });
}, 60_000);
afterAll(async () => {
  await t?.close();
  await sellers?.close();
  await new Promise<void>((r) => (echo ? echo.close(() => r()) : r()));
  await node?.stop();
});

/** The ledger rows of a listing, once every confirmation the relay started after its answers has ended. */
const rows = async (listingId: string) => {
  await confirmationsSettled();
  return t.prisma.routerPayment.findMany({ where: { listingId }, orderBy: { createdAt: "asc" } });
};

describe("who calls, and which headers reach the seller", () => {
  it("Authorization: Bearer (the Tollgate key) is never forwarded; nothing is recorded without a payment", async () => {
    const before = echoed.length;
    const res = await viaRouter(echoUrl(), { headers: { authorization: `Bearer ${secret}`, accept: "application/json" } });
    expect(res.status).toBe(402);
    const got = echoed[before];
    expect(got.authorization).toBeUndefined();
    expect(got.accept).toBe("application/json");
    expect(JSON.stringify(got)).not.toContain(secret);
    expect(await rows(echoListingId)).toEqual([]);
  });

  it("X-Tollgate-Key authenticates; it stays here while an Authorization: Payment credential goes on", async () => {
    const before = echoed.length;
    const res = await viaRouter(echoUrl(), { headers: { "x-tollgate-key": secret, authorization: "Payment not-a-credential", "payment-authorization": "Bearer other" } });
    expect(res.status).toBe(402);
    const got = echoed[before];
    expect(got.authorization).toBe("Payment not-a-credential");
    expect(got["x-tollgate-key"]).toBeUndefined();
    expect(got["payment-authorization"]).toBeUndefined(); // only a Payment credential is carried
    expect(JSON.stringify(got)).not.toContain(secret);
  });

  it("Payment-Authorization (mppx's header when a seller keeps Authorization) is carried, beside a Bearer that is not", async () => {
    const before = echoed.length;
    await viaRouter(echoUrl(), { headers: { authorization: `Bearer ${secret}`, "payment-authorization": "Payment not-a-credential-either" } });
    expect(echoed[before]["payment-authorization"]).toBe("Payment not-a-credential-either");
    expect(echoed[before].authorization).toBeUndefined();
  });

  it("an MPP credential without a key: 401 naming both carriers; a bad X-Tollgate-Key: 401", async () => {
    const none = await viaRouter(callUrl("honest"), { headers: { authorization: "Payment abc" } });
    expect(none.status).toBe(401);
    expect((await none.json()).error.message).toContain("X-Tollgate-Key");
    const bad = await viaRouter(callUrl("honest"), { headers: { "x-tollgate-key": "tg_not_a_key" } });
    expect(bad.status).toBe(401);
  });
});

describe("unpaid", () => {
  it("the seller's 402 and its WWW-Authenticate challenge come back untouched, and nothing is recorded", async () => {
    const direct = await fetch(sellers.resource("honest"));
    const relayed = await viaRouter(callUrl("honest"), { headers: { "x-tollgate-key": secret } });
    expect(relayed.status).toBe(402);
    const challenge = relayed.headers.get("www-authenticate");
    expect(challenge).toMatch(/^Payment .*method="evm"/);
    // The challenge id is an HMAC over its fields (with a fresh expiry), so compare the request it binds.
    expect(challenge!.match(/request="([^"]+)"/)?.[1]).toBe(direct.headers.get("www-authenticate")!.match(/request="([^"]+)"/)?.[1]);
    expect(await rows(listingIds.honest)).toEqual([]);
  });
});

describe("MPP paid through the router with the mppx client", () => {
  it("honest: 200 delivered; settled, amount = quote, the chain's recipient and block; protocol mpp", async () => {
    const before = await local.balanceOf(payTo);
    credentials.length = 0; // only the mppx client's credentials from here
    const res = await paidFetch(callUrl("honest"));
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ seller: "honest", city: "Lisbon" });
    expect(await local.balanceOf(payTo)).toBe(before + 10_000n);
    expect(credentials).toHaveLength(1);
    const receipt = Receipt.deserialize(res.headers.get("payment-receipt")!);
    const [row] = await rows(listingIds.honest);
    expect(row).toMatchObject({
      protocol: "mpp",
      status: "settled",
      payer: payer.address.toLowerCase(),
      advertisedAmount: "10000",
      settledAmount: "10000",
      chainAmount: "10000",
      chainFrom: payer.address.toLowerCase(),
      chainTo: payTo.toLowerCase(),
      quotedPayTo: payTo.toLowerCase(),
      asset: LOCAL_USDC_ADDRESS,
      network: LOCAL_NETWORK,
      httpStatus: 200,
      reason: null,
      transactionId: receipt.reference,
    });
    expect(row.blockNumber).toBeGreaterThan(0n);
    expect(row.authorizationNonce).toMatch(/^0x[0-9a-f]{64}$/);
    expect(row.paymentResponse).toMatchObject({ method: "evm", status: "success", reference: receipt.reference });
  });

  it("a replayed credential is recorded once (the seller refuses the used nonce)", async () => {
    const replayed = credentials[0];
    const before = await rows(listingIds.honest);
    expect(before).toHaveLength(1);
    const res = await viaRouter(callUrl("honest"), { headers: { "x-tollgate-key": secret, authorization: replayed } });
    expect(res.status).toBe(402);
    const after = await rows(listingIds.honest);
    expect(after).toHaveLength(1);
    expect(after[0]).toMatchObject({ id: before[0].id, status: "settled" });
  });

  it("a garbled credential: the seller's answer returned, recorded rejected malformed_payment with the caller as payer", async () => {
    const res = await viaRouter(callUrl("honest"), { headers: { "x-tollgate-key": secret, authorization: "Payment eyJub3QiOiJhIGNyZWRlbnRpYWwifQ" } });
    expect(res.status).toBe(402);
    expect(res.headers.get("www-authenticate")).toMatch(/^Payment /);
    const malformed = (await rows(listingIds.honest)).filter((r) => r.reason === "malformed_payment");
    expect(malformed).toHaveLength(1);
    expect(malformed[0]).toMatchObject({ protocol: "mpp", status: "rejected", settledAmount: null, httpStatus: 402 });
    expect(malformed[0].payer).toMatch(/^api_key:/);
  });

  it("never-settles: the buyer got 200 and a receipt, but the named transaction is not on chain: failed, unproven", async () => {
    const res = await paidFetch(callUrl("never-settles"));
    expect(res.status).toBe(200);
    const [row] = await rows(listingIds["never-settles"]);
    expect(row).toMatchObject({ protocol: "mpp", status: "failed", reason: "unproven", settledAmount: null, chainAmount: null, httpStatus: 200, advertisedAmount: "10000" });
    expect(row.paymentResponse).toMatchObject({ status: "success", reference: row.transactionId });
  });
});

describe("x402 v1 (X-PAYMENT)", () => {
  // @x402/express serves x402 v2 only (it reads PAYMENT-SIGNATURE), and @x402/evm's v1 networks have
  // no local chain: this v1 payment is really signed by @x402/evm's v1 client for Base, relayed to a
  // seller that does not settle it, and recorded with the quote it carries.
  it("a signed v1 payment is recorded with its payer, nonce, amount, payTo and CAIP-2 network, not as malformed", async () => {
    const requirements = {
      scheme: "exact",
      network: "base",
      maxAmountRequired: "10000",
      resource: "https://seller.example/weather",
      description: "weather",
      mimeType: "application/json",
      payTo,
      maxTimeoutSeconds: 300,
      asset: BASE_USDC,
      extra: { name: "USD Coin", version: "2" },
    } as unknown as PaymentRequirements;
    const v1 = await new ExactEvmSchemeV1(toClientEvmSigner(payer, local.publicClient)).createPaymentPayload(1, requirements);
    const auth = (v1.payload as { authorization: { from: Address; to: Address; value: string; validAfter: string; validBefore: string; nonce: Hex }; signature: Hex });
    // Really signed: the EIP-712 signature recovers to the payer over Base's USDC domain.
    const signed = await verifyTypedData({
      address: payer.address,
      domain: { name: "USD Coin", version: "2", chainId: 8453, verifyingContract: BASE_USDC },
      types: { TransferWithAuthorization: [{ name: "from", type: "address" }, { name: "to", type: "address" }, { name: "value", type: "uint256" }, { name: "validAfter", type: "uint256" }, { name: "validBefore", type: "uint256" }, { name: "nonce", type: "bytes32" }] },
      primaryType: "TransferWithAuthorization",
      message: { ...auth.authorization, value: BigInt(auth.authorization.value), validAfter: BigInt(auth.authorization.validAfter), validBefore: BigInt(auth.authorization.validBefore) },
      signature: auth.signature,
    });
    expect(signed).toBe(true);
    const header = encodePaymentSignatureHeader(v1 as never);
    expect(decodePayment({ header: "x-payment", value: header, protocol: "x402" })).toMatchObject({
      protocol: "x402",
      x402Version: 1,
      payer: payer.address,
      nonce: auth.authorization.nonce.toLowerCase(),
      amount: "10000",
      asset: null,
      network: "eip155:8453",
      payTo: getAddress(payTo),
    });

    const before = echoed.length;
    const res = await viaRouter(echoUrl(), { headers: { authorization: `Bearer ${secret}`, "x-payment": header } });
    expect(res.status).toBe(402);
    expect(echoed[before]["x-payment"]).toBe(header);
    const [row] = (await rows(echoListingId)).filter((r) => r.authorizationNonce === auth.authorization.nonce.toLowerCase());
    // No RPC is configured for Base here, so the buyer's side cannot be judged: unmeasured, never the seller's failure.
    expect(row).toMatchObject({
      protocol: "x402",
      status: "unmeasured",
      reason: "chain_unreadable",
      payer: payer.address.toLowerCase(),
      advertisedAmount: "10000",
      quotedPayTo: payTo.toLowerCase(),
      network: "eip155:8453",
      asset: BASE_USDC, // v1 names no asset: the listing's price asset on that network
      httpStatus: 402,
    });
  });

  it("a v1 payload without an authorization does not decode (malformed_payment), and neither does a v1 network's garbage", () => {
    const noAuth = encodePaymentSignatureHeader({ x402Version: 1, scheme: "exact", network: "base", payload: { signature: "0x00" } } as never);
    expect(decodePayment({ header: "x-payment", value: noAuth, protocol: "x402" })).toBeNull();
    expect(decodePayment({ header: "x-payment", value: "%%%", protocol: "x402" })).toBeNull();
  });
});
