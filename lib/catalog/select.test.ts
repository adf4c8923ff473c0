import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { createTestListing } from "@/test/ledger";
import { recordSampleObservations } from "@/lib/trust/observe";
import { parseSelectRequest, selectServices } from "./select";

let t: TestDatabase;
const ids: Record<string, string> = {};

beforeAll(async () => {
  t = await createTestDatabase();
  ids.best = await createTestListing(t.prisma, { title: "Translate text API", rankScore: 0.8 });
  ids.worse = await createTestListing(t.prisma, { title: "Translate text API", rankScore: 0.2 });
  ids.unscored = await createTestListing(t.prisma, { title: "Translate text API", rankScore: null });
  ids.unpayable = await createTestListing(t.prisma, { title: "Translate text API", rankScore: 2 });
  await t.prisma.listingRank.update({ where: { listingId: ids.unpayable }, data: { gate: "unpayable" } });
  ids.free = await createTestListing(t.prisma, { title: "Translate text API", rankScore: 3, endpoints: [{ payable: false }] });
  ids.pricey = await createTestListing(t.prisma, { title: "Translate text API", rankScore: 0.5, endpoints: [{ method: "GET", priceUsd: "0.08", priceNetwork: "eip155:1" }] });
});
afterAll(async () => {
  await t?.close();
});

describe("selectServices", () => {
  it("shortlists payable matches by relevance × (1 + 0.25·q); unpayable and free listings are left out", async () => {
    const r = await selectServices(parseSelectRequest({ task: "translate text" }));
    expect(r.matching).toBe("keyword");
    expect(r.items.map((i) => i.id)).toEqual([ids.best, ids.pricey, ids.worse, ids.unscored]);
    expect(r.items[0]).toMatchObject({ rankScore: 0.8, match: "keyword", endpoint: { method: "POST", path: "/run", url: "https://api.example.com/run", price: { usd: "0.01" } } });
    expect(r.items.every((i) => i.relevance > 0 && i.relevance <= 1)).toBe(true);
  });

  it("a typo in the task still shortlists the payable matches, in the same order", async () => {
    const r = await selectServices(parseSelectRequest({ task: "tramslate text" }));
    expect(r.items.map((i) => i.id)).toEqual([ids.best, ids.pricey, ids.worse, ids.unscored]);
    // Sentence relevance scores the typo with the other words (docs/SELECTION.md): no longer capped at 0.2.
    expect(r.items.every((i) => i.match === "keyword" && i.relevance > 0.25 && i.relevance < 1)).toBe(true);
    expect(r.items[0].why).toMatch(/^Matches 'tramslate' \(near spelling\), 'text';/);
    expect((await selectServices(parseSelectRequest({ task: "tramslate text", filters: { method: "GET" } }))).items.map((i) => i.id)).toEqual([ids.pricey]);
  });

  it("filters by maxPrice (string or number), method and network", async () => {
    const ids1 = async (filters: unknown) => (await selectServices(parseSelectRequest({ task: "translate", filters }))).items.map((i) => i.id);
    expect(await ids1({ maxPrice: "0.05" })).not.toContain(ids.pricey);
    expect(await ids1({ maxPrice: 5 })).toContain(ids.pricey);
    expect(await ids1({ method: "get" })).toEqual([ids.pricey]);
    expect(await ids1({ network: "eip155:1" })).toEqual([ids.pricey]);
  });

  it("gives rankScore: null to clients below Catalog-Api-Version 1.55, the number from 1.55", async () => {
    const req = parseSelectRequest({ task: "translate", limit: 2 });
    expect((await selectServices(req, { apiVersion: "1.54" })).items.map((i) => i.rankScore)).toEqual([null, null]);
    expect((await selectServices(req, { apiVersion: "1.55" })).items.map((i) => i.rankScore)).toEqual([0.8, 0.5]);
    await expect(selectServices(req, { apiVersion: "1.055" })).rejects.toMatchObject({ status: 400, extra: { header: "Catalog-Api-Version" } });
  });

  it.each([
    [{}, "/task"],
    [{ task: "" }, "/task"],
    [{ task: "x".repeat(501) }, "/task"],
    [{ task: "ok", limit: 0 }, "/limit"],
    [{ task: "ok", limit: 51 }, "/limit"],
    [{ task: "ok", limit: 2.5 }, "/limit"],
    [{ task: "ok", filters: { maxPrice: "cheap" } }, "/filters/maxPrice"],
    [{ task: "ok", filters: { maxPrice: -1 } }, "/filters/maxPrice"],
    [{ task: "ok", filters: { method: "FETCH" } }, "/filters/method"],
    [{ task: "ok", filters: { colour: "red" } }, "/filters/colour"],
    [{ task: "ok", extra: 1 }, "/extra"],
    [[], ""],
  ])("rejects %j naming %s", (body, pointer) => {
    try {
      parseSelectRequest(body);
      expect.unreachable();
    } catch (e) {
      expect(e).toMatchObject({ status: 400 });
      expect((e as { details: { pointer: string }[] }).details[0].pointer).toBe(pointer);
    }
  });
});

