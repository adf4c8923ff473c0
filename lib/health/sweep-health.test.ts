import { freePort } from "@/test/net-servers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, testDatabaseUrl, type TestDatabase } from "@/test/db";
import { fixtureListings, startFixtureSellers, type FixtureServer } from "@/sellers";
import { writeListing } from "@/lib/listings/save";
import type { EndpointEvidence } from "@/lib/probe";
import { HEALTH_CONFIDENCE } from "@/lib/scoring/signals";
import { egressOutage, endpointConfidence, HEALTH_SWEEP_LOCK_KEY, readingFromEvidence, runHealthSweep } from "./sweep-health";
import { createTestOrganization } from "@/test/ledger";

let t: TestDatabase;
let server: FixtureServer;
let deadPort: number;
const ids: Record<string, string> = {};

beforeAll(async () => {
  t = await createTestDatabase();
  server = await startFixtureSellers({ port: 0 });
  deadPort = await freePort();
  const docs = fixtureListings(server.url);
  const org = await createTestOrganization(t.prisma);
  for (const slug of ["agent-verdict", "no-challenge", "server-error"]) {
    ids[slug] = (await writeListing(docs[slug], { organizationId: org, publicationState: "published" })).id;
  }
  ids.dead = (await writeListing({ ...docs["agent-verdict"], slug: "dead", baseUrl: `http://127.0.0.1:${deadPort}/x` }, { organizationId: org, publicationState: "published" })).id;
  // Not on the allow list: the SSRF guard refuses loopback, so no request is made.
  ids.refused = (await writeListing({ ...docs["agent-verdict"], slug: "refused", baseUrl: "http://127.0.0.1:9/x" }, { organizationId: org, publicationState: "published" })).id;
  ids.draft = (await writeListing({ ...docs["agent-verdict"], slug: "draft" }, { organizationId: org, publicationState: "draft" })).id;
});
afterAll(async () => {
  await server?.close();
  await t?.close();
});

describe("runHealthSweep", () => {
  it("probes every published listing once and records outcome, latency and confidence", async () => {
    const allowHosts = [new URL(server.url).host, `127.0.0.1:${deadPort}`];
    const r = await runHealthSweep({ allowHosts, deadlineMs: 3_000, concurrency: 3 });
    expect(r).toMatchObject({ probed: 5, up: 1, down: 4, refused: 1 });
    const sample = async (id: string) => t.prisma.healthSample.findMany({ where: { listingId: id } });
    const [good] = await sample(ids["agent-verdict"]);
    expect(good).toMatchObject({ outcome: "up", confidence: HEALTH_CONFIDENCE.validChallenge, httpStatus: 402, challengeKind: "x402-v2" });
    expect(good.latencyMs).toBeGreaterThanOrEqual(0);
    expect((await sample(ids["no-challenge"]))[0]).toMatchObject({ outcome: "down", confidence: HEALTH_CONFIDENCE.otherAnswer, httpStatus: 200 });
    expect((await sample(ids["server-error"]))[0]).toMatchObject({ outcome: "down", confidence: HEALTH_CONFIDENCE.otherAnswer });
    expect((await sample(ids.dead))[0]).toMatchObject({ outcome: "down", confidence: HEALTH_CONFIDENCE.noAnswer, httpStatus: null });
    expect((await sample(ids.refused))[0]).toMatchObject({ outcome: "down", confidence: HEALTH_CONFIDENCE.noAnswer });
    expect(await sample(ids.draft)).toEqual([]);
    const status = await t.prisma.listing.findMany({ where: { id: { in: [ids["agent-verdict"], ids.dead] } }, select: { id: true, healthStatus: true } });
    expect(Object.fromEntries(status.map((s) => [s.id, s.healthStatus]))).toEqual({ [ids["agent-verdict"]]: "operational", [ids.dead]: "unavailable" });

    // The quote in the valid challenge is recorded, and not again while it is under a day old.
    const quotes = await t.prisma.priceQuote.findMany({ where: { listingId: ids["agent-verdict"] } });
    expect(quotes.length).toBeGreaterThanOrEqual(1);
    expect(quotes[0].amount).toMatch(/^\d+$/);
    expect(quotes[0].source).toBe("health-sweep:x402-v2");
    // A second sweep at once finds nothing due; the next interval's samples every listing again.
    expect(await runHealthSweep({ allowHosts, deadlineMs: 3_000 })).toMatchObject({ leader: true, probed: 0 });
    await runHealthSweep({ allowHosts, deadlineMs: 3_000, now: new Date(Date.now() + 5 * 60_000) });
    expect(await t.prisma.priceQuote.count({ where: { listingId: ids["agent-verdict"] } })).toBe(quotes.length);
    expect(await t.prisma.healthSample.count({ where: { listingId: ids["agent-verdict"] } })).toBe(2);
  });
});

