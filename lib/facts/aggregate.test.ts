import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { atomicToUnits, ledgerFacts, lowestPrice, medianOfAmounts } from "./aggregate";
import { createTestListing } from "@/test/ledger";

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => {
  await t?.close();
});

describe("the settled median, taken in memory", () => {
  it("is percentile_cont(0.5) over tollgate_atomic_to_units(amount, 0), to the bit", async () => {
    let seed = 7;
    const rnd = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    const cases: (string | null)[][] = [
      ["9600"],
      ["9600", "9700"],
      ["1", "2", "4"],
      ["3", "1", "2", "10"],
      ["25060", "25070", "25000", "25010", "25040", "25050"],
      ["12345678901234567890123", "12345678901234567890125"],
      ["x", "9600", null, "-5", "1.5", "9800"],
      ["abc"],
    ];
    for (let i = 0; i < 40; i++) cases.push(Array.from({ length: 1 + Math.floor(rnd() * 12) }, () => String(Math.floor(rnd() * 10 ** (1 + Math.floor(rnd() * 9))))));
    for (const amounts of cases) {
      const [{ m }] = await t.query<{ m: number | null }>(
        `SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY tollgate_atomic_to_units(a, 0)) AS m FROM unnest($1::text[]) AS a`,
        [amounts],
      );
      expect(medianOfAmounts(amounts), JSON.stringify(amounts)).toBe(m);
    }
    expect(medianOfAmounts(null)).toBeNull();
    expect(medianOfAmounts([])).toBeNull();
  });
});

describe("prices converted in memory", () => {
  it("lowestPrice is min(tollgate_decimal_or_null(price))::float8, malformed prices left out", async () => {
    const cases: (string | null)[][] = [
      ["0.01"],
      ["0.035", "0.0349", "1"],
      ["12345678901234567890.12345678901234567890", "0.1"],
      ["0.1", "0.10000000000000000555"],
      ["$0.01", "abc", "", null, "-1", "1e-3", " 0.5"],
      ["007.50", "7.5"],
      [],
    ];
    for (const prices of cases) {
      const [{ m }] = await t.query<{ m: number | null }>(`SELECT min(tollgate_decimal_or_null(p))::float8 AS m FROM unnest($1::text[]) AS p`, [prices]);
      expect(lowestPrice(prices), JSON.stringify(prices)).toBe(m);
    }
    expect(lowestPrice(null)).toBeNull();
  });

  it("atomicToUnits is tollgate_atomic_to_units(amount, decimals), to the bit", async () => {
    const cases: [string, number][] = [
      ["10000", 6], ["1", 6], ["0", 6], ["123456789", 0], ["9600", 2], ["35000", 6], ["1", 36],
      ["999999999999999", 6], ["9007199254740993", 6], ["1234567890123456", 18], ["12345678901234567890123456789012345678", 36],
      ["x", 6], ["-5", 6], ["1.5", 6], ["", 6], ["10", -1], ["10", 37],
    ];
    for (const [amount, decimals] of cases) {
      const [{ u }] = await t.query<{ u: number | null }>(`SELECT tollgate_atomic_to_units($1, $2::int) AS u`, [amount, decimals]);
      expect(atomicToUnits(amount, decimals), `${amount} × 10^-${decimals}`).toBe(u);
    }
  });
});

