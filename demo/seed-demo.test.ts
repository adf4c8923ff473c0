import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queueDemoAnalyses, seedDemo, SHAPES } from "@/demo/seed-demo";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { readListingTrust } from "@/lib/catalog/trust";

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
    // The seed products as their sellers finish them: real titles, summaries, categories and seller names.
    const products = await t.prisma.listing.findMany({ where: { id: { in: Object.values(first.productListingIds) } }, include: { organization: true }, orderBy: { title: "asc" } });
    expect(products.map((p) => [p.title, p.category, p.organization.name])).toEqual([
      ["Agent Verdict: did the work meet your criteria?", "agent-verification", "Arbiter"],
      ["Validity Check: is this x402 payment safe to sign?", "payments", "Validity Check"],
    ]);
    // The faulty fixture seller is listed under a service's name; a buyer learns it is faulty from the checks.
    const fixture = await t.prisma.listing.findUniqueOrThrow({ where: { id: first.fixtureListingIds["no-challenge"] } });
    expect(`${fixture.title} ${fixture.description}`).not.toMatch(/fixture/i);
    for (const p of products) {
      expect(p.shortDescription!.length).toBeGreaterThan(40);
      expect(`${p.title} ${p.shortDescription} ${p.description} ${p.organization.name}`).not.toMatch(/seed\s*0\d\d/i);
    }
    expect(after1.users).toBe(4);

    // The ledger and the monitor's samples are the router's and the monitor's alone (demo/market.ts).
    expect(after1.payments).toBe(0);
    expect(after1.samples).toBe(0);

    const second = await seedDemo(t.prisma, { sellersOrigin: "http://127.0.0.1:4020" });
    expect(second).toEqual(first);
    expect(await counts()).toEqual(after1);
  });

  it("queues one analysis per unscored fixture-seller listing, and no second one on a re-run", async () => {
    const seeded = await seedDemo(t.prisma, { sellersOrigin: "http://127.0.0.1:4020" });
    const first = await queueDemoAnalyses(t.prisma, seeded);
    expect(first).toHaveLength(Object.keys(seeded.fixtureListingIds).length);
    const again = await queueDemoAnalyses(t.prisma, seeded);
    expect(again.sort()).toEqual([...first].sort());
    expect(await t.prisma.analysis.count({ where: { listingId: { in: Object.values(seeded.fixtureListingIds) } } })).toBe(first.length);
  });

  it("lists the faulty fixture seller on the demo's own chain, not the fixture's Base", async () => {
    const seeded = await seedDemo(t.prisma, { sellersOrigin: "http://127.0.0.1:4020" });
    const l = await t.prisma.listing.findUniqueOrThrow({ where: { id: seeded.fixtureListingIds["no-challenge"] } });
    expect(l.networks).toEqual(["eip155:31337"]);
    expect(l.networkRequirements).toMatch(/local chain \(eip155:31337\)/);
  });

  it("moves the fixture sellers' base URL when their port changes", async () => {
    const seeded = await seedDemo(t.prisma, { sellersOrigin: "http://127.0.0.1:4999" });
    const l = await t.prisma.listing.findUniqueOrThrow({ where: { id: seeded.fixtureListingIds["no-challenge"] } });
    expect(l.baseUrl.startsWith("http://127.0.0.1:4999")).toBe(true);
  });

  it("lists anew, under a free slug, a demo listing deleted in the demo: its tombstone stays as it was", async () => {
    const seeded = await seedDemo(t.prisma, { sellersOrigin: "http://127.0.0.1:4020" });
    const old = await t.prisma.listing.findUniqueOrThrow({ where: { id: seeded.fixtureListingIds["no-challenge"] } });
    await t.prisma.listing.update({ where: { id: old.id }, data: { publicationState: "archived", deletedAt: new Date() } });
    const again = await seedDemo(t.prisma, { sellersOrigin: "http://127.0.0.1:4020" });
    const fresh = await t.prisma.listing.findUniqueOrThrow({ where: { id: again.fixtureListingIds["no-challenge"] } });
    expect(fresh.id).not.toBe(old.id);
    expect(fresh).toMatchObject({ publicationState: "published", deletedAt: null, source: old.source });
    expect(fresh.slug).not.toBe(old.slug);
    expect(await t.prisma.listing.findUniqueOrThrow({ where: { id: old.id } })).toMatchObject({ publicationState: "archived", slug: old.slug });
  });

  it("archives a fixture listing an older demo published and this one no longer lists", async () => {
    const seeded = await seedDemo(t.prisma, { sellersOrigin: "http://127.0.0.1:4020" });
    const old = await t.prisma.listing.findUniqueOrThrow({ where: { id: seeded.fixtureListingIds["no-challenge"] } });
    await t.prisma.listing.update({ where: { id: old.id }, data: { source: "fixture:agent-verdict" } });
    await seedDemo(t.prisma, { sellersOrigin: "http://127.0.0.1:4020" });
    expect((await t.prisma.listing.findUniqueOrThrow({ where: { id: old.id } })).publicationState).toBe("archived");
  });

  it("fabricates no trust history, and every endpoint of every published listing still reads a trust verdict (insufficient evidence until probes and canary samples come)", async () => {
    await seedDemo(t.prisma, { sellersOrigin: "http://127.0.0.1:4020" });
    // Trust observations come only from the monitor's probes, analyses and canary samples.
    expect(await t.prisma.trustObservation.count()).toBe(0);
    const published = await t.prisma.listing.findMany({ where: { publicationState: "published" }, include: { endpoints: { orderBy: { position: "asc" } } } });
    expect(published.length).toBeGreaterThanOrEqual(SHAPES.length + 3);
    for (const l of published) {
      const trust = await readListingTrust(t.prisma, l.id);
      expect(trust.map((e) => e.endpointId), l.title).toEqual(l.endpoints.map((e) => e.id));
      for (const e of trust) {
        expect(e).toMatchObject({ verdict: "insufficient_evidence", probes: 0, grade: null, lastPaidAt: null });
        expect(e.verdictBecause.length).toBeGreaterThan(0);
        expect(e.value.samples).toBe(0);
      }
    }
  });
});
