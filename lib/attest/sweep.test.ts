/**
 * The stored grades on the database (PGlite, or server PostgreSQL with TEST_DATABASE_URL): the sweep
 * writes grade, bundle and pointer together, signed; the same evidence at the same now writes nothing
 * new; a failure mid-write leaves nothing; the rows are insert-only; the bundle rescored is the grade.
 */
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signerFor, publicKeySet, parsePublicKeySet } from "@/lib/badges/keys";
import { decodeBase64Strict, ed25519PublicKeyFromRaw, verifyPae } from "@/lib/badges/dsse";
import { exec, rows, transaction } from "@/lib/sql";
import { loadRubric, scoreSubject } from "@/lib/trust/engine";
import { readTrustSubjects } from "@/lib/trust/observe";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { fixedKeyring } from "@/test/badges";
import { daysBefore, GRADE_NOW, gradedListing, observe } from "@/test/attest";
import { ATTESTATION_PAYLOAD_TYPE, verifyAttestation, type AttestationStatement } from "./attestation";
import { bundleSubject, documentSha256, type EvidenceBundle } from "./bundle";
import { receiptsDocument, type ReceiptsDocument } from "./receipts";
import { gradeListing, prepareGrade, readEndpointTerms, runTrustGradeSweep, writeGrade } from "./sweep";

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
}, 120_000);
afterAll(async () => {
  await t?.close();
});

const keyring = fixedKeyring();
const signer = signerFor(keyring);
const count = async (table: string, listingId: string) => (await rows<{ n: number }>(t.prisma, `SELECT count(*)::int AS n FROM "${table}" WHERE "listingId" = $1`, listingId))[0].n;

async function latest(listingId: string) {
  const [g] = await rows<{ id: string; envelope: unknown; statement: AttestationStatement; bundleSha256: string; score: number | null; grade: string | null; bandLow: number | null; bandHigh: number | null; verdict: string; flags: string[] }>(
    t.prisma,
    `SELECT g.* FROM "trust_grade_latest" p JOIN "trust_grades" g ON g."id" = p."gradeId" WHERE p."listingId" = $1`,
    listingId,
  );
  return g;
}

