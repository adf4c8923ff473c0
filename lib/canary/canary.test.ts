/**
 * The canary on a real anvil (test/paid-rig.ts): market sellers served live
 * (sellers/market) with the mature seller's document and each behaviour, settling through the
 * facilitator's own routes; the house wallet pays every listable endpoint through the router's relay;
 * the ledger and the chain say what happened, and the listing's verification and rank follow.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configureQueue, type QueueConfig } from "@/lib/queue/config";
import type { Hex } from "viem";
import type { LocalChain } from "@/devchain/local-chain";
import { writeListing } from "@/lib/listings/save";
import { rankForListing } from "@/lib/rank/inputs";
import { runRankSweep } from "@/lib/rank/sweep-ranks";
import { shapeDocument } from "@/demo/seed-demo";
import type { Market, MarketBehaviour } from "@/sellers/market";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { createTestOrganization } from "@/test/ledger";
import { startPaidRig, type PaidRig } from "@/test/paid-rig";
import { budgetLeft } from "./budget";
import type { RunResult } from "./record";
import { claimRun, heartbeatRun, reapExpiredRuns } from "./lease";
import { requestRun, runCanary } from "./runs";
import { executeRun } from "./run";

let rig: PaidRig;
let local: LocalChain;
let market: Market;
let t: TestDatabase;
let org: string;
const BEHAVIOURS: MarketBehaviour[] = ["honest", "never-settles", "fails-after-payment", "overcharges"];
/** The mature seller's three payable endpoints: GET /v1/geocode and /v1/reverse at 3000, POST /v1/batch at 2000. */
const RUN_COST = 8000n;
const BIG = { day: 10_000_000n, listing: 1_000_000n };
let house: PaidRig["house"];
const payee = (label: string) => rig.payee(label);

let savedQueue: QueueConfig;

beforeAll(async () => {
  const doc = shapeDocument("mature-and-honest");
  const seller = (slug: string, behaviour: MarketBehaviour) => ({ slug, document: { ...doc, slug }, behaviour });
  rig = await startPaidRig({
    label: "tollgate canary test",
    // Each behaviour, and four more honest sellers for the budget race, the killed worker and the lost lease.
    sellers: [...BEHAVIOURS.map((b) => seller(b, b)), seller("race-a", "honest"), seller("race-b", "honest"), seller("killed", "honest"), seller("lost", "honest")],
    houseFunds: 1_000_000n,
  });
  ({ local, house } = rig);
  market = rig.market!;
  t = await createTestDatabase();
  org = await createTestOrganization(t.prisma);
  // After the rig set the environment (the queue's settings read it): a retry is due at once here
  // (the backoff is runs.test.ts's).
  savedQueue = configureQueue({ backoffBaseMs: 0, backoffJitter: false });
}, 120_000);

afterAll(async () => {
  configureQueue(savedQueue);
  await t?.close();
  await rig?.close();
});

async function list(slug: string): Promise<string> {
  return (await writeListing({ ...market.documents[slug], slug }, { organizationId: org, publicationState: "published" })).id;
}

const samplesOf = (runId: string) => t.prisma.canarySample.findMany({ where: { runId }, orderBy: { createdAt: "asc" } });
const houseRows = (listingId: string) => t.prisma.routerPayment.findMany({ where: { listingId, payer: house.address.toLowerCase() } });

