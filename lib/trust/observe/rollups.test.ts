/**
 * Bounded history on the database (PGlite, or server PostgreSQL with TEST_DATABASE_URL): the writer
 * keeps hour and day rollups in the rows' transaction, the reader serves rollups plus the raw tail and
 * scores exactly as every row, old rows move to the append-only archive and nothing else leaves.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ProbeEvidence } from "@/lib/evidence";
import { writeListing } from "@/lib/listings/save";
import { exec, rows } from "@/lib/sql";
import { loadRubric, scoreSubject, type TrustResult } from "@/lib/trust/engine";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { seedOwner } from "@/test/analyses";
import { fullEndpoint, fullListing } from "@/test/readiness";
import { challenge, probed, USDC } from "@/test/trust";
import { domainKey, readTrustSubjects, readTrustSubjectsOfMany, recordProbeObservations, type DomainRead } from "@/lib/trust/observe";
import { archiveObservations } from "./rollups";

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
}, 300_000);
afterAll(async () => {
  await t?.close();
});

const rubric = loadRubric();
const H = 3_600_000;
const D = 24 * H;
const NOW = Date.parse("2026-12-01T12:00:00.000Z");
const DOMAINS = new Map<string, DomainRead>([[domainKey("eip155:8453", USDC, "USD Coin", "2"), { ok: true, matches: true, expected: "0xaa", onChain: "0xaa" }]]);

async function newListing() {
  const { org } = await seedOwner(t.prisma);
  const ep = fullEndpoint({ method: "POST", path: "/v1/x", pricing: { label: "$0.01", usd: "0.01", machine: { amount: "10000", asset: USDC, network: "eip155:8453", decimals: 6 }, mode: "fixed", dynamic: null } });
  const d = fullListing({ slug: `rollup-${Math.random().toString(36).slice(2, 8)}`, baseUrl: "https://api.example.com", endpoints: [ep] });
  const { id } = await writeListing(d, { organizationId: org.id, publicationState: "published" });
  await exec(t.prisma, `UPDATE "listings" SET "createdAt" = $2::timestamp, "updatedAt" = $2::timestamp WHERE "id" = $1`, id, new Date(NOW - 90 * D).toISOString().replace("Z", ""));
  return id;
}

let seq = 0;
/** A probe at `at`: mostly healthy, sometimes slow, down (a timeout) or answering 500. */
async function probe(listingId: string, at: number, k: number) {
  const kind = k % 17 === 3 ? "down" : k % 23 === 5 ? "500" : "ok";
  const ep = kind === "down" ? probed({ reachable: false, ttfbMs: null }) : probed({ status: kind === "500" ? 500 : 402, ttfbMs: 100 + ((k * 37) % 900) + (k % 7) / 10, pr: challenge() });
  const ev: ProbeEvidence = { version: 1, probedAt: new Date(at).toISOString(), vantage: "local", baseUrl: "https://api.example.com", endpoints: [ep], logo: null, docs: null, discovery: null, findings: [] };
  await t.prisma.$transaction((tx) => recordProbeObservations(tx, { listingId, evidence: ev, source: "monitor", sourceId: `rollup-${++seq}`, domains: DOMAINS }), { timeout: 60_000 });
}

function same(a: TrustResult, b: TrustResult) {
  const strip = (r: TrustResult) => ({ ...r, checks: r.checks.map(({ passWeight: _p, failWeight: _f, rate: _r, ...c }) => c) });
  expect(strip(b)).toEqual(strip(a));
  a.checks.forEach((c, i) => {
    expect(Math.abs(c.passWeight - b.checks[i].passWeight)).toBeLessThan(1e-9 * Math.max(1, c.passWeight));
    expect(Math.abs(c.failWeight - b.checks[i].failWeight)).toBeLessThan(1e-9 * Math.max(1, c.failWeight));
  });
}

