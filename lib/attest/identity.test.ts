/**
 * Attacks on an endpoint's trust identity (docs/TRUST.md "Which history an endpoint has"): a seller whose
 * endpoint is graded `down` rewrites its path without changing its URL, to be graded on a fresh history.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signerFor } from "@/lib/badges/keys";
import { gradeListing } from "@/lib/attest/sweep";
import { readAttestationByUrl, RELIST_MEMORY_DAYS } from "@/lib/attest/read";
import { writeListing } from "@/lib/listings/save";
import { parseSelectRequest, selectServices } from "@/lib/catalog/select";
import { exec } from "@/lib/sql";
import type { ProbeEvidence } from "@/lib/evidence";
import { domainKey, recordProbeObservations, type DomainRead } from "@/lib/trust/observe";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { fixedKeyring } from "@/test/badges";
import { gradedDoc } from "@/test/attest";
import { seedOwner } from "@/test/analyses";
import { fullEndpoint } from "@/test/readiness";
import { probed, USDC } from "@/test/trust";

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
const listed = (baseUrl: string, path: string, slug: string) => gradedDoc({ slug, baseUrl, endpoints: [fullEndpoint({ method: "POST", path, pricing: priced })] });

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
    await writeListing(gradedDoc({ slug, baseUrl: `https://${host}`, endpoints: [fullEndpoint({ method: "POST", path: "/v2/other", pricing: priced })] }), { organizationId: org, listingId: id });
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