describe("the ledger's amounts are atomic units in the database too", () => {
  it("refuses a payment or quote whose amount is not an integer string, and a settled payment without one", async () => {
    const listingId = await createTestListing(t.prisma);
    const pay = (status: "settled" | "failed", settledAmount: string | null, advertisedAmount = "10000") =>
      t.prisma.routerPayment.create({ data: { payer: "0x" + "1".repeat(40), listingId, advertisedAmount, settledAmount, asset: "USDC", network: "eip155:8453", status } });
    await expect(pay("settled", "10,000")).rejects.toThrow(/router_payments_amounts_atomic/);
    await expect(pay("settled", "10000", "1e4")).rejects.toThrow(/router_payments_amounts_atomic/);
    await expect(pay("settled", null)).rejects.toThrow(/router_payments_settled_amount/);
    await expect(pay("failed", "10000")).rejects.toThrow(/router_payments_settled_amount/);
    await expect(pay("settled", "10000")).resolves.toMatchObject({ settledAmount: "10000" });
    await expect(pay("failed", null)).resolves.toMatchObject({ settledAmount: null });
    const quote = (amount: string) => t.prisma.priceQuote.create({ data: { listingId, amount, asset: "USDC", network: "eip155:8453", quotedAt: new Date(), source: "test" } });
    await expect(quote("0.01")).rejects.toThrow(/price_quotes_amount_atomic/);
    await expect(quote("10000")).resolves.toMatchObject({ amount: "10000" });
  });
});

describe("the latest health reading", () => {
  it("is the latest sample within 30 days; of two at the same instant, the greater confidence", async () => {
    const now = new Date("2026-12-02T12:00:00.000Z");
    const listingId = await createTestListing(t.prisma);
    const sample = (minutesAgo: number, confidence: number) =>
      t.prisma.healthSample.create({
        data: { listingId, at: new Date(now.getTime() - minutesAgo * 60_000), outcome: confidence > 0 ? "up" : "down", confidence, vantage: "test" },
      });
    await sample(10, 1);
    await sample(5, 0.6);
    await sample(5, 0);
    const facts = async () => (await ledgerFacts({ ids: [listingId] }, now))[0].latestConfidence;
    expect(await facts()).toBe(0.6);
    await sample(5, 1);
    expect(await facts()).toBe(1);
    // A sample after `now` is not yet a reading; one older than 30 days no longer is.
    await sample(-1, 0);
    expect(await facts()).toBe(1);
    expect((await ledgerFacts({ ids: [listingId] }, new Date(now.getTime() + 31 * 86_400_000)))[0].latestConfidence).toBeNull();
  });
});

describe("house and unconfirmed payments", () => {
  it("house rows are no traction and no price evidence; an unconfirmed row is neither settled nor failed", async () => {
    const now = new Date("2026-12-03T12:00:00.000Z");
    const listingId = await createTestListing(t.prisma);
    const at = new Date(now.getTime() - 60_000);
    const pay = (payer: string, status: "settled" | "failed" | "unconfirmed", settledAmount: string | null, house = false) =>
      t.prisma.routerPayment.create({
        data: { payer, listingId, advertisedAmount: "10000", settledAmount, asset: "USDC", network: "eip155:8453", status, house, createdAt: at },
      });
    const facts = async () => (await ledgerFacts({ ids: [listingId] }, now))[0];
    await pay("0x" + "a".repeat(40), "settled", "10000");
    const base = await facts();
    expect(base).toMatchObject({ distinctPayers30d: 1, distinctAttemptingBuyers30d: 1, settled30d: 1, failedSinceLastSettle: 0 });
    expect(base.medianSettledPrice30d).toBe(0.01);

    // The catalog's own wallets, paying many times at another price: nothing changes.
    for (let i = 0; i < 3; i++) await pay("0x" + "b".repeat(40), "settled", "90000", true);
    const withHouse = await facts();
    expect(withHouse).toMatchObject({ distinctPayers30d: 1, distinctAttemptingBuyers30d: 1, settled30d: 1, medianSettledPrice30d: 0.01 });

    // An unconfirmed row: an attempt, but no settlement and no failure.
    await pay("0x" + "c".repeat(40), "unconfirmed", null);
    expect(await facts()).toMatchObject({ distinctPayers30d: 1, distinctAttemptingBuyers30d: 2, settled30d: 1, failedSinceLastSettle: 0, medianSettledPrice30d: 0.01 });
  });
});

