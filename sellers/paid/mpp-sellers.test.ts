/**
 * The MPP paid reference sellers on a real anvil: mppx's server answers 402 with a
 * `WWW-Authenticate: Payment` challenge lib/mpp accepts; a buyer paying with the mppx client gets the
 * resource, a `Payment-Receipt` naming a transaction, and the money moves on chain (or, for
 * never-settles, the receipt names a transaction the chain does not have).
 */
import { Challenge, Receipt } from "mppx";
import type { Address, Hex, PrivateKeyAccount } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFundedChain } from "@/test/chain";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { rigFacilitator } from "@/test/router-routes";
import { serveRoutes, type RouteServer } from "@/test/route-server";
import { POST as settleRoute } from "@/app/api/facilitator/settle/route";
import { GET as supportedRoute } from "@/app/api/facilitator/supported/route";
import { POST as verifyRoute } from "@/app/api/facilitator/verify/route";
import { type AnvilNode } from "@/devchain/anvil";
import { createFacilitator } from "@/lib/chain/facilitator";
import { LOCAL_CHAIN_ID, LOCAL_DEV_KEYS, LOCAL_USDC_ADDRESS, type LocalChain } from "@/devchain/local-chain";
import { parseMpp } from "@/lib/mpp";
import { inProcessFacilitator } from "./index";
import { mppRouterFetch, startMppSellers, type MppSellers } from "./mpp";

let node: AnvilNode;
let local: LocalChain;
let sellers: MppSellers;
let payer: PrivateKeyAccount;
let payTo: Address;
let paidFetch: typeof fetch;

beforeAll(async () => {
  ({ node, local, payer, payTo } = await startFundedChain());
  sellers = await startMppSellers({ facilitator: inProcessFacilitator(createFacilitator(node.rpcUrl, LOCAL_DEV_KEYS[9])), usdc: LOCAL_USDC_ADDRESS, payTo });
  paidFetch = mppRouterFetch({ account: payer, usdc: LOCAL_USDC_ADDRESS });
}, 60_000);
afterAll(async () => {
  await sellers?.close();
  await node?.stop();
});

describe("unpaid", () => {
  it("each seller answers 402 with an evm/charge Payment challenge for the local USDC, which lib/mpp accepts", async () => {
    for (const seller of ["honest", "never-settles"] as const) {
      const res = await fetch(sellers.resource(seller));
      expect(res.status, seller).toBe(402);
      const header = res.headers.get("www-authenticate");
      expect(header, seller).toMatch(/^Payment /);
      const challenge = Challenge.deserialize(header!);
      expect(challenge, seller).toMatchObject({
        method: "evm",
        intent: "charge",
        realm: "tollgate-mpp-seller",
        request: { amount: "10000", currency: LOCAL_USDC_ADDRESS, recipient: payTo, methodDetails: { chainId: LOCAL_CHAIN_ID, credentialTypes: ["authorization"] } },
      });
      const parsed = parseMpp({ headers: Object.fromEntries(res.headers) });
      expect(parsed.valid, seller).toBe(true);
      expect(parsed.challenges, seller).toHaveLength(1);
      expect(parsed.findings.filter((f) => f.severity === "fail"), seller).toEqual([]);
    }
  });

  it("the terms document is free", async () => {
    const res = await fetch(`${sellers.url}/honest/terms`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ protocol: "mpp", price: "10000", payTo, currency: LOCAL_USDC_ADDRESS });
  });

  it("a credential that does not decode is refused with a 402, and nothing moves", async () => {
    const before = await local.balanceOf(payTo);
    const res = await fetch(sellers.resource("honest"), { headers: { authorization: "Payment not-a-credential" } });
    expect(res.status).toBe(402);
    expect(res.headers.get("payment-receipt")).toBeNull();
    expect(await local.balanceOf(payTo)).toBe(before);
  });
});

describe("paid with the mppx client", () => {
  it("honest: 200 with the JSON and a Payment-Receipt naming the transaction that moved the price on chain", async () => {
    const [payerBefore, payToBefore] = [await local.balanceOf(payer.address), await local.balanceOf(payTo)];
    const res = await paidFetch(sellers.resource("honest"));
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ seller: "honest", city: "Lisbon" });
    const receipt = Receipt.deserialize(res.headers.get("payment-receipt")!);
    expect(receipt).toMatchObject({ method: "evm", status: "success" });
    const tx = await local.publicClient.getTransactionReceipt({ hash: receipt.reference as Hex });
    expect(tx.status).toBe("success");
    expect(payerBefore - (await local.balanceOf(payer.address))).toBe(10_000n);
    expect((await local.balanceOf(payTo)) - payToBefore).toBe(10_000n);
  });

  it("never-settles: 200 and a receipt naming a transaction the chain does not have; nothing moves", async () => {
    const before = await local.balanceOf(payer.address);
    const res = await paidFetch(sellers.resource("never-settles"));
    expect(res.status).toBe(200);
    const receipt = Receipt.deserialize(res.headers.get("payment-receipt")!);
    await expect(local.publicClient.getTransactionReceipt({ hash: receipt.reference as Hex })).rejects.toThrow(/could not be found/);
    expect(await local.balanceOf(payer.address)).toBe(before);
  });

  it("a replayed credential is refused (its authorization nonce is used on chain): 402, and nothing moves twice", async () => {
    const sent: string[] = [];
    const recording = mppRouterFetch({ account: payer, usdc: LOCAL_USDC_ADDRESS, fetch: async (input, init) => {
      const auth = new Headers(init?.headers).get("authorization");
      if (auth?.startsWith("Payment ")) sent.push(auth);
      return fetch(input, init);
    } });
    expect((await recording(sellers.resource("honest"))).status).toBe(200);
    expect(sent).toHaveLength(1);
    const before = await local.balanceOf(payer.address);
    const replay = await fetch(sellers.resource("honest"), { headers: { authorization: sent[0] } });
    expect(replay.status).toBe(402);
    expect(await local.balanceOf(payer.address)).toBe(before);
  });
});

describe("with the facilitator at a URL (/api/facilitator)", () => {
  let server: RouteServer;
  let database: TestDatabase;
  let viaHttp: MppSellers;

  beforeAll(async () => {
    process.env.TOLLGATE_CHAIN_RPC_URL = node.rpcUrl;
    process.env.TOLLGATE_FACILITATOR_KEY = LOCAL_DEV_KEYS[8];
    server = await serveRoutes({
      "GET /api/facilitator/supported": () => supportedRoute(),
      "POST /api/facilitator/verify": verifyRoute,
      "POST /api/facilitator/settle": settleRoute,
    });
    // The routes take only callers they know (a named seller token here), counted in the database.
    const facilitator = rigFacilitator(server.origin);
    database = await createTestDatabase();
    viaHttp = await startMppSellers({ facilitator, usdc: LOCAL_USDC_ADDRESS, payTo });
  });
  afterAll(async () => {
    await viaHttp?.close();
    await server?.close();
    await database?.close();
  });

  it("honest: settles through the HTTP facilitator and delivers", async () => {
    const before = await local.balanceOf(payTo);
    const res = await paidFetch(viaHttp.resource("honest"));
    expect(res.status).toBe(200);
    expect((await local.balanceOf(payTo)) - before).toBe(10_000n);
  });
});