async function compare(listingId: string, now: number) {
  const [raw] = await readTrustSubjects(t.prisma, listingId, { raw: true });
  const [served] = await readTrustSubjects(t.prisma, listingId, { now });
  expect(served.rollups?.length ?? 0).toBeGreaterThan(0);
  expect(served.observations.length).toBeLessThan(raw.observations.length);
  same(scoreSubject(rubric, raw, { now, band: true }), scoreSubject(rubric, served, { now, band: true }));
  return { raw, served };
}

describe("rollups written with the rows, read with the tail", () => {
  let id: string;
  beforeAll(async () => {
    id = await newListing();
    // 40 days, a probe every 6 hours and every 20 minutes over the last 2 days.
    let k = 0;
    for (let at = NOW - 40 * D + 7 * 60_000; at < NOW - 2 * D; at += 6 * H) await probe(id, at, k++);
    for (let at = NOW - 2 * D + 7 * 60_000 + 13; at < NOW + H; at += 20 * 60_000) await probe(id, at, k++);
  }, 600_000);

  it("the writer keeps hour and day rollups and marks the endpoint covered", async () => {
    const [cov] = await rows<{ n: number }>(t.prisma, `SELECT count(*)::int AS "n" FROM "trust_rollup_coverage" WHERE "listingId" = $1`, id);
    expect(cov.n).toBe(1);
    const grains = await rows<{ grain: string; n: number; obs: number }>(t.prisma, `SELECT "grain", count(*)::int AS "n", sum("observations")::int AS "obs" FROM "trust_observation_rollups" WHERE "listingId" = $1 GROUP BY "grain" ORDER BY "grain"`, id);
    const [all] = await rows<{ n: number }>(t.prisma, `SELECT count(*)::int AS "n" FROM "trust_observations" WHERE "listingId" = $1`, id);
    expect(grains.map((g) => g.grain)).toEqual(["day", "hour"]);
    // Every row is in exactly one hour and one day.
    expect(grains.every((g) => g.obs === all.n)).toBe(true);
  });

  it("scores to the digit at several instants, on the hour and between", async () => {
    for (const now of [NOW, NOW - 17 * 60_000 - 1, NOW - 3 * D + 41 * 60_000]) await compare(id, now);
  });

  it("archives rows past the raw window, refuses any other delete, and still scores the same", async () => {
    const before = await compare(id, NOW);
    // Nothing leaves the live table unless the archive holds it exactly.
    await expect(exec(t.prisma, `DELETE FROM "trust_observations" WHERE "listingId" = $1 AND "observedAt" < $2::timestamp`, id, new Date(NOW - 35 * D).toISOString().replace("Z", ""))).rejects.toThrow();
    const [victim] = await rows<{ id: string }>(t.prisma, `SELECT "id" FROM "trust_observations" WHERE "listingId" = $1 ORDER BY "observedAt" DESC LIMIT 1`, id);
    // A forged archive copy (another outcome) opens nothing.
    await exec(t.prisma, `INSERT INTO "trust_observations_archive" ("id", "listingId", "method", "path", "observedAt", "row") SELECT "id", "listingId", "method", "path", "observedAt", jsonb_set(to_jsonb(o), '{outcome}', '"fail"') FROM "trust_observations" o WHERE "id" = $1`, victim.id);
    await expect(exec(t.prisma, `DELETE FROM "trust_observations" WHERE "id" = $1`, victim.id)).rejects.toThrow();
    await expect(exec(t.prisma, `DELETE FROM "trust_observations_archive" WHERE "id" = $1`, victim.id)).rejects.toThrow();
    await expect(exec(t.prisma, `UPDATE "trust_observations_archive" SET "row" = '{}'::jsonb WHERE "id" = $1`, victim.id)).rejects.toThrow();
    await expect(exec(t.prisma, `TRUNCATE "trust_observations_archive"`)).rejects.toThrow();

    const [live0] = await rows<{ n: number }>(t.prisma, `SELECT count(*)::int AS "n" FROM "trust_observations" WHERE "listingId" = $1`, id);
    let moved = 0;
    for (let got = -1; got !== 0; ) moved += got = await archiveObservations(t.prisma, rubric, { before: new Date(NOW - 32 * D), limit: 500 }).catch((e) => {
      throw e;
    });
    expect(moved).toBeGreaterThan(0);
    const [live1] = await rows<{ n: number }>(t.prisma, `SELECT count(*)::int AS "n" FROM "trust_observations" WHERE "listingId" = $1`, id);
    const [arch] = await rows<{ n: number }>(t.prisma, `SELECT count(*)::int AS "n" FROM "trust_observations_archive" WHERE "listingId" = $1`, id);
    expect(live1.n).toBe(live0.n - moved);
    expect(arch.n).toBe(moved + 1); // the forged copy stays as evidence of the attempt; its row did not move
    const after = await compare(id, NOW);
    expect(after.raw.observations.length).toBe(before.raw.observations.length);
    // An as-of read a month back reads its raw hours from the archive.
    await compare(id, NOW - 33 * D + 5 * 60_000);
  }, 120_000);

  it("an endpoint not covered by rollups (history from before them) is read whole, and scores as every row", async () => {
    const other = await newListing();
    let k = 0;
    for (let at = NOW - 5 * D + 11 * 60_000; at < NOW; at += 4 * H) await probe(other, at, k++);
    await exec(t.prisma, `DELETE FROM "trust_rollup_coverage" WHERE "listingId" = $1`, other);
    const [raw] = await readTrustSubjects(t.prisma, other, { raw: true });
    const [served] = await readTrustSubjects(t.prisma, other, { now: NOW });
    expect(served.rollups ?? []).toHaveLength(0);
    expect(served.observations).toEqual(raw.observations.filter((o) => Date.parse(o.observedAt) <= NOW));
    expect(served.observations.length).toBeGreaterThan(20);
    same(scoreSubject(rubric, raw, { now: NOW, band: true }), scoreSubject(rubric, served, { now: NOW, band: true }));
  }, 120_000);

  it("read together (a catalog page's ungraded tiles), each listing gets exactly what it reads alone", async () => {
    const uncovered = await newListing();
    for (let at = NOW - 3 * D + 5 * 60_000, k = 0; at < NOW; at += 5 * H) await probe(uncovered, at, k++);
    await exec(t.prisma, `DELETE FROM "trust_rollup_coverage" WHERE "listingId" = $1`, uncovered);
    const quiet = await newListing(); // never observed: its first revision, started with the listing
    const ids = [id, uncovered, quiet, "no-such-listing", id];
    for (const options of [{ now: NOW }, { now: NOW - 33 * D + 5 * 60_000 }, { raw: true }, { since: new Date(NOW - 2 * D) }]) {
      const together = await readTrustSubjectsOfMany(t.prisma, ids, options);
      expect([...together.keys()].sort()).toEqual([id, uncovered, quiet].sort());
      for (const one of [id, uncovered, quiet]) expect(together.get(one)).toEqual(await readTrustSubjects(t.prisma, one, options));
      // Nothing of one listing's rows in another's subject, and each is read whole.
      expect(together.get(quiet)![0].observations).toHaveLength(0);
      expect(together.get(uncovered)![0].rollups ?? []).toHaveLength(0);
      expect(together.get(uncovered)![0].observations.length).toBeGreaterThan(5);
    }
    const [served] = (await readTrustSubjectsOfMany(t.prisma, [uncovered, id], { now: NOW })).get(id)!;
    const [raw] = await readTrustSubjects(t.prisma, id, { raw: true });
    same(scoreSubject(rubric, raw, { now: NOW, band: true }), scoreSubject(rubric, served, { now: NOW, band: true }));
    expect(await readTrustSubjectsOfMany(t.prisma, [])).toEqual(new Map());
  }, 120_000);
});
