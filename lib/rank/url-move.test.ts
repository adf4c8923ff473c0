/** A listing moved to another server keeps none of the old server's health samples (docs/RANK.md "Liveness"). */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { fixtureListings } from "@/sellers";
import { writeListing } from "@/lib/listings/save";
import { recordHealthSample } from "@/lib/ledger/record";
import { HEALTH_CONFIDENCE } from "@/lib/scoring/signals";
import { createTestOrganization } from "@/test/ledger";
import { ledgerFactsForScoring } from "@/lib/facts/aggregate";
import { rankForListing } from "./inputs";

let t: TestDatabase;
let org: string;
const HOUR = 3_600_000;
// The save runs on the real clock; the facts are read three hours later.
const NOW = new Date(Date.now() + 3 * HOUR);
const ago = (ms: number) => new Date(NOW.getTime() - ms);

beforeAll(async () => {
  t = await createTestDatabase();
  org = await createTestOrganization(t.prisma);
});
afterAll(async () => {
  await t?.close();
});

async function goodHistory(listingId: string) {
  // A week of hourly samples of the OLD server, every one up with a valid challenge.
  for (let h = 4; h < 7 * 24; h++) {
    await recordHealthSample({ listingId, at: ago(h * HOUR), outcome: "up", confidence: HEALTH_CONFIDENCE.validChallenge, vantage: "local" });
  }
}

describe("a listing moved to another server", () => {
  it("keeps none of the old server's uptime, status or confidence in rank's Liveness", async () => {
    const doc = fixtureListings("https://old-server.example")["agent-verdict"];
    const { id } = await writeListing({ ...doc, slug: "moved" }, { organizationId: org, publicationState: "published" });
    await goodHistory(id);
    await t.prisma.listing.update({ where: { id }, data: { healthStatus: "operational" } });

    const before = (await rankForListing(id, NOW))!;
    expect(before.inputs.monitor.uptime7d).toBe(100);

    // The seller points the listing at another server (saved now, on the real clock = NOW - 3 h).
    await writeListing({ ...doc, slug: "moved", baseUrl: "https://new-server.example/agent-verdict" }, { organizationId: org, listingId: id });

    // Nothing has been measured of the new server yet: the old server's week must not stand for it.
    const moved = (await rankForListing(id, NOW))!;
    expect(moved.inputs.monitor.uptime7d, "old server's 7-day uptime counted for the new server").toBeNull();
    expect(moved.inputs.monitor.uptime30d).toBeNull();
    expect(moved.inputs.monitor.healthStatus, "old server's health status stands for the new one").toBe("unverified");

    // The new server, sampled every 5 minutes for two hours: up half the time.
    for (let i = 0; i < 24; i++) {
      const up = i % 2 === 0;
      await recordHealthSample({
        listingId: id,
        at: ago(i * 5 * 60_000),
        outcome: up ? "up" : "down",
        confidence: up ? HEALTH_CONFIDENCE.validChallenge : HEALTH_CONFIDENCE.noAnswer,
        vantage: "local",
      });
    }
    const after = (await rankForListing(id, NOW))!;
    // Today: (160 old ups + 12 new ups) / 188 = 91.5 %, so Liveness 0.915 for a server that answers half the time.
    expect(after.inputs.monitor.uptime7d).toBe(50);
    expect(after.components.liveness.value).toBe(0.5);
    // Readiness's H2 reads the very same facts.
    const readiness = await ledgerFactsForScoring(t.prisma, id, NOW);
    expect(readiness.liveness.uptime7d).toBe(50);
  });

  it("an edit on the same server keeps the history (a title, an endpoint at another path); the same host written another way is not a move", async () => {
    const doc = fixtureListings("https://same-server.example")["agent-verdict"];
    const { id } = await writeListing({ ...doc, slug: "edited" }, { organizationId: org, publicationState: "published" });
    await goodHistory(id);
    await writeListing({ ...doc, slug: "edited", title: `${doc.title} (renamed)` }, { organizationId: org, listingId: id });
    expect((await rankForListing(id, NOW))!.inputs.monitor.uptime7d).toBe(100);
    const [first] = doc.endpoints;
    await writeListing({ ...doc, slug: "edited", endpoints: [{ ...first, path: "/somewhere-else" }] }, { organizationId: org, listingId: id });
    expect((await rankForListing(id, NOW))!.inputs.monitor.uptime7d).toBe(100);
    await writeListing({ ...doc, slug: "edited", baseUrl: "HTTPS://Same-Server.example:443/v2" }, { organizationId: org, listingId: id });
    expect((await rankForListing(id, NOW))!.inputs.monitor.uptime7d).toBe(100);
    // Another port is another server.
    await writeListing({ ...doc, slug: "edited", baseUrl: "https://same-server.example:8443" }, { organizationId: org, listingId: id });
    expect((await rankForListing(id, NOW))!.inputs.monitor.uptime7d).toBeNull();
  });
});
