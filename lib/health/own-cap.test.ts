/**
 * The monitor's own connection caps are never a seller's downtime (lib/health/sweep-health.ts): a call our caps
 * refuse sends nothing, so the listing gets no sample (`unmeasured`) and is sampled at the next sweep. Before, the
 * refusal was a probe with no answer: a `down` sample with no-answer confidence, and the listing `unavailable`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { fixtureListings, startFixtureSellers, type FixtureServer } from "@/sellers";
import { writeListing } from "@/lib/listings/save";
import { configureConnectionLimits } from "@/lib/net/connection-limits";
import { createTestOrganization } from "@/test/ledger";
import { runHealthSweep } from "./sweep-health";

let t: TestDatabase;
let server: FixtureServer;
let id: string;

beforeAll(async () => {
  t = await createTestDatabase();
  server = await startFixtureSellers({ port: 0 });
  const docs = fixtureListings(server.url);
  id = (await writeListing(docs["agent-verdict"], { organizationId: await createTestOrganization(t.prisma), publicationState: "published" })).id;
});
afterAll(async () => {
  configureConnectionLimits();
  await server?.close();
  await t?.close();
});

describe("the monitor at its own connection cap", () => {
  it("records no sample for the seller, and samples it once the cap frees", async () => {
    const allowHosts = [new URL(server.url).host];
    configureConnectionLimits({ total: 0, perHost: 0, maxQueued: 0 });
    try {
      expect(await runHealthSweep({ allowHosts, deadlineMs: 3_000 })).toMatchObject({ probed: 0, unmeasured: 1, down: 0 });
    } finally {
      configureConnectionLimits();
    }
    expect(await t.prisma.healthSample.count({ where: { listingId: id } })).toBe(0);
    expect((await t.prisma.listing.findUniqueOrThrow({ where: { id } })).healthStatus).not.toBe("unavailable");
    expect(await runHealthSweep({ allowHosts, deadlineMs: 3_000 })).toMatchObject({ probed: 1, up: 1 });
    expect(await t.prisma.healthSample.findMany({ where: { listingId: id } })).toMatchObject([{ outcome: "up" }]);
  });
});
