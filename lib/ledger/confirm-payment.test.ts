/**
 * Confirming relayed payments on a real anvil: a real settlement (a buyer's EIP-3009 authorization
 * settled by the facilitator) is `settled` with the chain's amount, recipient and block; a hash the
 * chain does not have is `failed` `unproven`; two equal authorizations settled in one transaction bind each
 * to its own Transfer; while the node is down the row stays `unconfirmed`, and once the node is back
 * (restarted on the same port with its state) the ledger tick confirms it.
 */
import { x402Client } from "@x402/core/client";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { toClientEvmSigner } from "@x402/evm";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { createPublicClient, encodeFunctionData, http, keccak256, parseSignature, toHex, type Address, type Hex, type PrivateKeyAccount } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAnvil, type AnvilNode } from "@/devchain/anvil";
import { createFacilitator, type FacilitatorSetup } from "@/lib/chain/facilitator";
import { LOCAL_DEV_KEYS, LOCAL_NETWORK, LOCAL_USDC_ADDRESS, LOCAL_USDC_DOMAIN, MULTICALL3_ADDRESS, setupLocalChain, type LocalChain } from "@/devchain/local-chain";
import { TEST_USDC_ABI } from "@/devchain/test-usdc";
import { TRANSFER_WITH_AUTHORIZATION_TYPES } from "@/lib/x402/eip3009";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { createTestListing } from "@/test/ledger";
import { auditLedger, formatAudit } from "./audit";
import { confirmPayment, confirmWaitingPayments, readSettlement } from "./confirm-payment";
import { recordPayment } from "./record";
import { ledgerTicks } from "./ticks";

let node: AnvilNode;
let local: LocalChain;
let setup: FacilitatorSetup;
let t: TestDatabase;
let payer: PrivateKeyAccount;
let seller: Address;
let buyer: x402Client;
let listingId: string;

beforeAll(async () => {
  node = await startAnvil();
  // The tick reads the chain through the environment (lib/env.ts parses it on first use, after this).
  process.env.TOLLGATE_CHAIN_RPC_URL = node.rpcUrl;
  local = await setupLocalChain(node.rpcUrl);
  payer = local.accounts[1];
  seller = local.accounts[2].address;
  await local.mint(payer.address, 10_000_000n);
  setup = createFacilitator(node.rpcUrl, LOCAL_DEV_KEYS[9]);
  buyer = new x402Client()
    .register(LOCAL_NETWORK, new ExactEvmScheme(toClientEvmSigner(payer, local.publicClient)))
    .setSpendControls({ allowedAssets: [{ network: LOCAL_NETWORK, asset: LOCAL_USDC_ADDRESS }] });
  t = await createTestDatabase();
  listingId = await createTestListing(t.prisma);
}, 60_000);
afterAll(async () => {
  await t?.close();
  await node?.stop();
});

function requirements(amount: string): PaymentRequirements {
  return { scheme: "exact", network: LOCAL_NETWORK, amount, asset: LOCAL_USDC_ADDRESS, payTo: seller, maxTimeoutSeconds: 300, extra: { ...LOCAL_USDC_DOMAIN } };
}

/** A real payment settled by the facilitator: its transaction hash and authorization nonce. */
async function settledPayment(amount: string): Promise<{ tx: Hex; nonce: Hex }> {
  const req = requirements(amount);
  const payload: PaymentPayload = await buyer.createPaymentPayload({ x402Version: 2, resource: { url: "http://127.0.0.1/confirm-test" }, accepts: [req] });
  const settled = await setup.facilitator.settle(payload, req);
  expect(settled.success).toBe(true);
  return { tx: settled.transaction as Hex, nonce: (payload.payload as { authorization: { nonce: Hex } }).authorization.nonce };
}

async function relayedRow(tx: string, nonce: string | null, amount = "10000", payTo: string = seller) {
  return recordPayment({
    listingId,
    payer: payer.address,
    status: "unconfirmed",
    advertisedAmount: amount,
    asset: LOCAL_USDC_ADDRESS,
    network: LOCAL_NETWORK,
    transactionId: tx,
    quotedPayTo: payTo,
    authorizationNonce: nonce,
    relayedAt: new Date(Date.now() - 5_000),
  });
}