describe("each outcome from a real paid call", () => {
  it("honest: every endpoint passes with the chain's facts, the replay is refused, and the listing is verified", async () => {
    const id = await list("honest");
    const before = await local.balanceOf(house.address);
    const run = await runCanary(id, {}, { caps: BIG });
    expect(run).toMatchObject({ state: "done", outcome: "verified" });
    const samples = await samplesOf(run.runId);
    expect(samples.map((s) => `${s.method} ${s.path}`).sort()).toEqual(["GET /v1/geocode", "GET /v1/reverse", "POST /v1/batch"]);
    for (const s of samples) {
      expect(s).toMatchObject({ state: "completed", outcome: "pass", reason: "pass", httpStatus: 200, paymentStatus: "settled", replay: "refused", schemaValid: true, chainNetwork: "eip155:31337" });
      expect(s.chainAmount).toBe(s.quotedAmount);
      expect(s.quotedAmount).toBe(s.listedAmount);
      expect(s.chainTo).toBe(payee("honest").toLowerCase());
      expect(s.quotedPayTo).toBe(payee("honest").toLowerCase());
      expect(s.outputSha256).toMatch(/^[0-9a-f]{64}$/);
      expect(s.contentType).toMatch(/json/);
      expect(s.responseBytes).toBeGreaterThan(0);
      expect(s.replayStatus).toBe(402);
      const receipt = await local.publicClient.getTransactionReceipt({ hash: s.transactionId as Hex });
      expect(receipt.status).toBe("success");
    }
    // One house row per endpoint (the replays recorded nothing new), and the chain moved each price once.
    const rows = await houseRows(id);
    expect(rows).toHaveLength(3);
    expect(rows.every((r) => r.house && r.status === "settled")).toBe(true);
    expect(before - (await local.balanceOf(house.address))).toBe(RUN_COST);
    expect((await t.prisma.listing.findUniqueOrThrow({ where: { id } })).verificationStatus).toBe("verified");
    // Re-ranked at once: the verification factor is the run's.
    expect((await rankForListing(id))!.components.verification.value).toBe(1);
  });

  it("never-settles: the seller's claimed transactions are not on chain, every endpoint is broken, the listing degraded", async () => {
    const id = await list("never-settles");
    const run = await runCanary(id, {}, { caps: BIG });
    expect(run).toMatchObject({ state: "done", outcome: "degraded" });
    for (const s of await samplesOf(run.runId)) expect(s).toMatchObject({ outcome: "broken", reason: "unproven", paymentStatus: "failed", httpStatus: 200, chainAmount: null });
    expect((await rankForListing(id))!.components.verification.value).toBe(0.5);
  });

  it("fails-after-payment: settled on chain and answered 500, so charged without delivery: broken", async () => {
    const id = await list("fails-after-payment");
    const run = await runCanary(id, {}, { caps: BIG });
    expect(run).toMatchObject({ state: "done", outcome: "degraded" });
    for (const s of await samplesOf(run.runId)) {
      expect(s).toMatchObject({ outcome: "broken", reason: "charged_without_delivery", paymentStatus: "settled", httpStatus: 500 });
      expect(s.chainAmount).toBe(s.quotedAmount);
    }
  });

  it("overcharges: the 402 asks twice the listed price, the canary refuses to sign, and nothing is paid", async () => {
    const id = await list("overcharges");
    const before = await local.balanceOf(house.address);
    const run = await runCanary(id, {}, { caps: BIG });
    expect(run).toMatchObject({ state: "done", outcome: "degraded" });
    for (const s of await samplesOf(run.runId)) {
      expect(s).toMatchObject({ outcome: "degraded", reason: "quote_above_listing", authorizationNonce: null, paymentId: null });
      expect(BigInt(s.quotedAmount!)).toBe(2n * BigInt(s.listedAmount!));
    }
    expect(await houseRows(id)).toEqual([]);
    expect(await local.balanceOf(house.address)).toBe(before);
  });
});

describe("a 402 above the price the listing states", () => {
  it("listed at the 402's amount but stating the documents' lower price: the canary refuses to sign (quote_above_stated), nothing is paid", async () => {
    const doc = market.documents["overcharges"];
    // What the intake keeps for such a seller (lib/discovery/import.ts): the documents' USD price, the 402's machine amount.
    const endpoints = doc.endpoints.map((e) => (e.pricing?.machine ? { ...e, pricing: { ...e.pricing, mode: "fixed" as const, machine: { ...e.pricing.machine, amount: String(2n * BigInt(e.pricing.machine.amount)) } } } : e));
    const id = (await writeListing({ ...doc, slug: "overcharges-stated", endpoints }, { organizationId: org, publicationState: "published" })).id;
    const before = await local.balanceOf(house.address);
    const run = await runCanary(id, {}, { caps: BIG });
    expect(run).toMatchObject({ state: "done", outcome: "degraded" });
    const samples = await samplesOf(run.runId);
    // The two fixed-price lookups state $0.003 and are asked $0.006: refused unsigned. The dynamic batch states no USD price: paid at its listed amount.
    const byPath = Object.fromEntries(samples.map((s) => [s.path, s]));
    for (const path of ["/v1/geocode", "/v1/reverse"]) {
      expect(byPath[path]).toMatchObject({ outcome: "degraded", reason: "quote_above_stated", authorizationNonce: null, paymentId: null, quotedAmount: "6000", listedAmount: "6000" });
    }
    expect(byPath["/v1/batch"]).toMatchObject({ outcome: "pass", paymentStatus: "settled", chainAmount: "4000" });
    expect((await houseRows(id)).map((r) => `${r.status} ${r.settledAmount}`)).toEqual(["settled 4000"]);
    expect(before - (await local.balanceOf(house.address))).toBe(4000n);
  });
});

