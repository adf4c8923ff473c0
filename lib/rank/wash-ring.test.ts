/**
 * Payment rings in the ledger (docs/RANK.md "Payment rings"): sellers whose payees pay one another's
 * listings, and wallets that pay only within the ring, are not distinct payers; a listing whose payers
 * are mostly a ring's carries wash_ring and router selection leaves it out. Attacked from the other
 * side: an honest seller whose buyers also sell, or who buys from one of them, keeps its buyers.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWalletClient, http, type Address, type PrivateKeyAccount } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { startAnvil, type AnvilNode } from "@/devchain/anvil";
import { setupLocalChain, LOCAL_NETWORK, LOCAL_USDC_ADDRESS, type LocalChain } from "@/devchain/local-chain";
import { TEST_USDC_ABI } from "@/devchain/test-usdc";
import { ledgerFacts } from "@/lib/facts/aggregate";
import { listingPageFacts } from "@/lib/catalog/listing-page";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { createTestListing, createTestOrganization } from "@/test/ledger";
import { rankForListing } from "./inputs";
import { FULL_SWEEP_INTERVAL_MS, runRankSweep } from "./sweep-ranks";
import { applyWash, newWashCache, storedWash } from "./wash";
import { ringLedger } from "./wash-ring";

let node: AnvilNode;
let local: LocalChain;
let t: TestDatabase;

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

const wallet = (): PrivateKeyAccount => privateKeyToAccount(generatePrivateKey());
const lower = (a: { address: Address }) => a.address.toLowerCase();

/** A settled payment in the ledger: `buyer` paid `payTo` for `listingId` through the router. */
async function pays(listingId: string, buyer: { address: Address }, payTo: { address: Address }, amount = 10_000n): Promise<void> {
  const tx = `0x${randomBytes(32).toString("hex")}`;
  await t.prisma.routerPayment.create({
    data: {
      listingId, payer: lower(buyer), advertisedAmount: String(amount), settledAmount: String(amount), asset: LOCAL_USDC_ADDRESS.toLowerCase(), network: LOCAL_NETWORK,
      status: "settled", transactionId: tx, quotedPayTo: lower(payTo), chainFrom: lower(buyer), chainTo: lower(payTo), chainAmount: String(amount),
      confirmedAt: new Date(), authorizationNonce: tx,
    },
  });
}

/** A seller: its own organisation, one listing, one payee wallet. */
async function seller(): Promise<{ org: string; listing: string; payee: PrivateKeyAccount }> {
  const org = await createTestOrganization(t.prisma);
  const listing = await createTestListing(t.prisma, { organizationId: org, networks: [LOCAL_NETWORK] });
  return { org, listing, payee: wallet() };
}

/** Two sellers one payment short of a ring: s and w buy from both, p's payee buys from q; w is no one's payee yet. */
async function almostRing() {
  const [p, q] = [await seller(), await seller()];
  const [s, w] = [wallet(), wallet()];
  for (const b of [s, w]) {
    await pays(p.listing, b, p.payee);
    await pays(q.listing, b, q.payee);
  }
  await pays(q.listing, p.payee, q.payee);
  return { p, q, s, w };
}

const payersAfterWash = async (listing: string) => (await rankForListing(listing))!.inputs.ledger.distinctPayers30d;