const row = (id: string) => t.prisma.routerPayment.findUniqueOrThrow({ where: { id } });

describe("confirming one row", () => {
  it("a real settlement: settled, with the chain's amount, recipient and block", async () => {
    const { tx, nonce } = await settledPayment("10000");
    const { id } = await relayedRow(tx, nonce);
    const verdict = await confirmPayment(id);
    expect(verdict?.status).toBe("settled");
    const receipt = await local.publicClient.getTransactionReceipt({ hash: tx });
    expect(await row(id)).toMatchObject({
      status: "settled",
      settledAmount: "10000",
      chainAmount: "10000",
      chainFrom: payer.address.toLowerCase(),
      chainTo: seller.toLowerCase(),
      blockNumber: receipt.blockNumber,
      reason: null,
    });
    expect((await row(id)).confirmedAt).toBeInstanceOf(Date);
    // Confirmed once: a second call finds nothing waiting.
    expect(await confirmPayment(id)).toBeNull();
  });

  it("a forged hash the chain does not have: failed, unproven", async () => {
    const { id } = await relayedRow(keccak256(toHex("a transaction nobody sent")), keccak256(toHex("a nonce")));
    expect(await confirmPayment(id)).toMatchObject({ status: "failed", reason: "unproven" });
    expect(await row(id)).toMatchObject({ status: "failed", reason: "unproven", settledAmount: null, chainAmount: null });
  });

  it("a real transaction that moved no USDC from the payer (the deployer's mint): failed, unproven", async () => {
    const mint = await local.mint(seller, 1n);
    const { id } = await relayedRow(mint, keccak256(toHex("a mint's nonce")));
    expect(await confirmPayment(id)).toMatchObject({ status: "failed", reason: "unproven" });
  });

  it("a transfer of another amount than the quote: failed, unproven, saying what moved", async () => {
    const { tx, nonce } = await settledPayment("25000");
    const { id } = await relayedRow(tx, nonce, "10000");
    const verdict = await confirmPayment(id);
    expect(verdict).toMatchObject({ status: "failed", reason: "unproven" });
    expect(await row(id)).toMatchObject({ status: "failed", advertisedAmount: "10000", chainAmount: null, settledAmount: null });
    expect((await row(id)).detail).toContain("25000");
  });

  it("a replayed authorization is recorded once", async () => {
    const { tx, nonce } = await settledPayment("10000");
    const first = await relayedRow(tx, nonce);
    const again = await relayedRow(tx, nonce.toUpperCase().replace("0X", "0x"));
    expect(first.created).toBe(true);
    expect(again).toEqual({ id: first.id, created: false });
    expect(await t.prisma.routerPayment.count({ where: { authorizationNonce: nonce.toLowerCase() } })).toBe(1);
  });
});

const MULTICALL_ABI = [
  {
    type: "function",
    name: "tryAggregate",
    stateMutability: "payable",
    inputs: [
      { name: "requireSuccess", type: "bool" },
      { name: "calls", type: "tuple[]", components: [{ name: "target", type: "address" }, { name: "callData", type: "bytes" }] },
    ],
    outputs: [{ name: "returnData", type: "tuple[]", components: [{ name: "success", type: "bool" }, { name: "returnData", type: "bytes" }] }],
  },
] as const;

/** One EIP-3009 authorization of the payer to the seller for 0.01, as transferWithAuthorization calldata. */
async function signed(label: string) {
  const now = BigInt(Math.floor(Date.now() / 1000));
  const auth = { from: payer.address, to: seller, value: 10_000n, validAfter: now - 600n, validBefore: now + 600n, nonce: keccak256(toHex(`audit batch ${label} ${Math.random()}`)) as Hex };
  const signature = await payer.signTypedData({
    domain: { name: "USD Coin", version: "2", chainId: 31337, verifyingContract: LOCAL_USDC_ADDRESS },
    types: TRANSFER_WITH_AUTHORIZATION_TYPES,
    primaryType: "TransferWithAuthorization",
    message: auth,
  });
  const sig = parseSignature(signature);
  const callData = encodeFunctionData({
    abi: TEST_USDC_ABI,
    functionName: "transferWithAuthorization",
    args: [auth.from, auth.to, auth.value, auth.validAfter, auth.validBefore, auth.nonce, Number(sig.v ?? BigInt(sig.yParity + 27)), sig.r, sig.s],
  });
  return { auth, callData };
}

