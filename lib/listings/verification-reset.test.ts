/**
 * Verification follows the listing: each change that resets it (base URL, endpoint added or removed,
 * asset, a raised price, a payTo a buyer was quoted) makes a verified listing unverified at once, ranks
 * it so, and puts a canary run first in line with the reason; a lowered price or a description edit
 * does not. The bait-and-switch and a change made while a run is running are attacked here.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { createTestListing } from "@/test/ledger";
import { claimRun } from "@/lib/canary/lease";
import { queueDueRuns, requestRun } from "@/lib/canary/runs";
import { executeRun } from "@/lib/canary/run";
import { recomputeListingRank } from "@/lib/rank/sweep-ranks";
import { rankInputsFor } from "@/lib/rank/inputs";
import { adminListing } from "@/lib/surfaces/admin";
import { sellerReport } from "@/lib/surfaces/seller";
import { createListingForSeller, updateListingForSeller } from "./save";
import { verificationResetReasons, type PricedEndpoint } from "./verification-reset";

const fixture = JSON.parse(fs.readFileSync(path.join(process.cwd(), "lib/scoring/readiness/fixtures/mature-and-honest.listing.json"), "utf8"));
const clone = () => JSON.parse(JSON.stringify(fixture));

let t: TestDatabase;
let sellerId: string;
let moderatorId: string;
beforeAll(async () => {
  t = await createTestDatabase();
  const org = await t.prisma.organization.create({ data: { slug: "geo", name: "Geo" } });
  sellerId = (await t.prisma.user.create({ data: { name: "S", role: "seller", organizationId: org.id } })).id;
  moderatorId = (await t.prisma.user.create({ data: { name: "M", role: "moderator" } })).id;
});
afterAll(() => t.close());

const ep = (over: Partial<PricedEndpoint> = {}): PricedEndpoint => ({
  method: "POST", path: "/x", payable: true, priceAmount: "10000", priceAsset: "0xA0b8", priceNetwork: "eip155:8453", priceDecimals: 6, ...over,
});

describe("what resets verification (pure)", () => {
  const base = { baseUrl: "https://a.example", endpoints: [ep()] };
  it("names each trigger in words a seller can act on", () => {
    expect(verificationResetReasons(base, { ...base, baseUrl: "https://b.example" })).toEqual(["base URL changed from https://a.example to https://b.example"]);
    expect(verificationResetReasons(base, { ...base, endpoints: [ep({ priceAmount: "20000" })] })).toEqual(["price raised on POST /x from $0.01 to $0.02"]);
    expect(verificationResetReasons(base, { ...base, endpoints: [ep(), ep({ path: "/y" })] })).toEqual(["endpoint POST /y added"]);
    expect(verificationResetReasons(base, { ...base, endpoints: [] })).toEqual(["endpoint POST /x removed"]);
    expect(verificationResetReasons(base, { ...base, endpoints: [ep({ method: "GET" })] })).toEqual(["endpoint GET /x added", "endpoint POST /x removed"]);
    expect(verificationResetReasons(base, { ...base, endpoints: [ep({ priceAsset: "0xdead" })] })).toEqual(["asset changed on POST /x from 0xA0b8 on eip155:8453 to 0xdead on eip155:8453"]);
    expect(verificationResetReasons(base, { ...base, endpoints: [ep({ priceNetwork: "eip155:84532" })] })[0]).toMatch(/^asset changed on POST \/x/);
    expect(verificationResetReasons(base, { ...base, endpoints: [ep({ payable: false })] })).toEqual(["endpoint POST /x made not payable"]);
    // A machine price where there was none is a raise (the canary now pays it).
    expect(verificationResetReasons({ ...base, endpoints: [ep({ priceAmount: null })] }, base)).toEqual(["price raised on POST /x from no machine price to $0.01"]);
  });
  it("a lowered price, a re-cased asset or the same price in other decimals does not reset", () => {
    expect(verificationResetReasons(base, { ...base, endpoints: [ep({ priceAmount: "5000" })] })).toEqual([]);
    expect(verificationResetReasons(base, { ...base, endpoints: [ep({ priceAsset: "0xa0B8" })] })).toEqual([]);
    expect(verificationResetReasons(base, { ...base, endpoints: [ep({ priceAmount: "10000000000000000", priceDecimals: 18 })] })).toEqual([]);
    expect(verificationResetReasons(base, { ...base, endpoints: [ep({ priceAmount: "10000000000000001", priceDecimals: 18 })] })).toHaveLength(1);
    // Not payable any more is its own reason; a machine price removed from a payable endpoint is below.
    expect(verificationResetReasons(base, { ...base, endpoints: [ep({ priceAmount: null, payable: false })] })).toEqual(["endpoint POST /x made not payable"]);
  });
  it("a machine price removed from a payable endpoint resets: the canary would have nothing to hold its 402 to", () => {
    expect(verificationResetReasons(base, { ...base, endpoints: [ep({ priceAmount: null, priceAsset: null, priceNetwork: null })] })).toEqual(["machine price removed on POST /x (was $0.01 in 0xA0b8 on eip155:8453)"]);
  });
});

/** A published listing from the fixture, verified by a finished run, ranked. */
async function verifiedListing(): Promise<string> {
  const { id } = await createListingForSeller(sellerId, clone());
  await t.prisma.listing.update({ where: { id }, data: { publicationState: "published", publishedAt: new Date() } });
  const run = await t.prisma.canaryRun.create({ data: { listingId: id, trigger: "publish", requestedBy: "test" } });
  await t.prisma.canaryRun.update({ where: { id: run.id }, data: { state: "done", outcome: "verified", reason: "all passed", finishedAt: new Date() } });
  await t.prisma.canarySample.create({
    data: { runId: run.id, listingId: id, endpointId: "e1", method: "GET", path: "/v1/geocode", quotedPayTo: "0x1111111111111111111111111111111111111111", state: "completed", completedAt: new Date(), outcome: "pass", reason: "pass" },
  });
  await t.prisma.listing.update({ where: { id }, data: { verificationStatus: "verified" } });
  await recomputeListingRank(id);
  return id;
}

