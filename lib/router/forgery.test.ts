/**
 * The ledger attacked, on a real anvil through the router: a forging seller that claims other
 * payments' transactions, payments signed by someone else, terms the transfer does not match, and
 * buyers' own faults, each through x402 v2, v1 and MPP. Every forged row fails with its reason;
 * every buyer fault and outage moves no gate (docs/ROUTER.md "Binding", "Whose failure it is").
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { encodePaymentRequiredHeader, encodePaymentResponseHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { Credential, Receipt } from "mppx";
import { charge as chargeServer } from "mppx/evm/server";
import { Mppx, Request as MppxRequest } from "mppx/server";
import { formatUnits, keccak256, toHex, zeroAddress, type Address, type Hex, type PrivateKeyAccount } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { settleOnToken, startFundedChain } from "@/test/chain";
import { type AnvilNode } from "@/devchain/anvil";
import { createFacilitator, type FacilitatorSetup } from "@/lib/chain/facilitator";
import { LOCAL_CHAIN_ID, LOCAL_DEV_KEYS, LOCAL_NETWORK, LOCAL_USDC_ADDRESS, LOCAL_USDC_DOMAIN, type LocalChain } from "@/devchain/local-chain";
import { TEST_USDC_ABI, TEST_USDC_ARTIFACT_DATA } from "@/devchain/test-usdc";
import { TRANSFER_WITH_AUTHORIZATION_TYPES } from "@/lib/x402/eip3009";
import { inProcessFacilitator, startPaidSellers, type PaidSellers } from "@/sellers/paid";
import { mppRouterFetch } from "@/sellers/paid/mpp";
import { confirmationsSettled } from "@/lib/router/confirm-after-answer";
import { relayCall, type RelayOptions } from "@/lib/router/relay-call";
import type { SignedAuthorization } from "@/lib/router/payment-headers";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { createTestListing } from "@/test/ledger";

const PRICE = 10_000n;
let node: AnvilNode;
let local: LocalChain;
let setup: FacilitatorSetup;
let t: TestDatabase;
let buyer: PrivateKeyAccount;
let victim: PrivateKeyAccount;
let attacker: PrivateKeyAccount;
let payTo: Address;
let attackerWallet: Address;
let honest: PaidSellers;
let downSellers: PaidSellers;
let forger: Server;
let forgerUrl: string;
let otherToken: Address;
/** What the forging seller claims for the next paid call on each path (a transaction hash), or settles itself. */
const plan = new Map<string, { claim?: Hex; settle?: "facilitator" | "direct" }>();
/** The last payment header the forger received per path. */
const received = new Map<string, string>();
const listing: Record<string, { id: string; slug: string }> = {};

const caller = { kind: "api_key" as const, id: "forgery-test" };
const hosts = () => [new URL(forgerUrl).host, `127.0.0.1:${honest.port}`, `127.0.0.1:${downSellers.port}`];
const relay = (slug: string, path: string, headers: Record<string, string> = {}, options: RelayOptions = {}) =>
  relayCall(new Request(`http://127.0.0.1/router/call/${slug}/${path}`, { headers }), slug, path, { caller, allowHosts: hosts(), ...options });
const rowsOf = async (key: string) => {
  await confirmationsSettled();
  return t.prisma.routerPayment.findMany({ where: { listingId: listing[key].id }, orderBy: { createdAt: "asc" } });
};
const lastRow = async (key: string) => (await rowsOf(key)).at(-1)!;

function requirement(over: Partial<PaymentRequirements> = {}): PaymentRequirements {
  return { scheme: "exact", network: LOCAL_NETWORK, amount: PRICE.toString(), asset: LOCAL_USDC_ADDRESS, payTo, maxTimeoutSeconds: 300, extra: { ...LOCAL_USDC_DOMAIN }, ...over };
}

type Auth = SignedAuthorization;

let nonces = 0;
function authorization(over: Partial<Auth> = {}): Auth {
  const now = BigInt(Math.floor(Date.now() / 1000));
  return { from: buyer.address, to: payTo, value: PRICE, validAfter: now - 60n, validBefore: now + 300n, nonce: keccak256(toHex(`forgery nonce ${nonces++} ${Date.now()}`)), ...over };
}