describe("one transaction settling two payments", () => {
  // Before, bind() took the first matching Transfer for every row: the second hit the claim index and was
  // failed unproven ("already claimed"), a failure of the seller's though both payments settled.
  it("settles both rows, each bound to its own Transfer (its own log index)", async () => {
    const relayedAt = new Date(Date.now() - 1000);
    const before = await local.balanceOf(seller);
    const a = await signed("a");
    const b = await signed("b");
    const hash = await local.walletClient.writeContract({
      address: MULTICALL3_ADDRESS as Address,
      abi: MULTICALL_ABI,
      functionName: "tryAggregate",
      args: [true, [{ target: LOCAL_USDC_ADDRESS, callData: a.callData }, { target: LOCAL_USDC_ADDRESS, callData: b.callData }]],
    });
    const receipt = await local.publicClient.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe("success");
    expect((await local.balanceOf(seller)) - before).toBe(20_000n);

    const ids: string[] = [];
    for (const x of [a, b]) {
      const { id } = await recordPayment({
        listingId, payer: payer.address, status: "unconfirmed", advertisedAmount: "10000", asset: LOCAL_USDC_ADDRESS, network: LOCAL_NETWORK,
        transactionId: hash, quotedPayTo: seller, authorizationNonce: x.auth.nonce, relayedAt, protocol: "x402",
      });
      ids.push(id);
    }
    for (const id of ids) await confirmPayment(id);
    const rows = await t.prisma.routerPayment.findMany({ where: { id: { in: ids } }, orderBy: { createdAt: "asc" } });
    expect(rows.map((r) => [r.status, r.reason])).toEqual([["settled", null], ["settled", null]]);
    const logs = rows.map((r) => r.transferLogIndex);
    expect(new Set(logs).size).toBe(2);
    // Each row's log is the Transfer right after its own AuthorizationUsed.
    const used = receipt.logs.map((l, i) => ({ i: l.logIndex, topic: l.topics[0], nonce: l.topics[2] }));
    for (const [k, x] of [a, b].entries()) {
      const at = used.find((u) => u.nonce?.toLowerCase() === x.auth.nonce.toLowerCase())!.i;
      expect(logs[k]).toBe(at + 1);
    }
  });
});

