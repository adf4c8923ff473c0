/**
 * Two authorizations of one payer to one payTo for one amount, settled in one transaction (a facilitator's batch
 * through Multicall3, or a buyer submitting its own two together): each row binds to its own authorization's
 * Transfer. Before, bind() took the first matching Transfer for every row, so the second hit the claim index and
 * was `failed unproven` ("already claimed"): a failure of the seller's, though both payments settled.
 */
import { encodeFunctionData, keccak256, parseSignature, toHex, type Address, type Hex, type PrivateKeyAccount } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAnvil, type AnvilNode } from "@/devchain/anvil";
import { LOCAL_NETWORK, LOCAL_USDC_ADDRESS, MULTICALL3_ADDRESS, setupLocalChain, type LocalChain } from "@/devchain/local-chain";
import { TEST_USDC_ABI } from "@/devchain/test-usdc";
import { TRANSFER_WITH_AUTHORIZATION_TYPES } from "@/lib/x402/eip3009";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { createTestListing } from "@/test/ledger";
import { confirmPayment } from "./confirm-payment";
import { recordPayment } from "./record";

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

let node: AnvilNode;
let local: LocalChain;
let t: TestDatabase;
let payer: PrivateKeyAccount;
let seller: Address;
let listingId: string;

beforeAll(async () => {
  node = await startAnvil();
  process.env.TOLLGATE_CHAIN_RPC_URL = node.rpcUrl;
  local = await setupLocalChain(node.rpcUrl);
  payer = local.accounts[1];
  seller = local.accounts[2].address;
  await local.mint(payer.address, 10_000_000n);
  t = await createTestDatabase();
  listingId = await createTestListing(t.prisma, {
    networks: [LOCAL_NETWORK],
    endpoints: [{ method: "GET", path: "/weather", priceAmount: "10000", priceAsset: LOCAL_USDC_ADDRESS, priceNetwork: LOCAL_NETWORK }],
  });
}, 60_000);
afterAll(async () => {
  await t?.close();
  await node?.stop();
});

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
  it("settles both rows, each bound to its own Transfer (its own log index)", async () => {
    const relayedAt = new Date(Date.now() - 1000);
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
    expect(await local.balanceOf(seller)).toBe(20_000n);

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
