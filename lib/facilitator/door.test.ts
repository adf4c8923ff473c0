/**
 * The facilitator's door on a real anvil and the suite's database (PGlite, or server PostgreSQL with
 * TEST_DATABASE_URL): strangers are refused, zero values and payers that cannot pay cost the signer
 * nothing, malformed payloads are 400s, each caller and payer is limited, each caller's gas is
 * budgeted per day, and a flood of one caller's settlements does not hold back another's.
 */
import { x402Client } from "@x402/core/client";
import { HTTPFacilitatorClient } from "@x402/core/http";
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from "@x402/core/types";
import { toClientEvmSigner } from "@x402/evm";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { keccak256, toHex, type Address, type PrivateKeyAccount } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startFundedChain } from "@/test/chain";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { serveRoutes, type RouteServer } from "@/test/route-server";
import { facilitatorRoutes } from "@/test/router-routes";
import { POST as settleRoute } from "@/app/api/facilitator/settle/route";
import { GET as supportedRoute } from "@/app/api/facilitator/supported/route";
import { POST as verifyRoute } from "@/app/api/facilitator/verify/route";
import { createApiKey, revokeApiKey } from "@/lib/apikeys";
import type { AnvilNode } from "@/devchain/anvil";
import { facilitatorFromEnv, INSUFFICIENT_BALANCE, ZERO_VALUE, supported } from "@/lib/chain/facilitator";
import { LOCAL_DEV_KEYS, LOCAL_NETWORK, LOCAL_USDC_ADDRESS, LOCAL_USDC_DOMAIN, type LocalChain } from "@/devchain/local-chain";
import { EIP3009_TYPES } from "@/lib/x402/eip3009";
import { configureLimits, restoreLimits, type LimitsConfig } from "@/lib/limits";
import { GAS_RESERVE, gasSpent, reserveGas } from "./gas";

const SELLER_TOKEN = "door-test-seller-token-0123456789abcdefghijkl";
const OTHER_TOKEN = "door-test-other-token-0123456789abcdefghijklm";

let node: AnvilNode;
let local: LocalChain;
let t: TestDatabase;
let payer: PrivateKeyAccount;
let payTo: Address;
let buyer: x402Client;
let settleKey: string;
let selectOnlyKey: string;
let saved: LimitsConfig | undefined;

beforeAll(async () => {
  ({ node, local, payer, payTo } = await startFundedChain());
  // lib/env reads these on first use, which is after this.
  process.env.TOLLGATE_CHAIN_RPC_URL = node.rpcUrl;
  process.env.TOLLGATE_FACILITATOR_KEY = LOCAL_DEV_KEYS[9];
  process.env.TOLLGATE_FACILITATOR_TOKENS = `door-sellers=${SELLER_TOKEN},door-other=${OTHER_TOKEN}`;
  t = await createTestDatabase();
  buyer = new x402Client()
    .register(LOCAL_NETWORK, new ExactEvmScheme(toClientEvmSigner(payer, local.publicClient)))
    .setSpendControls({ allowedAssets: [{ network: LOCAL_NETWORK, asset: LOCAL_USDC_ADDRESS }] });
  const admin = (await t.prisma.user.create({ data: { name: "Admin", role: "admin" } })).id;
  settleKey = (await createApiKey({ actorId: admin, name: "a seller", scopes: ["facilitator:settle"] })).secret;
  selectOnlyKey = (await createApiKey({ actorId: admin, name: "a buyer", scopes: ["router:select", "router:call"] })).secret;
}, 60_000);
afterEach(() => {
  if (saved) restoreLimits(saved);
  saved = undefined;
});
afterAll(async () => {
  await t?.close();
  await node?.stop();
});

