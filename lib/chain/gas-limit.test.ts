/**
 * A gas-burning payer cannot spend the facilitator's gas (lib/chain/facilitator.ts SETTLE_GAS_LIMIT): a stranger
 * paying a seed product from an ERC-1271 wallet whose isValidSignature burns gas is refused before the send
 * (invalid_exact_evm_gas_above_limit), and an honest buyer after it is served. Before, the facilitator simulated
 * without looking at the gas, sent without a limit, and two 0.01 USDC settlements cost 36.4M gas: the seller's
 * whole daily gas budget, so the next honest buyer got 402.
 */
import { x402Client } from "@x402/core/client";
import { encodePaymentSignatureHeader } from "@x402/core/http";
import { toClientEvmSigner } from "@x402/evm";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { wrapFetchWithPayment } from "@x402/fetch";
import { keccak256, toHex, type Address, type PrivateKeyAccount } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFundedChain } from "@/test/chain";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { serveRoutes, type RouteServer } from "@/test/route-server";
import { facilitatorRoutes } from "@/test/router-routes";
import type { AnvilNode } from "@/devchain/anvil";
import { compileContract } from "@/devchain/compile";
import { LOCAL_DEV_KEYS, LOCAL_NETWORK, LOCAL_USDC_ADDRESS, type LocalChain } from "@/devchain/local-chain";
import { facilitatorFromEnv, GAS_ABOVE_LIMIT, preflight } from "@/lib/chain/facilitator";
import { configureLimits } from "@/lib/limits";
import { GAS_RESERVE, gasSpent } from "@/lib/facilitator/gas";
import { startValidityCheck, type ValidityCheck } from "@/sellers/validity-check/service";
import { VALIDITY_EXAMPLE_INPUT } from "@/sellers/validity-check/examples";

const SELLER_TOKEN = "audit-seed-products-token-0123456789abcdefghij";
let node: AnvilNode;
let local: LocalChain;
let t: TestDatabase;
let payer: PrivateKeyAccount;
let payTo: Address;
let routes: RouteServer;
let service: ValidityCheck;
let wallet: Address;

beforeAll(async () => {
  ({ node, local, payer, payTo } = await startFundedChain());
  process.env.TOLLGATE_CHAIN_RPC_URL = node.rpcUrl;
  process.env.TOLLGATE_FACILITATOR_KEY = LOCAL_DEV_KEYS[9];
  process.env.TOLLGATE_FACILITATOR_TOKENS = `seed-products=${SELLER_TOKEN}`;
  t = await createTestDatabase();
  configureLimits({ rates: { facilitator: null, facilitatorPayer: null } });
  routes = await serveRoutes(facilitatorRoutes());
  service = await startValidityCheck({ facilitator: { url: `${routes.origin}/api/facilitator`, token: SELLER_TOKEN }, usdc: LOCAL_USDC_ADDRESS, payTo });
  // The attacker's wallet: deployed by anyone (account 5), funded with 1 USDC.
  const art = compileContract("test/contracts/GasWallet.sol", "GasWallet");
  const hash = await local.walletClient.deployContract({ abi: art.abi as never, bytecode: art.bytecode, args: [38_000n], account: local.accounts[5] });
  const receipt = await local.publicClient.waitForTransactionReceipt({ hash });
  wallet = receipt.contractAddress!;
  await local.mint(wallet, 1_000_000n);
}, 120_000);
afterAll(async () => {
  await service?.close();
  await routes?.close();
  await t?.close();
  await node?.stop();
});

const post = (body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${service.url}/validity`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });

describe("a gas-burning ERC-1271 payer", () => {
  it("is refused before any send, costs the seller's gas budget nothing, and an honest buyer after it is served", async () => {
    const caller = "token:seed-products";
    const signer = facilitatorFromEnv().address;
    const ethBefore = await local.publicClient.getBalance({ address: signer });
    for (let i = 0; i < 2; i++) {
      const unpaid = await post(VALIDITY_EXAMPLE_INPUT);
      expect(unpaid.status).toBe(402);
      const required = JSON.parse(Buffer.from(unpaid.headers.get("payment-required")!, "base64").toString("utf8"));
      const accepted = required.accepts[0];
      const now = Math.floor(Date.now() / 1000);
      const authorization = { from: wallet, to: accepted.payTo, value: accepted.amount, validAfter: "0", validBefore: String(now + 300), nonce: keccak256(toHex(`gas wallet ${i} ${Math.random()}`)) };
      // Any 65 bytes: the wallet accepts every signature.
      const signature = `0x${"11".repeat(64)}1b`;
      const payload = { x402Version: 2, resource: required.resource, accepted, payload: { authorization, signature } };
      const paid = await post(VALIDITY_EXAMPLE_INPUT, { "payment-signature": encodePaymentSignatureHeader(payload as never) });
      expect(paid.status).toBe(402);
    }
    // Nothing was sent for the hostile payer: no gas charged, no ETH spent.
    expect((await gasSpent(caller)).spent).toBe(0n);
    expect(await local.publicClient.getBalance({ address: signer })).toBe(ethBefore);

    const client = new x402Client()
      .register(LOCAL_NETWORK, new ExactEvmScheme(toClientEvmSigner(payer, local.publicClient)))
      .setSpendControls({ allowedAssets: [{ network: LOCAL_NETWORK, asset: LOCAL_USDC_ADDRESS }] });
    const honest = await wrapFetchWithPayment(fetch, client)(`${service.url}/validity`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(VALIDITY_EXAMPLE_INPUT) });
    expect(honest.status).toBe(200);
    // The honest settlement used its real gas, under the limit every send now carries.
    const spent = (await gasSpent(caller)).spent;
    expect(spent).toBeGreaterThan(0n);
    expect(spent).toBeLessThanOrEqual(GAS_RESERVE);
  }, 120_000);

  it("the preflight names the refusal, with the gas the settlement would use", async () => {
    const setup = facilitatorFromEnv();
    const now = Math.floor(Date.now() / 1000);
    const refusal = await preflight(setup, { authorization: { from: wallet, to: payTo, value: "10000", validAfter: "0", validBefore: String(now + 300), nonce: keccak256(toHex(`gas wallet preflight ${Math.random()}`)) }, signature: `0x${"11".repeat(64)}1b` } as never, LOCAL_USDC_ADDRESS);
    expect(refusal).toMatchObject({ reason: GAS_ABOVE_LIMIT, message: expect.stringMatching(/would use \d+ gas, above the facilitator's limit of 150000/) });
  });
});
