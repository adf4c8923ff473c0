/**
 * Wash on a real local chain: payers the seller's wallets (its payTo, its members' SIWE wallets)
 * funded before they paid are not distinct payers, so two such wallets no longer pass the floor;
 * independently funded buyers count; a refund after a payment does not exclude; one hop only; with
 * the chain down the last measured exclusion stands and the check says it is unmeasured; and funding
 * is looked for a year back, not only in the 30-day window (last: it moves the chain's clock).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWalletClient, http, type Address, type Hex, type PrivateKeyAccount } from "viem";
import { startAnvil, type AnvilNode } from "@/devchain/anvil";
import { setupLocalChain, LOCAL_NETWORK, LOCAL_USDC_ADDRESS, type LocalChain } from "@/devchain/local-chain";
import { TEST_USDC_ABI } from "@/devchain/test-usdc";
import { ledgerFacts } from "@/lib/facts/aggregate";
import { listingPageFacts } from "@/lib/catalog/listing-page";
import { adminListing } from "@/lib/surfaces/admin";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { createTestListing, createTestOrganization } from "@/test/ledger";
import { rankForListing } from "./inputs";
import { recomputeListingRank, runRankSweep } from "./sweep-ranks";
import { applyWash, newWashCache, storedWash, WASH_REMEASURE_MS } from "./wash";

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

/** A buyer pays the seller's payTo on chain, and the ledger holds that settlement (recorded at `at`, default now). */
async function pays(listingId: string, buyer: PrivateKeyAccount, payTo: Address, amount = 10_000n, at = new Date()): Promise<void> {
  const { tx, block } = await transfer(buyer, payTo, amount);
  await t.prisma.routerPayment.create({
    data: {
      listingId, payer: buyer.address.toLowerCase(), advertisedAmount: String(amount), settledAmount: String(amount), asset: LOCAL_USDC_ADDRESS.toLowerCase(), network: LOCAL_NETWORK,
      status: "settled", transactionId: tx, blockNumber: block, quotedPayTo: payTo.toLowerCase(), chainFrom: buyer.address.toLowerCase(), chainTo: payTo.toLowerCase(), chainAmount: String(amount),
      confirmedAt: at, authorizationNonce: tx, createdAt: at,
    },
  });
}

async function seller(siwe?: Address): Promise<{ org: string; listing: string }> {
  const org = await createTestOrganization(t.prisma);
  if (siwe) await t.prisma.user.create({ data: { name: "owner", organizationId: org, walletAddress: siwe.toLowerCase() } });
  const listing = await createTestListing(t.prisma, { organizationId: org, networks: [LOCAL_NETWORK] });
  return { org, listing };
}