describe("the trust grade sweep", () => {
  it("stores a signed grade whose bundle rescored is the grade, verifiable with the published key set", async () => {
    const { id, endpointId } = await gradedListing(t.prisma, 6);
    const r = await gradeListing(t.prisma, id, { now: GRADE_NOW, signer });
    expect(r).toEqual({ written: 1, unchanged: 0, skipped: 0 });
    const g = await latest(id);
    expect(g.statement.endpoint).toEqual({ id: endpointId, listingId: id, url: "https://api.example.com/v1/x", method: "POST" });
    expect(g.statement.payment).toEqual({ scheme: "exact", network: "eip155:8453", asset: "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913", payTo: "0x63aa5960943865e7d57fddf0d899ee36b6d2046e", amount: "10000" });

    // The badge helpers and the well-known key set (as a client parses it) verify the envelope.
    const keys = parsePublicKeySet(JSON.parse(JSON.stringify(publicKeySet(keyring))));
    if (!keys.ok) throw new Error(keys.message);
    const env = g.envelope as { payloadType: string; payload: string; signatures: Array<{ keyid: string; sig: string }> };
    expect(env.payloadType).toBe(ATTESTATION_PAYLOAD_TYPE);
    const pub = ed25519PublicKeyFromRaw(decodeBase64Strict(keys.keySet.keys[0].publicKey)!);
    expect(verifyPae(env.payloadType, decodeBase64Strict(env.payload)!, decodeBase64Strict(env.signatures[0].sig)!, pub)).toBe(true);
    const v = verifyAttestation(env, keys.keySet, { endpoint: { id: endpointId, method: "POST", url: "https://api.example.com/v1/x" }, now: new Date(Date.parse(g.statement.issuedAt) + 1000) });
    expect(v.ok).toBe(true);

    // The stored bytes are the bundle the statement names; scored again they give the grade to the digit.
    const [b] = await rows<{ bytes: string; size: number }>(t.prisma, `SELECT encode("bytes", 'base64') AS "bytes", "size" FROM "trust_evidence_bundles" WHERE "sha256" = $1`, g.bundleSha256);
    const raw = gunzipSync(Buffer.from(b.bytes, "base64"));
    expect(raw.length).toBe(b.size);
    expect(documentSha256(JSON.parse(raw.toString("utf8")))).toBe(g.statement.evidence.sha256);
    const bundle = JSON.parse(raw.toString("utf8")) as EvidenceBundle;
    expect(bundle._type).toBe("tollgate.evidence-bundle/2");
    // The receipts document, stored beside it under its own hash, is the one the bundle's root commits.
    const [rb] = await rows<{ bytes: string; size: number }>(t.prisma, `SELECT encode("bytes", 'base64') AS "bytes", "size" FROM "trust_evidence_bundles" WHERE "sha256" = $1`, bundle.receipts.sha256);
    const receipts = JSON.parse(gunzipSync(Buffer.from(rb.bytes, "base64")).toString("utf8")) as ReceiptsDocument;
    expect(documentSha256(receipts)).toBe(bundle.receipts.sha256);
    expect(receiptsDocument(receipts.endpointId, receipts.receipts).root).toBe(bundle.receipts.root);
    expect(receipts.receipts.length).toBe(bundle.receipts.leaves);
    expect(receipts.receipts.length).toBeGreaterThan(0);
    const rubric = loadRubric(bundle.rubric.ref);
    const subject = bundleSubject(bundle, rubric, receipts);
    const stored = await readTrustSubjects(t.prisma, id, { raw: true });
    expect(subject.observations.filter((o) => Object.keys(o.receipt).length > 0).length).toBe(receipts.receipts.length);
    expect(subject.observations.length).toBe(stored[0].observations.length);
    const again = scoreSubject(rubric, subject, { now: bundle.scoring.now, seed: bundle.scoring.seed, band: true, bandOptions: bundle.scoring.bandOptions });
    expect(again.score).toBe(g.statement.grade.score);
    expect(again.grade).toBe(g.statement.grade.grade);
    expect(again.band && { low: again.band.low, high: again.band.high }).toEqual(g.statement.grade.band);
    expect(again.verdict).toBe(g.statement.grade.verdict);
    expect(subject.observations.length).toBe(g.statement.evidence.observations);
    expect(g.score).toBe(again.score);
  });

  it("is idempotent: the same evidence at the same now writes nothing new, and a current grade is skipped", async () => {
    const { id } = await gradedListing(t.prisma, 3);
    await gradeListing(t.prisma, id, { now: GRADE_NOW, signer });
    const before = [await count("trust_grades", id), (await latest(id)).id];
    expect(await gradeListing(t.prisma, id, { now: GRADE_NOW, signer, force: true })).toEqual({ written: 0, unchanged: 1, skipped: 0 });
    expect(await gradeListing(t.prisma, id, { now: new Date(GRADE_NOW.getTime() + 60_000), signer })).toEqual({ written: 0, unchanged: 0, skipped: 1 });
    expect([await count("trust_grades", id), (await latest(id)).id]).toEqual(before);
  });

  it("a new observation makes a new grade; the pointer moves forward only, the old row stays", async () => {
    const { id } = await gradedListing(t.prisma, 3);
    await gradeListing(t.prisma, id, { now: GRADE_NOW, signer });
    const first = await latest(id);
    await observe(t.prisma, id, daysBefore(-0.01));
    const later = new Date(GRADE_NOW.getTime() + 3_600_000);
    expect((await gradeListing(t.prisma, id, { now: later, signer })).written).toBe(1);
    const second = await latest(id);
    expect(second.id).not.toBe(first.id);
    expect(second.statement.evidence.observations).toBeGreaterThan(first.statement.evidence.observations);
    expect(await count("trust_grades", id)).toBe(2);
    // An older scoring (a late sweep) is stored but does not take the pointer back.
    expect((await gradeListing(t.prisma, id, { now: new Date(GRADE_NOW.getTime() - 3_600_000), signer, force: true })).written).toBe(1);
    expect((await latest(id)).id).toBe(second.id);
  });

  it("new passing probes wait REGRADE_AFTER_MS; a paid observation regrades at the next tick", async () => {
    const { id, endpointId } = await gradedListing(t.prisma, 3);
    await gradeListing(t.prisma, id, { now: GRADE_NOW, signer });
    await observe(t.prisma, id, daysBefore(-0.001));
    const at = (min: number) => new Date(GRADE_NOW.getTime() + min * 60_000);
    expect((await gradeListing(t.prisma, id, { now: at(5), signer })).skipped).toBe(1);
    await exec(t.prisma,
      `INSERT INTO "trust_observations" ("id", "listingId", "endpointId", "method", "path", "check", "kind", "outcome", "value", "observedAt", "vantage", "revision", "receipt", "source", "sourceId")
       VALUES ($1, $2, $3, 'POST', '/v1/x', 'H5', 'paid', 'pass', NULL, $4::timestamp, 'canary', 1, '{}'::jsonb, 'canary', $1)`,
      `paid-${id}`, id, endpointId, at(6).toISOString().replace("Z", ""),
    );
    expect((await gradeListing(t.prisma, id, { now: at(7), signer })).written).toBe(1);
    expect((await latest(id)).statement.evidence.observations).toBeGreaterThan(0);
    expect((await gradeListing(t.prisma, id, { now: at(8), signer })).skipped).toBe(1);
    expect((await gradeListing(t.prisma, id, { now: at(40), signer })).skipped).toBe(1);
  });

  it("a grade of nothing is followed by one of the first probes at the next tick", async () => {
    const { id } = await gradedListing(t.prisma, 0);
    await gradeListing(t.prisma, id, { now: GRADE_NOW, signer });
    expect((await latest(id)).statement.evidence.observations).toBe(0);
    await observe(t.prisma, id, daysBefore(-0.0005));
    expect((await gradeListing(t.prisma, id, { now: new Date(GRADE_NOW.getTime() + 60_000), signer })).written).toBe(1);
    expect((await latest(id)).statement.evidence.observations).toBeGreaterThan(0);
  });

  it("a failure mid-write leaves nothing half-written", async () => {
    const { id } = await gradedListing(t.prisma, 3);
    const rubric = loadRubric();
    const [terms] = await readEndpointTerms(t.prisma, id);
    const [subject] = await readTrustSubjects(t.prisma, id);
    const good = prepareGrade(rubric, terms, subject, GRADE_NOW, signer);
    const bad = prepareGrade(rubric, { ...terms, path: "/v1/y" }, subject, new Date(GRADE_NOW.getTime() + 1), signer);
    bad.result = { ...bad.result, verdict: "great" as never }; // refused by the verdict CHECK, after the bundle row
    await expect(transaction(t.prisma, async (tx) => { await writeGrade(tx, good); await writeGrade(tx, bad); })).rejects.toThrow();
    expect(await count("trust_grades", id)).toBe(0);
    expect(await count("trust_grade_latest", id)).toBe(0);
    const [{ n }] = await rows<{ n: number }>(t.prisma, `SELECT count(*)::int AS n FROM "trust_evidence_bundles" WHERE "sha256" IN ($1, $2)`, good.bundle.sha256, bad.bundle.sha256);
    expect(n).toBe(0);
  });

  it("grades and bundles are insert-only", async () => {
    const { id } = await gradedListing(t.prisma, 2);
    await gradeListing(t.prisma, id, { now: GRADE_NOW, signer });
    const g = await latest(id);
    await expect(rows(t, `UPDATE "trust_grades" SET "score" = 100 WHERE "id" = $1`, g.id)).rejects.toThrow(/append-only/);
    await expect(rows(t, `DELETE FROM "trust_grades" WHERE "id" = $1`, g.id)).rejects.toThrow(/append-only/);
    await expect(rows(t, `UPDATE "trust_evidence_bundles" SET "size" = 1 WHERE "sha256" = $1`, g.bundleSha256)).rejects.toThrow(/append-only/);
  });

  it("the sweep grades every listed listing once, under its lock", async () => {
    const { id } = await gradedListing(t.prisma, 2);
    const r = await runTrustGradeSweep({ now: new Date(GRADE_NOW.getTime() + 7_200_000), signer, client: t.prisma });
    expect(r.leader).toBe(true);
    expect(r.failed).toBe(0);
    expect(r.written).toBeGreaterThanOrEqual(1);
    expect(await count("trust_grades", id)).toBe(1);
    const again = await runTrustGradeSweep({ now: new Date(GRADE_NOW.getTime() + 7_200_000), signer, client: t.prisma });
    expect(again.written).toBe(0);
    // Nothing due: the one statement that finds listings to grade finds none, and no observation is read.
    expect(again.listings).toBe(0);
  });
});