describe("a payment refused for the buyer's own fault says nothing about the seller", () => {
  it("rejected rows are neither failures nor attempts: two buyers rejected three times each leave the gate open", async () => {
    const { recordPayment } = await import("@/lib/ledger/record");
    const { rankForListing } = await import("@/lib/rank/inputs");
    const rejected = await createTestListing(t.prisma);
    const failing = await createTestListing(t.prisma);
    const base = { advertisedAmount: "10000", asset: "0x5FbDB2315678afecb367f032d93F642f64180aa3", network: "eip155:31337" };
    for (const buyer of ["0x00000000000000000000000000000000000000b1", "0x00000000000000000000000000000000000000b2"]) {
      for (let i = 0; i < 3; i++) {
        await recordPayment({ ...base, listingId: rejected, payer: buyer, status: "rejected", reason: "payer_insufficient_funds" });
        await recordPayment({ ...base, listingId: failing, payer: buyer, status: "failed", reason: "not_settled" });
      }
    }
    const r = (await rankForListing(rejected))!;
    const f = (await rankForListing(failing))!;
    expect(r.inputs.ledger).toMatchObject({ distinctAttemptingBuyers30d: 0 });
    expect(r.inputs.settle).toMatchObject({ failedAttemptsSinceLastSettle: 0, distinctFailingBuyersSinceLastSettle: 0 });
    expect(r.components.gate.gate).not.toBe("unpayable");
    // The same rows as the seller's failures close the gate.
    expect(f.inputs.ledger).toMatchObject({ distinctAttemptingBuyers30d: 2 });
    expect(f.inputs.settle).toMatchObject({ failedAttemptsSinceLastSettle: 6, distinctFailingBuyersSinceLastSettle: 2 });
    expect(f.components.gate.gate).toBe("unpayable");
  });

  it("a rejected row must say whose fault: no reason is refused, naming /reason", async () => {
    const { recordPayment } = await import("@/lib/ledger/record");
    const listingId = await createTestListing(t.prisma);
    await expect(recordPayment({ listingId, payer: "0x00000000000000000000000000000000000000b3", status: "rejected", advertisedAmount: "1", asset: "a", network: "n" })).rejects.toMatchObject({
      details: [{ pointer: "/reason" }],
    });
  });
});

describe("a corrected ledger row counts as its correction only", () => {
  it("failures corrected to settlements reopen the gate, and a settlement corrected to a failure leaves traction and the median", async () => {
    const { recordPayment } = await import("@/lib/ledger/record");
    const { correctPayment } = await import("@/lib/ledger/correct");
    const { rankForListing } = await import("@/lib/rank/inputs");
    const listingId = await createTestListing(t.prisma);
    const base = { listingId, advertisedAmount: "10000", asset: "0x5FbDB2315678afecb367f032d93F642f64180aa3", network: "eip155:31337" };
    const failures: string[] = [];
    for (const buyer of ["0x00000000000000000000000000000000000000c1", "0x00000000000000000000000000000000000000c2"]) {
      for (let i = 0; i < 3; i++) failures.push((await recordPayment({ ...base, payer: buyer, status: "failed", reason: "not_settled" })).id);
    }
    const forged = await recordPayment({ ...base, payer: "0x00000000000000000000000000000000000000c3", status: "settled", settledAmount: "90000" });
    const before = (await rankForListing(listingId))!;
    expect(before.inputs.settle).toMatchObject({ failedAttemptsSinceLastSettle: 0 });
    expect(before.inputs.ledger).toMatchObject({ distinctPayers30d: 1, settled30d: 1 });

    // The one settlement was never on chain: corrected to a failure, the six earlier failures count again and close the gate.
    await correctPayment(forged.id, { status: "failed", reason: "unproven" });
    const unproven = (await rankForListing(listingId))!;
    expect(unproven.inputs.ledger).toMatchObject({ distinctPayers30d: 0, settled30d: 0, distinctAttemptingBuyers30d: 3 });
    expect(unproven.inputs.settle).toMatchObject({ lastSettledAt: null, failedAttemptsSinceLastSettle: 7, distinctFailingBuyersSinceLastSettle: 3 });
    expect(unproven.components.gate.gate).toBe("unpayable");

    // Two failures were in fact settled on chain: their corrections are settlements, their old rows read no more.
    for (const id of failures.slice(0, 2)) await correctPayment(id, { status: "settled", reason: "settled on chain", settledAmount: "10000" });
    const [row] = await ledgerFacts({ ids: [listingId] }, new Date());
    expect(row).toMatchObject({ settled30d: 2, distinctPayers30d: 1, distinctAttemptingBuyers30d: 3, medianSettledPrice30d: 0.01 });
    expect(await t.prisma.routerPayment.count({ where: { listingId } })).toBe(10);
  });
});