function requirements(amount: string): PaymentRequirements {
  return { scheme: "exact", network: LOCAL_NETWORK, amount, asset: LOCAL_USDC_ADDRESS, payTo, maxTimeoutSeconds: 300, extra: { ...LOCAL_USDC_DOMAIN } };
}
async function pay(req: PaymentRequirements, client = buyer): Promise<PaymentPayload> {
  const required: PaymentRequired = { x402Version: 2, resource: { url: "http://127.0.0.1/door-test" }, accepts: [req] };
  return client.createPaymentPayload(required);
}
/** An authorization signed by `from` for `value` (the x402 client itself refuses a zero amount). */
async function signed(from: PrivateKeyAccount, req: PaymentRequirements, value: bigint): Promise<PaymentPayload> {
  const validBefore = BigInt(Math.floor(Date.now() / 1000) + 300);
  const message = { from: from.address, to: payTo, value, validAfter: 0n, validBefore, nonce: keccak256(toHex(`${from.address} ${Math.random()}`)) };
  const signature = await from.signTypedData({
    domain: { ...LOCAL_USDC_DOMAIN, chainId: 31337, verifyingContract: LOCAL_USDC_ADDRESS },
    types: { TransferWithAuthorization: EIP3009_TYPES.TransferWithAuthorization },
    primaryType: "TransferWithAuthorization",
    message,
  });
  return { x402Version: 2, accepted: req, payload: { authorization: { ...message, value: String(value), validAfter: "0", validBefore: String(validBefore) }, signature } };
}
const body = (paymentPayload: PaymentPayload, paymentRequirements: PaymentRequirements) => JSON.parse(JSON.stringify({ x402Version: 2, paymentPayload, paymentRequirements }));
function post(route: (r: Request) => Promise<Response>, payload: unknown, bearer: string | null = SELLER_TOKEN): Promise<Response> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (bearer) headers.authorization = `Bearer ${bearer}`;
  return route(new Request("http://127.0.0.1/api/facilitator", { method: "POST", headers, body: typeof payload === "string" ? payload : JSON.stringify(payload) }));
}
const signerAddress = () => facilitatorFromEnv().address;
async function signerState() {
  return { nonce: await local.publicClient.getTransactionCount({ address: signerAddress() }), balance: await local.publicClient.getBalance({ address: signerAddress() }) };
}
const fresh = (label: string) => privateKeyToAccount(keccak256(toHex(`door test ${label}`)));

describe("who may call", () => {
  it("strangers are refused before the body is read: no credential, an unknown token, a revoked key (401), a key without facilitator:settle (403)", async () => {
    const req = requirements("1000");
    const payload = await pay(req);
    const admin = (await t.prisma.user.create({ data: { name: "Admin 2", role: "admin" } })).id;
    const revoked = await createApiKey({ actorId: admin, name: "revoked", scopes: ["facilitator:settle"] });
    await revokeApiKey({ actorId: admin, id: revoked.id });
    const before = await signerState();
    for (const route of [verifyRoute, settleRoute]) {
      for (const bearer of [null, "not-a-token", "door-test-seller-token-0123456789abcdefghijkX", revoked.secret]) {
        const res = await post(route, body(payload, req), bearer);
        expect(res.status, String(bearer)).toBe(401);
        expect((await res.json()).error.code).toBe("unauthorized");
      }
      const res = await post(route, body(payload, req), selectOnlyKey);
      expect(res.status).toBe(403);
      expect((await res.json()).error).toMatchObject({ code: "insufficient_scope", requiredScope: "facilitator:settle" });
      // A stranger's body is never read: not even a malformed one gets past the door.
      expect((await post(route, "{not json", null)).status).toBe(401);
    }
    expect(await signerState()).toEqual(before);
  });

  it("a seller's facilitator:settle key and a named token verify and settle; supported stays public", async () => {
    expect((await supportedRoute()).status).toBe(200);
    for (const bearer of [settleKey, SELLER_TOKEN]) {
      const req = requirements("2000");
      const payload = await pay(req);
      expect(await (await post(verifyRoute, body(payload, req), bearer)).json()).toMatchObject({ isValid: true, payer: payer.address });
      const before = await local.balanceOf(payTo);
      expect(await (await post(settleRoute, body(payload, req), bearer)).json()).toMatchObject({ success: true, payer: payer.address });
      expect(await local.balanceOf(payTo)).toBe(before + 2000n);
    }
  });

  it("@x402/core's HTTPFacilitatorClient sends the credential through createAuthHeaders (what the sellers do)", async () => {
    let server: RouteServer | undefined;
    try {
      server = await serveRoutes(facilitatorRoutes());
      const url = `${server.origin}/api/facilitator`;
      const headers = { Authorization: `Bearer ${SELLER_TOKEN}` };
      const client = new HTTPFacilitatorClient({ url, createAuthHeaders: async () => ({ verify: headers, settle: headers, supported: headers }) });
      expect((await client.getSupported()).kinds).toContainEqual({ x402Version: 2, scheme: "exact", network: LOCAL_NETWORK });
      const req = requirements("7000");
      const payload = await pay(req);
      expect(await client.settle(payload, req)).toMatchObject({ success: true, network: LOCAL_NETWORK });
      const stranger = new HTTPFacilitatorClient({ url });
      await expect(stranger.settle(await pay(req), req)).rejects.toThrow(/401/);
    } finally {
      await server?.close();
    }
  });
});

