/** Our resolver sinkholing every host (DNS64, 0.0.0.0) is our outage, not every seller down (docs/ARCHITECTURE.md). */
import dns from "node:dns";
import { listenHttp, type LocalServer } from "@/test/net-servers";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { fixtureListings, startFixtureSellers, type FixtureServer } from "@/sellers";
import { writeListing } from "@/lib/listings/save";
import { createTestOrganization } from "@/test/ledger";
import { runHealthSweep } from "./sweep-health";

let t: TestDatabase;
let server: FixtureServer;
let reference: LocalServer;
let port: string;
const ids: string[] = [];
const names = (n: number) => Array.from({ length: n }, (_, i) => `seller-${i}.example`);

beforeAll(async () => {
  t = await createTestDatabase();
  server = await startFixtureSellers({ port: 0 });
  reference = await listenHttp((_req, res) => res.writeHead(204).end());
  port = new URL(server.url).port;
  // Five sellers, five organisations, five host names; every one serves a valid challenge.
  for (const [i, name] of names(5).entries()) {
    const doc = fixtureListings(`http://${name}:${port}`)["agent-verdict"];
    ids.push((await writeListing({ ...doc, slug: `s-${i}` }, { organizationId: await createTestOrganization(t.prisma, `Seller ${i}`), publicationState: "published" })).id);
  }
});
afterEach(() => vi.restoreAllMocks());
afterAll(async () => {
  await reference?.close();
  await server?.close();
  await t?.close();
});

const allowHosts = () => names(5).map((n) => `${n}:${port}`);
const minutes = (m: number) => new Date(Date.now() + m * 60_000);
const resolveTo = (answer: () => Promise<Array<{ address: string; family: number }>>) =>
  vi.spyOn(dns.promises, "lookup").mockImplementation((async () => answer()) as unknown as typeof dns.promises.lookup);

describe("our resolver's outage is not the sellers' downtime", () => {
  it("control: our resolver answering, every seller is up", async () => {
    resolveTo(async () => [{ address: "127.0.0.1", family: 4 }]);
    expect(await runHealthSweep({ allowHosts: allowHosts(), deadlineMs: 3_000, now: minutes(10) })).toMatchObject({ up: 5, down: 0 });
  });

  it("(a) our resolver answers every host with a synthesised (DNS64) address: no seller is written down", async () => {
    resolveTo(async () => [{ address: "64:ff9b::7f00:1", family: 6 }]);
    const r = await runHealthSweep({ allowHosts: allowHosts(), deadlineMs: 3_000, now: minutes(20) });
    // Before: { probed: 5, refused: 5, down: 5, unmeasured: 0 } and all five listings `unavailable`.
    expect(r).toMatchObject({ down: 0, unmeasured: 5 });
    expect(await t.prisma.listing.count({ where: { id: { in: ids }, healthStatus: "unavailable" } })).toBe(0);
  });

  const failing = (code: string) => Object.assign(new Error(`queryA ${code}`), { code });

  it("(b) our resolver times out for every host while a reference by IP address answers: the reference says nothing of the resolver, no seller is written down", async () => {
    resolveTo(async () => {
      throw failing("ETIMEOUT");
    });
    const r = await runHealthSweep({ allowHosts: allowHosts(), deadlineMs: 3_000, now: minutes(30), references: [`http://127.0.0.1:${reference.port}/`] });
    // Before: the answering reference overruled the share, { down: 5 }, every listing `unavailable`.
    expect(r).toMatchObject({ down: 0, unmeasured: 5 });
    expect(await t.prisma.listing.count({ where: { id: { in: ids }, healthStatus: "unavailable" } })).toBe(0);
  });

  it("(c) our resolver names the reference but not the sellers' hosts: their DNS failed, and they are down", async () => {
    vi.spyOn(dns.promises, "lookup").mockImplementation((async (host: string) => {
      if (host === "reference.test") return [{ address: "127.0.0.1", family: 4 }];
      throw failing("ESERVFAIL");
    }) as unknown as typeof dns.promises.lookup);
    const r = await runHealthSweep({ allowHosts: allowHosts(), deadlineMs: 3_000, now: minutes(40), references: [`http://reference.test:${reference.port}/`] });
    expect(r).toMatchObject({ down: 5, unmeasured: 0 });
  });
});
