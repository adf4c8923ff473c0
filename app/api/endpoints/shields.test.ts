/**
 * The Shields.io endpoint badges (PGlite, or server PostgreSQL with TEST_DATABASE_URL): the stored
 * grade and the 30-day uptime as `schemaVersion: 1` JSON, a grey badge for anything not published,
 * a 400 naming a malformed id.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signerFor } from "@/lib/badges/keys";
import { gradeListing } from "@/lib/attest/sweep";
import { rows } from "@/lib/sql";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { fixedKeyring } from "@/test/badges";
import { GRADE_NOW, gradedListing } from "@/test/attest";
import { ctx } from "@/test/badges-db";
import { createTestListing } from "@/test/ledger";
import { GET as gradeRoute } from "./[id]/shields/grade/route";
import { GET as uptimeRoute } from "./[id]/shields/uptime/route";

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
}, 120_000);
afterAll(async () => {
  await t?.close();
});

const SHIELDS_KEYS = ["cacheSeconds", "color", "isError", "label", "message", "schemaVersion"];
async function shield(route: typeof gradeRoute, id: string) {
  const res = await route(new Request(`http://localhost/api/endpoints/${id}/shields/x`), ctx({ id }));
  const body = await res.json();
  if (res.status === 200) {
    // Shields' endpoint schema: these keys only, schemaVersion 1, cacheSeconds at least its floor of 300.
    for (const k of Object.keys(body)) expect(SHIELDS_KEYS).toContain(k);
    expect(body).toMatchObject({ schemaVersion: 1, label: expect.any(String), message: expect.any(String), color: expect.any(String) });
    expect(body.cacheSeconds).toBeGreaterThanOrEqual(300);
    expect(res.headers.get("cache-control")).toBe("public, max-age=300");
  }
  return { status: res.status, body };
}

describe("GET /api/endpoints/:id/shields/grade", () => {
  it("shows the stored grade and its band, coloured by the grade", async () => {
    const { id, endpointId } = await gradedListing(t.prisma, 5);
    expect((await shield(gradeRoute, endpointId)).body).toMatchObject({ label: "tollgate grade", message: "not graded yet", color: "lightgrey" });
    await gradeListing(t.prisma, id, { now: GRADE_NOW, signer: signerFor(fixedKeyring()) });
    const [g] = await rows<{ grade: string; bandLow: number; bandHigh: number; verdict: string }>(t.prisma, `SELECT "grade", "bandLow", "bandHigh", "verdict" FROM "trust_grades" WHERE "listingId" = $1`, id);
    const { body } = await shield(gradeRoute, endpointId);
    expect(body.message).toBe(`${g.grade} · ${Math.round(g.bandLow)}–${Math.round(g.bandHigh)}${g.verdict === "insufficient_evidence" ? " (provisional)" : ""}`);
    expect(body.color).toBe({ A: "brightgreen", B: "green", C: "yellow", D: "orange", F: "red" }[g.grade]);
  });

  it("answers a grey error badge for an unknown or unpublished endpoint and a 400 for a malformed id", async () => {
    expect((await shield(gradeRoute, "no-such-endpoint")).body).toMatchObject({ message: "not listed", color: "lightgrey", isError: true });
    const draft = await createTestListing(t.prisma, { publicationState: "draft" });
    const [e] = await t.prisma.endpoint.findMany({ where: { listingId: draft } });
    expect((await shield(gradeRoute, e.id)).body).toMatchObject({ message: "not listed", isError: true });
    const bad = await shield(gradeRoute, "bad id!");
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].pointer).toBe("/id");
  });
});

describe("GET /api/endpoints/:id/shields/uptime", () => {
  it("is the share of the last 30 days' samples that found the listing up", async () => {
    const listingId = await createTestListing(t.prisma);
    const [e] = await t.prisma.endpoint.findMany({ where: { listingId } });
    expect((await shield(uptimeRoute, e.id)).body).toMatchObject({ label: "uptime", message: "no samples yet", color: "lightgrey" });
    const at = (hoursAgo: number) => new Date(Date.now() - hoursAgo * 3_600_000);
    const sample = (outcome: string, hoursAgo: number) => ({ listingId, at: at(hoursAgo), outcome, confidence: 1, vantage: "local", httpStatus: outcome === "up" ? 402 : null });
    await t.prisma.healthSample.createMany({ data: [...Array.from({ length: 97 }, (_, i) => sample("up", i + 1)), ...Array.from({ length: 3 }, (_, i) => sample("down", 200 + i)), sample("down", 24 * 40)] });
    expect((await shield(uptimeRoute, e.id)).body).toMatchObject({ message: "97.0% (30d)", color: "green" });
  });
});
