/**
 * The pages, tiles and select read the stored grade (PGlite, or server PostgreSQL with
 * TEST_DATABASE_URL): what the sweep stored is what they show, until the next grade; the chart is the
 * stored daily points; an endpoint never graded is still scored at view time.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signerFor } from "@/lib/badges/keys";
import { readEndpointTrust, readListingTrust, readTrustGlances } from "@/lib/catalog/trust";
import { rows } from "@/lib/sql";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { fixedKeyring } from "@/test/badges";
import { daysBefore, GRADE_NOW, gradedListing, observe } from "@/test/attest";
import { gradeListing } from "./sweep";
import { scoredPartsOf, storedScoredParts, type ScoredParts } from "./read";

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
}, 120_000);
afterAll(async () => {
  await t?.close();
});

const signer = signerFor(fixedKeyring());
const hours = (h: number) => new Date(GRADE_NOW.getTime() + h * 3_600_000);

describe("the read model on stored grades", () => {
  it("the listing page, the endpoint page and the tiles show the stored grade until the next one", async () => {
    const { id, endpointId } = await gradedListing(t.prisma, 4);
    await gradeListing(t.prisma, id, { now: GRADE_NOW, signer });
    const [g] = await rows<{ score: number; bandLow: number; bandHigh: number; grade: string }>(t.prisma, `SELECT "score", "bandLow", "bandHigh", "grade" FROM "trust_grades" WHERE "listingId" = $1`, id);

    const [s] = await readListingTrust(t.prisma, id);
    expect({ score: s.score, grade: s.grade, low: s.band?.low, high: s.band?.high, probes: s.probes }).toEqual({ score: g.score, grade: g.grade, low: g.bandLow, high: g.bandHigh, probes: 4 });
    // A new probe, not yet graded: the page still shows the stored grade; scoring live would count it.
    await observe(t.prisma, id, daysBefore(-0.5));
    expect((await readListingTrust(t.prisma, id))[0].probes).toBe(4);
    expect((await readListingTrust(t.prisma, id, { now: hours(13) }))[0].probes).toBe(5);
    const d = await readEndpointTrust(t.prisma, id, endpointId);
    expect(d!.score).toBe(g.score);
    expect(d!.checks.length).toBeGreaterThan(0);
    const glance = await readTrustGlances(t.prisma, [id]);
    expect(glance.endpoints.get(endpointId)).toBeDefined();

    await gradeListing(t.prisma, id, { now: hours(13), signer });
    expect((await readListingTrust(t.prisma, id))[0].probes).toBe(5);
  });

  it("the endpoint page of a stored grade shows the sweep's scoring, equal to scoring at its instant, and only the latest observations", async () => {
    const { id, endpointId } = await gradedListing(t.prisma, 12);
    await gradeListing(t.prisma, id, { now: GRADE_NOW, signer });
    await observe(t.prisma, id, daysBefore(-0.5));
    const stored = (await readEndpointTrust(t.prisma, id, endpointId, { recent: 40 }))!;
    const scored = (await readEndpointTrust(t.prisma, id, endpointId, { now: GRADE_NOW, stored: false, recent: 40 }))!;
    // To 12 significant digits: the sweep sums the raw rows, a live page the hour rollups.
    const digits = (_k: string, v: unknown) => (typeof v === "number" ? Number(v.toPrecision(12)) : v);
    const parts = (d: typeof stored) => JSON.parse(JSON.stringify({ score: d.score, grade: d.grade, band: d.band, uncapped: d.uncappedScore, dimensions: d.dimensions, checks: d.checks, gates: d.gates, fixFirst: d.fixFirst, rubric: d.rubric, reading: d.reading, seed: d.seed }, digits));
    expect(parts(stored)).toEqual(parts(scored));
    expect(stored.now).toBe(GRADE_NOW.toISOString());
    // The checks are the grade's (12 probes); the recent list is what was observed since, newest first.
    expect(stored.checks.find((c) => c.id === "R1")?.n).toBe(scored.checks.find((c) => c.id === "R1")?.n);
    expect(stored.recent).toHaveLength(40);
    const since = stored.recent.filter((o) => o.observedAt === daysBefore(-0.5)).length;
    expect(since).toBeGreaterThan(0);
    expect(stored.recent.slice(0, since).every((o) => o.observedAt === daysBefore(-0.5))).toBe(true);
    // Then the latest probe before the grade: the rows themselves, also those its hour rollups summarise.
    expect(stored.recent[since].observedAt).toBe(daysBefore(1));
    expect(stored.recent.slice(since)).toEqual(scored.recent.slice(0, 40 - since));
    const times = stored.recent.map((o) => Date.parse(o.observedAt));
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });

  it("a stored grade keeps a timeout's infinite p95 through JSON", () => {
    const parts = { dimensions: [], gates: [{ flag: "slow", check: "R1", when: "p95_above", value: Infinity, fired: true, reason: "timeout" }], checks: [{ id: "R1", p95: Infinity }, { id: "R2", p95: 120 }, { id: "R3" }] } as unknown as ScoredParts;
    const back = scoredPartsOf(JSON.parse(JSON.stringify(storedScoredParts(parts))));
    expect(back).toEqual(parts);
    expect(JSON.stringify(storedScoredParts(parts))).toContain('"p95":"Infinity"');
  });

  it("the chart is each day's last stored grade", async () => {
    const { id, endpointId } = await gradedListing(t.prisma, 5);
    for (const h of [-48, -47, -24, 0]) await gradeListing(t.prisma, id, { now: hours(h), signer, force: true });
    const d = await readEndpointTrust(t.prisma, id, endpointId);
    expect(d!.history.length).toBe(31);
    const graded = d!.history.filter((p) => p.score !== null).map((p) => p.at);
    expect(graded).toEqual([hours(-47).toISOString(), hours(-24).toISOString(), hours(0).toISOString()]);
  });

  it("an endpoint never graded is scored at view time", async () => {
    const { id, endpointId } = await gradedListing(t.prisma, 3);
    const [live] = await readListingTrust(t.prisma, id);
    expect(live.endpointId).toBe(endpointId);
    expect(live.probes).toBe(3);
  });
});
