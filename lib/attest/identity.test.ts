/**
 * Attacks on an endpoint's trust identity (docs/TRUST.md "Which history an endpoint has"): a seller whose
 * endpoint is graded `down` respells, moves or relists it at the same URL, to be graded on a fresh history.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signerFor } from "@/lib/badges/keys";
import { gradeListing } from "@/lib/attest/sweep";
import { readAttestationByUrl, RELIST_MEMORY_DAYS } from "@/lib/attest/read";
import { updateListingForSeller, writeListing } from "@/lib/listings/save";
import { listDiscoveryResources } from "@/lib/catalog/discovery";
import { checkStatement } from "@/clients/guard/src/attestation";
import { makeDiscoverable } from "@/test/discovery";
import { parseSelectRequest, selectServices } from "@/lib/catalog/select";
import { exec } from "@/lib/sql";
import type { ProbeEvidence } from "@/lib/evidence";
import { recordProbeObservations } from "@/lib/trust/observe";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { fixedKeyring } from "@/test/badges";
import { DOMAINS, gradedDoc, PRICED } from "@/test/attest";
import { seedOwner } from "@/test/analyses";
import { fullEndpoint } from "@/test/readiness";
import { PAY_TO, probed, USDC } from "@/test/trust";

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
}, 60_000);
afterAll(async () => {
  await t?.close();
});

const signer = signerFor(fixedKeyring());
const ago = (h: number) => new Date(Date.now() - h * 3_600_000).toISOString();
const listed = (baseUrl: string, paths: string | string[], slug: string) =>
  gradedDoc({ slug, baseUrl, endpoints: [paths].flat().map((path) => fullEndpoint({ method: "POST", path, pricing: PRICED })) });

let seq = 0;
/** The monitor finds the endpoint unreachable, as listed now. */
async function unreachable(listingId: string, baseUrl: string, path: string, at: string) {
  const evidence: ProbeEvidence = { version: 1, probedAt: at, vantage: "local", baseUrl, endpoints: [probed({ reachable: false, url: `${baseUrl}/${path.replace(/^\//, "")}` }, { method: "POST", path })], logo: null, docs: null, discovery: null, findings: [] };
  return t.prisma.$transaction((tx) => recordProbeObservations(tx, { listingId, evidence, source: "monitor", sourceId: `identity-${++seq}`, domains: DOMAINS }));
}

async function downListing(host: string, daysBack = 0) {
  const { org } = await seedOwner(t.prisma);
  const slug = `identity-${Math.random().toString(36).slice(2, 8)}`;
  const { id } = await writeListing(listed(`https://${host}`, "/v1/x", slug), { organizationId: org.id, publicationState: "published" });
  await exec(t.prisma, `UPDATE "listings" SET "createdAt" = $2::timestamp, "updatedAt" = $2::timestamp WHERE "id" = $1`, id, ago(24 * 30).replace("Z", ""));
  for (let h = 24 * 5; h >= 6; h -= 6) await unreachable(id, `https://${host}`, "/v1/x", ago(h + 24 * daysBack));
  await gradeListing(t.prisma, id, { now: new Date(Date.parse(ago(24 * daysBack))), signer, force: true });
  const before = await readAttestationByUrl(t.prisma, `https://${host}/v1/x`, "POST");
  expect(before.statement.grade.verdict).toBe("down");
  return { id, org: org.id, slug, observations: before.statement.evidence.observations };
}

/** What guard.fetch decides for the URL: the lookup, then checkStatement on the seller's 402 terms. */
async function guardDecision(url: string) {
  const a = await readAttestationByUrl(t.prisma, url, "POST");
  const check = checkStatement(a.statement as never, { url, method: "POST", scheme: "exact", network: "eip155:8453", asset: USDC, payTo: PAY_TO, amount: "10000" }, { now: Date.now(), refuseVerdicts: ["avoid", "down"], maxEvidenceAgeMs: 36 * 3_600_000, skewMs: 300_000 });
  return { verdict: a.statement.grade.verdict, listingId: a.statement.endpoint.listingId, pays: check.ok };
}