const activeRun = (listingId: string) => t.prisma.canaryRun.findFirst({ where: { listingId, state: { in: ["queued", "running"] } } });
const verificationComponent = async (listingId: string) => ((await t.prisma.listingRank.findUniqueOrThrow({ where: { listingId } })).components as { verification: number }).verification;

describe("a save that changes what the canary verified", () => {
  const cases: Array<[string, (d: ReturnType<typeof clone>) => void, RegExp]> = [
    ["base URL", (d) => void (d.baseUrl = "https://geocodr.example"), /^base URL changed from https:\/\/api\.geocodr\.io to https:\/\/geocodr\.example$/],
    ["an endpoint added", (d) => void d.endpoints.push({ ...d.endpoints[0], path: "/v2/geocode" }), /^endpoint GET \/v2\/geocode added$/],
    ["an endpoint removed", (d) => void d.endpoints.splice(1, 1), /^endpoint GET \/v1\/reverse removed$/],
    ["an endpoint's path", (d) => void (d.endpoints[0].path = "/v1/geo"), /^endpoint GET \/v1\/geo added; endpoint GET \/v1\/geocode removed$/],
    ["the asset", (d) => void (d.endpoints[0].pricing.machine.asset = "0x036CbD53842c5426634e7929541eC2318f3dCF7e"), /^asset changed on GET \/v1\/geocode from 0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913 on eip155:8453 to 0x036C/],
    ["a raised price", (d) => void (d.endpoints[0].pricing.machine.amount = "4000"), /^price raised on GET \/v1\/geocode from \$0\.003 to \$0\.004$/],
  ];
  for (const [what, change, reason] of cases) {
    it(`${what}: unverified at once, ranked so, the reason kept, a run queued at the front`, async () => {
      const id = await verifiedListing();
      expect(await verificationComponent(id)).toBe(1);
      const d = clone();
      change(d);
      const saved = await updateListingForSeller(sellerId, id, d);
      expect(saved.verificationReset).toMatch(reason);
      const row = await t.prisma.listing.findUniqueOrThrow({ where: { id } });
      expect(row.verificationStatus).toBe("unverified");
      expect(row.verificationResetReason).toMatch(reason);
      expect(row.verificationResetAt).not.toBeNull();
      // The stored rank no longer carries ×1.00, and the rank inputs read the reset.
      expect(await verificationComponent(id)).toBe(0.85);
      expect((await rankInputsFor([id])).get(id)?.verification).toBe("unverified");
      const run = await activeRun(id);
      expect(run).toMatchObject({ trigger: "listing_change", state: "queued", requestedBy: "system:listing-change" });
      expect(run!.requestReason).toMatch(reason);
      expect(run!.runAfter.getTime()).toBe(0);
      // The seller's report and the moderators' page say why.
      expect((await sellerReport(sellerId, id)).verification).toMatchObject({ status: "unverified", reset: { reason: expect.stringMatching(reason) } });
      const desk = await adminListing(moderatorId, id);
      expect(desk.listing.verificationResetReason).toMatch(reason);
      expect(desk.canaryRuns[0]).toMatchObject({ trigger: "listing_change", requestReason: expect.stringMatching(reason) });
    });
  }

  it("a lowered price or a description edit does not reset, and queues nothing", async () => {
    const id = await verifiedListing();
    const d = clone();
    d.endpoints[0].pricing.machine.amount = "2500";
    d.description = "Now with more words.";
    const saved = await updateListingForSeller(sellerId, id, d);
    expect(saved.verificationReset).toBeUndefined();
    expect((await t.prisma.listing.findUniqueOrThrow({ where: { id } })).verificationStatus).toBe("verified");
    expect(await activeRun(id)).toBeNull();
    expect(await verificationComponent(id)).toBe(1);
    expect((await sellerReport(sellerId, id)).verification).toEqual({ status: "verified", reset: null });
  });

  it("a degraded listing stays degraded (a change never earns back what a run took), and is run first", async () => {
    const id = await verifiedListing();
    await t.prisma.listing.update({ where: { id }, data: { verificationStatus: "degraded" } });
    const d = clone();
    d.baseUrl = "https://elsewhere.example";
    await updateListingForSeller(sellerId, id, d);
    expect((await t.prisma.listing.findUniqueOrThrow({ where: { id } })).verificationStatus).toBe("degraded");
    expect(await activeRun(id)).toMatchObject({ trigger: "listing_change" });
  });

  it("a draft's change resets but queues no run (the canary runs listed listings only)", async () => {
    const id = await verifiedListing();
    await t.prisma.listing.update({ where: { id }, data: { publicationState: "draft" } });
    const d = clone();
    d.baseUrl = "https://elsewhere.example";
    await updateListingForSeller(sellerId, id, d);
    expect((await t.prisma.listing.findUniqueOrThrow({ where: { id } })).verificationStatus).toBe("unverified");
    expect(await activeRun(id)).toBeNull();
  });
});