describe("what is refused before the signer sends", () => {
  it("zero-value authorizations from wallets with nothing (the old free gas tap): refused, no gas spent", async () => {
    const req = requirements("0");
    const before = await signerState();
    const gasBefore = await gasSpent("token:door-sellers");
    for (let i = 0; i < 5; i++) {
      const res = await post(settleRoute, body(await signed(fresh(`zero ${i}`), req, 0n), req));
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ success: false, errorReason: ZERO_VALUE, transaction: "" });
    }
    expect(await (await post(verifyRoute, body(await signed(fresh("zero v"), req, 0n), req))).json()).toMatchObject({ isValid: false, invalidReason: ZERO_VALUE });
    expect(await signerState()).toEqual(before);
    expect(await gasSpent("token:door-sellers")).toEqual(gasBefore);
  });

  it("an unfunded payer is refused before any send: the signer's nonce and balance do not move, no gas is reserved", async () => {
    const req = requirements("5000");
    const spentBefore = await gasSpent("token:door-other");
    const before = await signerState();
    const res = await post(settleRoute, body(await signed(fresh("unfunded"), req, 5000n), req), OTHER_TOKEN);
    expect(await res.json()).toMatchObject({ success: false, errorReason: INSUFFICIENT_BALANCE, transaction: "" });
    expect(await signerState()).toEqual(before);
    expect(await gasSpent("token:door-other")).toEqual(spentBefore);
  });

  it("malformed payloads are 400s naming the JSON pointer (a payload without an authorization used to be a 500)", async () => {
    const req = requirements("1000");
    const payload = await pay(req);
    const inner = payload.payload as { authorization: Record<string, string>; signature: string };
    const cases: Array<[unknown, string]> = [
      [body({ ...payload, payload: { signature: inner.signature } }, req), "/paymentPayload/payload/authorization"],
      [body({ ...payload, payload: {} }, req), "/paymentPayload/payload/authorization"],
      [body({ ...payload, payload: { ...inner, authorization: { ...inner.authorization, nonce: "0x12" } } }, req), "/paymentPayload/payload/authorization/nonce"],
      [body({ ...payload, payload: { ...inner, signature: 42 } } as unknown as PaymentPayload, req), "/paymentPayload/payload/signature"],
      [{ x402Version: 2, paymentPayload: { ...payload, payload: "x" }, paymentRequirements: req }, "/paymentPayload/payload"],
      [{ x402Version: 2, paymentPayload: payload }, "/paymentRequirements"],
      [{ ...body(payload, req), x402Version: 1 }, "/x402Version"],
      [body(payload, { ...req, amount: "1.5" }), "/paymentRequirements/amount"],
    ];
    for (const [send, pointer] of cases) {
      for (const route of [verifyRoute, settleRoute]) {
        const res = await post(route, send);
        expect(res.status, pointer).toBe(400);
        const json = await res.json();
        expect(json.error.code).toBe("bad_request");
        expect(json.error.details[0].pointer).toBe(pointer);
      }
    }
    expect((await post(settleRoute, "{not json")).status).toBe(400);
  });
});