describe("the ledger audit (npm run ledger:audit)", () => {
  it("re-reads every settled row: bound rows pass; a row forged past the relay or altered after confirmation is listed with why; an unreadable chain is said so", async () => {
    const { tx, nonce } = await settledPayment("10000");
    const { id } = await relayedRow(tx, nonce);
    expect(await confirmPayment(id)).toMatchObject({ status: "settled" });

    // Written straight into the table, as only someone past the router could: a foreign transaction.
    const other = await settledPayment("10000");
    const forged = await t.prisma.routerPayment.create({
      data: { listingId, payer: local.accounts[5].address.toLowerCase(), status: "settled", advertisedAmount: "10000", settledAmount: "10000", asset: LOCAL_USDC_ADDRESS, network: LOCAL_NETWORK, transactionId: other.tx, authorizationNonce: keccak256(toHex("forged row")), quotedPayTo: seller.toLowerCase() },
    });
    // Settled by the relay for the right transfer, but recorded with another amount.
    const third = await settledPayment("10000");
    const altered = await t.prisma.routerPayment.create({
      data: { listingId, payer: payer.address.toLowerCase(), status: "settled", advertisedAmount: "10000", settledAmount: "99", chainAmount: "99", chainTo: seller.toLowerCase(), asset: LOCAL_USDC_ADDRESS, network: LOCAL_NETWORK, transactionId: third.tx, authorizationNonce: third.nonce.toLowerCase(), quotedPayTo: seller.toLowerCase() },
    });

    const report = await auditLedger(t.prisma);
    const byId = new Map(report.findings.map((f) => [f.id, f]));
    expect(byId.has(id)).toBe(false);
    expect(byId.get(forged.id)).toMatchObject({ kind: "unbound" });
    expect(byId.get(forged.id)!.detail).toContain("does not spend this payment's authorization");
    expect(byId.get(altered.id)).toMatchObject({ kind: "mismatch" });
    expect(byId.get(altered.id)!.detail).toContain("amount 99 recorded, 10000 on chain");
    expect(report.checked).toBe(report.bound + report.findings.length);
    expect(formatAudit(report)).toContain(`unbound    ${forged.id}`);

    const down = await auditLedger(t.prisma, { settings: { rpcUrls: { [LOCAL_NETWORK]: "http://127.0.0.1:9" } }, timeoutMs: 500 });
    expect(down.findings.every((f) => f.kind === "unreadable" || f.kind === "unbound")).toBe(true);
    expect(down.findings.find((f) => f.id === id)).toMatchObject({ kind: "unreadable" });
    await t.prisma.routerPayment.deleteMany({ where: { id: { in: [forged.id, altered.id] } } }).catch(() => undefined);
  });
});

describe("the chain down, then back", () => {
  it("stays unconfirmed while anvil is stopped; the ledger tick confirms it once anvil is back", async () => {
    const { tx, nonce } = await settledPayment("10000");
    const { id } = await relayedRow(tx, nonce);
    const second = await settledPayment("10000");
    const { id: id2 } = await relayedRow(second.tx, second.nonce);

    // Stop the node, keeping its state to restart it with.
    const state = await local.publicClient.request({ method: "anvil_dumpState" as never, params: [] as never });
    const port = node.port;
    await node.stop();

    const down = await confirmPayment(id, { timeoutMs: 1_000 });
    expect(down).toMatchObject({ status: "unconfirmed", reason: "chain_unreadable" });
    expect(await row(id)).toMatchObject({ status: "unconfirmed", reason: "chain_unreadable", confirmedAt: null });
    // The tick meets the same outage once for the network and leaves every row waiting: the
    // second row is not read against a chain already known to be down.
    // (Earlier tests in this file may leave rows waiting too: all are on the one local network.)
    const tick = await confirmWaitingPayments({ timeoutMs: 1_000 });
    expect(tick.read).toBeGreaterThanOrEqual(2);
    expect(tick).toEqual({ read: tick.read, decided: 0, skipped: tick.read - 1 });
    await ledgerTicks[0].run();
    expect(await row(id)).toMatchObject({ status: "unconfirmed", confirmedAt: null });
    expect(await row(id2)).toMatchObject({ status: "unconfirmed", confirmedAt: null });

    // The same node back on the same port (TOLLGATE_CHAIN_RPC_URL unchanged), with its chain.
    node = await startAnvil({ port });
    await createPublicClient({ transport: http(node.rpcUrl) }).request({ method: "anvil_loadState" as never, params: [state] as never });

    await ledgerTicks[0].run();
    expect(await row(id)).toMatchObject({ status: "settled", chainAmount: "10000", chainTo: seller.toLowerCase(), reason: null });
    expect(await row(id2)).toMatchObject({ status: "settled", chainAmount: "10000" });
  }, 60_000);
});

describe("readSettlement without a configured chain", () => {
  it("is unconfirmed (unmeasured), never failed", async () => {
    const verdict = await readSettlement(
      { transaction: keccak256(toHex("x")), network: LOCAL_NETWORK, asset: LOCAL_USDC_ADDRESS, payer: payer.address, nonce: keccak256(toHex("n")), payTo: seller, amount: "1" },
      { settings: { rpcUrls: {} } },
    );
    expect(verdict).toMatchObject({ status: "unconfirmed", reason: "chain_unreadable" });
  });
});