describe("the payments statement's counts per listing", () => {
  it("counts a payer once over all its rows; rejected, unmeasured, house, out-of-window and corrected rows as the ledger says", async () => {
    const { correctPayment } = await import("@/lib/ledger/correct");
    const now = new Date("2026-12-03T12:00:00.000Z");
    const h = (n: number) => new Date(now.getTime() - n * 3_600_000);
    const listingId = await createTestListing(t.prisma);
    const quiet = await createTestListing(t.prisma);
    const payer = (c: string) => "0x" + c.repeat(40);
    const pay = (lid: string, p: string, status: "settled" | "failed" | "rejected" | "unmeasured", at: Date, settledAmount: string | null = null, house = false) =>
      t.prisma.routerPayment.create({
        data: { payer: p, listingId: lid, advertisedAmount: "10000", settledAmount, asset: "USDC", network: "eip155:8453", status, house, createdAt: at, reason: status === "rejected" ? "payer_insufficient_funds" : null },
      });
    // a: two settlements and an earlier failure; b: only refused for its own fault or unmeasured; c: the house's; d: before the window.
    await pay(listingId, payer("a"), "settled", h(10), "10000");
    await pay(listingId, payer("a"), "settled", h(9), "30000");
    await pay(listingId, payer("a"), "failed", h(20));
    await pay(listingId, payer("b"), "rejected", h(5));
    await pay(listingId, payer("b"), "unmeasured", h(4));
    await pay(listingId, payer("c"), "settled", h(12), "90000", true);
    await pay(listingId, payer("d"), "settled", h(31 * 24), "50000");
    // e: a settlement corrected to a failure; f: a settlement, a rejection, and the last settlement of all.
    const forged = await pay(listingId, payer("e"), "settled", h(7), "70000");
    await correctPayment(forged.id, { status: "failed", reason: "unproven" });
    await pay(listingId, payer("f"), "rejected", h(8));
    await pay(listingId, payer("f"), "settled", h(6), "20000");
    // Failures after the last settlement, by two payers.
    await pay(listingId, payer("1"), "failed", h(3));
    await pay(listingId, payer("1"), "failed", h(2));
    await pay(listingId, payer("2"), "failed", h(1));
    await pay(quiet, payer("b"), "rejected", h(5));

    const expected = {
      distinctAttemptingBuyers30d: 5,
      distinctPayers30d: 2,
      settled30d: 3,
      medianSettledPrice30d: 0.02,
      lastSettledAtMs: h(6).getTime(),
      failedSinceLastSettle: 3,
      failingBuyersSinceLastSettle: 2,
      oldestPayment30dMs: h(20).getTime(),
    };
    const none = { distinctAttemptingBuyers30d: 0, distinctPayers30d: 0, settled30d: 0, medianSettledPrice30d: null, lastSettledAtMs: null, failedSinceLastSettle: 0, failingBuyersSinceLastSettle: 0, oldestPayment30dMs: h(5).getTime() };
    const byIds = await ledgerFacts({ ids: [quiet, listingId] }, now);
    expect(byIds.find((r) => r.id === listingId)).toMatchObject(expected);
    expect(byIds.find((r) => r.id === quiet)).toMatchObject(none);
    // The id-range form of the same statement.
    const all = await ledgerFacts({ from: null, below: null }, now);
    expect(all.find((r) => r.id === listingId)).toMatchObject(expected);
    expect(all.find((r) => r.id === quiet)).toMatchObject(none);
  });
});