describe("house payments are never traction", () => {
  it("the honest listing's rank inputs count no payer and no settlement after another paid run", async () => {
    const id = (await t.prisma.listing.findUniqueOrThrow({ where: { slug: "honest" } })).id;
    await runRankSweep();
    const before = (await rankForListing(id))!;
    await runCanary(id, { trigger: "schedule" }, { caps: BIG });
    await runRankSweep();
    const after = (await rankForListing(id))!;
    expect(await houseRows(id)).toHaveLength(6);
    expect(after.inputs.ledger).toEqual(before.inputs.ledger);
    expect(after.inputs.ledger.distinctPayers30d).toBe(0);
    expect(after.components.traction.value).toBe(0);
  });
});

describe("the budget", () => {
  it("two runs racing on a budget that fits one: one pays, the other is deferred with nothing signed", async () => {
    const a = await list("race-a");
    const b = await list("race-b");
    const caps = { day: (await budgetLeft(null, { caps: BIG })).spentDay + RUN_COST + RUN_COST / 2n, listing: 1_000_000n };
    const before = await local.balanceOf(house.address);
    const results = await Promise.all([runCanary(a, {}, { caps }), runCanary(b, {}, { caps })]);
    expect(results.map((r) => r.state).sort()).toEqual(["deferred", "done"]);
    const deferred = results.find((r) => r.state === "deferred")!;
    expect(deferred.reason).toMatch(/^budget: the day cap has 4000 left$/);
    expect(await samplesOf(deferred.runId)).toEqual([]);
    expect(before - (await local.balanceOf(house.address))).toBe(RUN_COST);
    const left = await budgetLeft(null, { caps });
    expect(left.spentDay).toBeLessThanOrEqual(caps.day);
    // A deferred run leaves the listing's verification as it was (never run: unverified).
    const deferredListing = results[0].state === "deferred" ? a : b;
    expect((await t.prisma.listing.findUniqueOrThrow({ where: { id: deferredListing } })).verificationStatus).toBe("unverified");
  });
});

describe("a worker killed between sign and record pays once", () => {
  it("the retry finds the pending sample, reconciles it from the router's row by its nonce, and signs nothing again", async () => {
    const id = await list("killed");
    const { runId } = await requestRun({ listingId: id, trigger: "moderator", requestedBy: "u" });
    const first = (await claimRun({ runId, leaseMs: 1 }))!;
    const before = await local.balanceOf(house.address);
    let killedAt: string | null = null;
    await expect(
      executeRun(first.runId, first.leaseToken, {
        caps: BIG,
        onStage: (stage, e) => {
          if (stage === "paid" && killedAt === null) {
            killedAt = `${e.method} ${e.path}`;
            throw new Error("worker killed");
          }
        },
      }),
    ).rejects.toThrow("worker killed");
    const pending = await t.prisma.canarySample.findMany({ where: { runId, state: "pending" } });
    expect(pending).toHaveLength(1);
    expect(pending[0].authorizationNonce).toMatch(/^0x[0-9a-f]{64}$/);
    // The lease expires; the reaper puts the run back; the retry claims it.
    await new Promise((r) => setTimeout(r, 5));
    expect(await reapExpiredRuns()).toEqual({ requeued: 1, given_up: 0 });
    const retry = (await claimRun({ runId }))!;
    const result = await executeRun(retry.runId, retry.leaseToken, { caps: BIG });
    expect(result).toMatchObject({ state: "done", outcome: "verified" });
    const samples = await samplesOf(runId);
    expect(samples).toHaveLength(3);
    const reconciled = samples.find((s) => `${s.method} ${s.path}` === killedAt)!;
    expect(reconciled).toMatchObject({ state: "completed", outcome: "pass", reason: "pass,reconciled", paymentStatus: "settled", replay: "skipped" });
    // Three endpoints, three house rows, three transfers: the interrupted endpoint was paid once.
    expect(await houseRows(id)).toHaveLength(3);
    expect(before - (await local.balanceOf(house.address))).toBe(RUN_COST);
    const run = await t.prisma.canaryRun.findUniqueOrThrow({ where: { id: runId } });
    expect(run.attempts).toBe(2);
  });
});

