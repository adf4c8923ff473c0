/**
 * The paid reference sellers on a real anvil: the real @x402/express middleware answers 402 with a
 * PAYMENT-REQUIRED header lib/x402 accepts; a buyer paying with @x402/fetch gets the resource and the
 * money moves on chain, or the seller breaks in its own way.
 */
import { serveRoutes, type RouteServer } from "@/test/route-server";
import { x402Client } from "@x402/core/client";
import { decodePaymentResponseHeader } from "@x402/core/http";
import { toClientEvmSigner } from "@x402/evm";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { wrapFetchWithPayment } from "@x402/fetch";
import type { Address, Hex, PrivateKeyAccount } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFundedChain } from "@/test/chain";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { rigFacilitator } from "@/test/router-routes";
import { POST as settleRoute } from "@/app/api/facilitator/settle/route";
import { GET as supportedRoute } from "@/app/api/facilitator/supported/route";
import { POST as verifyRoute } from "@/app/api/facilitator/verify/route";
import { type AnvilNode } from "@/devchain/anvil";
import { createFacilitator } from "@/lib/chain/facilitator";
import { LOCAL_DEV_KEYS, LOCAL_NETWORK, LOCAL_USDC_ADDRESS, type LocalChain } from "@/devchain/local-chain";
import { parseX402 } from "@/lib/x402";
import { inProcessFacilitator, startPaidSellers, type PaidSellers } from "./index";

let node: AnvilNode;
let local: LocalChain;
let sellers: PaidSellers;
let payer: PrivateKeyAccount;
let payTo: Address;
let otherPayTo: Address;
let paidFetch: typeof fetch;

beforeAll(async () => {
  ({ node, local, payer, payTo, otherPayTo } = await startFundedChain());
  const setup = createFacilitator(node.rpcUrl, LOCAL_DEV_KEYS[9]);
  sellers = await startPaidSellers({ facilitator: inProcessFacilitator(setup), usdc: LOCAL_USDC_ADDRESS, payTo, otherPayTo });
  const client = new x402Client()
    .register(LOCAL_NETWORK, new ExactEvmScheme(toClientEvmSigner(payer, local.publicClient)))
    .setSpendControls({ allowedAssets: [{ network: LOCAL_NETWORK, asset: LOCAL_USDC_ADDRESS }] });
  paidFetch = wrapFetchWithPayment(fetch, client);
}, 60_000);
afterAll(async () => {
  await sellers?.close();
  await node?.stop();
});

async function balances() {
  const [p, a, b] = await Promise.all([local.balanceOf(payer.address), local.balanceOf(payTo), local.balanceOf(otherPayTo)]);
  return { payer: p, payTo: a, other: b };
}

describe("unpaid", () => {
  it("each seller answers 402 with a PAYMENT-REQUIRED header lib/x402 accepts", async () => {
    for (const seller of ["honest", "never-settles", "fails-after-payment", "overcharges", "wrong-payee"] as const) {
      const res = await fetch(sellers.resource(seller));
      expect(res.status, seller).toBe(402);
      const parsed = parseX402({ status: res.status, headers: Object.fromEntries(res.headers), body: await res.text() });
      expect(parsed.kind, seller).toBe("x402-v2");
      expect(parsed.findings.filter((f) => f.severity === "fail"), seller).toEqual([]);
      expect(parsed.requirements?.[0], seller).toMatchObject({
        network: LOCAL_NETWORK,
        amount: sellers.terms[seller].required.amount,
        payTo: sellers.terms[seller].required.payTo,
      });
    }
  });

  it("the terms document is free and names the advertised price", async () => {
    const res = await fetch(`${sellers.url}/overcharges/terms`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ price: "10000", payTo });
  });
});

