/**
 * The trust grade's read model on the database (PGlite, or server PostgreSQL with TEST_DATABASE_URL):
 * observations written through lib/trust/observe's writer from probe evidence, read back and scored
 * by the engine, now with the band (reproducible: a fixed seed) and at daily points for the chart.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ProbeEvidence } from "@/lib/evidence";
import type { ListingDocument } from "@/lib/listing-document/document";
import { writeListing } from "@/lib/listings/save";
import { domainKey, recordProbeObservations, type DomainRead } from "@/lib/trust/observe";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { seedOwner } from "@/test/analyses";
import { fullEndpoint, fullListing } from "@/test/readiness";
import { challenge, NOW, probed, USDC } from "@/test/trust";
import { bandLabel, readEndpointTrust, readListingTrust, readListingTrustDetails } from "./trust";

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
}, 60_000);
afterAll(async () => {
  await t?.close();
});

const DOMAINS = new Map<string, DomainRead>([[domainKey("eip155:8453", USDC, "USD Coin", "2"), { ok: true, matches: true, expected: "0xaa", onChain: "0xaa" }]]);
const hoursAgo = (h: number) => new Date(Date.parse(NOW) - h * 3_600_000).toISOString();

function doc(): ListingDocument {
  const ep = (path: string) => fullEndpoint({ method: "POST", path, pricing: { label: "$0.01", usd: "0.01", machine: { amount: "10000", asset: USDC, network: "eip155:8453", decimals: 6 }, mode: "fixed", dynamic: null } });
  return fullListing({ slug: `trust-ui-${Math.random().toString(36).slice(2, 8)}`, baseUrl: "https://api.example.com", endpoints: [ep("/v1/x"), ep("/v1/y")] });
}

async function newListing() {
  const { org } = await seedOwner(t.prisma);
  const { id } = await writeListing(doc(), { organizationId: org.id, publicationState: "published" });
  await t.prisma.$executeRawUnsafe(`UPDATE "listings" SET "createdAt" = $2::timestamp, "updatedAt" = $2::timestamp WHERE "id" = $1`, id, hoursAgo(60 * 24).replace("Z", ""));
  const eps = await t.prisma.endpoint.findMany({ where: { listingId: id }, orderBy: { position: "asc" } });
  return { id, x: eps[0].id, y: eps[1].id };
}

let seq = 0;
/** One probe of both endpoints at `at`; `/v1/y` quotes `yAmount` (the listing says 10000). */
async function probe(listingId: string, at: string, yAmount = "10000") {
  const ev: ProbeEvidence = {
    version: 1,
    probedAt: at,
    vantage: "monitor",
    baseUrl: "https://api.example.com",
    endpoints: [
      probed({ pr: challenge() }, { method: "POST", path: "/v1/x" }),
      probed({ pr: challenge((pr) => { pr.accepts[0].amount = yAmount; pr.resource.url = "https://api.example.com/v1/y"; }), url: "https://api.example.com/v1/y" }, { method: "POST", path: "/v1/y" }),
    ],
    logo: null,
    docs: null,
    discovery: null,
    findings: [],
  };
  await t.prisma.$transaction((tx) => recordProbeObservations(tx, { listingId, evidence: ev, source: "monitor", sourceId: `ui-${++seq}`, domains: DOMAINS }));
}

