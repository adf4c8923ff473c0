/**
 * An analysis's evidence dated in the future by the database's clock is refused (lib/analyses/store-result.ts
 * completeLease, 400 at /evidence/probedAt) and nothing is written. Before, a worker whose clock ran a week ahead
 * stored 16 trust observations "observed" next week: ignored by the grade now, counted as the newest a week later.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { MONITOR_RUBRIC_VERSIONS } from "@/lib/probe/capabilities";
import type { ProbeEvidence } from "@/lib/evidence";
import type { ListingDocument } from "@/lib/listing-document/document";
import { writeListing } from "@/lib/listings/save";
import { completeLease } from "@/lib/analyses/store-result";
import { PRIORITY_SWEEP, requestAnalysis } from "@/lib/queue/enqueue-analysis";
import { claimLeases, reapExpiredLeases } from "@/lib/queue/lease";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { seedOwner } from "@/test/analyses";
import { fullEndpoint, fullListing } from "@/test/readiness";
import { challenge, probed, USDC } from "@/test/trust";

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
}, 60_000);
afterAll(async () => {
  await t?.close();
});

function doc(): ListingDocument {
  const ep = fullEndpoint({ method: "POST", path: "/v1/x", pricing: { label: "$0.01", usd: "0.01", machine: { amount: "10000", asset: USDC, network: "eip155:8453", decimals: 6 }, mode: "fixed", dynamic: null } });
  return fullListing({ slug: "skewed", baseUrl: "https://api.example.com", endpoints: [ep] });
}
const evidence = (at: string): ProbeEvidence => ({ version: 1, probedAt: at, vantage: "local", baseUrl: "https://api.example.com", endpoints: [probed({ pr: challenge() }, { method: "POST", path: "/v1/x" })], logo: null, docs: null, discovery: null, findings: [] });

it("a completion whose worker clock is 7 days ahead is refused, naming the pointer, and writes no observation; one on time is stored", async () => {
  const { org } = await seedOwner(t.prisma);
  const { id: listingId } = await writeListing(doc(), { organizationId: org.id, publicationState: "published" });
  // A staleness re-analysis: the catalog times it, so its probe is trust evidence (a seller's own re-analysis writes none).
  const { id } = await requestAnalysis({ submitter: `system:staleness:${listingId}`, listingId, targetUrl: "https://api.example.com/", trigger: "staleness", priority: PRIORITY_SWEEP });
  await reapExpiredLeases();
  const job = (await claimLeases({ rubricVersions: MONITOR_RUBRIC_VERSIONS, workerId: "w1", limit: 10, leaseMs: 60_000, skipReap: true })).find((j) => j.id === id)!;
  const skewed = new Date(Date.now() + 7 * 86_400_000).toISOString();
  await expect(completeLease(id, { leaseToken: job.leaseToken, evidence: evidence(skewed) })).rejects.toMatchObject({ code: "bad_request", details: [{ pointer: "/evidence/probedAt" }] });
  expect(await t.prisma.trustObservation.count({ where: { listingId } })).toBe(0);
  expect(await t.prisma.probeEvidence.count({ where: { listingId } })).toBe(0);
  // The same lease, with the worker's clock fixed: accepted.
  await completeLease(id, { leaseToken: job.leaseToken, evidence: evidence(new Date().toISOString()) });
  const obs = await t.prisma.trustObservation.findMany({ where: { listingId } });
  expect(obs.length).toBeGreaterThan(0);
  expect(obs.filter((o) => o.observedAt.getTime() > Date.now() + 60_000)).toHaveLength(0);
});
