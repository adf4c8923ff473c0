/** More ways to shed a down grade at one URL (found by an audit), and a reader that keyed by the listed path. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signerFor } from "@/lib/badges/keys";
import { gradeListing } from "@/lib/attest/sweep";
import { readAttestationByUrl } from "@/lib/attest/read";
import { updateListingForSeller, writeListing } from "@/lib/listings/save";
import { listDiscoveryResources } from "@/lib/catalog/discovery";
import { exec } from "@/lib/sql";
import type { ProbeEvidence } from "@/lib/evidence";
import { domainKey, recordProbeObservations, type DomainRead } from "@/lib/trust/observe";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { fixedKeyring } from "@/test/badges";
import { gradedDoc } from "@/test/attest";
import { seedOwner } from "@/test/analyses";
import { fullEndpoint } from "@/test/readiness";
import { challenge, probed, PAY_TO, USDC } from "@/test/trust";
import { makeDiscoverable } from "@/test/discovery";
import { checkStatement } from "@/clients/guard/src/attestation";

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
}, 60_000);
afterAll(async () => {
  await t?.close();
});

const signer = signerFor(fixedKeyring());
const DOMAINS = new Map<string, DomainRead>([[domainKey("eip155:8453", USDC, "USD Coin", "2"), { ok: true, matches: true, expected: "0xaa", onChain: "0xaa" }]]);
const ago = (h: number) => new Date(Date.now() - h * 3_600_000).toISOString();
const priced = { label: "$0.01", usd: "0.01", machine: { amount: "10000", asset: USDC, network: "eip155:8453", decimals: 6 }, mode: "fixed" as const, dynamic: null };
const doc = (baseUrl: string, paths: string[], slug: string) => gradedDoc({ slug, baseUrl, endpoints: paths.map((path) => fullEndpoint({ method: "POST", path, pricing: priced })) });
const join = (baseUrl: string, path: string) => `${baseUrl.replace(/\/+$/, "")}/${path.replace(/^\//, "")}`;

let seq = 0;
async function probe(listingId: string, baseUrl: string, paths: string[], at: string, healthy: boolean) {
  const evidence: ProbeEvidence = {
    version: 1, probedAt: at, vantage: "local", baseUrl,
    endpoints: paths.map((path) => {
      const url = join(baseUrl, path);
      return healthy
        ? probed({ pr: challenge((p) => (p.resource.url = url)), url }, { method: "POST", path })
        : probed({ reachable: false, url }, { method: "POST", path });
    }),
    logo: null, docs: null, discovery: null, findings: [],
  };
  return t.prisma.$transaction((tx) => recordProbeObservations(tx, { listingId, evidence, source: "monitor", sourceId: `audit-${++seq}`, domains: DOMAINS }));
}

/** A published listing whose POST https://host/v1/x is graded down on five days of silence. */
async function downListing(host: string) {
  const { org } = await seedOwner(t.prisma);
  const slug = `audit-${Math.random().toString(36).slice(2, 8)}`;
  const { id } = await writeListing(doc(`https://${host}`, ["/v1/x"], slug), { organizationId: org.id, publicationState: "published" });
  await exec(t.prisma, `UPDATE "listings" SET "createdAt" = $2::timestamp, "updatedAt" = $2::timestamp WHERE "id" = $1`, id, ago(24 * 30).replace("Z", ""));
  for (let h = 24 * 5; h >= 6; h -= 6) await probe(id, `https://${host}`, ["/v1/x"], ago(h), false);
  await gradeListing(t.prisma, id, { now: new Date(), signer, force: true });
  expect((await readAttestationByUrl(t.prisma, `https://${host}/v1/x`, "POST")).statement.grade.verdict).toBe("down");
  return { id, org: org.id, slug };
}

/** What guard.fetch decides for the URL: the lookup, then checkStatement on the seller's 402 terms. */
async function guardDecision(url: string) {
  const a = await readAttestationByUrl(t.prisma, url, "POST");
  const check = checkStatement(a.statement as never, { url, method: "POST", scheme: "exact", network: "eip155:8453", asset: USDC, payTo: PAY_TO, amount: "10000" }, { now: Date.now(), refuseVerdicts: ["avoid", "down"], maxEvidenceAgeMs: 36 * 3_600_000, skewMs: 300_000 });
  return { verdict: a.statement.grade.verdict, listingId: a.statement.endpoint.listingId, pays: check.ok };
}