describe("rule trust_avoid, and filters.excludeAvoid kept for compatibility", () => {
  it("leaves out a listing whose selected endpoint's trust verdict is avoid by default; include (or excludeAvoid: false) brings it back last, marked", async () => {
    // A completed canary sample that was charged more than it was quoted: H5 fails, the overcharge gate gives `avoid`.
    const ep = await t.prisma.endpoint.findFirstOrThrow({ where: { listingId: ids.worse }, orderBy: { position: "asc" } });
    const run = await t.prisma.canaryRun.create({ data: { listingId: ids.worse, trigger: "schedule", requestedBy: "test" } });
    const tx = "0x" + "ab".repeat(32);
    const sample = await t.prisma.canarySample.create({
      data: {
        runId: run.id, listingId: ids.worse, endpointId: ep.id, method: ep.method, path: ep.path, state: "completed", completedAt: new Date(),
        listedAmount: "10000", quotedAmount: "10000", quotedPayTo: "0x63aA5960943865e7d57FDdF0D899eE36B6D2046E", quotedAsset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", quotedNetwork: "eip155:8453",
        authorizationNonce: "0x" + "cd".repeat(32), paymentStatus: "settled", transactionId: tx, chainAmount: "20000", chainTo: "0x63aA5960943865e7d57FDdF0D899eE36B6D2046E", chainNetwork: "eip155:8453", chainAsset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", blockNumber: 7n,
        httpStatus: 200, ttlbMs: 300, responseBytes: 20, contentType: "application/json", schemaValid: true, outcome: "broken", reason: "overcharged",
      },
    });
    await t.prisma.$transaction((db) => recordSampleObservations(db, sample.id, null));
    const h5 = await t.prisma.trustObservation.findFirstOrThrow({ where: { listingId: ids.worse, check: "H5" } });
    expect(h5.outcome).toBe("fail");

    const byDefault = await selectServices(parseSelectRequest({ task: "translate text" }));
    expect(byDefault.items.map((i) => i.id)).toEqual([ids.best, ids.pricey, ids.unscored]);
    expect(byDefault.excluded).toMatchObject([{ id: ids.worse, reasons: ["trust_avoid"], why: "trust verdict avoid (grade F)" }]);
    expect((await selectServices(parseSelectRequest({ task: "translate text", filters: { excludeAvoid: true } }))).items.map((i) => i.id)).toEqual([ids.best, ids.pricey, ids.unscored]);
    for (const asked of [{ include: ["trust_avoid"] }, { filters: { excludeAvoid: false } }]) {
      const r = await selectServices(parseSelectRequest({ task: "translate text", ...asked }));
      expect(r.items.map((i) => i.id)).toEqual([ids.best, ids.pricey, ids.unscored, ids.worse]);
      expect(r.items.map((i) => i.excludedByDefault)).toEqual([[], [], [], ["trust_avoid"]]);
      expect(r.excluded).toEqual([]);
    }
    // Each answer carries its endpoint's trust reading in words, and the listing's canary verification.
    await t.prisma.listing.update({ where: { id: ids.worse }, data: { verificationStatus: "degraded" } });
    const answered = (await selectServices(parseSelectRequest({ task: "translate text", include: ["trust_avoid", "canary_failed"] }))).items;
    const worse = answered.find((i) => i.id === ids.worse)!;
    expect(worse.verification).toBe("degraded");
    expect(worse.excludedByDefault).toEqual(["canary_failed", "trust_avoid"]);
    expect(worse.trust).toMatchObject({ verdict: "avoid", provisional: false });
    expect(worse.trust!.summary).toContain("it charged more than it quoted");
    expect(worse.trust!.summary).not.toMatch(/\bH5\b|overcharge\b/);
    const best = answered.find((i) => i.id === ids.best)!;
    expect(best).toMatchObject({ verification: "unverified", trust: { verdict: "insufficient_evidence", grade: null, provisional: false } });
    expect(best.trust!.summary).toMatch(/^Not checked yet\. A grade needs a few days of checks/);
    // excludeAvoid: false includes avoid only: the failed canary still leaves it out.
    const compat = await selectServices(parseSelectRequest({ task: "translate text", filters: { excludeAvoid: false } }));
    expect(compat.items.map((i) => i.id)).toEqual([ids.best, ids.pricey, ids.unscored]);
    expect(compat.excluded).toMatchObject([{ id: ids.worse, reasons: ["canary_failed", "trust_avoid"] }]);
    // limit counts what is returned.
    expect((await selectServices(parseSelectRequest({ task: "translate text", limit: 2 }))).items).toHaveLength(2);
    expect(() => parseSelectRequest({ task: "x", include: ["everything"] })).toThrow(/\/include\/0 must be one of canary_failed, trust_avoid/);
    expect(() => parseSelectRequest({ task: "x", filters: { excludeAvoid: "yes" } })).toThrow(/\/filters\/excludeAvoid must be true or false/);
  });
});
