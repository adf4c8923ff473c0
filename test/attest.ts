/** Fixtures for the stored grades' tests: a published listing with one priced endpoint and probe observations over days. */
import type { ProbeEvidence } from "@/lib/evidence";
import type { ListingDocument } from "@/lib/listing-document/document";
import { writeListing } from "@/lib/listings/save";
import { exec } from "@/lib/sql";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { domainKey, recordProbeObservations, type DomainRead } from "@/lib/trust/observe";
import { seedOwner } from "@/test/analyses";
import { fullEndpoint, fullListing } from "@/test/readiness";
import { challenge, probed, USDC } from "@/test/trust";

export const GRADE_NOW = new Date("2026-12-03T12:00:00.000Z");
export const daysBefore = (d: number, from = GRADE_NOW) => new Date(from.getTime() - d * 86_400_000).toISOString();

export const DOMAINS = new Map<string, DomainRead>([[domainKey("eip155:8453", USDC, "USD Coin", "2"), { ok: true, matches: true, expected: "0xaa", onChain: "0xaa" }]]);

/** $0.01 a call in USDC on Base, as every graded fixture is priced. */
export const PRICED = { label: "$0.01", usd: "0.01", machine: { amount: "10000", asset: USDC, network: "eip155:8453", decimals: 6 }, mode: "fixed" as const, dynamic: null };

export function gradedDoc(over: Partial<ListingDocument> = {}): ListingDocument {
  const ep = fullEndpoint({ method: "POST", path: "/v1/x", pricing: PRICED });
  return fullListing({ slug: `attest-${Math.random().toString(36).slice(2, 8)}`, baseUrl: "https://api.example.com", endpoints: [ep], ...over });
}

let seq = 0;
export async function observe(prisma: PrismaClient, listingId: string, at: string, baseUrl = "https://api.example.com") {
  const evidence: ProbeEvidence = { version: 1, probedAt: at, vantage: "local", baseUrl, endpoints: [probed({ pr: challenge(), url: `${baseUrl}/v1/x` }, { method: "POST", path: "/v1/x" })], logo: null, docs: null, discovery: null, findings: [] };
  return prisma.$transaction((tx) => recordProbeObservations(tx, { listingId, evidence, source: "monitor", sourceId: `attest-${process.pid}-${++seq}`, domains: DOMAINS }));
}

/** A published listing, created 60 days before GRADE_NOW, probed once a day for `days` days. */
export async function gradedListing(prisma: PrismaClient, days = 5, o: { baseUrl?: string; organizationId?: string } = {}) {
  const organizationId = o.organizationId ?? (await seedOwner(prisma)).org.id;
  const { id } = await writeListing(gradedDoc(o.baseUrl ? { baseUrl: o.baseUrl } : {}), { organizationId, publicationState: "published" });
  await exec(prisma, `UPDATE "listings" SET "createdAt" = $2::timestamp, "updatedAt" = $2::timestamp WHERE "id" = $1`, id, daysBefore(60).replace("Z", ""));
  for (let d = days; d >= 1; d--) await observe(prisma, id, daysBefore(d), o.baseUrl);
  const [ep] = await prisma.endpoint.findMany({ where: { listingId: id } });
  return { id, endpointId: ep.id };
}