describe("saves racing", () => {
  it("two saves of one listing take turns: the last reset names the base URL the listing ends with", async () => {
    const id = await verifiedListing();
    const moved = clone();
    moved.baseUrl = "https://moved-away.example";
    await Promise.all([updateListingForSeller(sellerId, id, moved), updateListingForSeller(sellerId, id, clone())]);
    const row = await t.prisma.listing.findUniqueOrThrow({ where: { id } });
    expect(row.verificationStatus).toBe("unverified");
    expect(row.verificationResetReason).toBe(row.baseUrl === fixture.baseUrl ? `base URL changed from https://moved-away.example to ${fixture.baseUrl}` : `base URL changed from ${fixture.baseUrl} to https://moved-away.example`);
  });
});

describe("the bait-and-switch", () => {
  it("a verified listing pointed at a seller that never settles is unverified immediately and its run is claimed before older due runs", async () => {
    // Earlier tests' runs are claimed out of the way; then regular due runs are queued first.
    while (await claimRun());
    await createTestListing(t.prisma);
    await createTestListing(t.prisma);
    expect(await queueDueRuns(new Date())).toBeGreaterThanOrEqual(2);
    const id = await verifiedListing();
    const d = clone();
    d.baseUrl = "https://never-settles.example";
    await updateListingForSeller(sellerId, id, d);
    expect((await t.prisma.listing.findUniqueOrThrow({ where: { id } })).verificationStatus).toBe("unverified");
    expect(await verificationComponent(id)).toBe(0.85);
    const first = await claimRun();
    expect((await t.prisma.canaryRun.findUniqueOrThrow({ where: { id: first!.runId } })).listingId).toBe(id);
    // The regular runs are still there, after it.
    const next = await claimRun();
    expect((await t.prisma.canaryRun.findUniqueOrThrow({ where: { id: next!.runId } })).trigger).not.toBe("listing_change");
  });

  it("a change while a regular run is queued moves that run to the front with the reason", async () => {
    const id = await verifiedListing();
    const { runId } = await requestRun({ listingId: id, trigger: "moderator", requestedBy: "u" });
    const d = clone();
    d.baseUrl = "https://moved.example";
    await updateListingForSeller(sellerId, id, d);
    expect(await t.prisma.canaryRun.findUniqueOrThrow({ where: { id: runId } })).toMatchObject({ trigger: "listing_change", state: "queued", runAfter: new Date(0) });
  });

  it("a change while a run is running: that run's verdict does not set the listing, and a run of the new listing is queued at the front when it finishes", async () => {
    const id = await verifiedListing();
    // Not paid over x402, so the run finishes at once, without a chain.
    await t.prisma.listing.update({ where: { id }, data: { protocols: ["mpp"] } });
    const { runId } = await requestRun({ listingId: id, trigger: "moderator", requestedBy: "u" });
    const lease = await claimRun({ runId });
    await new Promise((r) => setTimeout(r, 5));
    const d = clone();
    d.baseUrl = "https://switched.example";
    d.protocols = ["mpp"];
    await updateListingForSeller(sellerId, id, d);
    // No second active run while one is running.
    expect((await activeRun(id))!.id).toBe(runId);
    await t.prisma.listing.update({ where: { id }, data: { verificationStatus: "verified" } }); // what a stale verdict would write
    await executeRun(runId, lease!.leaseToken);
    const after = await t.prisma.canaryRun.findFirstOrThrow({ where: { listingId: id, state: "queued" } });
    expect(after).toMatchObject({ trigger: "listing_change", runAfter: new Date(0) });
    expect(after.requestReason).toMatch(new RegExp(`^the listing changed during run ${runId}: base URL changed`));
    // The stale run's unverified verdict was not written either: the status is untouched by it.
    expect((await t.prisma.listing.findUniqueOrThrow({ where: { id } })).verificationStatus).toBe("verified");
  });
});

