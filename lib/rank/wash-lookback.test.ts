/**
 * Wash funding is looked for a year back (lib/rank/wash.ts WASH_FUNDING_LOOKBACK_MS), not only in the rank's 30-day
 * window: a seller's payTo that funds wallets, waits 31 days and then pays from them no longer passes the floor.
 * Before, the funding read covered the window's blocks only, so both such payers counted.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWalletClient, http, type Address, type Hex, type PrivateKeyAccount } from "viem";
import { startAnvil, type AnvilNode } from "@/devchain/anvil";
import { setupLocalChain, LOCAL_NETWORK, LOCAL_USDC_ADDRESS, type LocalChain } from "@/devchain/local-chain";
import { TEST_USDC_ABI } from "@/devchain/test-usdc";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { createTestListing, createTestOrganization } from "@/test/ledger";
import { rankForListing } from "./inputs";
import { storedWash } from "./wash";

let node: AnvilNode;
let local: LocalChain;
let t: TestDatabase;
const accounts = () => local.accounts;

beforeAll(async () => {
  node = await startAnvil();
  process.env.TOLLGATE_CHAIN_RPC_URL = node.rpcUrl;
  local = await setupLocalChain(node.rpcUrl);
  t = await createTestDatabase();
}, 60_000);
afterAll(async () => {
  await t?.close();
  await node?.stop();
});

/** A real USDC transfer from `from` to `to` on the local chain: its hash and block. */
async function transfer(from: PrivateKeyAccount, to: Address, amount: bigint): Promise<{ tx: Hex; block: bigint }> {
  const wallet = createWalletClient({ chain: local.chain, transport: http(node.rpcUrl), account: from });
  const tx = await wallet.writeContract({ address: LOCAL_USDC_ADDRESS, abi: TEST_USDC_ABI, functionName: "transfer", args: [to, amount] });
  const receipt = await local.publicClient.waitForTransactionReceipt({ hash: tx });
  expect(receipt.status).toBe("success");
  return { tx, block: receipt.blockNumber };
}

async function seller(siwe?: Address): Promise<{ org: string; listing: string }> {
  const org = await createTestOrganization(t.prisma);
  if (siwe) await t.prisma.user.create({ data: { name: "owner", organizationId: org, walletAddress: siwe.toLowerCase() } });
  const listing = await createTestListing(t.prisma, { organizationId: org, networks: [LOCAL_NETWORK] });
  return { org, listing };
}


/** A payment recorded at `at` (the ledger's createdAt), its transfer mined on the chain now. */
async function paysAt(listingId: string, buyer: PrivateKeyAccount, payTo: Address, at: Date, amount = 10_000n): Promise<void> {
  const { tx, block } = await transfer(buyer, payTo, amount);
  await t.prisma.routerPayment.create({
    data: {
      listingId, payer: buyer.address.toLowerCase(), advertisedAmount: String(amount), settledAmount: String(amount), asset: LOCAL_USDC_ADDRESS.toLowerCase(), network: LOCAL_NETWORK,
      status: "settled", transactionId: tx, blockNumber: block, quotedPayTo: payTo.toLowerCase(), chainFrom: buyer.address.toLowerCase(), chainTo: payTo.toLowerCase(), chainAmount: String(amount),
      confirmedAt: at, authorizationNonce: tx, createdAt: at,
    },
  });
}

const passDays = async (days: number) => {
  await local.publicClient.request({ method: "evm_increaseTime" as never, params: [days * 86_400] as never });
  await local.publicClient.request({ method: "evm_mine" as never, params: [] as never });
};

describe("wash funding older than the 30-day window", () => {
  it("the payTo funds two wallets, 31 days pass, they pay: both excluded; a wallet funded over a year before it pays counts", async () => {
    const [, , payTo, c, a, b] = accounts();
    const { listing } = await seller();
    await local.mint(payTo.address, 1_000_000n);
    await transfer(payTo, c.address, 100_000n);
    await passDays(340);
    const fundA = await transfer(payTo, a.address, 100_000n);
    await transfer(payTo, b.address, 100_000n);
    expect(fundA.block).toBeGreaterThan(0n);
    await passDays(31);
    const later = new Date(Date.now() + 371 * 86_400_000);
    for (const w of [a, b, c]) await paysAt(listing, w, payTo.address, later);
    const r = await rankForListing(listing, new Date(later.getTime() + 60_000));
    const w = await storedWash(listing);
    expect(w!.unmeasured).toBeNull();
    expect(w!.excluded.map((x) => [x.payer, x.reason]).sort()).toEqual([[a.address.toLowerCase(), "funded_by_seller"], [b.address.toLowerCase(), "funded_by_seller"]].sort());
    expect(w!.excluded.find((x) => x.payer === a.address.toLowerCase())).toMatchObject({ from: payTo.address.toLowerCase(), transaction: fundA.tx });
    // C's funding is 371 days old: beyond the look-back, it counts.
    expect(r!.inputs.ledger.distinctPayers30d).toBe(1);
  });
});