async function sign(signer: PrivateKeyAccount, auth: Auth, asset: Address = LOCAL_USDC_ADDRESS): Promise<Hex> {
  return signer.signTypedData({ domain: { ...LOCAL_USDC_DOMAIN, chainId: LOCAL_CHAIN_ID, verifyingContract: asset }, types: TRANSFER_WITH_AUTHORIZATION_TYPES, primaryType: "TransferWithAuthorization", message: auth });
}

const wire = (a: Auth) => ({ from: a.from, to: a.to, value: a.value.toString(), validAfter: a.validAfter.toString(), validBefore: a.validBefore.toString(), nonce: a.nonce });

function v2Payload(auth: Auth, signature: Hex, accepted: PaymentRequirements = requirement()): PaymentPayload {
  return { x402Version: 2, resource: { url: `${forgerUrl}/x` }, accepted, payload: { signature, authorization: wire(auth) } } as PaymentPayload;
}
const v2Header = (p: PaymentPayload) => ({ "payment-signature": encodePaymentSignatureHeader(p) });
const v1Header = (auth: Auth, signature: Hex) => ({
  "x-payment": encodePaymentSignatureHeader({ x402Version: 1, scheme: "exact", network: LOCAL_NETWORK, payload: { signature, authorization: wire(auth) } } as never),
});

/** Settle an authorization for real, straight on the token (whoever signed the terms around it). */
const settleDirect = (auth: Auth, signature: Hex, asset: Address = LOCAL_USDC_ADDRESS): Promise<Hex> => settleOnToken(local, auth, signature, asset);

/** A real settlement by the victim, paid to payTo: the transaction forgers like to claim. */
async function victimsSettlement(): Promise<Hex> {
  const auth = authorization({ from: victim.address });
  return settleDirect(auth, await sign(victim, auth));
}

/** The forging seller: a 402 with its requirement when unpaid; when paid, whatever `plan` says. */
async function forgerHandler(req: IncomingMessage, res: ServerResponse) {
  const path = new URL(req.url ?? "/", "http://x").pathname;
  const header = req.headers["payment-signature"] ?? req.headers["x-payment"];
  const asked = path.startsWith("/other-token") ? requirement({ asset: otherToken }) : requirement();
  if (typeof header !== "string") {
    const challenge = { x402Version: 2, resource: { url: `${forgerUrl}${path}` }, accepts: [asked] };
    res.writeHead(402, { "payment-required": encodePaymentRequiredHeader(challenge as never), "content-type": "application/json" });
    res.end(JSON.stringify({ x402Version: 1, accepts: [{ scheme: "exact", network: LOCAL_NETWORK, maxAmountRequired: PRICE.toString(), payTo, asset: asked.asset, resource: `${forgerUrl}${path}`, maxTimeoutSeconds: 300 }] }));
    return;
  }
  received.set(path, header);
  const step = plan.get(path) ?? {};
  let claim = step.claim;
  if (step.settle) {
    const decoded = JSON.parse(Buffer.from(header, "base64").toString("utf8")) as PaymentPayload & { payload: { signature: Hex; authorization: Record<string, string> } };
    const a = decoded.payload.authorization;
    const auth: Auth = { from: a.from as Address, to: a.to as Address, value: BigInt(a.value), validAfter: BigInt(a.validAfter), validBefore: BigInt(a.validBefore), nonce: a.nonce as Hex };
    claim = step.settle === "direct" ? await settleDirect(auth, decoded.payload.signature, asked.asset as Address) : ((await setup.facilitator.settle(decoded, asked)).transaction as Hex);
  }
  if (!claim) {
    res.writeHead(402, { "content-type": "application/json" }).end(JSON.stringify({ error: "not settled" }));
    return;
  }
  const response = encodePaymentResponseHeader({ success: true, transaction: claim, network: LOCAL_NETWORK, payer: buyer.address } as never);
  res.writeHead(200, { "payment-response": response, "x-payment-response": response, "content-type": "application/json" }).end(JSON.stringify({ weather: "sunny" }));
}

