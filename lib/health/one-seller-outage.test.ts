/** One seller down on five host names of one server gets its down samples while a reference answers (docs/ARCHITECTURE.md). */
import { freePort, listenHttp, type LocalServer } from "@/test/net-servers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { fixtureListings, startFixtureSellers, type FixtureServer } from "@/sellers";
import { writeListing } from "@/lib/listings/save";
import { createTestOrganization } from "@/test/ledger";
import { runHealthSweep } from "./sweep-health";

let t: TestDatabase;
let honest: FixtureServer;
let reference: LocalServer;
const deadPorts: number[] = [];
const sellerIds: string[] = [];

beforeAll(async () => {
  t = await createTestDatabase();
  honest = await startFixtureSellers({ port: 0 });
  reference = await listenHttp((_req, res) => res.writeHead(204).end());
  const doc = fixtureListings("http://127.0.0.1:1")["agent-verdict"];
  // One other seller, up.
  await writeListing({ ...fixtureListings(honest.url)["agent-verdict"], slug: "honest" }, { organizationId: await createTestOrganization(t.prisma, "Honest"), publicationState: "published" });
  // The attacker: one organisation, five listings on five host names of its one server, which is down.
  const attacker = await createTestOrganization(t.prisma, "One server, five names");
  for (let i = 0; i < 5; i++) {
    deadPorts.push(await freePort());
    sellerIds.push((await writeListing({ ...doc, slug: `name-${i}`, baseUrl: `http://127.0.0.1:${deadPorts[i]}/agent-verdict` }, { organizationId: attacker, publicationState: "published" })).id);
  }
});
afterAll(async () => {
  await reference?.close();
  await honest?.close();
  await t?.close();
});

describe("one seller's own outage read as the monitor's", () => {
  it("a single seller down on five host names gets its down samples, since another seller and the reference answer", async () => {
    const allowHosts = [new URL(honest.url).host, ...deadPorts.map((p) => `127.0.0.1:${p}`)];
    const r = await runHealthSweep({ allowHosts, deadlineMs: 2_000, references: [`http://127.0.0.1:${reference.port}/`] });
    // Before: { up: 1, down: 0, unmeasured: 5 }: the seller's downtime was never written.
    expect(r).toMatchObject({ up: 1, down: 5, unmeasured: 0 });
    expect(await t.prisma.healthSample.count({ where: { listingId: { in: sellerIds }, outcome: "down" } })).toBe(5);
  });
});
