/** One seller on five host names that do not resolve (NXDOMAIN), with the operator's IP-literal reference answering. */
import dns from "node:dns";
import { listenHttp, type LocalServer } from "@/test/net-servers";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { fixtureListings, startFixtureSellers, type FixtureServer } from "@/sellers";
import { writeListing } from "@/lib/listings/save";
import { createTestOrganization } from "@/test/ledger";
import { runHealthSweep } from "./sweep-health";

let t: TestDatabase;
let honest: FixtureServer;
let reference: LocalServer;
const names = Array.from({ length: 5 }, (_, i) => `gone-${i}.example`);
const sellerIds: string[] = [];

beforeAll(async () => {
  t = await createTestDatabase();
  honest = await startFixtureSellers({ port: 0 });
  reference = await listenHttp((_req, res) => res.writeHead(204).end());
  await writeListing({ ...fixtureListings(honest.url)["agent-verdict"], slug: "honest" }, { organizationId: await createTestOrganization(t.prisma, "Honest"), publicationState: "published" });
  const attacker = await createTestOrganization(t.prisma, "Five names, no DNS");
  for (const [i, n] of names.entries()) {
    const doc = fixtureListings(`http://${n}:8080`)["agent-verdict"];
    sellerIds.push((await writeListing({ ...doc, slug: `gone-${i}` }, { organizationId: attacker, publicationState: "published" })).id);
  }
});
afterAll(async () => {
  vi.restoreAllMocks();
  await reference?.close();
  await honest?.close();
  await t?.close();
});

describe("a seller's own NXDOMAIN on five names", () => {
  it("is written down while another seller and the operator's (IP) reference answer", async () => {
    // Our resolver works: it answers NXDOMAIN for the seller's names only.
    vi.spyOn(dns.promises, "lookup").mockImplementation((async (host: string) => {
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
    }) as unknown as typeof dns.promises.lookup);
    const allowHosts = [new URL(honest.url).host, ...names.map((n) => `${n}:8080`)];
    const r = await runHealthSweep({ allowHosts, deadlineMs: 2_000, references: [`http://127.0.0.1:${reference.port}/`] });
    // NXDOMAIN is a working resolver's definite answer: the seller's failure, not our outage.
    expect(r).toMatchObject({ up: 1, down: 5, unmeasured: 0 });
  });
});