describe("payTo follows the listing", () => {
  const payment = (listingId: string, quotedPayTo: string, house = false, status: "failed" | "rejected" | "unmeasured" = "failed", reason = "not_settled") =>
    t.prisma.routerPayment.create({
      data: { payer: `0x${"9".repeat(40)}`, listingId, advertisedAmount: "3000", asset: "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913", network: "eip155:8453", status, reason, quotedPayTo, house, authorizationNonce: `0x${Math.random().toString(16).slice(2).padEnd(64, "0")}` },
    });

  it("a stranger's rejected or unmeasured payment naming another payTo resets nothing (it proves no quote of the seller's)", async () => {
    const id = await verifiedListing();
    await payment(id, "0x3333333333333333333333333333333333333333", false, "rejected", "payer_bad_signature");
    await payment(id, "0x3333333333333333333333333333333333333333", false, "unmeasured", "chain_unreadable");
    await payment(id, "0x3333333333333333333333333333333333333333", false, "failed", "seller_timeout");
    expect((await t.prisma.listing.findUniqueOrThrow({ where: { id } })).verificationStatus).toBe("verified");
  });

  it("a buyer quoted the payTo the canary verified changes nothing; another payTo resets with both named", async () => {
    const id = await verifiedListing();
    await payment(id, "0x1111111111111111111111111111111111111111");
    expect((await t.prisma.listing.findUniqueOrThrow({ where: { id } })).verificationStatus).toBe("verified");
    // The canary's own (house) rows never reset: its run judges them.
    await payment(id, "0x2222222222222222222222222222222222222222", true);
    expect((await t.prisma.listing.findUniqueOrThrow({ where: { id } })).verificationStatus).toBe("verified");
    await payment(id, "0x2222222222222222222222222222222222222222");
    const row = await t.prisma.listing.findUniqueOrThrow({ where: { id } });
    expect(row.verificationStatus).toBe("unverified");
    expect(row.verificationResetReason).toBe("payTo changed from 0x1111111111111111111111111111111111111111 to 0x2222222222222222222222222222222222222222 (quoted to a buyer)");
    expect(await activeRun(id)).toMatchObject({ trigger: "listing_change", runAfter: new Date(0) });
  });
});