beforeAll(async () => {
  let otherPayTo: Address;
  ({ node, local, payer: buyer, payTo, otherPayTo } = await startFundedChain());
  attackerWallet = otherPayTo;
  victim = local.accounts[4];
  attacker = local.accounts[5];
  await local.mint(victim.address, 10_000_000n);
  setup = createFacilitator(node.rpcUrl, LOCAL_DEV_KEYS[9]);
  honest = await startPaidSellers({ facilitator: inProcessFacilitator(setup), usdc: LOCAL_USDC_ADDRESS, payTo, otherPayTo });
  // A seller whose facilitator cannot reach any chain (its RPC is a closed port).
  downSellers = await startPaidSellers({ facilitator: inProcessFacilitator(createFacilitator("http://127.0.0.1:9", LOCAL_DEV_KEYS[8])), usdc: LOCAL_USDC_ADDRESS, payTo, otherPayTo });
  // A second token like the first, at another address: not the listed asset.
  const deployed = await local.walletClient.deployContract({ abi: TEST_USDC_ARTIFACT_DATA.abi as never, bytecode: TEST_USDC_ARTIFACT_DATA.bytecode as Hex, args: [local.accounts[0].address, "USD Coin"] });
  otherToken = (await local.publicClient.waitForTransactionReceipt({ hash: deployed })).contractAddress!;
  await local.walletClient.writeContract({ address: otherToken, abi: TEST_USDC_ABI, functionName: "mint", args: [buyer.address, 10_000_000n] }).then((hash) => local.publicClient.waitForTransactionReceipt({ hash }));
  forger = createServer((req, res) => void forgerHandler(req, res).catch((e: unknown) => res.writeHead(500).end(String(e))));
  await new Promise<void>((r) => forger.listen(0, "127.0.0.1", r));
  forgerUrl = `http://127.0.0.1:${(forger.address() as AddressInfo).port}`;
  process.env.TOLLGATE_CHAIN_RPC_URL = node.rpcUrl;
  t = await createTestDatabase();
  const endpoint = { priceAmount: PRICE.toString(), priceAsset: LOCAL_USDC_ADDRESS, priceNetwork: LOCAL_NETWORK, priceUsd: "0.01" };
  const add = async (key: string, baseUrl: string, paths: string[]) => {
    const id = await createTestListing(t.prisma, { title: `forgery ${key}`, baseUrl, networks: [LOCAL_NETWORK], endpoints: paths.map((path) => ({ method: "GET" as const, path, ...endpoint })) });
    listing[key] = { id, slug: (await t.prisma.listing.findUniqueOrThrow({ where: { id }, select: { slug: true } })).slug };
  };
  const forgerPaths = ["forged-payer", "foreign-tx", "reused-tx", "mint", "wrong-payto", "wrong-amount", "other-token", "v1-forged", "v1-foreign", "v1-short"];
  for (const p of forgerPaths) await add(p, forgerUrl, [`/${p}`]);
  await add("honest", `${honest.url}/honest`, ["/weather"]);
  await add("down", `${downSellers.url}/honest`, ["/weather"]);
}, 120_000);
afterAll(async () => {
  await t?.close();
  await honest?.close();
  await downSellers?.close();
  await new Promise<void>((r) => (forger ? forger.close(() => r()) : r()));
  await node?.stop();
});

