/**
 * The canary's price ceiling on a real anvil (test/paid-rig.ts): an endpoint listed above it is not
 * paid (a sample without a verdict, nothing reserved or signed for it) until a moderator approves the
 * listing's price on the canary desk; the approval is audited, a seller cannot give it, and a price
 * raised past it needs a new one.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalChain } from "@/devchain/local-chain";
import { writeListing } from "@/lib/listings/save";
import { approveCanaryPrice } from "@/lib/moderation/canary-price";
import { shapeDocument } from "@/demo/seed-demo";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { createTestOrganization } from "@/test/ledger";
import { startPaidRig, type PaidRig } from "@/test/paid-rig";
import { awaitingPriceApproval } from "./price-ceiling";
import { runCanary } from "./runs";

let rig: PaidRig;
let local: LocalChain;
let t: TestDatabase;
let org: string;
const BIG = { day: 10_000_000n, listing: 1_000_000n };
/** The mature seller's endpoints: GET /v1/geocode and /v1/reverse at 3000, POST /v1/batch at 2000. */
const CEILING = 2500n;

beforeAll(async () => {
  const doc = shapeDocument("mature-and-honest");
  rig = await startPaidRig({ label: "tollgate canary price ceiling test", sellers: [{ slug: "pricey", document: { ...doc, slug: "pricey" }, behaviour: "honest" }], houseFunds: 1_000_000n });
  local = rig.local;
  t = await createTestDatabase();
  org = await createTestOrganization(t.prisma);
}, 120_000);
afterAll(async () => {
  await t?.close();
  await rig?.close();
});

describe("the price ceiling", () => {
  it("refuses to pay above it without approval, pays after a moderator approves, and the approval is audited", async () => {
    const listingId = (await writeListing({ ...rig.market!.documents.pricey, slug: "pricey" }, { organizationId: org, publicationState: "published" })).id;
    expect((await awaitingPriceApproval(CEILING)).find((a) => a.listingId === listingId)).toMatchObject({ highest: 3000n, approved: null });

    const before = await local.balanceOf(rig.house.address);
    const first = await runCanary(listingId, {}, { caps: BIG, priceCeiling: CEILING });
    expect(first.state).toBe("done");
    expect(first.outcome).not.toBe("verified");
    const samples = await t.prisma.canarySample.findMany({ where: { runId: first.runId } });
    const byPath = Object.fromEntries(samples.map((s) => [`${s.method} ${s.path}`, s]));
    for (const p of ["GET /v1/geocode", "GET /v1/reverse"]) {
      expect(byPath[p]).toMatchObject({ outcome: null, authorizationNonce: null, quotedAmount: null });
      expect(byPath[p].reason).toMatch(/^price_above_ceiling: listed 3000 per call, above the canary's ceiling of 2500 \(no moderator approved it/);
    }
    expect(byPath["POST /v1/batch"]).toMatchObject({ outcome: "pass" });
    // Only the endpoint under the ceiling was reserved and paid.
    expect((await t.prisma.canaryRun.findUniqueOrThrow({ where: { id: first.runId } })).reserved?.toFixed(0)).toBe("2000");
    expect(before - (await local.balanceOf(rig.house.address))).toBe(2000n);

    // A seller cannot approve; a moderator can, with a reason, and it is audited.
    const seller = (await t.prisma.user.create({ data: { name: "Seller", role: "seller", organizationId: org } })).id;
    await expect(approveCanaryPrice({ listingId, reason: "mine", actorId: seller })).rejects.toMatchObject({ code: "forbidden" });
    const mod = (await t.prisma.user.create({ data: { name: "Mod", role: "moderator" } })).id;
    await expect(approveCanaryPrice({ listingId, reason: "  ", actorId: mod })).rejects.toMatchObject({ details: [{ pointer: "/reason" }] });
    expect(await t.prisma.canaryPriceApproval.count({ where: { listingId } })).toBe(0);
    const approved = await approveCanaryPrice({ listingId, reason: "a geocoder at 0.003 is a fair price", actorId: mod });
    expect(approved.approvedUpTo).toBe("3000");
    expect(await t.prisma.moderationAudit.findUniqueOrThrow({ where: { id: approved.auditId } })).toMatchObject({
      actorId: mod,
      listingId,
      action: "canary.approve_price",
      before: { canaryPriceApprovedUpTo: null },
      after: { canaryPriceApprovedUpTo: "3000" },
      reason: "a geocoder at 0.003 is a fair price",
    });
    expect((await awaitingPriceApproval(CEILING)).find((a) => a.listingId === listingId)).toBeUndefined();

    const second = await runCanary(listingId, {}, { caps: BIG, priceCeiling: CEILING });
    expect(second).toMatchObject({ state: "done", outcome: "verified" });

    // The price raised past the approval needs a new one.
    await t.prisma.endpoint.updateMany({ where: { listingId, path: "/v1/geocode" }, data: { priceAmount: "4000" } });
    expect((await awaitingPriceApproval(CEILING)).find((a) => a.listingId === listingId)).toMatchObject({ highest: 4000n, approved: 3000n });
  }, 120_000);
});