describe("wash", () => {
  it("a seller funding two wallets from its payTo and its owner's SIWE wallet: both excluded, the floor not passed", async () => {
    const [, , payTo, owner, a, b] = accounts();
    const { listing } = await seller(owner.address);
    await local.mint(payTo.address, 1_000_000n);
    await local.mint(owner.address, 1_000_000n);
    const fundA = await transfer(payTo, a.address, 100_000n);
    const fundB = await transfer(owner, b.address, 100_000n);
    await pays(listing, a, payTo.address);
    await pays(listing, b, payTo.address);
    // Without the wash check these would pass the 2-payer floor.
    expect((await ledgerFacts({ ids: [listing] }, new Date()))[0].distinctPayers30d).toBe(2);
    const r = await rankForListing(listing);
    expect(r!.inputs.ledger.distinctPayers30d).toBe(0);
    expect(r!.inputs.ledger.medianSettledPrice30d).toBeNull();
    expect(r!.components.traction.facts).toMatchObject({ floored: true });
    const w = await storedWash(listing);
    expect(w!.unmeasured).toBeNull();
    expect(w!.excluded).toEqual(
      expect.arrayContaining([
        { payer: a.address.toLowerCase(), reason: "funded_by_seller", from: payTo.address.toLowerCase(), transaction: fundA.tx },
        { payer: b.address.toLowerCase(), reason: "funded_by_seller", from: owner.address.toLowerCase(), transaction: fundB.tx },
      ]),
    );
    // The moderators see how many and why.
    const moderator = (await t.prisma.user.create({ data: { name: "M", role: "moderator" } })).id;
    const desk = await adminListing(moderator, listing);
    expect(desk.wash).toMatchObject({ unmeasured: null });
    expect(desk.wash!.excluded.map((e) => [e.payer, e.reason]).sort()).toEqual([[a.address.toLowerCase(), "funded_by_seller"], [b.address.toLowerCase(), "funded_by_seller"]].sort());
    // The public listing page counts them out as well (from the stored check, no chain read).
    expect((await listingPageFacts(listing)).activity).toEqual({ shown: false, floor: 2 });
    // The sweep's stored rank reads the same (a due sweep: the payments marked the listing), and so
    // does a re-rank on demand.
    expect(await runRankSweep({ mode: "due" })).toMatchObject({ leader: true });
    const swept = await t.prisma.listingRank.findUniqueOrThrow({ where: { listingId: listing } });
    expect((swept.components as { traction: number }).traction).toBe(0);
    await recomputeListingRank(listing);
    const stored = await t.prisma.listingRank.findUniqueOrThrow({ where: { listingId: listing } });
    expect((stored.components as { traction: number }).traction).toBe(0);
  });

  it("independently funded buyers count; a refund after a payment does not exclude; the seller's own wallet paying is excluded without a chain read", async () => {
    const [, , payTo, , , , c, d] = accounts();
    const { listing } = await seller();
    await local.mint(c.address, 1_000_000n);
    await local.mint(d.address, 1_000_000n);
    await pays(listing, c, payTo.address);
    await pays(listing, d, payTo.address);
    // The seller pays c back after c's payment: a refund, not funding.
    await local.mint(payTo.address, 1_000_000n);
    await transfer(payTo, c.address, 10_000n);
    expect((await rankForListing(listing))!.inputs.ledger.distinctPayers30d).toBe(2);
    expect((await storedWash(listing))!.excluded).toEqual([]);
    expect((await listingPageFacts(listing)).activity).toMatchObject({ shown: true, distinctPayers30d: 2 });
    // The payTo paying its own listing.
    await pays(listing, payTo, payTo.address);
    expect((await rankForListing(listing))!.inputs.ledger.distinctPayers30d).toBe(2);
    expect((await storedWash(listing))!.excluded).toEqual([{ payer: payTo.address.toLowerCase(), reason: "seller_wallet" }]);
  });

  it("one hop only: a wallet funded by a third party that the seller funded counts (documented)", async () => {
    const [, , payTo, , , , , , e, f] = accounts();
    const { listing } = await seller();
    await local.mint(payTo.address, 1_000_000n);
    await transfer(payTo, e.address, 200_000n);
    await transfer(e, f.address, 100_000n);
    await pays(listing, e, payTo.address);
    await pays(listing, f, payTo.address);
    const r = await rankForListing(listing);
    expect(r!.inputs.ledger.distinctPayers30d).toBe(1);
    expect((await storedWash(listing))!.excluded.map((x) => x.payer)).toEqual([e.address.toLowerCase()]);
  });

  it("the chain down: the last measured exclusion stands and the check says unmeasured; never measured, nothing is excluded but the seller's own wallets", async () => {
    const [, , payTo, , a, b] = accounts();
    const down = newWashCache({ rpcUrls: {}, TOLLGATE_CHAIN_RPC_URL: "http://127.0.0.1:9" });
    // A seller's funded payers, measured; a check an hour later cannot read the chain.
    const { listing: measured } = await seller();
    await local.mint(payTo.address, 1_000_000n);
    await transfer(payTo, a.address, 50_000n);
    await transfer(payTo, b.address, 50_000n);
    await pays(measured, a, payTo.address);
    await pays(measured, b, payTo.address);
    expect((await rankForListing(measured))!.inputs.ledger.distinctPayers30d).toBe(0);
    const later = new Date(Date.now() + WASH_REMEASURE_MS + 60_000);
    const [row] = await ledgerFacts({ ids: [measured] }, later);
    const out = await applyWash([row], later, undefined, down);
    expect(out.rows[0].distinctPayers30d).toBe(0);
    const w = out.wash.get(measured)!;
    expect(w.unmeasured).toMatch(/RPC did not answer/);
    expect(w.excluded).toHaveLength(2);
    expect((await storedWash(measured))!.unmeasured).toMatch(/RPC did not answer/);

    // A listing never measured, its chain down: its payers count, and the check says why it could not tell.
    const [, , , , , , c, d] = accounts();
    const { listing: fresh } = await seller();
    await pays(fresh, c, payTo.address);
    await pays(fresh, d, payTo.address);
    const [r2] = await ledgerFacts({ ids: [fresh] }, new Date());
    const out2 = await applyWash([r2], new Date(), undefined, down);
    expect(out2.rows[0].distinctPayers30d).toBe(2);
    expect(out2.wash.get(fresh)).toMatchObject({ excluded: [], measuredAtMs: null });
    expect(out2.wash.get(fresh)!.unmeasured).toMatch(/RPC did not answer/);
  });

  it("a listing whose ledger has not moved keeps its check: no chain read until it is due again", async () => {
    const [, , payTo, , , , c, d] = accounts();
    const { listing } = await seller();
    await pays(listing, c, payTo.address);
    await pays(listing, d, payTo.address);
    const now = new Date();
    const first = await applyWash(await ledgerFacts({ ids: [listing] }, now), now);
    const down = newWashCache({ rpcUrls: {}, TOLLGATE_CHAIN_RPC_URL: "http://127.0.0.1:9" });
    const soon = new Date(now.getTime() + 60_000);
    const again = await applyWash(await ledgerFacts({ ids: [listing] }, soon), soon, undefined, down);
    expect(down.blocks.size + down.logs.size).toBe(0);
    expect(again.wash.get(listing)).toEqual({ ...first.wash.get(listing), payersBefore: 2 });
    // A new settlement moves it: checked again (here, with the chain down: said so).
    const [, , , , , , , , e] = accounts();
    await local.mint(e.address, 100_000n);
    await pays(listing, e, payTo.address);
    const moved = await applyWash(await ledgerFacts({ ids: [listing] }, soon), soon, undefined, down);
    expect(moved.wash.get(listing)!.unmeasured).toMatch(/RPC did not answer/);
  });

  it("one read per network and asset per sweep: listings of one seller share it through the cache", async () => {
    const [, , payTo, , , , c, d] = accounts();
    const org = await createTestOrganization(t.prisma);
    const l1 = await createTestListing(t.prisma, { organizationId: org });
    const l2 = await createTestListing(t.prisma, { organizationId: org });
    for (const l of [l1, l2]) {
      await pays(l, c, payTo.address);
      await pays(l, d, payTo.address);
    }
    const cache = newWashCache();
    const now = new Date();
    await applyWash(await ledgerFacts({ ids: [l1, l2] }, now), now, undefined, cache);
    expect(cache.blocks.size).toBe(1);
    expect(cache.logs.size).toBe(1);
  });
});