describe("confidence from evidence", () => {
  const ev = (over: Partial<EndpointEvidence>): EndpointEvidence => ({
    method: "POST", path: "/x", url: "http://x/x", reachable: true, status: 402, ttfbMs: 5, tls: null, contentType: "application/json",
    headers: {}, challenge: { kind: "none", valid: false }, findings: [], ...over,
  });
  it.each([
    ["a valid challenge", ev({ challenge: { kind: "x402-v2", valid: true } }), 1],
    ["a structured 4xx without one", ev({ status: 400, contentType: "application/problem+json" }), 0.6],
    ["an invalid challenge in a JSON 402", ev({ challenge: { kind: "x402-v2", valid: false } }), 0.6],
    ["an HTML 404", ev({ status: 404, contentType: "text/html" }), 0.3],
    ["a 200", ev({ status: 200 }), 0.3],
    ["no answer", ev({ reachable: false, status: null }), 0],
  ])("%s", (_n, e, c) => expect(endpointConfidence(e)).toBe(c));

  it("a listing reads its best payable endpoint, not a free one", () => {
    const free = ev({ path: "/free", challenge: { kind: "x402-v2", valid: true } });
    const paid = ev({ path: "/paid", status: 500, contentType: "text/plain" });
    expect(readingFromEvidence([free, paid], (e) => e.path === "/paid")).toMatchObject({ outcome: "down", confidence: 0.3, httpStatus: 500 });
  });
});

describe("a sweep killed mid-run", () => {
  it("is resumed by the next sweeper: every listing sampled once, none twice, none lost", async () => {
    const allowHosts = [new URL(server.url).host, `127.0.0.1:${deadPort}`];
    const at = new Date(Date.now() + 60 * 60_000);
    const published = await t.prisma.listing.count({ where: { publicationState: "published" } });
    let seen = 0;
    const killed = runHealthSweep({ allowHosts, deadlineMs: 3_000, concurrency: 1, now: at, onListing: () => {
      if (++seen === 3) throw new Error("worker killed");
    } });
    await expect(killed).rejects.toThrow("worker killed");
    const inWindow = { at: { gte: at, lte: new Date(at.getTime() + 60_000) } };
    // A page is probed whole before it is written (the outage check reads it all): killed while probing, it wrote nothing.
    expect(await t.prisma.healthSample.count({ where: inWindow })).toBe(0);
    // Another worker's sweep, a few seconds on: it probes what the killed one left.
    const resumed = await runHealthSweep({ allowHosts, deadlineMs: 3_000, now: new Date(at.getTime() + 10_000) });
    expect(resumed).toMatchObject({ leader: true, probed: published });
    const perListing = await t.prisma.healthSample.groupBy({ by: ["listingId"], where: inWindow, _count: true });
    expect(perListing).toHaveLength(published);
    expect(perListing.every((g) => g._count === 1)).toBe(true);
  });

  it.runIf(!!testDatabaseUrl())("takes no turn while another sweeper holds the lock (server PostgreSQL: one session per worker)", async () => {
    const before = await t.prisma.healthSample.count();
    await t.session(async (conn) => {
      await conn.query("SELECT pg_advisory_lock($1, hashtext(current_schema()))", [HEALTH_SWEEP_LOCK_KEY]);
      try {
        const r = await runHealthSweep({ allowHosts: [new URL(server.url).host], now: new Date(Date.now() + 2 * 60 * 60_000) });
        expect(r).toMatchObject({ leader: false, probed: 0 });
      } finally {
        await conn.query("SELECT pg_advisory_unlock($1, hashtext(current_schema()))", [HEALTH_SWEEP_LOCK_KEY]);
      }
    });
    expect(await t.prisma.healthSample.count()).toBe(before);
  });
});

