import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queueDemoAnalyses, seedDemo, SHAPES } from "@/demo/seed-demo";
import { seedDemoHistory } from "@/demo/seed-history";
import { createTestDatabase, type TestDatabase } from "@/test/db";

// The fixture sellers' origin used below is on the probe's allow-list, as npm run demo arranges.
process.env.TOLLGATE_PROBE_ALLOW_HOSTS = "127.0.0.1:4020";

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(() => t.close());

async function counts() {
  const [listings, endpoints, results, users, orgs, payments, samples] = await Promise.all([
    t.prisma.listing.count(),
    t.prisma.endpoint.count(),
    t.prisma.readinessResult.count(),
    t.prisma.user.count(),
    t.prisma.organization.count(),
    t.prisma.routerPayment.count(),
    t.prisma.healthSample.count(),
  ]);
  return { listings, endpoints, results, users, orgs, payments, samples };
}

describe("demo seed", () => {
  it("publishes the scoring-system listing shapes at their readiness, imports both seed products, and is idempotent", async () => {
    const first = await seedDemo(t.prisma, { sellersOrigin: "http://127.0.0.1:4020" });
    await seedDemoHistory(t.prisma, first);
    const after1 = await counts();
    const totals: Record<string, number> = {};
    for (const shape of SHAPES) {
      const l = await t.prisma.listing.findUniqueOrThrow({ where: { id: first.listingIdsByShape[shape.key] }, include: { currentResult: true } });
      expect(l.publicationState).toBe("published");
      expect(l.demo).toBe(true);
      totals[shape.key] = l.currentResult!.total;
    }
    expect(totals).toEqual({ "mature-and-honest": 96, "popular-but-thin": 57, "well-built-brand-new": 87, "trafficked-but-unpayable": 39 });
    expect(Object.keys(first.productListingIds)).toHaveLength(2);
    expect(after1.users).toBe(4);

    const second = await seedDemo(t.prisma, { sellersOrigin: "http://127.0.0.1:4020" });
    await seedDemoHistory(t.prisma, second);
    expect(second).toEqual(first);
    expect(await counts()).toEqual(after1);
  });

  it("gives the demo's own shape listings the seed table's quality and rank (×100)", async () => {
    const { rankForListing } = await import("@/lib/rank/inputs");
    const seeded = await seedDemo(t.prisma, { sellersOrigin: "http://127.0.0.1:4020" });
    await seedDemoHistory(t.prisma, seeded);
    const got: Record<string, [number, number]> = {};
    for (const [shape, id] of Object.entries(seeded.listingIdsByShape)) {
      const r = await rankForListing(id);
      got[shape] = [r!.quality100, r!.rank100];
    }
    // docs/spec/scoring-system.md "Both scores on real shapes": 92/92, 95/81, 37/47 (featured 5), 13/6.
    expect(got).toEqual({
      "mature-and-honest": [92, 92],
      "popular-but-thin": [95, 81],
      "well-built-brand-new": [37, 47],
      "trafficked-but-unpayable": [13, 6],
    });
  });

  it("queues one analysis per unscored fixture-seller listing, and no second one on a re-run", async () => {
    const seeded = await seedDemo(t.prisma, { sellersOrigin: "http://127.0.0.1:4020" });
    const first = await queueDemoAnalyses(t.prisma, seeded);
    expect(first).toHaveLength(Object.keys(seeded.fixtureListingIds).length);
    const again = await queueDemoAnalyses(t.prisma, seeded);
    expect(again.sort()).toEqual([...first].sort());
    expect(await t.prisma.analysis.count({ where: { listingId: { in: Object.values(seeded.fixtureListingIds) } } })).toBe(first.length);
  });

  it("moves the fixture sellers' base URL when their port changes", async () => {
    const seeded = await seedDemo(t.prisma, { sellersOrigin: "http://127.0.0.1:4999" });
    const l = await t.prisma.listing.findUniqueOrThrow({ where: { id: seeded.fixtureListingIds["agent-verdict"] } });
    expect(l.baseUrl.startsWith("http://127.0.0.1:4999")).toBe(true);
  });
});
