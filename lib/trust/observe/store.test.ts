/**
 * Storage of the trust observations on the database (PGlite, or server PostgreSQL with
 * TEST_DATABASE_URL): one immutable row per check outcome, the closed sets held by CHECK constraints,
 * nothing half-written, endpoint revisions from the listing's history and from what the probes see,
 * the analysis completion writing them with its evidence, and the reader's TrustSubject.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { privateKeyToAccount } from "viem/accounts";
import { MONITOR_RUBRIC_VERSIONS } from "@/lib/probe/capabilities";
import type { ProbeEvidence } from "@/lib/evidence";
import type { ListingDocument } from "@/lib/listing-document/document";
import { writeListing } from "@/lib/listings/save";
import { completeLease } from "@/lib/analyses/store-result";
import { reanalyseForActor } from "@/lib/analyses/progress";
import { claimLeases, reapExpiredLeases } from "@/lib/queue/lease";
import { PRIORITY_SWEEP, requestAnalysis } from "@/lib/queue/enqueue-analysis";
import { exec } from "@/lib/sql";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { seedOwner } from "@/test/analyses";
import { fullEndpoint, fullListing } from "@/test/readiness";
import { challenge, daysAgo, OTHER, PAY_TO, probed, USDC } from "@/test/trust";
import { loadRubric, scoreSubject } from "@/lib/trust/engine";
import { domainKey, readTrustSubjects, recordProbeObservations, recordSampleObservations, type DomainRead } from "@/lib/trust/observe";

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
}, 60_000);
afterAll(async () => {
  await t?.close();
});

const DOMAINS = new Map<string, DomainRead>([[domainKey("eip155:8453", USDC, "USD Coin", "2"), { ok: true, matches: true, expected: "0xaa", onChain: "0xaa" }]]);

function doc(amount = "10000", over: Partial<ListingDocument> = {}): ListingDocument {
  const ep = fullEndpoint({ method: "POST", path: "/v1/x", pricing: { label: "$0.01", usd: "0.01", machine: { amount, asset: USDC, network: "eip155:8453", decimals: 6 }, mode: "fixed", dynamic: null } });
  return fullListing({ slug: `trust-${Math.random().toString(36).slice(2, 8)}`, baseUrl: "https://api.example.com", endpoints: [ep], ...over });
}

function evidence(at: string, pr = challenge()): ProbeEvidence {
  return { version: 1, probedAt: at, vantage: "local", baseUrl: "https://api.example.com", endpoints: [probed({ pr }, { method: "POST", path: "/v1/x" })], logo: null, docs: null, discovery: null, findings: [] };
}

let seq = 0;
async function record(listingId: string, ev: ProbeEvidence, source: "analysis" | "monitor" = "monitor") {
  return t.prisma.$transaction((tx) => recordProbeObservations(tx, { listingId, evidence: ev, source, sourceId: `src-${++seq}`, domains: DOMAINS }));
}

async function newListing(d = doc()) {
  const { org } = await seedOwner(t.prisma);
  const { id } = await writeListing(d, { organizationId: org.id, publicationState: "published" });
  // The listing has existed for two months (the observations below are dated in the past).
  await exec(t.prisma, `UPDATE "listings" SET "createdAt" = $2::timestamp, "updatedAt" = $2::timestamp WHERE "id" = $1`, id, daysAgo(60).replace("Z", ""));
  return { id, org: org.id };
}

describe("writing free observations", () => {
  it("one row per free check of the probed endpoint, at revision 1, with its source", async () => {
    const { id } = await newListing();
    const r = await record(id, evidence(daysAgo(3)));
    expect(r.written).toBe(16);
    const rows = await t.prisma.trustObservation.findMany({ where: { listingId: id }, orderBy: { check: "asc" } });
    expect(rows.map((x) => x.check)).toEqual(["C1", "C2", "C3", "C4", "C5", "H1", "H2", "H3", "H4", "R1", "R2", "R3", "S1", "S2", "S4", "S5"]);
    expect(new Set(rows.map((x) => x.revision))).toEqual(new Set([1]));
    expect(rows.every((x) => x.kind === "free" && x.source === "monitor" && x.vantage === "local" && x.observedAt.toISOString() === daysAgo(3))).toBe(true);
    expect(rows.find((x) => x.check === "H4")!.outcome).toBe("na"); // the owner has linked no wallet
    expect(rows.find((x) => x.check === "R3")!.value).toBe(180);
  });

  it("H4 reads the owner's linked SIWE wallet", async () => {
    const { id, org } = await newListing();
    await t.prisma.user.create({ data: { name: "owner", organizationId: org, walletAddress: PAY_TO.toLowerCase() } });
    await record(id, evidence(daysAgo(1)));
    expect((await t.prisma.trustObservation.findFirstOrThrow({ where: { listingId: id, check: "H4" } })).outcome).toBe("pass");
  });

  it("H4 reads the wallets the operator's own /.well-known/x402 proves (the probe's discovery document)", async () => {
    const operator = privateKeyToAccount("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"); // anvil's first dev key
    const proof = await operator.signMessage({ message: "https://api.example.com" });
    const discovery = { url: "https://api.example.com/.well-known/x402", ok: true, status: 200, contentType: "application/json", kind: "well-known-x402" as const, findings: [], ownershipProofs: [proof] };
    const h4 = async (payTo: string) => {
      const { id } = await newListing();
      await record(id, { ...evidence(daysAgo(1), challenge((pr) => (pr.accepts[0].payTo = payTo))), discovery });
      return t.prisma.trustObservation.findFirstOrThrow({ where: { listingId: id, check: "H4" } });
    };
    const pass = await h4(operator.address);
    expect(pass.outcome).toBe("pass");
    expect(pass.receipt).toMatchObject({ matchedBy: "well-known", wellKnown: { url: discovery.url, signed: "https://api.example.com", wallets: [operator.address.toLowerCase()] } });
    expect((await h4(PAY_TO)).outcome).toBe("fail");
  });

  it("nothing half-written: a failing transaction leaves no observation, and the same source row twice is refused", async () => {
    const { id } = await newListing();
    await expect(
      t.prisma.$transaction(async (tx) => {
        await recordProbeObservations(tx, { listingId: id, evidence: evidence(daysAgo(1)), source: "monitor", sourceId: "once", domains: DOMAINS });
        throw new Error("the health sample's write failed");
      }),
    ).rejects.toThrow(/health sample/);
    expect(await t.prisma.trustObservation.count({ where: { listingId: id } })).toBe(0);
    expect(await t.prisma.trustEndpointRevision.count({ where: { listingId: id } })).toBe(0);
    await t.prisma.$transaction((tx) => recordProbeObservations(tx, { listingId: id, evidence: evidence(daysAgo(1)), source: "monitor", sourceId: "once", domains: DOMAINS }));
    await expect(t.prisma.$transaction((tx) => recordProbeObservations(tx, { listingId: id, evidence: evidence(daysAgo(1)), source: "monitor", sourceId: "once", domains: DOMAINS }))).rejects.toThrow();
    expect(await t.prisma.trustObservation.count({ where: { listingId: id } })).toBe(16);
  });
});

describe("the table's guarantees", () => {
  it("rows are immutable: UPDATE and DELETE are refused", async () => {
    const { id } = await newListing();
    await record(id, evidence(daysAgo(1)));
    const row = await t.prisma.trustObservation.findFirstOrThrow({ where: { listingId: id } });
    await expect(t.prisma.trustObservation.update({ where: { id: row.id }, data: { outcome: "fail" } })).rejects.toThrow(/immutable/);
    await expect(t.prisma.trustObservation.delete({ where: { id: row.id } })).rejects.toThrow(/immutable/);
    await expect(exec(t.prisma, `DELETE FROM "trust_observations" WHERE "listingId" = $1`, id)).rejects.toThrow();
    expect(await t.prisma.trustObservation.count({ where: { listingId: id } })).toBe(16);
    const rev = await t.prisma.trustEndpointRevision.findFirstOrThrow({ where: { listingId: id } });
    await expect(t.prisma.trustEndpointRevision.update({ where: { listingId_method_path_revision: { listingId: rev.listingId, method: rev.method, path: rev.path, revision: rev.revision } }, data: { note: "x" } })).rejects.toThrow(/immutable/);
  });

  const base = { listingId: "l", endpointId: "e", method: "GET", path: "/", observedAt: new Date(), vantage: "local", revision: 1, receipt: {}, source: "monitor", sourceId: "s" };
  it.each<[string, Record<string, unknown>, string]>([
    ["an unknown check", { check: "Z9", kind: "free", outcome: "pass" }, "trust_observations_check"],
    ["an unknown outcome", { check: "R1", kind: "free", outcome: "maybe" }, "trust_observations_outcome"],
    ["a paid check marked free", { check: "R4", kind: "free", outcome: "pass" }, "trust_observations_kind_of_check"],
    ["a free check marked paid", { check: "R1", kind: "paid", outcome: "pass" }, "trust_observations_kind_of_check"],
    ["a value on a rate check", { check: "R1", kind: "free", outcome: "pass", value: 12 }, "trust_observations_value"],
    ["a negative latency", { check: "R3", kind: "free", outcome: "pass", value: -1 }, "trust_observations_value"],
    ["revision 0", { check: "R1", kind: "free", outcome: "pass", revision: 0 }, "trust_observations_revision"],
    ["an empty vantage", { check: "R1", kind: "free", outcome: "pass", vantage: "" }, "trust_observations_vantage"],
    ["a receipt that is not an object", { check: "R1", kind: "free", outcome: "pass", receipt: [1] }, "trust_observations_receipt"],
    ["an unknown source", { check: "R1", kind: "free", outcome: "pass", source: "guess" }, "trust_observations_source"],
  ])("CHECK refuses %s", async (_, over, constraint) => {
    await expect(t.prisma.trustObservation.create({ data: { ...base, id: `bad-${Math.random()}`, ...over } as never })).rejects.toThrow(new RegExp(constraint));
  });
  it("a revision's changes are a closed set, and only revision 1 has none", async () => {
    const r = { listingId: "l", method: "GET", path: "/", startedAt: new Date(), derivedFrom: "test" };
    await expect(t.prisma.trustEndpointRevision.create({ data: { ...r, revision: 2, changes: ["colour"] } })).rejects.toThrow(/trust_endpoint_revisions_changes/);
    await expect(t.prisma.trustEndpointRevision.create({ data: { ...r, revision: 2, changes: [] } })).rejects.toThrow(/trust_endpoint_revisions_first/);
    await expect(t.prisma.trustEndpointRevision.create({ data: { ...r, revision: 1, changes: ["price"] } })).rejects.toThrow(/trust_endpoint_revisions_first/);
  });
});

describe("revisions", () => {
  it("a new payTo, then a new listed price, each start a revision; H2 and H3 fail on them; the reader follows the endpoint across its rewritten rows", async () => {
    const { id, org } = await newListing(doc("10000", { slug: "trust-rev" }));
    await record(id, evidence(daysAgo(10)));
    // The 402 now pays another wallet.
    await record(id, evidence(daysAgo(5), challenge((p) => (p.accepts[0].payTo = OTHER))));
    // The seller raises the listed price (the endpoint row is rewritten with a new id) and the 402 follows.
    await writeListing(doc("20000", { slug: "trust-rev" }), { organizationId: org, listingId: id });
    await record(id, evidence(daysAgo(1), challenge((p) => ((p.accepts[0].payTo = OTHER), (p.accepts[0].amount = "20000")))));

    const revs = await t.prisma.trustEndpointRevision.findMany({ where: { listingId: id }, orderBy: { revision: "asc" } });
    expect(revs.map((r) => [r.revision, r.changes])).toEqual([[1, []], [2, ["payTo"]], [3, ["price"]]]);
    expect(revs[1].startedAt.toISOString()).toBe(daysAgo(5));
    expect(revs[1].payTo).toBe(OTHER.toLowerCase());
    const at = async (check: string) => (await t.prisma.trustObservation.findMany({ where: { listingId: id, check }, orderBy: { observedAt: "asc" } })).map((o) => [o.revision, o.outcome]);
    expect(await at("H3")).toEqual([[1, "pass"], [2, "fail"], [3, "fail"]]);
    expect(await at("H2")).toEqual([[1, "pass"], [2, "pass"], [3, "fail"]]);
    expect(await at("H1")).toEqual([[1, "pass"], [2, "pass"], [3, "pass"]]);

    const [subject] = await readTrustSubjects(t.prisma, id, { raw: true });
    const current = await t.prisma.endpoint.findFirstOrThrow({ where: { listingId: id } });
    expect(subject.endpointId).toBe(current.id);
    expect(subject.observations).toHaveLength(48);
    // The default read serves rollups plus the tail, and scores the same.
    const now = Date.now();
    const [served] = await readTrustSubjects(t.prisma, id, { now });
    expect(served.rollups!.length).toBeGreaterThan(0);
    expect(scoreSubject(loadRubric(), { ...served }, { now, band: false }).score).toBe(scoreSubject(loadRubric(), subject, { now, band: false }).score);
    expect(subject.observations.every((o) => o.endpointId === current.id)).toBe(true);
    expect(subject.revisions.map((r) => ({ revision: r.revision, changes: r.changes, note: r.note }))).toEqual([
      { revision: 1, changes: [], note: null },
      { revision: 2, changes: ["payTo"], note: null },
      { revision: 3, changes: ["price"], note: null },
    ]);
    expect(subject.observations[0]).toMatchObject({ kind: "free", vantage: "local", observedAt: daysAgo(10) });
    expect(typeof subject.observations[0].receipt).toBe("object");
  });

  it("first sight derives the earlier revisions from the documents the listing's results scored", async () => {
    const { id } = await newListing(doc("10000"));
    const older = doc("5000");
    await t.prisma.readinessResult.create({
      data: { listingId: id, rubricVersion: "readiness/1.0.0", total: 80, rawTotal: 80, band: "B", provisional: false, caps: [], dimensions: [], rules: [], improvements: [], document: older as never, createdAt: new Date(daysAgo(20)) },
    });
    await record(id, evidence(daysAgo(1)));
    const revs = await t.prisma.trustEndpointRevision.findMany({ where: { listingId: id }, orderBy: { revision: "asc" } });
    expect(revs.map((r) => [r.revision, r.changes, r.derivedFrom.split(":")[0]])).toEqual([[1, [], "scored_document"], [2, ["price"], "listing"]]);
    expect((revs[0].listedPrice as { amount: string }).amount).toBe("5000");
  });

  it("a price raised with the seller's note: the new revision carries the note and H2 passes, the note in its receipt; raised without one, H2 fails", async () => {
    const raise = async (note: string | undefined) => {
      const slug = `trust-note-${Math.random().toString(36).slice(2, 8)}`;
      const { id, org } = await newListing(doc("10000", { slug }));
      await record(id, evidence(daysAgo(10)));
      await writeListing(doc("20000", { slug }), { organizationId: org, listingId: id, priceChangeNote: note });
      await record(id, evidence(daysAgo(1), challenge((p) => (p.accepts[0].amount = "20000"))));
      const revs = await t.prisma.trustEndpointRevision.findMany({ where: { listingId: id }, orderBy: { revision: "asc" } });
      const h2 = await t.prisma.trustObservation.findMany({ where: { listingId: id, check: "H2" }, orderBy: { observedAt: "asc" } });
      return { id, revs, h2 };
    };
    const noted = await raise("Forecasts now come from the hourly model, which costs us twice as much.");
    expect(noted.revs.map((r) => [r.revision, r.changes, r.note])).toEqual([[1, [], null], [2, ["price"], "Forecasts now come from the hourly model, which costs us twice as much."]]);
    expect(noted.h2.map((o) => [o.revision, o.outcome])).toEqual([[1, "pass"], [2, "pass"]]);
    expect(noted.h2[1].receipt).toMatchObject({ notedIncrease: true, sellerNotes: [{ startedAt: noted.revs[1].startedAt.toISOString(), note: "Forecasts now come from the hourly model, which costs us twice as much." }] });
    const [subject] = await readTrustSubjects(t.prisma, noted.id);
    expect(subject.revisions.map((r) => r.note)).toEqual([null, "Forecasts now come from the hourly model, which costs us twice as much."]);
    // A later observation at the same price starts no revision and still passes.
    await record(noted.id, evidence(new Date().toISOString(), challenge((p) => (p.accepts[0].amount = "20000"))));
    expect((await t.prisma.trustObservation.findMany({ where: { listingId: noted.id, check: "H2" }, orderBy: { observedAt: "asc" } })).map((o) => [o.revision, o.outcome])).toEqual([[1, "pass"], [2, "pass"], [2, "pass"]]);

    const unnoted = await raise(undefined);
    expect(unnoted.revs.map((r) => [r.revision, r.changes, r.note])).toEqual([[1, [], null], [2, ["price"], null]]);
    expect(unnoted.h2.map((o) => [o.revision, o.outcome])).toEqual([[1, "pass"], [2, "fail"]]);
    expect(unnoted.h2[1].receipt).toMatchObject({ increasedFrom: { amount: "10000" }, reason: "the price rose within 30 days without a noted revision" });
  });

  it("a later change that is not a price change does not carry the note again", async () => {
    const slug = `trust-note-${Math.random().toString(36).slice(2, 8)}`;
    const { id, org } = await newListing(doc("10000", { slug }));
    await record(id, evidence(daysAgo(10)));
    await writeListing(doc("20000", { slug }), { organizationId: org, listingId: id, priceChangeNote: "Hourly model." });
    await record(id, evidence(daysAgo(5), challenge((p) => (p.accepts[0].amount = "20000"))));
    const described = doc("20000", { slug });
    described.endpoints[0] = { ...described.endpoints[0], description: "Forecasts by coordinates, hourly." };
    await writeListing(described, { organizationId: org, listingId: id });
    await record(id, evidence(daysAgo(1), challenge((p) => (p.accepts[0].amount = "20000"))));
    const revs = await t.prisma.trustEndpointRevision.findMany({ where: { listingId: id }, orderBy: { revision: "asc" } });
    expect(revs.map((r) => [r.revision, r.changes, r.note])).toEqual([[1, [], null], [2, ["price"], "Hourly model."], [3, ["description"], null]]);
  });

  it("first sight: the note goes to the revision that brought the endpoint to its current price (the listing as it stands, or a document scored after the noted save)", async () => {
    const firstSight = async (scoredAfter: boolean) => {
      const slug = `trust-note-${Math.random().toString(36).slice(2, 8)}`;
      const { id, org } = await newListing(doc("5000", { slug }));
      const score = (d: ListingDocument, at: Date) =>
        t.prisma.readinessResult.create({ data: { listingId: id, rubricVersion: "readiness/1.0.0", total: 80, rawTotal: 80, band: "B", provisional: false, caps: [], dimensions: [], rules: [], improvements: [], document: d as never, createdAt: at } });
      await score(doc("5000", { slug }), new Date(daysAgo(20)));
      await writeListing(doc("10000", { slug }), { organizationId: org, listingId: id, priceChangeNote: "New data source." });
      if (scoredAfter) await score(doc("10000", { slug }), new Date(Date.now() + 1000));
      await record(id, evidence(new Date(Date.now() + 2000).toISOString()));
      return t.prisma.trustEndpointRevision.findMany({ where: { listingId: id }, orderBy: { revision: "asc" } });
    };
    const fromListing = await firstSight(false);
    expect(fromListing.map((r) => [r.revision, r.changes, r.derivedFrom.split(":")[0], r.note])).toEqual([[1, [], "scored_document", null], [2, ["price"], "listing", "New data source."]]);
    const fromScored = await firstSight(true);
    expect(fromScored.map((r) => [r.revision, r.changes, r.derivedFrom.split(":")[0], r.note])).toEqual([[1, [], "scored_document", null], [2, ["price"], "scored_document", "New data source."]]);
  });

  it("an endpoint never observed reads as revision 1 with no observations", async () => {
    const { id } = await newListing();
    const [s] = await readTrustSubjects(t.prisma, id);
    expect(s.observations).toEqual([]);
    expect(s.revisions).toEqual([{ revision: 1, startedAt: expect.any(String), changes: [], note: null }]);
  });
});

describe("an endpoint moved to another server (docs/TRUST.md \"Revisions\")", () => {
  const MOVED = "https://api.elsewhere.example";
  const at = (base: string, when: string, pr = challenge()): ProbeEvidence => ({
    ...evidence(when, pr),
    baseUrl: base,
    endpoints: [probed({ pr, url: base.replace(/\/+$/, "") + "/v1/x/" }, { method: "POST", path: "/v1/x" })],
  });
  const moved = (slug: string) => doc("10000", { slug, baseUrl: MOVED });

  it("a new base URL starts a `url` revision: the first server's observations weigh half (C checks reset), and the move is on the grade's watch", async () => {
    const slug = `trust-move-${Math.random().toString(36).slice(2, 8)}`;
    const { id, org } = await newListing(doc("10000", { slug }));
    for (const d of [9, 8, 7, 6, 5]) await record(id, evidence(daysAgo(d)));
    // The seller points the listing at another server, which answers the same 402.
    await writeListing(moved(slug), { organizationId: org, listingId: id });
    await record(id, at(MOVED, daysAgo(1)));
    const revs = await t.prisma.trustEndpointRevision.findMany({ where: { listingId: id }, orderBy: { revision: "asc" } });
    expect(revs.map((r) => [r.revision, r.changes, r.url])).toEqual([
      [1, [], "https://api.example.com/v1/x"],
      [2, ["url"], "https://api.elsewhere.example/v1/x"],
    ]);
    expect(revs[1].startedAt.toISOString()).toBe(daysAgo(1));
    const [subject] = await readTrustSubjects(t.prisma, id, { raw: true });
    const now = Date.parse(daysAgo(0));
    const r = scoreSubject(loadRubric(), subject, { now, band: false });
    expect(r.watch).toBe(true);
    expect(r.watchBecause.join(" ")).toMatch(/revision 2 \(url\)/);
    const c1 = r.checks.find((c) => c.id === "C1")!;
    expect(c1.facts.droppedByRevision).toBe(5); // the first server's five C1 passes
    const r1 = r.checks.find((c) => c.id === "R1")!;
    expect(r1.facts.onRevision).toBe("half");
  });

  it("a probe begun before the move called the server the listing no longer lists: nothing is written for it", async () => {
    const slug = `trust-move-${Math.random().toString(36).slice(2, 8)}`;
    const { id, org } = await newListing(doc("10000", { slug }));
    await record(id, evidence(daysAgo(3)));
    await writeListing(moved(slug), { organizationId: org, listingId: id });
    // The old server's answer arrives after the save: not the moved endpoint's evidence, and no revision.
    expect((await record(id, evidence(daysAgo(2)))).written).toBe(0);
    expect((await t.prisma.trustEndpointRevision.findMany({ where: { listingId: id } })).map((r) => r.changes)).toEqual([[]]);
    // The same URL written another way (host case, default port, trailing slash) is the same server.
    expect((await record(id, at("HTTPS://API.ELSEWHERE.EXAMPLE:443/", daysAgo(1)))).written).toBe(16);
  });

  it("revisions written before the URL was kept: the URL the last probe called stands in for it", async () => {
    const slug = `trust-move-${Math.random().toString(36).slice(2, 8)}`;
    const { id, org } = await newListing(doc("10000", { slug }));
    await record(id, evidence(daysAgo(4)));
    // The latest revision as written before migration 20261210010000 (rows are immutable, so a new one): no url.
    await exec(
      t.prisma,
      `INSERT INTO "trust_endpoint_revisions" ("listingId", "method", "path", "revision", "startedAt", "changes", "note", "listedPrice", "payTo", "descriptionSha256", "schemasSha256", "derivedFrom", "url")
       SELECT "listingId", "method", "path", 2, $2::timestamp, ARRAY['description'], NULL, "listedPrice", "payTo", "descriptionSha256", "schemasSha256", 'listing', NULL
       FROM "trust_endpoint_revisions" WHERE "listingId" = $1 AND "revision" = 1`,
      id,
      daysAgo(3).replace("Z", ""),
    );
    await writeListing(moved(slug), { organizationId: org, listingId: id });
    await record(id, at(MOVED, daysAgo(1)));
    const revs = await t.prisma.trustEndpointRevision.findMany({ where: { listingId: id }, orderBy: { revision: "asc" } });
    expect(revs.map((r) => [r.revision, r.changes, r.url])).toEqual([
      [1, [], "https://api.example.com/v1/x"],
      [2, ["description"], null],
      [3, ["url"], "https://api.elsewhere.example/v1/x"],
    ]);
  });

  it("a canary sample begun before the move paid the server the listing no longer lists: its paid checks are not written; one begun after is", async () => {
    const slug = `trust-move-${Math.random().toString(36).slice(2, 8)}`;
    const { id, org } = await newListing(doc("10000", { slug }));
    await record(id, evidence(new Date(Date.now() - 3_600_000).toISOString()));
    let n = 0;
    const sample = async (createdAt: Date | undefined, completedAt: Date) => {
      const ep = await t.prisma.endpoint.findFirstOrThrow({ where: { listingId: id } });
      const run = await t.prisma.canaryRun.create({ data: { listingId: id, trigger: "schedule", requestedBy: "test", state: "done", outcome: "verified", finishedAt: completedAt } });
      const k = `${slug}${++n}`;
      const nonce = "0x" + Buffer.from(k).toString("hex").padStart(64, "0").slice(-64);
      return t.prisma.canarySample.create({
        data: {
          runId: run.id, listingId: id, endpointId: ep.id, method: ep.method, path: ep.path, state: "completed", completedAt, ...(createdAt ? { createdAt } : {}),
          listedAmount: ep.priceAmount, quotedAmount: ep.priceAmount, quotedPayTo: PAY_TO, quotedAsset: USDC, quotedNetwork: "eip155:8453",
          authorizationNonce: nonce, paymentStatus: "settled", transactionId: nonce, chainAmount: "10000", chainTo: PAY_TO, chainNetwork: "eip155:8453", chainAsset: USDC, blockNumber: 7n,
          httpStatus: 200, ttlbMs: 300, responseBytes: 1024, contentType: "application/json", schemaValid: true, outcome: "pass", reason: "ok",
        },
      });
    };
    const before = await sample(new Date(Date.now() - 60_000), new Date(Date.now() + 5_000));
    await writeListing(moved(slug), { organizationId: org, listingId: id });
    const after = await sample(undefined, new Date(Date.now() + 10_000));
    const write = (sampleId: string) => t.prisma.$transaction((db) => recordSampleObservations(db, sampleId, null));
    expect((await write(before.id)).written).toBe(0);
    expect((await write(after.id)).written).toBeGreaterThan(0);
    const revs = await t.prisma.trustEndpointRevision.findMany({ where: { listingId: id }, orderBy: { revision: "asc" } });
    expect(revs.map((r) => r.changes)).toEqual([[], ["url"]]);
  });
});

describe("the analysis completion writes its probe's observations with the evidence", () => {
  async function complete(start: (listingId: string, userId: string) => Promise<{ id: string }>) {
    const { org, user } = await seedOwner(t.prisma);
    const { id: listingId } = await writeListing(doc(), { organizationId: org.id, publicationState: "published" });
    const { id } = await start(listingId, user.id);
    await reapExpiredLeases();
    const jobs = await claimLeases({ rubricVersions: MONITOR_RUBRIC_VERSIONS, workerId: "w1", limit: 10, leaseMs: 60_000, skipReap: true });
    const job = jobs.find((j) => j.id === id)!;
    expect(job).toBeDefined();
    const done = await completeLease(id, { leaseToken: job.leaseToken, evidence: evidence(new Date().toISOString()) });
    return { listingId, done, rows: await t.prisma.trustObservation.findMany({ where: { listingId } }) };
  }

  it("completeLease of a staleness re-analysis (timed by the catalog) stores the evidence and its free observations in one transaction", async () => {
    const { done, rows } = await complete((listingId) =>
      requestAnalysis({ submitter: `system:staleness:${listingId}`, listingId, targetUrl: "https://api.example.com/", trigger: "staleness", priority: PRIORITY_SWEEP }),
    );
    expect(rows).toHaveLength(16);
    expect(rows.every((r) => r.source === "analysis" && r.sourceId === done.evidenceId)).toBe(true);
  });

  it("a re-analysis the seller asked for writes no trust observation: the seller cannot time the probes its grade is made of", async () => {
    // The attack: a server up only some of the time, its owner asking for a re-analysis whenever it is up
    // (30 an hour), each answered probe a pass beside the monitor's 12 an hour.
    const { done, rows } = await complete((listingId, userId) => reanalyseForActor(userId, listingId));
    expect(done.evidenceId).toBeTruthy();
    expect(await t.prisma.probeEvidence.count({ where: { id: done.evidenceId! } })).toBe(1); // readiness still scores it
    expect(rows).toHaveLength(0);
  });
});
