import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { createTestListing } from "@/test/ledger";
import { recordPayment } from "@/lib/ledger/record";
import { runRankSweep } from "@/lib/rank/sweep-ranks";
import { computeRank } from "@/lib/rank/score";
import { rankInputsFor } from "@/lib/rank/inputs";
import { adminDesk, adminListing } from "./admin";

let t: TestDatabase;
let moderator: string, listing: string;
const NOW = new Date("2026-12-02T12:00:00.000Z");

beforeAll(async () => {
  t = await createTestDatabase();
  moderator = (await t.prisma.user.create({ data: { name: "Mod", role: "moderator" } })).id;
  listing = await createTestListing(t.prisma, { featuredLevel: 2 });
  for (let i = 1; i <= 3; i++) {
    await recordPayment({ listingId: listing, payer: `0x${i.toString(16).padStart(40, "0")}`, status: "settled", advertisedAmount: "10000", settledAmount: "9800", asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", network: "eip155:8453", at: new Date(NOW.getTime() - i * 3_600_000) });
  }
  await runRankSweep({ now: NOW });
});
afterAll(async () => {
  await t?.close();
});

describe("the moderators' desk reads the rank from listing_ranks", () => {
  it("shows a ranked listing's scores and every component with the reason and facts computeRank gives", async () => {
    const expected = computeRank((await rankInputsFor([listing], NOW)).get(listing)!);
    const d = await adminListing(moderator, listing);
    expect(d.listing).toMatchObject({ qualityScore: expected.quality, rankScore: expected.rank });
    expect(d.listing.rankedAt?.toISOString()).toBe(NOW.toISOString());
    expect(d.components.map((c) => c.key)).toEqual(["gate", "liveness", "traction", "priceIntegrity", "featured", "verification"]);
    for (const c of d.components) {
      const want = expected.components[c.key as keyof typeof expected.components];
      expect(c).toEqual(JSON.parse(JSON.stringify({ key: c.key, value: want.value, reason: want.reason, facts: want.facts })));
    }
  });

  it("shows the listing's ledger newest first, with the chain's facts and the decimals to read its amounts in", async () => {
    const d = await adminListing(moderator, listing);
    expect(d.ledgerCounts).toEqual({ settled: 3 });
    expect(d.ledger.map((r) => r.payer)).toEqual(["0x0000000000000000000000000000000000000001", "0x0000000000000000000000000000000000000002", "0x0000000000000000000000000000000000000003"]);
    expect(d.ledger[0]).toMatchObject({ status: "settled", advertisedAmount: "10000", decimals: 6, transactionId: null, blockNumber: null });
  });

  it("counts a corrected row as its correction, marking both in the ledger it shows", async () => {
    const { correctPayment } = await import("@/lib/ledger/correct");
    const other = await createTestListing(t.prisma);
    const paid = await recordPayment({ listingId: other, payer: "0x00000000000000000000000000000000000000d1", status: "settled", advertisedAmount: "10000", settledAmount: "10000", asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", network: "eip155:8453", at: NOW });
    const fix = await correctPayment(paid.id, { status: "failed", reason: "unproven" });
    const d = await adminListing(moderator, other);
    expect(d.ledgerCounts).toEqual({ failed: 1 });
    expect(d.ledger.find((r) => r.id === fix.id)).toMatchObject({ correctsId: paid.id, correctedBy: null, status: "failed" });
    expect(d.ledger.find((r) => r.id === paid.id)).toMatchObject({ correctsId: null, correctedBy: fix.id, status: "settled" });
  });

  it("leaves a deleted listing (its tombstone) out of the desk, and finds it no more", async () => {
    const gone = await createTestListing(t.prisma);
    await t.prisma.listing.update({ where: { id: gone }, data: { publicationState: "archived", deletedAt: NOW } });
    expect((await adminDesk(moderator)).listings.map((l) => l.id)).not.toContain(gone);
    await expect(adminListing(moderator, gone)).rejects.toMatchObject({ code: "not_found" });
  });

  it("lists every listing with its scores; an unranked one reads null", async () => {
    const fresh = await createTestListing(t.prisma);
    const desk = await adminDesk(moderator);
    const ranked = desk.listings.find((l) => l.id === listing)!;
    expect(typeof ranked.rankScore).toBe("number");
    expect(desk.listings.find((l) => l.id === fresh)).toMatchObject({ qualityScore: null, rankScore: null });
  });
});

describe("who may read the moderators' desk", () => {
  it("refuses a seller, an unknown user and no user; serves a moderator and an admin", async () => {
    const seller = await t.prisma.user.create({ data: { name: "S", role: "seller" } });
    const admin = await t.prisma.user.create({ data: { name: "A", role: "admin" } });
    await expect(adminDesk(seller.id)).rejects.toMatchObject({ code: "forbidden", status: 403 });
    await expect(adminDesk("no-such-user")).rejects.toMatchObject({ code: "unauthorized" });
    await expect(adminDesk(null)).rejects.toMatchObject({ code: "unauthorized" });
    await expect(adminDesk(moderator)).resolves.toHaveProperty("counts");
    await expect(adminDesk(admin.id)).resolves.toHaveProperty("listings");
  });

  it("reads the role fresh: a demoted moderator is refused at once", async () => {
    const m = await t.prisma.user.create({ data: { name: "M2", role: "moderator" } });
    await adminDesk(m.id);
    await t.prisma.user.update({ where: { id: m.id }, data: { role: "seller" } });
    await expect(adminDesk(m.id)).rejects.toMatchObject({ code: "forbidden" });
  });
});
