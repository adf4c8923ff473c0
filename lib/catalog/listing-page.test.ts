import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { createTestListing } from "@/test/ledger";
import { listingPageFacts } from "./listing-page";

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => {
  await t?.close();
});

const NOW = new Date("2026-12-03T12:00:00.000Z");
const ago = (ms: number) => new Date(NOW.getTime() - ms);
const H = 3600_000;
const D = 24 * H;

async function sample(listingId: string, at: Date, outcome: "up" | "down", latencyMs: number | null, httpStatus = 402) {
  await t.prisma.healthSample.create({ data: { listingId, at, outcome, latencyMs, httpStatus, confidence: outcome === "up" ? 1 : 0, vantage: "test" } });
}
async function payment(listingId: string, payer: string, status: "settled" | "failed", at = ago(D), house = false) {
  await t.prisma.routerPayment.create({
    data: { payer, listingId, advertisedAmount: "10000", settledAmount: status === "settled" ? "10000" : null, asset: "USDC", network: "eip155:8453", status, createdAt: at, house },
  });
}

describe("listingPageFacts", () => {
  it("buckets the monitor's samples by day over 30 days: uptime share and the median latency of the up answers", async () => {
    const id = await createTestListing(t.prisma);
    // Day −3: three up (100, 200, 900 ms) and one down; day −1: two up (50, 70); 31 days ago: outside the window.
    for (const [h, o, ms] of [[1, "up", 100], [2, "up", 200], [3, "up", 900], [4, "down", null]] as const) await sample(id, new Date(Date.parse("2026-11-30T00:00:00Z") + h * H), o, ms);
    await sample(id, new Date("2026-12-02T05:00:00Z"), "up", 50);
    await sample(id, new Date("2026-12-02T06:00:00Z"), "up", 70);
    await sample(id, ago(31 * D), "down", null);
    const f = await listingPageFacts(id, NOW);
    expect(f.health.granularity).toBe("day");
    expect(f.health.buckets).toEqual([
      { at: "2026-11-30T00:00:00Z", samples: 4, up: 3, uptimePct: 75, latencyMs: 200 },
      { at: "2026-12-02T00:00:00Z", samples: 2, up: 2, uptimePct: 100, latencyMs: 60 },
    ]);
    expect(f.health.samples).toBe(6);
    expect(f.health.uptimePct).toBe(83.3);
    expect(f.health.lastProbe).toEqual({ at: "2026-12-02T06:00:00.000Z", outcome: "up", latencyMs: 70, httpStatus: 402 });
  });

  it("uses hourly buckets while the history is younger than two days; nothing measured is null, not 0 %", async () => {
    const id = await createTestListing(t.prisma);
    await sample(id, ago(3 * H), "up", 120);
    await sample(id, ago(2 * H), "down", 5000, 503);
    await sample(id, ago(1 * H), "up", 80);
    const f = await listingPageFacts(id, NOW);
    expect(f.health.granularity).toBe("hour");
    expect(f.health.buckets.map((b) => [b.at, b.samples, b.uptimePct, b.latencyMs])).toEqual([
      ["2026-12-03T09:00:00Z", 1, 100, 120],
      ["2026-12-03T10:00:00Z", 1, 0, null],
      ["2026-12-03T11:00:00Z", 1, 100, 80],
    ]);
    const none = await listingPageFacts(await createTestListing(t.prisma), NOW);
    expect(none.health).toEqual({ granularity: "day", buckets: [], samples: 0, uptimePct: null, lastProbe: null });
  });

  it("shows activity only at the 2-payer floor, counting as rank does (no house wallet, 30 days)", async () => {
    const id = await createTestListing(t.prisma);
    const a = "0x" + "a".repeat(40);
    const b = "0x" + "b".repeat(40);
    await payment(id, a, "settled");
    await payment(id, a, "settled", ago(2 * D));
    await payment(id, "0x" + "c".repeat(40), "settled", ago(D), true); // house: no buyer
    await payment(id, b, "settled", ago(40 * D)); // outside the window
    await payment(id, b, "failed");
    // One paying wallet: below the floor, the numbers are not shown.
    expect((await listingPageFacts(id, NOW)).activity).toEqual({ shown: false, floor: 2 });
    await payment(id, b, "settled", ago(3 * H));
    expect((await listingPageFacts(id, NOW)).activity).toEqual({ shown: true, distinctPayers30d: 2, settled30d: 3, floor: 2 });
  });

  it("gives each endpoint its latest quote in whole units with the endpoint's decimals, with its time and network", async () => {
    const id = await createTestListing(t.prisma, { endpoints: [{ path: "/a", priceDecimals: 6 }, { path: "/b", method: "GET", priceDecimals: null }] });
    const eps = await t.prisma.endpoint.findMany({ where: { listingId: id }, orderBy: { position: "asc" } });
    const quote = (endpointId: string, amount: string, quotedAt: Date) =>
      t.prisma.priceQuote.create({ data: { listingId: id, endpointId, amount, asset: "0xusdc", network: "eip155:8453", quotedAt, source: "test" } });
    await quote(eps[0]!.id, "40000", ago(2 * D));
    await quote(eps[0]!.id, "45000", ago(H));
    await quote(eps[1]!.id, "1500", ago(40 * D));
    await quote(eps[1]!.id, "9", new Date(NOW.getTime() + H)); // after now: not seen yet
    const f = await listingPageFacts(id, NOW);
    expect(f.quotes).toEqual({
      "POST /a": { method: "POST", path: "/a", amount: "0.045", asset: "0xusdc", network: "eip155:8453", quotedAt: ago(H).toISOString() },
      "GET /b": { method: "GET", path: "/b", amount: "0.0015", asset: "0xusdc", network: "eip155:8453", quotedAt: ago(40 * D).toISOString() },
    });
  });
});