describe("a worker that lost its lease mid-run", () => {
  it("stops before its next payment and writes nothing; the worker holding the run now finishes it, each endpoint paid once", async () => {
    const id = await list("lost");
    const { runId } = await requestRun({ listingId: id, trigger: "moderator", requestedBy: "u" });
    const a = (await claimRun({ runId }))!;
    const before = await local.balanceOf(house.address);
    let b: { runId: string; leaseToken: string } | null = null;
    // Worker A stalls after its first paid call: its lease expires, the reaper gives the run back and
    // worker B claims it; A's heartbeat (every 100 ms here) finds the lease gone.
    await expect(
      executeRun(a.runId, a.leaseToken, {
        caps: BIG,
        leaseMs: 300,
        onStage: async (stage) => {
          if (stage !== "paid" || b) return;
          await t.prisma.canaryRun.update({ where: { id: runId }, data: { leaseExpiresAt: new Date(Date.now() - 1000) } });
          expect(await reapExpiredRuns()).toEqual({ requeued: 1, given_up: 0 });
          b = await claimRun({ runId });
          await new Promise((r) => setTimeout(r, 400));
        },
      }),
    ).rejects.toThrow(/lost its lease/);
    // A paid one endpoint and wrote only that sample's nonce; nothing completed, the run is B's.
    const afterA = await samplesOf(runId);
    expect(afterA.map((x) => x.state)).toEqual(["pending"]);
    expect(before - (await local.balanceOf(house.address))).toBe(3000n);
    const result: RunResult = await executeRun(b!.runId, b!.leaseToken, { caps: BIG });
    expect(result).toMatchObject({ state: "done", outcome: "verified" });
    const samples = await samplesOf(runId);
    expect(samples.map((x) => [x.state, x.outcome])).toEqual([["completed", "pass"], ["completed", "pass"], ["completed", "pass"]]);
    expect(samples[0].reason).toBe("pass,reconciled");
    expect(await houseRows(id)).toHaveLength(3);
    expect(before - (await local.balanceOf(house.address))).toBe(RUN_COST);
    // A's stale token can no longer finish or give back anything.
    expect(await heartbeatRun(runId, a.leaseToken)).toBe(false);
  });
});

describe("the bait-and-switch, paid for real", () => {
  it("a verified listing pointed at a seller that never settles is unverified at once, its run is claimed before older due runs, and the run degrades it", async () => {
    const id = await list("honest");
    expect(await runCanary(id, {}, { caps: BIG })).toMatchObject({ outcome: "verified" });
    expect((await rankForListing(id))!.components.verification.value).toBe(1);
    // Another listing's regular run is due first, by the clock.
    const other = await list("race-a");
    const regular = await requestRun({ listingId: other, trigger: "schedule", requestedBy: "test" });
    // The switch: the same document, its base URL now the seller that never settles.
    const switched = { ...market.documents.honest, slug: "honest", baseUrl: market.documents["never-settles"].baseUrl };
    const saved = await writeListing(switched, { organizationId: org, listingId: id });
    expect(saved.verificationReset).toBe(`base URL changed from ${market.documents.honest.baseUrl} to ${market.documents["never-settles"].baseUrl}`);
    expect((await t.prisma.listing.findUniqueOrThrow({ where: { id } })).verificationStatus).toBe("unverified");
    const ranked = await rankForListing(id);
    expect(ranked!.inputs.verification).toBe("unverified");
    expect(ranked!.components.verification.value).toBe(0.85);
    const stored = await t.prisma.listingRank.findUniqueOrThrow({ where: { listingId: id } });
    expect((stored.components as { verification: number }).verification).toBe(0.85);
    // First in line, ahead of the regular run queued before it.
    const lease = (await claimRun())!;
    const run = await t.prisma.canaryRun.findUniqueOrThrow({ where: { id: lease.runId } });
    expect(run).toMatchObject({ listingId: id, trigger: "listing_change" });
    expect(run.requestReason).toBe(saved.verificationReset);
    expect(await executeRun(lease.runId, lease.leaseToken, { caps: BIG })).toMatchObject({ outcome: "degraded" });
    expect((await t.prisma.listing.findUniqueOrThrow({ where: { id } })).verificationStatus).toBe("degraded");
    expect((await claimRun())!.runId).toBe(regular.runId);
  });
});