describe("binding: a seller cannot mint settled rows (x402 v2)", () => {
  it("a payer the signature is not from: rejected payer_bad_signature, holding no nonce, never settled, even naming a real transfer of that wallet", async () => {
    plan.set("/forged-payer", { claim: await victimsSettlement() });
    const auth = authorization({ from: victim.address });
    const res = await relay(listing["forged-payer"].slug, "forged-payer", v2Header(v2Payload(auth, await sign(attacker, auth))));
    expect(res.status).toBe(200);
    const row = await lastRow("forged-payer");
    expect(row).toMatchObject({ status: "rejected", reason: "payer_bad_signature", authorizationNonce: null, transactionId: null, settledAmount: null });
  });

  it("a foreign transaction (another payer's real settlement): failed unproven, naming the missing AuthorizationUsed", async () => {
    plan.set("/foreign-tx", { claim: await victimsSettlement() });
    const auth = authorization();
    await relay(listing["foreign-tx"].slug, "foreign-tx", v2Header(v2Payload(auth, await sign(buyer, auth))));
    const row = await lastRow("foreign-tx");
    expect(row).toMatchObject({ status: "failed", reason: "unproven", settledAmount: null, authorizationNonce: auth.nonce });
    expect(row.detail).toContain("does not spend this payment's authorization");
  });

  it("a transaction reused for a second payment: the second row fails; the database refuses a second claim of one transfer", async () => {
    plan.set("/reused-tx", { settle: "facilitator" });
    const first = authorization();
    await relay(listing["reused-tx"].slug, "reused-tx", v2Header(v2Payload(first, await sign(buyer, first))));
    const settled = await lastRow("reused-tx");
    expect(settled).toMatchObject({ status: "settled", chainAmount: PRICE.toString(), chainTo: payTo.toLowerCase() });
    expect(settled.transferLogIndex).not.toBeNull();

    plan.set("/reused-tx", { claim: settled.transactionId as Hex });
    const second = authorization();
    await relay(listing["reused-tx"].slug, "reused-tx", v2Header(v2Payload(second, await sign(buyer, second))));
    expect(await lastRow("reused-tx")).toMatchObject({ status: "failed", reason: "unproven", authorizationNonce: second.nonce });

    // The same (network, transaction, log index) on another row, written past every check: refused.
    await expect(
      t.prisma.routerPayment.create({
        data: { listingId: listing["reused-tx"].id, payer: "0x" + "ab".repeat(20), status: "settled", advertisedAmount: "10000", settledAmount: "10000", asset: LOCAL_USDC_ADDRESS, network: LOCAL_NETWORK, transactionId: settled.transactionId, transferLogIndex: settled.transferLogIndex },
      }),
    ).rejects.toThrow();
  });

  it("a mint as the payment (the zero address as payer): rejected payer_bad_signature", async () => {
    plan.set("/mint", { claim: await local.mint(payTo, PRICE) });
    const auth = authorization({ from: zeroAddress });
    await relay(listing.mint.slug, "mint", v2Header(v2Payload(auth, await sign(attacker, auth))));
    expect(await lastRow("mint")).toMatchObject({ status: "rejected", reason: "payer_bad_signature", transactionId: null });
  });

  it("a transfer to another address than the quoted payTo: failed unproven", async () => {
    plan.set("/wrong-payto", { settle: "direct" });
    const auth = authorization({ to: attackerWallet });
    await relay(listing["wrong-payto"].slug, "wrong-payto", v2Header(v2Payload(auth, await sign(buyer, auth))));
    const row = await lastRow("wrong-payto");
    expect(row).toMatchObject({ status: "failed", reason: "unproven", quotedPayTo: payTo.toLowerCase() });
    expect(row.detail).toContain("not the quoted");
  });

  it("a transfer of another amount than the quote: failed unproven", async () => {
    plan.set("/wrong-amount", { settle: "direct" });
    const auth = authorization({ value: PRICE / 2n });
    await relay(listing["wrong-amount"].slug, "wrong-amount", v2Header(v2Payload(auth, await sign(buyer, auth))));
    expect(await lastRow("wrong-amount")).toMatchObject({ status: "failed", reason: "unproven", advertisedAmount: PRICE.toString() });
  });

  it("a payment in another token than the listed asset: failed unproven, naming the listed asset", async () => {
    plan.set("/other-token", { settle: "facilitator" });
    const auth = authorization();
    const accepted = requirement({ asset: otherToken });
    await relay(listing["other-token"].slug, "other-token", v2Header(v2Payload(auth, await sign(buyer, auth, otherToken), accepted)));
    const row = await lastRow("other-token");
    expect(row).toMatchObject({ status: "failed", reason: "unproven" });
    expect(row.detail).toContain("not the listed asset");
    expect(row.transactionId).toMatch(/^0x/); // it did settle on chain, in a token nobody listed
  });
});

describe("binding through x402 v1 (X-PAYMENT)", () => {
  it("a forged payer is rejected; a foreign transaction fails unproven", async () => {
    plan.set("/v1-forged", { claim: await victimsSettlement() });
    const forged = authorization({ from: victim.address });
    await relay(listing["v1-forged"].slug, "v1-forged", v1Header(forged, await sign(attacker, forged)));
    expect(await lastRow("v1-forged")).toMatchObject({ status: "rejected", reason: "payer_bad_signature" });

    plan.set("/v1-foreign", { claim: await victimsSettlement() });
    const auth = authorization();
    await relay(listing["v1-foreign"].slug, "v1-foreign", v1Header(auth, await sign(buyer, auth)));
    expect(await lastRow("v1-foreign")).toMatchObject({ status: "failed", reason: "unproven", asset: LOCAL_USDC_ADDRESS });
  });

  it("a validBefore inside the scheme's settlement margin: rejected payer_authorization_expired, not the seller's", async () => {
    plan.set("/v1-short", {});
    const auth = authorization({ validBefore: BigInt(Math.floor(Date.now() / 1000) + 3) });
    await relay(listing["v1-short"].slug, "v1-short", v1Header(auth, await sign(buyer, auth)));
    expect(await lastRow("v1-short")).toMatchObject({ status: "rejected", reason: "payer_authorization_expired" });
  });
});

