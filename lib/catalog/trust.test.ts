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
import { exec, isoOf, rows } from "@/lib/sql";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { seedOwner } from "@/test/analyses";
import { fullEndpoint, fullListing } from "@/test/readiness";
import { challenge, NOW, probed, USDC } from "@/test/trust";
import { bandLabel, readEndpointTrust, readListingTrust, readListingTrustDetails, valueSentences } from "./trust";
import { recordSampleObservations } from "@/lib/trust/observe";
import { loadRubric } from "@/lib/trust/engine";
import { readStoredValuePeers, readValuePeers } from "./trust-value";
import { gradeListing, runTrustGradeSweep } from "@/lib/attest/sweep";
import { categoryPeersDue, PEERS_REFRESH_MS, readCategoryPeers, refreshCategoryPeers } from "@/lib/attest/peers";
import { signerFor } from "@/lib/badges/keys";
import { fixedKeyring } from "@/test/badges";

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
}, 60_000);
afterAll(async () => {
  await t?.close();
});

const DOMAINS = new Map<string, DomainRead>([[domainKey("eip155:8453", USDC, "USD Coin", "2"), { ok: true, matches: true, expected: "0xaa", onChain: "0xaa" }]]);
const hoursAgo = (h: number) => new Date(Date.parse(NOW) - h * 3_600_000).toISOString();

function doc(over: { category?: string; usd?: string; amount?: string } = {}): ListingDocument {
  const usd = over.usd ?? "0.01";
  const amount = over.amount ?? "10000";
  const ep = (path: string) => fullEndpoint({ method: "POST", path, pricing: { label: `$${usd}`, usd, machine: { amount, asset: USDC, network: "eip155:8453", decimals: 6 }, mode: "fixed", dynamic: null } });
  return fullListing({ slug: `trust-ui-${Math.random().toString(36).slice(2, 8)}`, baseUrl: "https://api.example.com", endpoints: [ep("/v1/x"), ep("/v1/y")], ...(over.category ? { category: over.category } : {}) });
}