describe("an endpoint's path rewritten without moving its URL keeps its history", () => {
  for (const [name, host, base, path] of [
    ["a trailing slash", "slash.example.com", "", "/v1/x/"],
    ["the base URL's prefix moved out of the path", "prefix.example.com", "/v1", "/x"],
  ] as const) {
    it(`${name}: the next grade is still down, on the whole history`, async () => {
      const { id, org, slug, observations } = await downListing(host);
      const baseUrl = `https://${host}${base}`;
      await writeListing(listed(baseUrl, path, slug), { organizationId: org, listingId: id });
      await unreachable(id, baseUrl, path, ago(1));
      await gradeListing(t.prisma, id, { now: new Date(), signer, force: true });
      const after = await readAttestationByUrl(t.prisma, `https://${host}/v1/x`, "POST");
      expect(after.statement.endpoint.listingId).toBe(id);
      expect(after.statement.grade.verdict).toBe("down");
      expect(after.statement.evidence.observations).toBeGreaterThan(observations);
      // The endpoint's row kept the key its history is filed under.
      expect((await t.prisma.endpoint.findFirstOrThrow({ where: { listingId: id } })).trustPath).toBe("/v1/x");
    });
  }

  it("removed by one save and listed again with a trailing slash by the next: still down", async () => {
    const host = "readded.example.com";
    const { id, org, slug, observations } = await downListing(host);
    await writeListing(gradedDoc({ slug, baseUrl: `https://${host}`, endpoints: [fullEndpoint({ method: "POST", path: "/v2/other", pricing: PRICED })] }), { organizationId: org, listingId: id });
    await writeListing(listed(`https://${host}`, "/v1/x/", slug), { organizationId: org, listingId: id });
    await unreachable(id, `https://${host}`, "/v1/x/", ago(1));
    await gradeListing(t.prisma, id, { now: new Date(), signer, force: true });
    const after = await readAttestationByUrl(t.prisma, `https://${host}/v1/x`, "POST");
    expect(after.statement.grade.verdict).toBe("down");
    expect(after.statement.evidence.observations).toBeGreaterThan(observations);
  });
});

describe("a listing unlisted while down, listed again as a new listing", () => {
  const relist = async (host: string, organizationId: string) => {
    const { id } = await writeListing(listed(`https://${host}`, "/v1/x", `relisted-${Math.random().toString(36).slice(2, 8)}`), { organizationId, publicationState: "published" });
    await gradeListing(t.prisma, id, { now: new Date(), signer, force: true });
    return id;
  };
  const unlist = (id: string) => exec(t.prisma, `UPDATE "listings" SET "publicationState" = 'archived', "deletedAt" = now() WHERE "id" = $1`, id);

  it("the organisation's new listing of the URL answers with the old one's down attestation until its own evidence grades it", async () => {
    const host = "relist.example.com";
    const old = await downListing(host);
    await unlist(old.id);
    const fresh = await relist(host, old.org);
    const a = await readAttestationByUrl(t.prisma, `https://${host}/v1/x`, "POST");
    expect(a.statement.endpoint.listingId).toBe(old.id);
    expect(a.statement.grade.verdict).toBe("down");
    const picked = (await selectServices(parseSelectRequest({ task: "weatherly hourly forecasts", limit: 50 }))).items.find((i) => i.id === fresh);
    expect(picked?.trust).toMatchObject({ verdict: "down" });
    // Its own grade, once it has one, answers instead.
    for (let h = 24 * 4; h >= 0; h -= 6) await unreachable(fresh, `https://${host}`, "/v1/x", ago(h));
    await gradeListing(t.prisma, fresh, { now: new Date(), signer, force: true });
    const own = await readAttestationByUrl(t.prisma, `https://${host}/v1/x`, "POST");
    expect(own.statement.endpoint.listingId).toBe(fresh);
    expect(own.statement.grade.verdict).toBe("down");
  });

  it("another organisation's listing of the URL, or a down grade older than RELIST_MEMORY_DAYS, answers with its own", async () => {
    const host = "stranger.example.com";
    const old = await downListing(host);
    await unlist(old.id);
    const { org } = await seedOwner(t.prisma);
    const stranger = await relist(host, org.id);
    expect((await readAttestationByUrl(t.prisma, `https://${host}/v1/x`, "POST")).statement.endpoint.listingId).toBe(stranger);
    const host2 = "longago.example.com";
    const longAgo = await downListing(host2, RELIST_MEMORY_DAYS + 1);
    await unlist(longAgo.id);
    const again = await relist(host2, longAgo.org);
    expect((await readAttestationByUrl(t.prisma, `https://${host2}/v1/x`, "POST")).statement.endpoint.listingId).toBe(again);
  });
});