describe("paid with @x402/fetch", () => {
  it("honest: 200 with the JSON, and the quoted amount moved from payer to payTo on chain", async () => {
    const before = await balances();
    const res = await paidFetch(sellers.resource("honest"));
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ seller: "honest", city: "Lisbon" });
    const settled = decodePaymentResponseHeader(res.headers.get("payment-response")!);
    expect(settled).toMatchObject({ success: true, network: LOCAL_NETWORK, payer: payer.address });
    const receipt = await local.publicClient.getTransactionReceipt({ hash: settled.transaction as Hex });
    expect(receipt.status).toBe("success");
    const after = await balances();
    expect(after.payTo - before.payTo).toBe(10_000n);
    expect(before.payer - after.payer).toBe(10_000n);
  });

  it("never-settles: 200 and a PAYMENT-RESPONSE naming a transaction the chain does not have; nothing moves", async () => {
    const before = await balances();
    const res = await paidFetch(sellers.resource("never-settles"));
    expect(res.status).toBe(200);
    const claimed = decodePaymentResponseHeader(res.headers.get("payment-response")!);
    expect(claimed).toMatchObject({ success: true });
    await expect(local.publicClient.getTransactionReceipt({ hash: claimed.transaction as Hex })).rejects.toThrow(/could not be found/);
    expect(await balances()).toEqual(before);
  });

  it("fails-after-payment: the payment settles, then the buyer gets a 500", async () => {
    const before = await balances();
    const res = await paidFetch(sellers.resource("fails-after-payment"));
    expect(res.status).toBe(500);
    const settled = decodePaymentResponseHeader(res.headers.get("payment-response")!);
    expect(settled).toMatchObject({ success: true });
    expect((await balances()).payTo - before.payTo).toBe(10_000n);
  });

  it("overcharges: advertises 10000, and twice that leaves the payer on chain", async () => {
    const before = await balances();
    const res = await paidFetch(sellers.resource("overcharges"));
    expect(res.status).toBe(200);
    expect(res.headers.get("x-price")).toBe("10000");
    const after = await balances();
    expect(before.payer - after.payer).toBe(20_000n);
    expect(after.payTo - before.payTo).toBe(20_000n);
  });

  it("wrong-payee: advertises payTo A, and the money reaches B", async () => {
    const before = await balances();
    const res = await paidFetch(sellers.resource("wrong-payee"));
    expect(res.status).toBe(200);
    expect(res.headers.get("x-pay-to")).toBe(payTo);
    const after = await balances();
    expect(after.payTo).toBe(before.payTo);
    expect(after.other - before.other).toBe(10_000n);
  });
});

describe("with the facilitator at a URL (HTTPFacilitatorClient to /api/facilitator)", () => {
  let server: RouteServer;
  let database: TestDatabase;
  let viaHttp: PaidSellers;

  beforeAll(async () => {
    // The route handlers read these (lib/env.ts parses process.env on first use, which is after this).
    process.env.TOLLGATE_CHAIN_RPC_URL = node.rpcUrl;
    process.env.TOLLGATE_FACILITATOR_KEY = LOCAL_DEV_KEYS[8];
    const routes: Record<string, (req: Request) => Promise<Response>> = {
      "GET /api/facilitator/supported": () => supportedRoute(),
      "POST /api/facilitator/verify": verifyRoute,
      "POST /api/facilitator/settle": settleRoute,
    };
    server = await serveRoutes(routes);
    // The routes take only callers they know (a named seller token here), counted in the database.
    const facilitator = rigFacilitator(server.origin);
    database = await createTestDatabase();
    viaHttp = await startPaidSellers({ facilitator, usdc: LOCAL_USDC_ADDRESS, payTo, otherPayTo });
  });
  afterAll(async () => {
    await viaHttp?.close();
    await server?.close();
    await database?.close();
  });

  it("honest: settles through the HTTP facilitator and delivers", async () => {
    const before = await balances();
    const res = await paidFetch(viaHttp.resource("honest"));
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ seller: "honest" });
    expect((await balances()).payTo - before.payTo).toBe(10_000n);
  });
});
