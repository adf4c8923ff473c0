/**
 * GET /api/endpoints/:id/attestation and /evidence on the database (PGlite, or server PostgreSQL with
 * TEST_DATABASE_URL): the stored envelope and bundle, their hashes agreeing, and each error named.
 */
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signerFor, publicKeySet } from "@/lib/badges/keys";
import { gradeListing } from "@/lib/attest/sweep";
import { verifyAttestation } from "@/lib/attest/attestation";
import { configureLimits, restoreLimits } from "@/lib/limits";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { fixedKeyring } from "@/test/badges";
import { GRADE_NOW, gradedListing } from "@/test/attest";
import { GET as attestation } from "./[id]/attestation/route";
import { GET as evidence } from "./[id]/evidence/route";

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
}, 120_000);
afterAll(async () => {
  restoreLimits();
  await t?.close();
});

const keyring = fixedKeyring();
const get = (route: typeof attestation, id: string, query = "", headers: Record<string, string> = {}) =>
  route(new Request(`http://localhost/api/endpoints/ep/x${query}`, { headers }), { params: Promise.resolve({ id }) });

describe("the attestation and evidence routes", () => {
  it("serve the latest envelope and the bundle whose hash it signs", async () => {
    const { id, endpointId } = await gradedListing(t.prisma, 4);
    await gradeListing(t.prisma, id, { now: GRADE_NOW, signer: signerFor(keyring) });
    const a = await get(attestation, endpointId);
    expect(a.status).toBe(200);
    expect(a.headers.get("cache-control")).toMatch(/^public, max-age=\d+$/);
    const body = await a.json();
    expect(body.statement.endpoint.id).toBe(endpointId);
    const v = verifyAttestation(body.envelope, publicKeySet(keyring), { endpoint: { id: endpointId }, now: new Date(Date.parse(body.statement.issuedAt) + 1) });
    expect(v.ok).toBe(true);

    const e = await get(evidence, endpointId);
    expect(e.status).toBe(200);
    expect(e.headers.get("content-type")).toBe("application/json");
    const bytes = Buffer.from(await e.arrayBuffer());
    const hex = createHash("sha256").update(bytes).digest("hex");
    expect(hex).toBe(body.statement.evidence.sha256);
    expect(e.headers.get("etag")).toBe(`"${hex}"`);
    expect(e.headers.get("digest")).toBe(`sha-256=${createHash("sha256").update(bytes).digest("base64")}`);
    const named = await get(evidence, endpointId, `?sha256=${hex}`);
    expect(named.headers.get("cache-control")).toContain("immutable");
    expect((await get(evidence, endpointId, "", { "if-none-match": `"${hex}"` })).status).toBe(304);
  });

  it("name each error", async () => {
    const { endpointId } = await gradedListing(t.prisma, 2);
    const none = await get(attestation, endpointId);
    expect(none.status).toBe(404);
    expect((await none.json()).error.reason).toBe("no_attestation");
    const missing = await get(attestation, "nosuchendpoint");
    expect(missing.status).toBe(404);
    expect((await missing.json()).error.reason).toBe("no_endpoint");
    const bad = await get(attestation, "../../etc");
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.details[0].pointer).toBe("/id");
    for (const hostile of ["ab\u0000c", "ab\ud800c", "x".repeat(65)]) {
      const r = await get(evidence, hostile);
      expect(r.status).toBe(400);
    }
    const badHash = await get(evidence, endpointId, "?sha256=XYZ");
    expect(badHash.status).toBe(400);
    expect((await badHash.json()).error.details[0].pointer).toBe("/sha256");
    const otherHash = await get(evidence, endpointId, `?sha256=${"0".repeat(64)}`);
    expect(otherHash.status).toBe(404);
    expect((await otherHash.json()).error.reason).toBe("no_bundle");
  });

  it("an endpoint whose row a save rewrote answers attestation_pending until it is graded again", async () => {
    const { id, endpointId } = await gradedListing(t.prisma, 2);
    await gradeListing(t.prisma, id, { now: GRADE_NOW, signer: signerFor(keyring) });
    const fresh = `${endpointId}x`;
    await t.prisma.$executeRawUnsafe(`UPDATE "endpoints" SET "id" = $2 WHERE "id" = $1`, endpointId, fresh);
    const r = await get(attestation, fresh);
    expect(r.status).toBe(404);
    expect((await r.json()).error.reason).toBe("attestation_pending");
    expect((await gradeListing(t.prisma, id, { now: new Date(GRADE_NOW.getTime() + 60_000), signer: signerFor(keyring) })).written).toBe(1);
    const again = await get(attestation, fresh);
    expect(again.status).toBe(200);
    expect((await again.json()).statement.endpoint.id).toBe(fresh);
  });

  it("a bundle of another endpoint is not served under this one", async () => {
    const a = await gradedListing(t.prisma, 2);
    const b = await gradedListing(t.prisma, 3);
    await gradeListing(t.prisma, a.id, { now: GRADE_NOW, signer: signerFor(keyring) });
    const hashA = (await (await get(attestation, a.endpointId)).json()).statement.evidence.sha256;
    const r = await get(evidence, b.endpointId, `?sha256=${hashA}`);
    expect(r.status).toBe(404);
  });

  it("are rate-limited per client address", async () => {
    const { endpointId } = await gradedListing(t.prisma, 1);
    configureLimits({ rates: { attestation: { max: 2, windowSeconds: 60 } } });
    const h = { "x-forwarded-for": "203.0.113.77" };
    await get(attestation, endpointId, "", h);
    await get(evidence, endpointId, "", h);
    const third = await get(attestation, endpointId, "", h);
    expect(third.status).toBe(429);
    expect(third.headers.get("retry-after")).toBeTruthy();
    restoreLimits();
  });
});
