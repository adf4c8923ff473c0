/** An `avoid` verdict is not shed by a seller's edit that starts a revision (trust reading 3, docs/TRUST.md). */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signerFor } from "@/lib/badges/keys";
import { writeListing } from "@/lib/listings/save";
import type { ListingDocument } from "@/lib/listing-document/document";
import type { ProbeEvidence } from "@/lib/evidence";
import { exec } from "@/lib/sql";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { fixedKeyring } from "@/test/badges";
import { seedOwner } from "@/test/analyses";
import { daysBefore, GRADE_NOW, gradedDoc } from "@/test/attest";
import { challenge, PAY_TO, probed, USDC } from "@/test/trust";
import { gradeListing } from "@/lib/attest/sweep";
import { readAttestationByUrl } from "@/lib/attest/read";
import { paymentDifference } from "@/lib/attest/preflight";
import { domainKey, recordProbeObservations, recordSampleObservations, type DomainRead } from "@/lib/trust/observe";

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
}, 120_000);
afterAll(async () => {
  await t?.close();
});

const signer = signerFor(fixedKeyring());
const DOMAINS = new Map<string, DomainRead>([[domainKey("eip155:8453", USDC, "USD Coin", "2"), { ok: true, matches: true, expected: "0xaa", onChain: "0xaa" }]]);
/** Each test's own host (the database is shared: the listing published first answers for a URL). */
let HOST = "https://api.example.com";
const url = () => `${HOST}/v1/x`;
/** What a buyer about to pay the endpoint asks preflight. */
const terms = () => ({ url: url(), method: "POST", network: "eip155:8453", asset: USDC, payTo: PAY_TO, amount: "10000" });

let seq = 0;
async function probe(listingId: string, at: string, path = "/v1/x", baseUrl = HOST) {
  const url = baseUrl.replace(/\/+$/, "") + "/" + path.replace(/^\/+/, "");
  const evidence: ProbeEvidence = { version: 1, probedAt: at, vantage: "local", baseUrl, endpoints: [probed({ pr: challenge(), url }, { method: "POST", path })], logo: null, docs: null, discovery: null, findings: [] };
  return t.prisma.$transaction((tx) => recordProbeObservations(tx, { listingId, evidence, source: "monitor", sourceId: `identity-${++seq}`, domains: DOMAINS }));
}

async function sample(listingId: string, completedAt: string, delivered: boolean) {
  const ep = await t.prisma.endpoint.findFirstOrThrow({ where: { listingId } });
  const run = await t.prisma.canaryRun.create({ data: { listingId, trigger: "schedule", requestedBy: "test", state: "done", outcome: delivered ? "verified" : "degraded", finishedAt: new Date(completedAt) } });
  const nonce = "0x" + Buffer.from(`identity-sample-${++seq}-${listingId}`).toString("hex").padStart(64, "0").slice(-64);
  const s = await t.prisma.canarySample.create({
    data: {
      runId: run.id, listingId, endpointId: ep.id, method: ep.method, path: ep.path, state: "completed", completedAt: new Date(completedAt), createdAt: new Date(Date.parse(completedAt) - 60_000),
      listedAmount: ep.priceAmount, quotedAmount: ep.priceAmount, quotedPayTo: PAY_TO.toLowerCase(), quotedAsset: USDC.toLowerCase(), quotedNetwork: "eip155:8453",
      authorizationNonce: nonce, paymentStatus: "settled", transactionId: nonce, chainAmount: "10000", chainTo: PAY_TO.toLowerCase(), chainNetwork: "eip155:8453", chainAsset: USDC.toLowerCase(), blockNumber: 7n,
      httpStatus: delivered ? 200 : 500, ttlbMs: 300, responseBytes: delivered ? 1024 : 20, contentType: "application/json", schemaValid: delivered ? true : null,
      outcome: delivered ? "pass" : "broken", reason: delivered ? "pass" : "charged_without_delivery", replay: "refused",
    },
  });
  await t.prisma.$transaction((tx) => recordSampleObservations(tx, s.id, { json: true, screen: [], reference: null }));
}

/** An endpoint with a good week behind it, then charged without delivery half a day before GRADE_NOW. */
async function caught(over: Partial<ListingDocument> = {}) {
  const { org, user } = await seedOwner(t.prisma);
  HOST = `https://api-${Math.random().toString(36).slice(2, 8)}.example.com`;
  const doc = gradedDoc({ baseUrl: HOST, ...over });
  const { id } = await writeListing(doc, { organizationId: org.id, publicationState: "published" });
  await exec(t.prisma, `UPDATE "listings" SET "createdAt" = $2::timestamp, "updatedAt" = $2::timestamp WHERE "id" = $1`, id, daysBefore(60).replace("Z", ""));
  for (let d = 6; d >= 1; d--) await probe(id, daysBefore(d));
  for (const d of [5, 3, 2]) await sample(id, daysBefore(d), true);
  await sample(id, daysBefore(0.5), false);
  await probe(id, daysBefore(0.45));
  await gradeListing(t.prisma, id, { now: GRADE_NOW, signer });
  const before = await readAttestationByUrl(t.prisma, url(), "POST");
  expect(before.statement.endpoint.listingId).toBe(id);
  expect(before.statement.grade.verdict).toBe("avoid");
  expect(paymentDifference(before.statement, terms(), GRADE_NOW)?.reason).toBe("avoid");
  return { id, org: org.id, user: user.id, doc };
}

const LATER = new Date(GRADE_NOW.getTime() + 60_000);

/** What preflight (and the guard) answer for the URL after the seller's move. */
async function askAgain() {
  const after = await readAttestationByUrl(t.prisma, url(), "POST").catch((e) => e as Error);
  if (after instanceof Error) return { refused: after.message, verdict: null };
  return { refused: paymentDifference(after.statement, terms(), LATER)?.reason ?? null, verdict: after.statement.grade.verdict, listingId: after.statement.endpoint.listingId };
}

describe("an avoid verdict cannot be shed by a seller's edit that changes nothing paid", () => {
  it("editing the endpoint's description starts a revision; the charged-without-delivery gate still fires and preflight refuses", async () => {
    const { id, org, doc } = await caught();
    await writeListing({ ...doc, endpoints: doc.endpoints.map((e) => ({ ...e, description: `${e.description ?? ""} (reworded)` })) }, { organizationId: org, listingId: id });
    await probe(id, daysBefore(0.25));
    await gradeListing(t.prisma, id, { now: LATER, signer });
    const r = await askAgain();
    expect(r.refused, `preflight answered ${JSON.stringify(r)}`).not.toBeNull();
  });
});