describe("shedding a down grade at the same URL", () => {
  it("A. the server moved away (key carried by the listed path) and back with a trailing slash: the key it had at that URL", async () => {
    const host = "moveback.example.com";
    const { id, org, slug } = await downListing(host);
    await writeListing(listed("https://elsewhere.example.com", ["/v1/x"], slug), { organizationId: org, listingId: id });
    await writeListing(listed(`https://${host}`, ["/v1/x/"], slug), { organizationId: org, listingId: id });
    const ep = await t.prisma.endpoint.findFirstOrThrow({ where: { listingId: id } });
    await unreachable(id, `https://${host}`, "/v1/x/", ago(1));
    await gradeListing(t.prisma, id, { now: new Date(), signer, force: true });
    expect({ trustPath: ep.trustPath, ...(await guardDecision(`https://${host}/v1/x`)) }).toMatchObject({ trustPath: "/v1/x", verdict: "down", pays: false });
  });

  it("B. the endpoint moved to a second listing of the same organisation (the first stays listed, then is unlisted): the organisation's down grade at the URL answers", async () => {
    const host = "moved.example.com";
    const old = await downListing(host);
    await writeListing(listed(`https://${host}`, ["/v2/other"], old.slug), { organizationId: old.org, listingId: old.id });
    const { id: fresh } = await writeListing(listed(`https://${host}`, ["/v1/x"], `moved-${Math.random().toString(36).slice(2, 8)}`), { organizationId: old.org, publicationState: "published" });
    await unreachable(fresh, `https://${host}`, "/v1/x", ago(1));
    await gradeListing(t.prisma, fresh, { now: new Date(), signer, force: true });
    await exec(t.prisma, `UPDATE "listings" SET "publicationState" = 'archived', "deletedAt" = now() WHERE "id" = $1`, old.id);
    const d = await guardDecision(`https://${host}/v1/x`);
    expect(d).toMatchObject({ verdict: "down", pays: false });
  });

  it("C, D. a second spelling of the URL (an escaped letter, or both spellings in one save) is refused by name, and nothing is saved", async () => {
    const host = "respelled.example.com";
    const { id, org, slug } = await downListing(host);
    const owner = (await t.prisma.user.create({ data: { name: "owner", organizationId: org } })).id;
    const save = (paths: string[]) => updateListingForSeller(owner, id, listed(`https://${host}`, paths, slug));
    await expect(save(["/v1/%78"])).rejects.toMatchObject({ details: [{ pointer: "/endpoints/0/path" }] });
    await expect(save(["/v1/x/", "/v1/x"])).rejects.toMatchObject({ details: [{ pointer: "/endpoints/1/path", message: expect.stringMatching(/\/endpoints\/0\/path/) }] });
    expect((await t.prisma.endpoint.findMany({ where: { listingId: id } })).map((e) => e.path)).toEqual(["/v1/x"]);
  });
});

describe("readers of a carried endpoint", () => {
  it("E. discovery (/discovery/resources) shows the grade of a carried endpoint", async () => {
    const host = "disco.example.com";
    const { id, org, slug } = await downListing(host);
    await writeListing(listed(`https://${host}`, ["/v1/x/"], slug), { organizationId: org, listingId: id });
    await unreachable(id, `https://${host}`, "/v1/x/", ago(1));
    await gradeListing(t.prisma, id, { now: new Date(), signer, force: true });
    expect((await readAttestationByUrl(t.prisma, `https://${host}/v1/x`, "POST")).statement.grade.verdict).toBe("down");
    await makeDiscoverable(t.prisma, id, [{ method: "POST", path: "/v1/x/", accepts: [{ payTo: PAY_TO }] }]);
    const page = await listDiscoveryResources({ filters: {}, limit: 100, offset: 0, unappliedFilters: [] }, t.prisma);
    const item = page.items.find((i) => i.tollgate.listing.slug === slug)!;
    expect(item.tollgate.grade).toMatchObject({ verdict: "down" });
  });
});