async function newListing(over: Parameters<typeof doc>[0] = {}) {
  const { org } = await seedOwner(t.prisma);
  const { id } = await writeListing(doc(over), { organizationId: org.id, publicationState: "published" });
  await exec(t.prisma, `UPDATE "listings" SET "createdAt" = $2::timestamp, "updatedAt" = $2::timestamp WHERE "id" = $1`, id, hoursAgo(60 * 24).replace("Z", ""));
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

describe("the value metrics beside the grade", () => {
  const PAY_TO_ADDR = "0x63aA5960943865e7d57FDdF0D899eE36B6D2046E";
  let sampleSeq = 0;
  /** A completed canary sample of the endpoint at `path`, paid `chainAmount` (null: nothing transferred), with its paid observations written. */
  async function paid(listingId: string, path: string, o: { chainAmount?: string | null; schemaValid?: boolean; bytes?: number; at?: string; asset?: string } = {}) {
    const ep = await t.prisma.endpoint.findFirstOrThrow({ where: { listingId, path } });
    const run = await t.prisma.canaryRun.create({ data: { listingId, trigger: "schedule", requestedBy: "test", state: "done", outcome: "verified", finishedAt: new Date(o.at ?? hoursAgo(2)) } });
    const chainAmount = o.chainAmount === undefined ? "10000" : o.chainAmount;
    const n = ++sampleSeq;
    const sample = await t.prisma.canarySample.create({
      data: {
        runId: run.id, listingId, endpointId: ep.id, method: ep.method, path: ep.path, state: "completed", completedAt: new Date(o.at ?? hoursAgo(2)),
        listedAmount: ep.priceAmount, quotedAmount: ep.priceAmount, quotedPayTo: PAY_TO_ADDR, quotedAsset: USDC, quotedNetwork: "eip155:8453",
        authorizationNonce: "0x" + n.toString(16).padStart(64, "0"), paymentStatus: chainAmount === null ? "failed" : "settled", transactionId: chainAmount === null ? null : "0x" + n.toString(16).padStart(64, "a"),
        chainAmount, chainTo: chainAmount === null ? null : PAY_TO_ADDR, chainNetwork: chainAmount === null ? null : "eip155:8453", chainAsset: chainAmount === null ? null : (o.asset ?? USDC), blockNumber: chainAmount === null ? null : 7n,
        httpStatus: 200, ttlbMs: 300, responseBytes: o.bytes ?? 1024, contentType: "application/json", schemaValid: o.schemaValid ?? true, outcome: chainAmount === null || o.schemaValid === false ? "broken" : "pass", reason: chainAmount === null ? "not_settled" : o.schemaValid === false ? "invalid_output" : "ok",
      },
    });
    await t.prisma.$transaction((db) => recordSampleObservations(db, sample.id, null));
  }

  it("price percentile among same-category peers whose R4 and R5 pass, USD per valid KiB over the samples, and each empty state", async () => {
    const category = `geo-${Math.random().toString(36).slice(2, 8)}`;
    const subject = await newListing({ category });
    // A peer: cheaper, R4 and R5 passing.
    const cheap = await newListing({ category, usd: "0.005", amount: "5000" });
    await paid(cheap.id, "/v1/x", { chainAmount: "5000" });
    await paid(cheap.id, "/v1/x", { chainAmount: "5000" });
    // Not a peer: R5 fails on every sample (its rate is below the rubric's minimum).
    const invalid = await newListing({ category, usd: "0.001", amount: "1000" });
    await paid(invalid.id, "/v1/x", { chainAmount: "1000", schemaValid: false });
    // Not a peer: another category.
    const elsewhere = await newListing({ category: `${category}-other`, usd: "0.001", amount: "1000" });
    await paid(elsewhere.id, "/v1/x", { chainAmount: "1000" });
    // The subject's /v1/x: one valid KiB and one invalid answer, a cent each; /v1/y never paid.
    await paid(subject.id, "/v1/x", { chainAmount: "10000", bytes: 1024 });
    await paid(subject.id, "/v1/x", { chainAmount: "10000", schemaValid: false, bytes: 4096 });

    const [x, y] = await readListingTrust(t.prisma, subject.id, { now: NOW });
    expect(x.value).toMatchObject({ priceUsd: 0.01, category, pricePercentile: 100, peers: 1, samples: 2, validSamples: 1, unpriced: 0, peerRule: { checks: ["R4", "R5"], minRate: 0.8 } });
    expect(x.value.usdPerValidKib).toBeCloseTo(0.02, 12); // $0.02 paid for 1 valid KiB: the invalid answer still cost
    expect(y.value).toMatchObject({ pricePercentile: 100, peers: 1, samples: 0, usdPerValidKib: null });
    // The per-endpoint page reads the same figures.
    const d = await readEndpointTrust(t.prisma, subject.id, x.endpointId, { now: NOW });
    expect(d!.value).toEqual(x.value);
    // The peer's own view: the subject's /v1/x fails the rule (R5 1 of 2), so the peer has no peer.
    const [peerX] = await readListingTrust(t.prisma, cheap.id, { now: NOW });
    expect(peerX.value).toMatchObject({ pricePercentile: null, peers: 0, samples: 2, validSamples: 2 });
    expect(peerX.value.usdPerValidKib).toBeCloseTo(0.005, 12);
    // The value never moves the grade: the same score with or without peers.
    expect(x.score).toBe((await readEndpointTrust(t.prisma, subject.id, x.endpointId, { now: NOW }))!.score);

    // What the pages say.
    expect(valueSentences(x.value).price).toBe(`$0.01 per call: the dearest among 1 comparable ${category} endpoint (with R4 and R5 pass rates of at least 80%).`);
    expect(valueSentences(x.value).perKib).toBe("$0.02 per KiB of valid output, over 2 paid samples (1 valid; an invalid output still costs).");
    expect(valueSentences(y.value).perKib).toBe("No paid sample judged yet, so no USD per KiB of valid output.");
    expect(valueSentences(peerX.value).price).toBe(`$0.005 per call. Not enough comparable endpoints: no other ${category} endpoint has R4 and R5 pass rates of at least 80% yet.`);
    const [inv] = await readListingTrust(t.prisma, invalid.id, { now: NOW });
    expect(valueSentences(inv.value).perKib).toBe("No valid output in 1 paid sample yet, so no USD per KiB of valid output.");
  });

  it("a live page view reads the peers the attest sweep stored from their grades, scoring none; a read at a given instant scores them", async () => {
    const category = `geo-${Math.random().toString(36).slice(2, 8)}`;
    const rb = loadRubric();
    const cheap = await newListing({ category, usd: "0.005", amount: "5000" });
    await paid(cheap.id, "/v1/x", { chainAmount: "5000" });
    await paid(cheap.id, "/v1/x", { chainAmount: "5000" });
    const invalid = await newListing({ category, usd: "0.001", amount: "1000" });
    await paid(invalid.id, "/v1/x", { chainAmount: "1000", schemaValid: false });
    // Not graded yet: no stored peer; the instant-bound read scores the cheap one's observations.
    expect(await readStoredValuePeers(t.prisma, rb, category)).toEqual([]);
    const scored = await readValuePeers(t.prisma, rb, category, Date.parse(NOW));
    expect(scored.map((p) => p.priceUsd)).toEqual([0.005]);
    for (const l of [cheap, invalid]) await gradeListing(t.prisma, l.id, { now: new Date(NOW), signer: signerFor(fixedKeyring()) });
    // Graded but not yet gathered: the page reads the stored peers, not the grades.
    expect(await readStoredValuePeers(t.prisma, rb, category)).toEqual([]);
    await refreshCategoryPeers(t.prisma, rb, new Date(NOW));
    // Gathered: the same peer, its rates the grade's (R5 failing keeps the other out).
    const stored = await readStoredValuePeers(t.prisma, rb, category);
    expect(stored.map((p) => [p.endpointId, p.priceUsd])).toEqual([[cheap.x, 0.005]]);
    for (const c of rb.pricePeers.checks) expect(stored[0].rates[c]).toBeCloseTo(scored[0].rates[c]!, 9);
    // What a live listing page of the category shows.
    const subject = await newListing({ category });
    const [x] = await readListingTrust(t.prisma, subject.id);
    expect(x.value).toMatchObject({ peers: 1, pricePercentile: 100 });
  });

  it("the attest sweep gathers the peers after a new grade and at least every PEERS_REFRESH_MS; a repriced, moved or unpublished listing is seen by the next gathering", async () => {
    const category = `geo-${Math.random().toString(36).slice(2, 8)}`;
    const rb = loadRubric();
    const signer = signerFor(fixedKeyring());
    const peer = await newListing({ category, usd: "0.005", amount: "5000" });
    await paid(peer.id, "/v1/x", { chainAmount: "5000" });
    await paid(peer.id, "/v1/x", { chainAmount: "5000" });
    const prices = async () => (await readStoredValuePeers(t.prisma, rb, category)).map((p) => [p.endpointId, p.priceUsd]);
    // The run that writes its grade gathers them.
    const at = new Date(NOW);
    const run = await runTrustGradeSweep({ now: at, signer });
    expect(run.written).toBeGreaterThan(0);
    expect(await prices()).toEqual([[peer.x, 0.005]]);
    // Repriced: the page reads the gathered price until the next gathering, which a run with nothing to
    // grade makes once PEERS_REFRESH_MS has passed.
    await exec(t.prisma, `UPDATE "endpoints" SET "priceUsd" = '0.004' WHERE "id" = $1`, peer.x);
    expect(await categoryPeersDue(t.prisma, new Date(at.getTime() + PEERS_REFRESH_MS - 1))).toBe(false);
    await runTrustGradeSweep({ now: new Date(at.getTime() + 60_000), signer });
    expect(await prices()).toEqual([[peer.x, 0.005]]);
    const later = new Date(at.getTime() + PEERS_REFRESH_MS);
    expect(await categoryPeersDue(t.prisma, later)).toBe(true);
    expect((await runTrustGradeSweep({ now: later, signer })).written).toBe(0);
    expect(await prices()).toEqual([[peer.x, 0.004]]);
    // Every priced, graded endpoint is stored (the rule is applied on reading): /v1/y, never paid, has no R5 rate.
    expect((await readCategoryPeers(t.prisma, category)).map((p) => p.endpointId)).toEqual([peer.x, peer.y]);
    // Moved to another category: gone from this one, whose row goes with its last peer.
    await exec(t.prisma, `UPDATE "listings" SET "category" = $2 WHERE "id" = $1`, peer.id, `${category}-moved`);
    await refreshCategoryPeers(t.prisma, rb, later);
    expect(await readCategoryPeers(t.prisma, category)).toEqual([]);
    expect(await rows(t.prisma, `SELECT 1 FROM "trust_category_peers" WHERE "category" = $1`, category)).toHaveLength(0);
    expect((await readStoredValuePeers(t.prisma, rb, `${category}-moved`)).map((p) => p.endpointId)).toEqual([peer.x]);
    // Taken down: no one's peer.
    await exec(t.prisma, `UPDATE "listings" SET "publicationState" = 'unlisted' WHERE "id" = $1`, peer.id);
    await refreshCategoryPeers(t.prisma, rb, later);
    expect(await readCategoryPeers(t.prisma, `${category}-moved`)).toEqual([]);
  }, 120_000);

  it("a run that grades a few listings gathers only their categories; the others wait for the full gathering", async () => {
    const [a, b] = [0, 1].map(() => `geo-${Math.random().toString(36).slice(2, 8)}`);
    const rb = loadRubric();
    const signer = signerFor(fixedKeyring());
    const peerA = await newListing({ category: a, usd: "0.005", amount: "5000" });
    const peerB = await newListing({ category: b, usd: "0.005", amount: "5000" });
    for (const l of [peerA, peerB]) await paid(l.id, "/v1/x", { chainAmount: "5000" });
    const at = new Date(Date.parse(NOW) + 3_600_000);
    const computedAt = async (category: string) =>
      (await rows<{ at: string }>(t.prisma, `SELECT ${isoOf(`"computedAt"`)} AS "at" FROM "trust_category_peers" WHERE "category" = $1`, category))[0]?.at;
    await refreshCategoryPeers(t.prisma, rb, at);
    // Both listings are new: the run grades them and gathers both categories, nothing else being due.
    expect(await categoryPeersDue(t.prisma, at)).toBe(false);
    await runTrustGradeSweep({ now: at, signer });
    const pricesOf = async (category: string) => (await readStoredValuePeers(t.prisma, rb, category)).map((p) => [p.endpointId, p.priceUsd]);
    expect(await pricesOf(b)).toEqual([[peerB.x, 0.005]]);
    // B repriced; a new listing in A is graded a minute later: A is gathered again, B is not.
    await exec(t.prisma, `UPDATE "endpoints" SET "priceUsd" = '0.004' WHERE "id" = $1`, peerB.x);
    await newListing({ category: a });
    const minute = new Date(at.getTime() + 60_000);
    expect((await runTrustGradeSweep({ now: minute, signer })).written).toBeGreaterThan(0);
    expect(await computedAt(a)).toBe(minute.toISOString());
    expect(await computedAt(b)).toBe(at.toISOString());
    expect(await pricesOf(b)).toEqual([[peerB.x, 0.005]]);
    // The oldest row makes the full gathering due, and it sees B's price.
    const later = new Date(at.getTime() + PEERS_REFRESH_MS);
    expect(await categoryPeersDue(t.prisma, later)).toBe(true);
    await runTrustGradeSweep({ now: later, signer });
    expect(await pricesOf(b)).toEqual([[peerB.x, 0.004]]);
    expect(await computedAt(b)).toBe(later.toISOString());
  }, 120_000);

  it("a sample paid in another asset than listed cannot be valued and is counted apart; a sample where nothing moved cost nothing", async () => {
    const category = `geo-${Math.random().toString(36).slice(2, 8)}`;
    const l = await newListing({ category });
    await paid(l.id, "/v1/x", { chainAmount: "10000", asset: "0x1111111111111111111111111111111111111111" });
    await paid(l.id, "/v1/x", { chainAmount: null, bytes: 2048 });
    const [x] = await readListingTrust(t.prisma, l.id, { now: NOW });
    expect(x.value).toMatchObject({ samples: 1, unpriced: 1, usdPerValidKib: 0 });
    // A sample observed after `now` is not read.
    const [before] = await readListingTrust(t.prisma, l.id, { now: hoursAgo(3) });
    expect(before.value).toMatchObject({ samples: 0, unpriced: 0 });
    // No category: said so.
    expect(valueSentences({ ...x.value, category: null, pricePercentile: null, peers: 0 }).price).toMatch(/names no category/);
    expect(valueSentences({ ...x.value, priceUsd: null }).price).toBe("No listed USD price to compare.");
    // Only unvalued samples: the sentence says why there is no figure.
    expect(valueSentences({ ...x.value, samples: 0, usdPerValidKib: null }).perKib).toBe(
      "No paid sample judged yet (1 paid sample could not be valued in USD: the endpoint lists no USD price per call, or it was paid in another asset than listed), so no USD per KiB of valid output.",
    );
  });
});