describe("blame: a failure is the seller's only when the buyer's side was sound (x402 v2, a real @x402/express seller)", () => {
  const payHonest = async (auth: Auth, signature: Hex, accepted: PaymentRequirements = requirement(), options: RelayOptions = {}) => {
    const payload = { ...v2Payload(auth, signature, accepted), resource: { url: honest.resource("honest") } } as PaymentPayload;
    return relay(listing.honest.slug, "weather", v2Header(payload), options);
  };
  const byNonce = async (nonce: Hex) => {
    await confirmationsSettled();
    return t.prisma.routerPayment.findFirstOrThrow({ where: { authorizationNonce: nonce.toLowerCase() } });
  };

  it("the honest seller with a sound payment: settled", async () => {
    const challenge = await fetch(honest.resource("honest"));
    expect(challenge.status).toBe(402);
    const auth = authorization();
    const res = await payHonest(auth, await sign(buyer, auth));
    expect(res.status).toBe(200);
    expect(await byNonce(auth.nonce)).toMatchObject({ status: "settled", chainAmount: PRICE.toString() });
  });

  it("a requirement without extra and a signature that is nobody's: rejected payer_bad_signature (the table's domain is used, never skipped)", async () => {
    const auth = authorization({ from: local.accounts[6].address });
    const { extra: _extra, ...bare } = requirement();
    const res = await payHonest(auth, await sign(attacker, auth), bare as PaymentRequirements);
    expect(res.status).not.toBe(200);
    const row = await t.prisma.routerPayment.findFirstOrThrow({ where: { listingId: listing.honest.id, payer: local.accounts[6].address.toLowerCase() } });
    expect(row).toMatchObject({ status: "rejected", reason: "payer_bad_signature" });
  });

  it("a validBefore inside the settlement margin: rejected payer_authorization_expired", async () => {
    const auth = authorization({ validBefore: BigInt(Math.floor(Date.now() / 1000) + 3) });
    await payHonest(auth, await sign(buyer, auth));
    expect(await byNonce(auth.nonce)).toMatchObject({ status: "rejected", reason: "payer_authorization_expired" });
  });

  it("an unfunded payer: rejected payer_insufficient_funds", async () => {
    const broke = local.accounts[7];
    const auth = authorization({ from: broke.address });
    await payHonest(auth, await sign(broke, auth));
    expect(await byNonce(auth.nonce)).toMatchObject({ status: "rejected", reason: "payer_insufficient_funds" });
  });

  it("terms the seller never asked (another amount, signed): rejected, not the seller's failure", async () => {
    const auth = authorization({ value: PRICE * 3n });
    await payHonest(auth, await sign(buyer, auth), requirement({ amount: (PRICE * 3n).toString() }));
    expect(await byNonce(auth.nonce)).toMatchObject({ status: "rejected", reason: "payer_requirements_mismatch" });
  });

  it("an authorization already spent before it reached the router (a replay): rejected payer_authorization_spent", async () => {
    const auth = authorization();
    const signature = await sign(buyer, auth);
    await settleDirect(auth, signature);
    await payHonest(auth, signature);
    expect(await byNonce(auth.nonce)).toMatchObject({ status: "rejected", reason: "payer_authorization_spent" });
  });

  it("the chain down (for the router and the seller's facilitator): unmeasured chain_unreadable, never the seller's", async () => {
    const auth = authorization();
    const dead = { settings: { rpcUrls: { [LOCAL_NETWORK]: "http://127.0.0.1:9" } }, timeoutMs: 500 };
    const payload = { ...v2Payload(auth, await sign(buyer, auth)), resource: { url: downSellers.resource("honest") } } as PaymentPayload;
    await relay(listing.down.slug, "weather", v2Header(payload), { chain: dead });
    expect(await byNonce(auth.nonce)).toMatchObject({ status: "unmeasured", reason: "chain_unreadable" });
  });

  it("the house facilitator down while the chain answers the router: unmeasured facilitator_unreachable", async () => {
    const auth = authorization();
    const payload = { ...v2Payload(auth, await sign(buyer, auth)), resource: { url: downSellers.resource("honest") } } as PaymentPayload;
    await relay(listing.down.slug, "weather", v2Header(payload));
    expect(await byNonce(auth.nonce)).toMatchObject({ status: "unmeasured", reason: "facilitator_unreachable" });
  });

  it("none of these moved the settle gate: no failed row on the honest or the down listing", async () => {
    const failed = await t.prisma.routerPayment.count({ where: { listingId: { in: [listing.honest.id, listing.down.id] }, status: "failed" } });
    expect(failed).toBe(0);
  });
});