describe("health sweep in allow-list-only mode", () => {
  it("records nothing for a listing this deployment may not reach", async () => {
    const saved = process.env.TOLLGATE_NET_ALLOWLIST_ONLY;
    process.env.TOLLGATE_NET_ALLOWLIST_ONLY = "1";
    try {
      const org = await t.prisma.organization.create({ data: { slug: "far", name: "Far" } });
      const far = await t.prisma.listing.create({
        data: { slug: "far-away", title: "Far away API", baseUrl: "https://api.far-away.example", organizationId: org.id, publicationState: "published" },
      });
      const r = await runHealthSweep({ allowHosts: [] });
      expect(r.skipped).toBeGreaterThanOrEqual(1);
      expect(await t.prisma.healthSample.count({ where: { listingId: far.id } })).toBe(0);
    } finally {
      if (saved === undefined) delete process.env.TOLLGATE_NET_ALLOWLIST_ONLY;
      else process.env.TOLLGATE_NET_ALLOWLIST_ONLY = saved;
    }
  });
});

describe("the monitor's own outage is not the sellers' downtime", () => {
  it("egressOutage: 80 % or more of at least 5 distinct hosts answered nothing; a host answers if any of its listings did", () => {
    const h = (host: string, unanswered: boolean) => ({ host, unanswered });
    expect(egressOutage(["a", "b", "c", "d", "e"].map((x) => h(x, true)))).toBe(true);
    expect(egressOutage([...["a", "b", "c", "d"].map((x) => h(x, true)), h("e", false)])).toBe(true);
    expect(egressOutage([...["a", "b", "c"].map((x) => h(x, true)), h("d", false), h("e", false)])).toBe(false);
    expect(egressOutage(["a", "b", "c", "d"].map((x) => h(x, true)))).toBe(false); // too few hosts to tell
    // Many silent listings on one host are one seller's outage, not ours.
    expect(egressOutage([...Array.from({ length: 20 }, () => h("a", true)), h("b", false), h("c", false), h("d", false), h("e", false)])).toBe(false);
    expect(egressOutage([h("a", true), h("a", false), h("b", true), h("c", true), h("d", true), h("e", true)])).toBe(true);
  });

  it("a sweep in which most hosts answer nothing records no sample for them, and the next sweep samples them when they answer", async () => {
    const org = await createTestOrganization(t.prisma);
    const docs = fixtureListings(server.url);
    const ports = await Promise.all(Array.from({ length: 5 }, () => freePort()));
    const silent: string[] = [];
    for (const [i, port] of ports.entries()) {
      silent.push((await writeListing({ ...docs["agent-verdict"], slug: `silent-${i}`, baseUrl: `http://127.0.0.1:${port}/agent-verdict` }, { organizationId: org, publicationState: "published" })).id);
    }
    const allowHosts = [new URL(server.url).host, `127.0.0.1:${deadPort}`, ...ports.map((p) => `127.0.0.1:${p}`)];
    const at = new Date(Date.now() + 3 * 60 * 60_000);
    // 8 hosts probed, 7 silent (the 5 new ones, "dead", and the allow-list test's far-away.example, which resolves nowhere here): our outage, not theirs.
    const r = await runHealthSweep({ allowHosts, deadlineMs: 3_000, now: at });
    expect(r).toMatchObject({ unmeasured: 7, up: 1 });
    const window = (from: Date) => ({ at: { gte: from, lte: new Date(from.getTime() + 60_000) } });
    expect(await t.prisma.healthSample.count({ where: { listingId: { in: [...silent, ids.dead] }, ...window(at) } })).toBe(0);
    expect(await t.prisma.healthSample.count({ where: { listingId: ids["agent-verdict"], ...window(at) } })).toBe(1);
    // The sellers were there all along: served again, the next sweep records them up. Nothing was lost.
    const back = await Promise.all(ports.map((port) => startFixtureSellers({ port })));
    try {
      const later = new Date(at.getTime() + 5 * 60_000);
      const next = await runHealthSweep({ allowHosts, deadlineMs: 3_000, now: later });
      expect(next.unmeasured).toBe(0);
      const samples = await t.prisma.healthSample.findMany({ where: { listingId: { in: silent }, ...window(later) } });
      expect(samples.map((x) => x.outcome)).toEqual(["up", "up", "up", "up", "up"]);
      // The one host still silent among answering ones is a seller down, recorded as such.
      expect(await t.prisma.healthSample.findFirst({ where: { listingId: ids.dead, ...window(later) } })).toMatchObject({ outcome: "down", httpStatus: null });
    } finally {
      await Promise.all(back.map((b) => b.close()));
    }
  });
});
