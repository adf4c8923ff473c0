/**
 * rubricMoves: the latest result of every listing re-read under two rubric versions from the same
 * inputs. A listing whose only price is machine-readable moves by P1's 6 points under 1.1.0; a
 * complete listing does not move; a provisional result is read without evidence; the served 1.2.0
 * moves a listing whose response is a plain string by D3 alone. Both databases.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import type { ListingDocument } from "@/lib/listing-document/document";
import { fullEndpoint, fullEvidence, fullListing, TEST_NOW } from "@/test/readiness";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { seedListing, seedOwner } from "@/test/analyses";
import { rows } from "@/lib/sql";
import { formatMoves, rubricMoves } from "./rubric-moves";

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => {
  await t?.close();
});

async function storeResult(listingId: string, document: ListingDocument, opts: { evidence: boolean; version: string; createdAt: Date; withFacts?: boolean }) {
  let evidenceId: string | null = null;
  if (opts.evidence) {
    evidenceId = `ev_${listingId}_${opts.createdAt.getTime()}`;
    const full = fullEvidence(document);
    // An analysis stores the probe alone; the demo's fixture shapes store the facts they were scored with too.
    const stored = opts.withFacts ? full : full.probe;
    await rows(t, `INSERT INTO "probe_evidence" ("id", "listingId", "vantage", "probedAt", "ok", "evidence") VALUES ($1, $2, 'local', $3, true, $4::jsonb)`, evidenceId, listingId, TEST_NOW, JSON.stringify(stored));
  }
  await rows(
    t,
    `INSERT INTO "catalog_scoring_results" ("id", "listingId", "rubricVersion", "total", "rawTotal", "band", "provisional", "caps", "dimensions", "rules", "improvements", "evidenceId", "document", "createdAt")
     VALUES ($1, $2, $3, 0, 0, 'x', $4, '[]', '[]', '[]', '[]', $5, $6::jsonb, $7)`,
    `res_${listingId}_${opts.createdAt.getTime()}`, listingId, opts.version, !opts.evidence, evidenceId, JSON.stringify(document), opts.createdAt,
  );
}

describe("rubricMoves", () => {
  it("names the listings a release moves and the rules that move them, from the latest result's inputs", async () => {
    const { org } = await seedOwner(t.prisma);
    const machineOnly = fullListing({ slug: "machine-only", endpoints: [fullEndpoint({ pricing: { ...fullEndpoint().pricing!, label: null, usd: null } })] });
    const complete = fullListing({ slug: "complete" });
    const a = await seedListing(t.prisma, org.id, machineOnly);
    const b = await seedListing(t.prisma, org.id, complete);
    const c = await seedListing(t.prisma, org.id, fullListing({ slug: "unprobed" }));
    const d = await seedListing(t.prisma, org.id, complete);
    // An older result with another document must not be the one read.
    await storeResult(a, complete, { evidence: true, version: "readiness/1.0.0", createdAt: new Date("2026-11-01T00:00:00Z") });
    await storeResult(a, machineOnly, { evidence: true, version: "readiness/1.1.0", createdAt: new Date("2026-12-01T00:00:00Z") });
    await storeResult(b, complete, { evidence: true, version: "readiness/1.0.0", createdAt: new Date("2026-12-01T00:00:00Z") });
    await storeResult(c, fullListing({ slug: "unprobed" }), { evidence: false, version: "readiness/1.0.0", createdAt: new Date("2026-12-01T00:00:00Z") });
    await storeResult(d, complete, { evidence: true, withFacts: true, version: "readiness/1.1.0", createdAt: new Date("2026-12-01T00:00:00Z") });

    const moves = await rubricMoves(t, { from: "1.0.0", to: "1.1.0", now: TEST_NOW });
    expect(moves.from).toBe("readiness/1.0.0");
    expect(moves.to).toBe("readiness/1.1.0");
    const bySlug = new Map(moves.listings.map((l) => [l.listingId, l]));
    const moved = bySlug.get(a)!;
    expect(moved.storedVersion).toBe("readiness/1.1.0");
    expect(moved.delta).toBe(6);
    expect(moved.rules.map((r) => r.id)).toEqual(["P1"]);
    expect(moved.rules[0]).toMatchObject({ from: { status: "fail", earned: 0 }, to: { status: "pass", earned: 6 } });
    expect(moved.to.total - moved.from.total).toBe(6);

    const still = bySlug.get(b)!;
    expect(still).toMatchObject({ delta: 0, rules: [], provisional: false });
    expect(still.from.total).toBe(still.to.total);
    expect(bySlug.get(c)!.provisional).toBe(true);
    // The ledger knows nothing of b (no health samples): H2 earns 0. d's stored facts say healthy.
    const h2 = (id: string) => moves.listings.find((l) => l.listingId === id)!;
    expect(h2(d).to.total).toBeGreaterThan(h2(b).to.total);
    expect(h2(d)).toMatchObject({ delta: 0, provisional: false });
    expect(moves.moved).toBe(1);

    const text = formatMoves(moves);
    expect(text).toContain("readiness/1.0.0 → readiness/1.1.0: 1 of 4 listings move");
    expect(text).toMatch(/P1: fail 0 → pass 6 {2}1 of 1 payable endpoints publish a price or quote/);
    expect(text).toContain("(no probe evidence)");
  });

  it("the release of the served 1.2.0 over a listing scored under 1.1.0 moves D3 alone (a string response)", async () => {
    const { org } = await seedOwner(t.prisma);
    const doc = fullListing({
      slug: "plain-text",
      endpoints: [fullEndpoint(), fullEndpoint({ method: "GET", path: "/metrics", requestSchema: null, noParameters: true, requestExample: null, responseSchema: { type: "string" } })],
    });
    const id = await seedListing(t.prisma, org.id, doc);
    await storeResult(id, doc, { evidence: true, withFacts: true, version: "readiness/1.1.0", createdAt: new Date("2026-12-04T00:00:00Z") });
    const moves = await rubricMoves(t, { from: "1.1.0", to: "1.2.0", now: TEST_NOW });
    expect(moves).toMatchObject({ from: "readiness/1.1.0", to: "readiness/1.2.0" });
    const moved = moves.listings.find((l) => l.listingId === id)!;
    expect(moved.storedVersion).toBe("readiness/1.1.0");
    expect(moved.rules.map((r) => r.id)).toEqual(["D3"]);
    expect(moved.rules[0]).toMatchObject({ from: { status: "partial", earned: 2 }, to: { status: "pass", earned: 4 } });
    expect(moved.to.rawTotal - moved.from.rawTotal).toBeCloseTo(2, 6);
  });

  it("refuses an unreleased version by name", async () => {
    await expect(rubricMoves(t, { from: "0.9.0", to: "1.1.0" })).rejects.toThrow(/unknown rubric version readiness\/0\.9\.0; known: 1\.0\.0, 1\.1\.0, 1\.2\.0/);
  });

  it("the CLI exits 2 naming a bad flag, before opening any database", () => {
    let out = "";
    try {
      execFileSync("npx", ["tsx", "scripts/rubric-moves.ts", "--from", "2.0.0"], { encoding: "utf8", stdio: "pipe", env: { ...process.env, DATABASE_URL: "postgresql://nobody@127.0.0.1:1/none" } });
    } catch (err) {
      const e = err as { status: number; stderr: string };
      expect(e.status).toBe(2);
      out = e.stderr;
    }
    expect(out).toContain('--from "2.0.0" is not a released readiness rubric (1.0.0, 1.1.0, 1.2.0)');
  }, 60_000);
});