describe("shedding a down grade at the same URL", () => {
  it("A. the server moved away (key carried by the listed path) and back with a trailing slash: the key it had at that URL", async () => {
    const host = "moveback.example.com";
    const { id, org, slug } = await downListing(host);
    await writeListing(doc("https://elsewhere.example.com", ["/v1/x"], slug), { organizationId: org, listingId: id });
    await writeListing(doc(`https://${host}`, ["/v1/x/"], slug), { organizationId: org, listingId: id });
    const ep = await t.prisma.endpoint.findFirstOrThrow({ where: { listingId: id } });
    await probe(id, `https://${host}`, ["/v1/x/"], ago(1), false);
    await gradeListing(t.prisma, id, { now: new Date(), signer, force: true });
    expect({ trustPath: ep.trustPath, ...(await guardDecision(`https://${host}/v1/x`)) }).toMatchObject({ trustPath: "/v1/x", verdict: "down", pays: false });
  });

  it("B. the endpoint moved to a second listing of the same organisation (the first stays listed, then is unlisted): the organisation's down grade at the URL answers", async () => {
    const host = "moved.example.com";
    const old = await downListing(host);
    await writeListing(doc(`https://${host}`, ["/v2/other"], old.slug), { organizationId: old.org, listingId: old.id });
    const { id: fresh } = await writeListing(doc(`https://${host}`, ["/v1/x"], `moved-${Math.random().toString(36).slice(2, 8)}`), { organizationId: old.org, publicationState: "published" });
    await probe(fresh, `https://${host}`, ["/v1/x"], ago(1), true);
    await gradeListing(t.prisma, fresh, { now: new Date(), signer, force: true });
    await exec(t.prisma, `UPDATE "listings" SET "publicationState" = 'archived', "deletedAt" = now() WHERE "id" = $1`, old.id);
    const d = await guardDecision(`https://${host}/v1/x`);
    expect(d).toMatchObject({ verdict: "down", pays: false });
  });

  it("C, D. a second spelling of the URL (an escaped letter, or both spellings in one save) is refused by name, and nothing is saved", async () => {
    const host = "respelled.example.com";
    const { id, org, slug } = await downListing(host);
    const owner = (await t.prisma.user.create({ data: { name: "owner", organizationId: org } })).id;
    const save = (paths: string[]) => updateListingForSeller(owner, id, doc(`https://${host}`, paths, slug));
    await expect(save(["/v1/%78"])).rejects.toMatchObject({ details: [{ pointer: "/endpoints/0/path" }] });
    await expect(save(["/v1/x/", "/v1/x"])).rejects.toMatchObject({ details: [{ pointer: "/endpoints/1/path", message: expect.stringMatching(/\/endpoints\/0\/path/) }] });
    expect((await t.prisma.endpoint.findMany({ where: { listingId: id } })).map((e) => e.path)).toEqual(["/v1/x"]);
  });
});

describe("readers of a carried endpoint", () => {
  it("E. discovery (/discovery/resources) shows the grade of a carried endpoint", async () => {
    const host = "disco.example.com";
    const { id, org, slug } = await downListing(host);
    await writeListing(doc(`https://${host}`, ["/v1/x/"], slug), { organizationId: org, listingId: id });
    await probe(id, `https://${host}`, ["/v1/x/"], ago(1), false);
    await gradeListing(t.prisma, id, { now: new Date(), signer, force: true });
    expect((await readAttestationByUrl(t.prisma, `https://${host}/v1/x`, "POST")).statement.grade.verdict).toBe("down");
    await makeDiscoverable(t.prisma, id, [{ method: "POST", path: "/v1/x/", accepts: [{ payTo: PAY_TO }] }]);
    const page = await listDiscoveryResources({ filters: {}, limit: 100, offset: 0, unappliedFilters: [] }, t.prisma);
    const item = page.items.find((i) => i.tollgate.listing.slug === slug)!;
    expect(item.tollgate.grade).toMatchObject({ verdict: "down" });
  });
});