describe("the listing's trust read model", () => {
  it("too few probes: every endpoint reads insufficient_evidence, with what it has seen", async () => {
    const { id, x } = await newListing();
    await probe(id, hoursAgo(5));
    await probe(id, hoursAgo(1));
    const list = await readListingTrust(t.prisma, id, { now: NOW });
    expect(list.map((e) => [e.path, e.verdict, e.probes])).toEqual([["/v1/x", "insufficient_evidence", 2], ["/v1/y", "insufficient_evidence", 2]]);
    expect(list[0].endpointId).toBe(x);
    expect(list[0].verdictBecause.join(" ")).toMatch(/probe/);
  });

  it("scores each endpoint now with a reproducible band; an overpriced quote fails H1 and comes first in what to fix", async () => {
    const { id, x, y } = await newListing();
    // Every 12 hours for 10 days: enough probes over enough days for the verdict's minimums.
    for (let h = 240; h >= 0; h -= 12) await probe(id, hoursAgo(h), "20000");
    const a = await readListingTrust(t.prisma, id, { now: NOW });
    const b = await readListingTrust(t.prisma, id, { now: NOW });
    expect(a).toEqual(b); // the same seed, the same band
    const [ex, ey] = a;
    expect(ex.probes).toBe(21);
    expect(ex.band).not.toBeNull();
    // A perfect record sits at the band's top edge: the draws reach at most 100.
    expect(ex.band!.low).toBeLessThanOrEqual(ex.band!.high);
    expect(ex.band!.high).toBeLessThanOrEqual(100);
    expect(ex.label).toBe(`${ex.grade}, ${Math.round(ex.band!.low)}–${Math.round(ex.band!.high)}, ${ex.confidence} confidence`);
    // /v1/y quotes twice the listed price on every probe: H1 fails and costs it its weight.
    expect(ey.score!).toBeLessThan(ex.score!);

    const d = await readEndpointTrust(t.prisma, id, y, { now: NOW });
    expect(d).not.toBeNull();
    const h1 = d!.checks.find((c) => c.id === "H1")!;
    expect(h1).toMatchObject({ title: "Price as listed", dimension: "as_described", weight: 20, status: "measured", rate: 0 });
    expect(d!.fixFirst[0]).toMatchObject({ id: "H1", weight: 20, rate: 0, lost: 20 });
    expect(d!.checks.find((c) => c.id === "S2")!.validity).toMatch(/error rate/);
    // The healthy endpoint has nothing to fix.
    expect((await readEndpointTrust(t.prisma, id, x, { now: NOW }))!.fixFirst).toEqual([]);
    // Recent observations, newest first, each with its receipt.
    expect(d!.recent.length).toBeGreaterThan(0);
    expect(d!.recent[0].observedAt).toBe(NOW);
    const c1 = d!.recent.find((o) => o.check === "C1")!;
    expect(c1.receipt).toBeTypeOf("object");
    expect(JSON.stringify(c1.receipt)).toContain("20000"); // the decoded 402's amount
    // The seller's page: every endpoint in full, in order, ten recent observations each.
    const all = await readListingTrustDetails(t.prisma, id, { now: NOW });
    expect(all.map((e) => e.endpointId)).toEqual([x, y]);
    expect(all[1].fixFirst.map((f) => f.id)[0]).toBe("H1");
    expect(all[1].recent).toHaveLength(10);
  });

  it("the chart's daily points: no score before the first probe, a score after it; a foreign endpoint reads null", async () => {
    const { id, x } = await newListing();
    for (let h = 96; h >= 0; h -= 12) await probe(id, hoursAgo(h));
    const d = (await readEndpointTrust(t.prisma, id, x, { now: NOW }))!;
    expect(d.history).toHaveLength(31);
    expect(d.history[30].at).toBe(NOW);
    expect(d.history[0].at).toBe(new Date(Date.parse(NOW) - 30 * 86_400_000).toISOString());
    expect(d.history[0]).toMatchObject({ score: null, verdict: "insufficient_evidence" });
    expect(d.history[30].score).not.toBeNull();
    // The history is scored without the band; the point now equals the banded score's point.
    expect(d.history[30].score).toBe(d.score);
    const other = await newListing();
    expect(await readEndpointTrust(t.prisma, id, other.x, { now: NOW })).toBeNull();
  });

  it("bandLabel words the issue's example", () => {
    expect(bandLabel({ grade: "B", score: 81.2, band: { low: 78.4, high: 86.1, width: 7.7 }, confidence: "medium" })).toBe("B, 78–86, medium confidence");
    expect(bandLabel({ grade: "B", score: 81.2, band: null, confidence: null })).toBe("B, 81");
    expect(bandLabel({ grade: null, score: null, band: null, confidence: null })).toBeNull();
  });
});