// Last in this file: it moves the local chain's clock a year ahead.
describe("wash funding older than the 30-day window (WASH_FUNDING_LOOKBACK_MS)", () => {
  const passDays = async (days: number) => {
    await local.publicClient.request({ method: "evm_increaseTime" as never, params: [days * 86_400] as never });
    await local.publicClient.request({ method: "evm_mine" as never, params: [] as never });
  };

  it("the payTo funds two wallets, 31 days pass, they pay: both excluded; a wallet funded over a year before it pays counts", async () => {
    // Before, the funding read covered the window's blocks only, so both such payers counted.
    const [, , payTo, c, a, b] = accounts();
    const { listing } = await seller();
    await local.mint(payTo.address, 1_000_000n);
    await transfer(payTo, c.address, 100_000n);
    await passDays(340);
    const fundA = await transfer(payTo, a.address, 100_000n);
    await transfer(payTo, b.address, 100_000n);
    await passDays(31);
    const later = new Date(Date.now() + 371 * 86_400_000);
    for (const w of [a, b, c]) await pays(listing, w, payTo.address, 10_000n, later);
    const r = await rankForListing(listing, new Date(later.getTime() + 60_000));
    const w = await storedWash(listing);
    expect(w!.unmeasured).toBeNull();
    expect(w!.excluded.map((x) => [x.payer, x.reason]).sort()).toEqual([[a.address.toLowerCase(), "funded_by_seller"], [b.address.toLowerCase(), "funded_by_seller"]].sort());
    expect(w!.excluded.find((x) => x.payer === a.address.toLowerCase())).toMatchObject({ from: payTo.address.toLowerCase(), transaction: fundA.tx });
    // C's funding is 371 days old: beyond the look-back, it counts.
    expect(r!.inputs.ledger.distinctPayers30d).toBe(1);
  });
});