describe("hostile but well-formed bodies", () => {
  it("never answer 5xx: odd assets, recipients, domains, amounts past uint256, odd signatures, NUL and lone surrogates", async () => {
    saved = configureLimits({ rates: { facilitator: null, facilitatorPayer: null } });
    const req = requirements("1000");
    const payload = await pay(req);
    const inner = payload.payload as { authorization: Record<string, string>; signature: string };
    const withAuth = (over: Record<string, string>) => ({ ...payload, payload: { ...inner, authorization: { ...inner.authorization, ...over } } });
    const huge = "9".repeat(78);
    const cases: Array<[string, unknown]> = [
      ["asset not an address", body(payload, { ...req, asset: "not-an-address" })],
      ["payTo not an address", body(payload, { ...req, payTo: "0x12" })],
      ["payTo with NUL", body(payload, { ...req, payTo: "0x\u0000" })],
      ["domain name a number", body(payload, { ...req, extra: { name: 5, version: "2" } })],
      ["domain version an object", body(payload, { ...req, extra: { name: "USD Coin", version: {} } })],
      ["value past uint256", body(withAuth({ value: huge }), { ...req, amount: huge })],
      ["validBefore past uint256", body(withAuth({ validBefore: huge }), req)],
      ["signature of one byte", body({ ...payload, payload: { ...inner, signature: "0x00" } }, req)],
      ["signature of 66 bytes", body({ ...payload, payload: { ...inner, signature: "0x" + "11".repeat(66) } }, req)],
      ["timeout past int range", body(payload, { ...req, maxTimeoutSeconds: 1e300 })],
    ];
    const before = await signerState();
    for (const [what, send] of cases) {
      for (const route of [verifyRoute, settleRoute]) {
        const res = await post(route, send);
        expect(res.status, `${what} (${route === verifyRoute ? "verify" : "settle"})`).toBeLessThan(500);
      }
    }
    expect(await signerState()).toEqual(before);
    // A lone surrogate or NUL anywhere in a body is a 400 naming where (every JSON body is read so);
    // nothing was sent for it, and the same payment, clean, settles.
    const dirty = await post(settleRoute, body({ ...payload, resource: { url: "http://x/\ud800\u0000" } }, req));
    expect(dirty.status).toBe(400);
    expect((await dirty.json()).error).toMatchObject({ reason: "unstorable_text", details: [{ pointer: "/paymentPayload/resource/url" }] });
    expect(await signerState()).toEqual(before);
    const settled = await post(settleRoute, body(payload, req));
    expect(await settled.json()).toMatchObject({ success: true });
  });
});

describe("limits", () => {
  it("per caller: past its limit a caller gets 429 with Retry-After; another caller is not held", async () => {
    saved = configureLimits({ rates: { facilitator: { max: 2, windowSeconds: 60 } } });
    const req = requirements("1000");
    const admin = (await t.prisma.user.create({ data: { name: "Admin 3", role: "admin" } })).id;
    const key = (await createApiKey({ actorId: admin, name: "limited seller", scopes: ["facilitator:settle"] })).secret;
    const another = (await createApiKey({ actorId: admin, name: "another seller", scopes: ["facilitator:settle"] })).secret;
    const payload = await pay(req);
    expect((await post(verifyRoute, body(payload, req), key)).status).toBe(200);
    expect((await post(verifyRoute, body(payload, req), key)).status).toBe(200);
    const res = await post(settleRoute, body(payload, req), key);
    expect(res.status).toBe(429);
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect((await res.json()).error).toMatchObject({ code: "rate_limited", limit: "facilitator" });
    expect((await post(verifyRoute, body(payload, req), another)).status).toBe(200);
  });

  it("per payer: one payer's requests are limited whichever caller sends them", async () => {
    saved = configureLimits({ rates: { facilitatorPayer: { max: 2, windowSeconds: 60 } } });
    const who = fresh("limited payer");
    const req = requirements("0");
    expect((await post(verifyRoute, body(await signed(who, req, 0n), req), SELLER_TOKEN)).status).toBe(200);
    expect((await post(verifyRoute, body(await signed(who, req, 0n), req), OTHER_TOKEN)).status).toBe(200);
    const res = await post(settleRoute, body(await signed(who, req, 0n), req), settleKey);
    expect(res.status).toBe(429);
    expect((await res.json()).error).toMatchObject({ code: "rate_limited", limit: "facilitatorPayer" });
    expect(res.headers.get("retry-after")).toBeTruthy();
  });

  it("gas per caller per day: a settlement reserves gas, is trued up to its receipt, and past the budget is refused before any send", async () => {
    const caller = "test:gas-budget";
    const now = new Date("2026-12-05T12:00:00Z");
    const budget = GAS_RESERVE * 2n;
    const a = await reserveGas(caller, { budget, now });
    await a.done(61_000n);
    const b = await reserveGas(caller, { budget, now });
    expect((await gasSpent(caller, { now })).spent).toBe(61_000n + GAS_RESERVE);
    const refused = await reserveGas(caller, { budget, now }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: "rate_limited", extra: { limit: "facilitatorGas", retryAfterSeconds: 12 * 3600 } });
    // Nothing sent: the reserve goes back; the next day starts afresh.
    await b.done(0n);
    expect(await gasSpent(caller, { now })).toEqual({ spent: 61_000n, settlements: 1 });
    await (await reserveGas(caller, { budget, now: new Date("2026-12-06T00:00:01Z") })).done(1n);
  });

  it("concurrent reservations never pass the budget together", async () => {
    const caller = "test:gas-race";
    const budget = GAS_RESERVE * 3n;
    const got = await Promise.allSettled(Array.from({ length: 12 }, () => reserveGas(caller, { budget })));
    expect(got.filter((g) => g.status === "fulfilled")).toHaveLength(3);
    expect((await gasSpent(caller)).spent).toBe(budget);
  });

  it("a real settlement through the route is counted against its caller's day, at its receipt's gas", async () => {
    const caller = "token:door-other";
    const before = await gasSpent(caller);
    const req = requirements("1500");
    const settled = await (await post(settleRoute, body(await pay(req), req), OTHER_TOKEN)).json();
    expect(settled.success).toBe(true);
    const receipt = await local.publicClient.getTransactionReceipt({ hash: settled.transaction });
    expect(await gasSpent(caller)).toEqual({ spent: before.spent + receipt.gasUsed, settlements: before.settlements + 1 });
  });
});

