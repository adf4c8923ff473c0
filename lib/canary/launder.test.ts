/**
 * A run that judged nothing never clears "degraded" (lib/canary/record.ts finishRun, lib/canary/lease.ts giveBack)
 * and selection reads the charge evidence of the latest run that judged something (lib/catalog/select.ts).
 * docs/CANARY.md: "a degraded one stays degraded"; docs/SELECTION.md: canary_failed "a later change of the listing
 * never lifts it". Before, a seller the canary caught charging without delivery raised every price above the
 * ceiling (a reset leaves degraded alone, the run pays nothing and came out unverified), lowered them back, and was
 * picked again; a run that threw on every attempt was dead-lettered unverified over degraded and kept its budget.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { createTestListing } from "@/test/ledger";
import { claimRun, failAttempt } from "@/lib/canary/lease";
import { requestRun } from "@/lib/canary/runs";
import { reserve, utcDay } from "@/lib/canary/budget";
import { rows } from "@/lib/sql";
import { executeRun } from "@/lib/canary/run";
import { recomputeListingRank } from "@/lib/rank/sweep-ranks";
import { createListingForSeller, updateListingForSeller } from "@/lib/listings/save";
import { selectServices, parseSelectRequest } from "@/lib/catalog/select";

const fixture = JSON.parse(fs.readFileSync(path.join(process.cwd(), "lib/scoring/readiness/fixtures/mature-and-honest.listing.json"), "utf8"));
const clone = () => JSON.parse(JSON.stringify(fixture));

let t: TestDatabase;
let sellerId: string;
beforeAll(async () => {
  t = await createTestDatabase();
  const org = await t.prisma.organization.create({ data: { slug: "geo", name: "Geo" } });
  sellerId = (await t.prisma.user.create({ data: { name: "S", role: "seller", organizationId: org.id } })).id;
});
afterAll(() => t.close());

const TASK = "geocode a street address to coordinates";

it("a listing the canary caught charging without delivery is back in selection after a price bump above the ceiling and back", async () => {
  const { id } = await createListingForSeller(sellerId, clone());
  await t.prisma.listing.update({ where: { id }, data: { publicationState: "published", publishedAt: new Date() } });
  // The canary paid it and got a 500 after settlement: degraded, charged_without_delivery.
  const at = new Date(Date.now() - 3_600_000);
  const run = await t.prisma.canaryRun.create({ data: { listingId: id, trigger: "publish", requestedBy: "test", state: "done", outcome: "degraded", reason: "charged_without_delivery", startedAt: at, finishedAt: at } });
  const e = await t.prisma.endpoint.findFirstOrThrow({ where: { listingId: id }, orderBy: { position: "asc" } });
  await t.prisma.canarySample.create({
    data: { runId: run.id, listingId: id, endpointId: e.id, method: e.method, path: e.path, state: "completed", completedAt: at, listedAmount: e.priceAmount, quotedAmount: e.priceAmount, paymentStatus: "settled", chainAmount: e.priceAmount, httpStatus: 500, outcome: "broken", reason: "charged_without_delivery" },
  });
  await t.prisma.listing.update({ where: { id }, data: { verificationStatus: "degraded" } });
  await recomputeListingRank(id);

  const before = await selectServices(parseSelectRequest({ task: TASK }));
  expect(before.items.map((i) => i.id)).not.toContain(id);
  expect(before.excluded.find((x) => x.id === id)?.reasons).toEqual(["canary_failed", "charged_without_delivery"]);

  // 1. The seller raises every payable price above the canary's ceiling (0.10 USDC): a reset (degraded stays degraded) and a run at the front.
  const high = clone();
  for (const ep of high.endpoints) if (ep.pricing?.machine?.amount) ep.pricing.machine.amount = "200000";
  await updateListingForSeller(sellerId, id, high);
  expect((await t.prisma.listing.findUniqueOrThrow({ where: { id } })).verificationStatus).toBe("degraded");
  // 2. The canary runs it: every endpoint is above the ceiling, nothing is paid, each sample has no verdict.
  const lease = await claimRun();
  expect((await t.prisma.canaryRun.findUniqueOrThrow({ where: { id: lease!.runId } })).listingId).toBe(id);
  const result = await executeRun(lease!.runId, lease!.leaseToken, { key: `0x${"11".repeat(32)}` });
  expect(result.outcome).toBe("unverified");
  // 3. The seller lowers the price back (a lowered price resets nothing).
  await updateListingForSeller(sellerId, id, clone());
  const row = await t.prisma.listing.findUniqueOrThrow({ where: { id } });

  // A run that paid nothing took nothing away, and gave nothing back: still degraded, still left out for its charge.
  expect(row.verificationStatus).toBe("degraded");
  const after = await selectServices(parseSelectRequest({ task: TASK }));
  expect(after.items.map((i) => i.id)).not.toContain(id);
  expect(after.excluded.find((x) => x.id === id)?.reasons).toEqual(["canary_failed", "charged_without_delivery"]);
});

it("a run dead-lettered after three failed attempts leaves a degraded listing degraded and gives its unsigned reservation back", async () => {
  const id = await createTestListing(t.prisma, { title: "Flaky", endpoints: [{ priceUsd: "0.01", priceAmount: "10000" }] });
  await t.prisma.listing.update({ where: { id }, data: { verificationStatus: "degraded" } });
  const { runId } = await requestRun({ listingId: id, trigger: "schedule", requestedBy: "test" });
  for (let attempt = 1; attempt <= 3; attempt++) {
    await t.prisma.canaryRun.update({ where: { id: runId }, data: { runAfter: new Date(0) } });
    const lease = await claimRun({ runId });
    expect(lease).not.toBeNull();
    // executeRun reserves before its first call (run.ts:41), then throws (a seller's 402 it cannot sign, an RPC error…).
    expect((await reserve({ runId, listingId: id, amount: 10000n })).ok).toBe(true);
    await failAttempt(runId, lease!.leaseToken, "boom");
  }
  const run = await t.prisma.canaryRun.findUniqueOrThrow({ where: { id: runId } });
  expect(run).toMatchObject({ state: "done", outcome: "unverified" });
  const [spent] = await rows<{ spent: string }>(t.prisma, `SELECT "spent"::text AS spent FROM "canary_budget" WHERE "day" = $1::date AND "scope" = $2`, utcDay(), id);
  // Nothing was signed: the reservation should have been given back, as finishRun does.
  expect(BigInt(spent?.spent ?? "0")).toBe(0n);
  // A run that never judged anything took away nothing, and earns nothing back either.
  expect((await t.prisma.listing.findUniqueOrThrow({ where: { id } })).verificationStatus).toBe("degraded");
});
