/**
 * One seller cannot spend another's payee share (docs/CANARY.md "Fair shares", lib/canary/budget.ts
 * reservePayTo): an attacker whose 402 names the victim's payee spends only its own organisation's share of that
 * payee. Before, the share was the payee's whoever quoted it: the attacker's run passed (the chain paid the quoted
 * payTo) and left every endpoint of the victim's `budget_payto`, unverified for the day.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeListing } from "@/lib/listings/save";
import { shapeDocument } from "@/demo/seed-demo";
import { startMarket, type Market } from "@/sellers/market";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { createTestOrganization } from "@/test/ledger";
import { startPaidRig, type PaidRig } from "@/test/paid-rig";
import { rigFacilitator } from "@/test/router-routes";
import { runCanary } from "./runs";

let rig: PaidRig;
let attackerMarket: Market;
let t: TestDatabase;
let hosts: string[];

beforeAll(async () => {
  const doc = shapeDocument("mature-and-honest");
  rig = await startPaidRig({ label: "audit payto starvation", sellers: [{ slug: "victim", document: { ...doc, slug: "victim" }, behaviour: "honest" }], houseFunds: 1_000_000n });
  // The attacker's own (honest-behaving) server, whose 402 names the VICTIM's payee.
  attackerMarket = await startMarket({ facilitator: rigFacilitator(rig.routes.origin), usdc: rig.local.usdc, sellers: [{ slug: "attacker", document: { ...doc, slug: "attacker" }, behaviour: "honest", payTo: rig.payee("victim") }] });
  hosts = [...rig.hosts, `127.0.0.1:${attackerMarket.port}`];
  process.env.TOLLGATE_PROBE_ALLOW_HOSTS = hosts.join(",");
  t = await createTestDatabase();
}, 120_000);

afterAll(async () => {
  await t?.close();
  await attackerMarket?.close();
  await rig?.close();
});

describe("a payee's share, per organisation that quotes it", () => {
  it("the attacker's run, naming the victim's payee, leaves the victim's own share of it whole", async () => {
    const caps = { day: 10_000_000n, listing: 1_000_000n, organization: 1_000_000n, payTo: 8000n };
    const attackerOrg = await createTestOrganization(t.prisma, "Attacker");
    const victimOrg = await createTestOrganization(t.prisma, "Victim");
    const attacker = (await writeListing({ ...attackerMarket.documents.attacker, slug: "attacker" }, { organizationId: attackerOrg, publicationState: "published" })).id;
    const victim = (await writeListing({ ...rig.market!.documents.victim, slug: "victim" }, { organizationId: victimOrg, publicationState: "published" })).id;

    const a = await runCanary(attacker, {}, { caps, allowHosts: hosts });
    const v = await runCanary(victim, {}, { caps, allowHosts: hosts });
    // The attacker, whose money went to the victim's payee, passes: the chain paid the quoted payTo.
    expect(a.outcome).toBe("verified");
    expect(v.outcome).toBe("verified");
    // A second run of the attacker's has spent its own share of that payee (8,000 a day here) and pays nothing more.
    const again = await runCanary(attacker, {}, { caps, allowHosts: hosts });
    expect(again.outcome).toBe("unverified");
    expect(again.reason).toContain("budget_payto");
  });
});