describe("binding through MPP", () => {
  let mppServer: { url: string; close(): Promise<void> };
  let mppSlug: string;
  let mppId: string;
  let claim: Hex;

  beforeAll(async () => {
    // An mppx seller whose settle claims whatever transaction the test sets, without settling.
    const method = chargeServer({
      currency: LOCAL_USDC_ADDRESS, recipient: payTo, chainId: LOCAL_CHAIN_ID, decimals: 6, authorization: { ...LOCAL_USDC_DOMAIN },
      x402: { facilitator: inProcessFacilitator(setup) as never },
      settle: async () => ({ reference: claim }),
    });
    const mppx = Mppx.create({ methods: [method], secretKey: "f".repeat(64), realm: "forger" });
    const pay = mppx.charge({ amount: formatUnits(PRICE, 6), description: "forged weather" });
    const server = createServer(MppxRequest.toNodeListener(async (req) => {
      const result = await pay(req);
      return result.status === 402 ? result.challenge : result.withReceipt(Response.json({ weather: "sunny" }));
    }));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    mppServer = { url, close: () => new Promise((r) => server.close(() => r())) };
    mppId = await createTestListing(t.prisma, { title: "forgery mpp", baseUrl: url, protocols: ["mpp"], networks: [LOCAL_NETWORK], endpoints: [{ method: "GET", path: "/weather", priceAmount: PRICE.toString(), priceAsset: LOCAL_USDC_ADDRESS, priceNetwork: LOCAL_NETWORK, priceUsd: "0.01" }] });
    mppSlug = (await t.prisma.listing.findUniqueOrThrow({ where: { id: mppId }, select: { slug: true } })).slug;
  });
  afterAll(async () => mppServer?.close());

  const mppRows = async () => {
    await confirmationsSettled();
    return t.prisma.routerPayment.findMany({ where: { listingId: mppId }, orderBy: { createdAt: "asc" } });
  };
  const through = (headers: Headers) => relay(mppSlug, "weather", Object.fromEntries(headers.entries()), { allowHosts: [...hosts(), new URL(mppServer.url).host] });

  it("a foreign transaction claimed in the Payment-Receipt: failed unproven", async () => {
    claim = await victimsSettlement();
    const sent: Headers[] = [];
    const pay = mppRouterFetch({ account: buyer, usdc: LOCAL_USDC_ADDRESS, fetch: async (input, init) => {
      const headers = new Headers(init?.headers);
      if (headers.get("authorization")?.startsWith("Payment ")) sent.push(headers);
      return through(headers);
    } });
    const res = await pay("http://127.0.0.1/weather");
    expect(res.status).toBe(200);
    expect(Receipt.deserialize(res.headers.get("payment-receipt")!).reference).toBe(claim);
    const [row] = (await mppRows()).filter((r) => r.protocol === "mpp");
    expect(row).toMatchObject({ status: "failed", reason: "unproven", payer: buyer.address.toLowerCase() });

    // The same credential with another wallet as its payer (the signature stays the buyer's): rejected.
    const credential = Credential.deserialize(sent[0].get("authorization")!);
    const forged = Credential.serialize({ ...credential, payload: { ...(credential.payload as object), from: victim.address, nonce: keccak256(toHex("mpp forged")) } } as never);
    const headers = new Headers(sent[0]);
    headers.set("authorization", forged);
    await through(headers);
    const rejected = (await mppRows()).find((r) => r.payer === victim.address.toLowerCase());
    expect(rejected).toMatchObject({ status: "rejected", reason: "payer_bad_signature", authorizationNonce: null });
  });
});