describe("payment rings", () => {
  it("a ring of three sellers whose payees pay each other, with wallets paying only inside it: its payers are the ring's, the listing is flagged wash_ring, organic buyers still count", async () => {
    const ring = [await seller(), await seller(), await seller()];
    // Every ring payee pays the other two; three more wallets pay all three and no one else.
    for (const a of ring) for (const b of ring) if (a !== b) await pays(b.listing, a.payee, b.payee);
    const sybils = [wallet(), wallet(), wallet()];
    for (const s of sybils) for (const r of ring) await pays(r.listing, s, r.payee);
    // Two organic buyers of the first ring seller, who buy elsewhere too.
    const outside = await seller();
    const organic = [wallet(), wallet()];
    for (const o of organic) {
      await pays(ring[0].listing, o, ring[0].payee);
      await pays(outside.listing, o, outside.payee);
    }
    const [a, b] = ring;
    expect((await ledgerFacts({ ids: [a.listing] }, new Date()))[0].distinctPayers30d).toBe(7);
    expect(await payersAfterWash(a.listing)).toBe(2);
    expect(await payersAfterWash(b.listing)).toBe(0);

    const w = (await storedWash(a.listing))!;
    expect(w.excluded.filter((e) => e.reason === "ring_payee").map((e) => [e.payer, e.listing]).sort()).toEqual(
      [[lower(ring[1].payee), ring[1].listing], [lower(ring[2].payee), ring[2].listing]].sort(),
    );
    expect(w.excluded.filter((e) => e.reason === "ring_only").map((e) => e.payer).sort()).toEqual(sybils.map(lower).sort());
    expect(w.ring).toMatchObject({ organizations: [a.org, ...[ring[1].org, ring[2].org].sort()], ringPayers: 5, payersBefore: 7, flagged: true });
    expect(w.ring!.why).toMatch(/5 of its 7 payers in 30 days belong to a payment ring of 3 sellers/);
    // The public page counts the ring out as well.
    expect((await listingPageFacts(a.listing)).activity).toMatchObject({ shown: true, distinctPayers30d: 2 });
    // The outside seller that ring wallets never paid is untouched.
    expect(await payersAfterWash(outside.listing)).toBe(2);
    expect((await storedWash(outside.listing))!.ring).toBeNull();
  });

  it("attack from the honest side: a seller whose buyers also sell keeps them all; buying from one of them costs it that one payer, not its standing", async () => {
    const honest = await seller();
    // Its four buyers are each the payee of another seller, who has buyers of its own.
    const others = [await seller(), await seller(), await seller(), await seller()];
    for (const o of others) {
      await pays(honest.listing, o.payee, honest.payee);
      await pays(o.listing, wallet(), o.payee);
      await pays(o.listing, wallet(), o.payee);
    }
    await pays(honest.listing, wallet(), honest.payee);
    expect(await payersAfterWash(honest.listing)).toBe(5);
    expect((await storedWash(honest.listing))!.ring).toBeNull();
    for (const o of others) expect(await payersAfterWash(o.listing)).toBe(2);

    // The honest seller's payee buys once from the first of them: a cycle of two. Only the partner's
    // payee leaves its payers (the other sellers' payees and its organic buyer count), and it is not flagged.
    await pays(others[0].listing, honest.payee, others[0].payee);
    expect(await payersAfterWash(honest.listing)).toBe(4);
    const w = (await storedWash(honest.listing))!;
    expect(w.excluded).toEqual([{ payer: lower(others[0].payee), reason: "ring_payee", listing: others[0].listing }]);
    expect(w.ring).toMatchObject({ ringPayers: 1, payersBefore: 5, flagged: false });
    // The partner loses the honest seller's payee (1 of 3), not its own buyers, and is not flagged either.
    expect(await payersAfterWash(others[0].listing)).toBe(2);
    expect((await storedWash(others[0].listing))!.ring).toMatchObject({ ringPayers: 1, payersBefore: 3, flagged: false });
  });

  it("a wallet funded by a ring payee before it paid is the ring's (funded_by_ring), read from the chain's Transfer logs", async () => {
    const [x, y] = [await seller(), await seller()];
    await pays(y.listing, x.payee, y.payee);
    await pays(x.listing, y.payee, x.payee);
    // y's payee funds f on chain; f pays x and, to look like a buyer, an outside seller too.
    const f = wallet();
    await local.mint(y.payee.address, 1_000_000n);
    await anvilSetBalance(y.payee.address);
    const fund = await transfer(y.payee, f.address, 100_000n);
    const outside = await seller();
    await pays(x.listing, f, x.payee);
    await pays(outside.listing, f, outside.payee);
    await pays(x.listing, wallet(), x.payee);
    expect(await payersAfterWash(x.listing)).toBe(1);
    const w = (await storedWash(x.listing))!;
    expect(w.excluded).toEqual(expect.arrayContaining([{ payer: lower(f), reason: "funded_by_ring", from: lower(y.payee), transaction: fund }]));
    expect(w.ring).toMatchObject({ ringPayers: 2, payersBefore: 3, flagged: true });
  });

  it("the ring is re-read from the ledger on every check: a listing whose own ledger did not move learns of a ring formed elsewhere", async () => {
    const { p, q, s, w } = await almostRing();
    const now = new Date();
    expect((await applyWash(await ledgerFacts({ ids: [p.listing] }, now), now, undefined, newWashCache())).rows[0].distinctPayers30d).toBe(2);
    expect((await storedWash(p.listing))!.ring).toBeNull();
    // q starts quoting w as its payTo: w is now q's payee, and q's payee pays p. p's own ledger is unchanged.
    await pays(q.listing, wallet(), w);
    const later = new Date(now.getTime() + 60_000);
    const out = await applyWash(await ledgerFacts({ ids: [p.listing] }, later), later, undefined, newWashCache());
    expect(out.rows[0].distinctPayers30d).toBe(0);
    expect(out.wash.get(p.listing)!.excluded.map((e) => [e.payer, e.reason]).sort()).toEqual([[lower(s), "ring_only"], [lower(w), "ring_payee"]].sort());
    expect(out.wash.get(p.listing)!.ring).toMatchObject({ ringPayers: 2, payersBefore: 2, flagged: true });
    expect((await storedWash(p.listing))!.ring).toMatchObject({ flagged: true });
  });

  it("ringLedger reads edges from settled, non-house payments of the window whose payer is a payee wallet (chainTo before quotedPayTo), in any letter case", async () => {
    const [a, b, c] = [await seller(), await seller(), await seller()];
    const now = new Date();
    const row = (listingId: string, payer: string, payTo: { chainTo?: string; quotedPayTo?: string }, o: { status?: "settled" | "failed"; house?: boolean; createdAt?: Date } = {}) =>
      t.prisma.routerPayment.create({
        data: {
          listingId, payer, advertisedAmount: "10000", settledAmount: (o.status ?? "settled") === "settled" ? "10000" : null, asset: LOCAL_USDC_ADDRESS.toLowerCase(), network: LOCAL_NETWORK,
          status: o.status ?? "settled", house: o.house ?? false, createdAt: o.createdAt ?? now, quotedPayTo: payTo.quotedPayTo ?? null, chainTo: payTo.chainTo ?? null,
        },
      });
    const [buyer, quoted] = [lower(wallet()), lower(wallet())];
    // b's payee is its chainTo; the quotedPayTo beside it is no payee.
    await row(a.listing, buyer, { quotedPayTo: a.payee.address });
    await row(b.listing, buyer, { chainTo: lower(b.payee), quotedPayTo: quoted });
    // a's payee, written checksummed, pays b and c; b's payee pays a: a ring of a and b, a one-way edge to c.
    await row(b.listing, a.payee.address, { chainTo: lower(b.payee) });
    await row(c.listing, a.payee.address, { chainTo: lower(c.payee) });
    await row(a.listing, lower(b.payee), { quotedPayTo: lower(a.payee) });
    await row(a.listing, quoted, { quotedPayTo: lower(a.payee) });
    // c's payee pays a only as the house, failed, or before the window: no edge back, no ring.
    await row(a.listing, lower(c.payee), { quotedPayTo: lower(a.payee) }, { house: true });
    await row(a.listing, lower(c.payee), {}, { status: "failed" });
    await row(a.listing, lower(c.payee), { quotedPayTo: lower(a.payee) }, { createdAt: new Date(now.getTime() - 31 * 86_400_000) });

    const r = await ringLedger(t, new Date(now.getTime() + 1000));
    expect(r.ringOf.get(a.org)).toEqual([a.org, b.org]);
    expect(r.ringOf.get(b.org)).toEqual([b.org, a.org]);
    expect(r.ringOf.has(c.org)).toBe(false);
    expect(r.payeeOf.get(lower(a.payee))).toEqual([{ lid: a.listing, org: a.org }]);
    expect(r.payeeOf.get(lower(b.payee))).toEqual([{ lid: b.listing, org: b.org }]);
    expect(r.payeeOf.has(lower(c.payee))).toBe(false);
    expect(r.payeeOf.has(quoted)).toBe(false);
    const payers = (lid: string) => (r.payersOf.get(lid) ?? []).map((p) => [p.payer, [...p.orgs].sort()]).sort();
    expect(payers(a.listing)).toEqual([[buyer, [a.org, b.org].sort()], [lower(b.payee), [a.org]], [quoted, [a.org]]].sort());
    expect(payers(b.listing)).toEqual([[buyer, [a.org, b.org].sort()], [lower(a.payee), [b.org, c.org].sort()]].sort());
    expect(r.payees.get(a.org)).toEqual([lower(a.payee)]);
    expect(r.payees.get(b.org)).toEqual([lower(b.payee)]);
  });

  it("a due sweep reuses the last full sweep's ring reading; the next full sweep, one interval later at most, reads the ring formed since", async () => {
    const { p, q, w } = await almostRing();
    const t0 = Date.now();
    expect(await runRankSweep({ now: new Date(t0) })).toMatchObject({ leader: true, mode: "full" });
    expect((await storedWash(p.listing))!.ring).toBeNull();
    // The ring forms (w becomes q's payee), and a new buyer of p marks p due.
    await pays(q.listing, wallet(), w);
    await pays(p.listing, wallet(), p.payee);
    expect(await runRankSweep({ now: new Date(t0 + 60_000), mode: "due" })).toMatchObject({ mode: "due", scanned: expect.any(Number) });
    expect((await storedWash(p.listing))!.ring).toBeNull();
    expect(await runRankSweep({ now: new Date(t0 + FULL_SWEEP_INTERVAL_MS), mode: "due" })).toMatchObject({ mode: "full" });
    expect((await storedWash(p.listing))!.ring).toMatchObject({ organizations: [p.org, q.org], ringPayers: 2, payersBefore: 3, flagged: true });
  });
});

async function anvilSetBalance(address: Address): Promise<void> {
  await fetch(node.rpcUrl, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "anvil_setBalance", params: [address, "0x56BC75E2D63100000"] }) });
}

async function transfer(from: PrivateKeyAccount, to: Address, amount: bigint): Promise<string> {
  const w = createWalletClient({ chain: local.chain, transport: http(node.rpcUrl), account: from });
  const tx = await w.writeContract({ address: LOCAL_USDC_ADDRESS, abi: TEST_USDC_ABI, functionName: "transfer", args: [to, amount] });
  const receipt = await local.publicClient.waitForTransactionReceipt({ hash: tx });
  expect(receipt.status).toBe("success");
  return tx;
}