describe("fair sends", () => {
  it("100 settlements queued by one caller delay another caller's settlement by at most one send", async () => {
    saved = configureLimits({ rates: { facilitator: null, facilitatorPayer: null } });
    const hostile = fresh("hostile flood");
    await local.mint(hostile.address, 1_000n);
    const hostileBuyer = new x402Client()
      .register(LOCAL_NETWORK, new ExactEvmScheme(toClientEvmSigner(hostile, local.publicClient)))
      .setSpendControls({ allowedAssets: [{ network: LOCAL_NETWORK, asset: LOCAL_USDC_ADDRESS }] });
    const req = requirements("1");
    const flood = await Promise.all(Array.from({ length: 100 }, () => pay(req, hostileBuyer)));
    const setup = facilitatorFromEnv();
    const seen = setup.sends.history().length;
    const floodDone = Promise.all(flood.map((p) => post(settleRoute, body(p, req), settleKey).then((r) => r.json())));
    // Wait until the flood is queued behind the signer, then settle one real payment as another caller.
    const deadline = Date.now() + 30_000;
    while (setup.sends.pending() < 30 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    expect(setup.sends.pending()).toBeGreaterThanOrEqual(30);
    const realReq = requirements("4000");
    const real = await (await post(settleRoute, body(await pay(realReq), realReq), SELLER_TOKEN)).json();
    expect(real).toMatchObject({ success: true });
    const results = await floodDone;
    expect(results.filter((r) => r.success)).toHaveLength(100);

    const sends = setup.sends.history().slice(seen);
    const at = sends.findIndex((s) => s.caller === "token:door-sellers");
    expect(at).toBeGreaterThan(0);
    // Its wait: sends started between its arrival and its own start. At most one (the one in flight, or one turn of the flooder).
    expect(sends[at].waitedSends).toBeLessThanOrEqual(1);
    // And it really overtook the flood: most of the flooder's sends went after it.
    expect(sends.slice(at + 1).filter((s) => s.caller !== "token:door-sellers").length).toBeGreaterThanOrEqual(20);
  }, 120_000);
});

describe("supported", () => {
  it("GET supported matches lib/chain's", async () => {
    expect(await (await supportedRoute()).json()).toEqual(JSON.parse(JSON.stringify(supported(facilitatorFromEnv()))));
  });
});
