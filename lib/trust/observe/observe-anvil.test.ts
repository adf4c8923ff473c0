/**
 * The observations end to end on a real anvil (test/paid-rig.ts): market sellers
 * (honest, never-settles, fails-after-payment, overcharges) and the two reference sellers
 * (validity-check, agent-verdict) served live; the health sweep probes them (free checks written with
 * each health sample) and the canary pays them (paid checks written with each completed sample),
 * and the reader hands back a TrustSubject per endpoint.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AnvilNode } from "@/devchain/anvil";
import type { LocalChain } from "@/devchain/local-chain";
import { draftListingFromUrl } from "@/lib/discovery/import";
import { writeListing } from "@/lib/listings/save";
import { runCanary } from "@/lib/canary/runs";
import { runHealthSweep } from "@/lib/health/sweep-health";
import { shapeDocument } from "@/demo/seed-demo";
import type { MarketBehaviour } from "@/sellers/market";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { createTestOrganization } from "@/test/ledger";
import { startPaidRig, type PaidRig } from "@/test/paid-rig";
import { expectedSeparator, readAssetDomains, readTrustSubjects } from "@/lib/trust/observe";
import { loadRubric, scoreSubject } from "@/lib/trust/engine";

let rig: PaidRig;
let node: AnvilNode;
let local: LocalChain;
let t: TestDatabase;
let org: string;
let hosts: string[];
const payee = (label: string) => rig.payee(label);
const BEHAVIOURS: MarketBehaviour[] = ["honest", "never-settles", "fails-after-payment", "overcharges"];
const ids: Record<string, string> = {};

beforeAll(async () => {
  const doc = shapeDocument("mature-and-honest");
  rig = await startPaidRig({
    label: "tollgate trust observe test",
    sellers: BEHAVIOURS.map((behaviour) => ({ slug: `t-${behaviour}`, document: { ...doc, slug: `t-${behaviour}` }, behaviour })),
    products: true,
    houseFunds: 2_000_000n,
  });
  ({ node, local, hosts } = rig);
  t = await createTestDatabase();
  org = await createTestOrganization(t.prisma);
  const market = rig.market!;
  for (const b of BEHAVIOURS) ids[b] = (await writeListing({ ...market.documents[`t-${b}`], slug: `t-${b}` }, { organizationId: org, publicationState: "published" })).id;
  // The reference sellers, listed from the documents their services publish, as the demo lists them:
  // the import carries each paid endpoint's published example and the machine price its 402 quotes.
  for (const [key, url] of [["validity", `${rig.validity!.url}/criteria`], ["verdict", `${rig.verdict!.url}/docs/AGENT_VERDICT.json`]] as const) {
    const drafted = await draftListingFromUrl(url, { allowHosts: hosts });
    if (!drafted.ok) throw new Error(`${url}: ${drafted.detail}`);
    ids[key] = (await writeListing({ ...drafted.draft, slug: `t-${key}` }, { organizationId: org, publicationState: "published" })).id;
  }
}, 180_000);

afterAll(async () => {
  await t?.close();
  await rig?.close();
});

type Obs = { check: string; outcome: string; value: number | null; receipt: unknown; sourceId: string; endpointId: string; method: string; path: string };
const observations = (listingId: string, source: "monitor" | "canary") =>
  t.prisma.trustObservation.findMany({ where: { listingId, source }, orderBy: [{ method: "asc" }, { path: "asc" }, { check: "asc" }] }) as Promise<Obs[]>;
/** check → outcome for one endpoint (or the only one). */
const byCheck = (rows: Obs[], path?: string) => Object.fromEntries(rows.filter((r) => !path || r.path === path).map((r) => [r.check, r.outcome]));

describe("free checks from the health sweep's probes", () => {
  it("each probe writes its free observations with its health sample; the overcharging 402 fails H1; plain http fails S1", async () => {
    const r = await runHealthSweep({ allowHosts: hosts, deadlineMs: 10_000, concurrency: 2 });
    expect(r.probed).toBe(6);
    for (const key of Object.keys(ids)) {
      const rows = await observations(ids[key], "monitor");
      const samples = await t.prisma.healthSample.findMany({ where: { listingId: ids[key] } });
      expect(samples).toHaveLength(1);
      expect(rows.length).toBeGreaterThan(0);
      expect(new Set(rows.map((x) => x.sourceId))).toEqual(new Set([samples[0].id]));
    }
    const honest = await observations(ids.honest, "monitor");
    const geocode = byCheck(honest, "/v1/geocode");
    expect(geocode).toMatchObject({ R1: "pass", R2: "pass", R3: "pass", C1: "pass", C2: "pass", C3: "pass", H1: "pass", H2: "pass", H3: "pass", H4: "na", S1: "fail", S2: "pass", S4: "pass", S5: "pass" });
    // C3 was read on the local chain: the test USDC's DOMAIN_SEPARATOR equals the quoted name and version's.
    const c3 = honest.find((o) => o.check === "C3" && o.path === "/v1/geocode")!;
    expect(c3.receipt).toMatchObject({ network: "eip155:31337", contractDomainSeparator: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    // S1 for the demo's loopback sellers: plain http fails, honestly.
    expect((honest.find((o) => o.check === "S1")!.receipt as { findings: Array<{ code: string }> }).findings.map((f) => f.code)).toContain("not_https");
    expect(honest.find((o) => o.check === "R3")!.value).toBeGreaterThan(0);
    expect(byCheck(await observations(ids.overcharges, "monitor"), "/v1/geocode")).toMatchObject({ R2: "pass", C1: "pass", H1: "fail" });
    // The reference products' long published texts and 402s are honest: the screens raise no flag on them.
    for (const key of ["validity", "verdict"]) {
      const rows = await observations(ids[key], "monitor");
      const flagged = rows.filter((o) => (o.check === "S2" || o.check === "S4") && o.outcome !== "pass");
      expect(flagged.map((o) => JSON.stringify(o.receipt)), key).toEqual([]);
    }
  }, 120_000);
});

describe("paid checks from the canary's completed samples", () => {
  it("honest: every paid check passes on each endpoint; R6 na (no reference); R7 carries the time to the last byte", async () => {
    expect(await runCanary(ids.honest, { trigger: "publish" })).toMatchObject({ outcome: "verified" });
    const rows = await observations(ids.honest, "canary");
    const samples = await t.prisma.canarySample.findMany({ where: { listingId: ids.honest } });
    expect(samples).toHaveLength(3);
    expect(rows).toHaveLength(3 * 11);
    for (const s of samples) {
      expect(byCheck(rows.filter((r) => r.sourceId === s.id))).toEqual({ R4: "pass", R5: "pass", R6: "na", R7: "pass", C6: "pass", H5: "pass", H6: "pass", H7: "pass", H8: "pass", H9: "na", S3: "pass" });
      expect(rows.find((r) => r.sourceId === s.id && r.check === "R7")!.value).toBe(s.ttlbMs);
      expect(rows.find((r) => r.sourceId === s.id && r.check === "H5")!.receipt).toMatchObject({ transaction: s.transactionId, chain: { amount: s.chainAmount } });
    }
  }, 120_000);

  it("never-settles: R4, C6 fail; nothing moved on chain, so H5, H6, H8 are na", async () => {
    await runCanary(ids["never-settles"], { trigger: "publish" });
    const rows = await observations(ids["never-settles"], "canary");
    expect(rows.length).toBeGreaterThan(0);
    for (const path of new Set(rows.map((r) => r.path))) expect(byCheck(rows, path)).toMatchObject({ R4: "fail", C6: "fail", H5: "na", H6: "na", H8: "na" });
  }, 120_000);

  it("fails-after-payment: settled and answered non-2xx, so R4, R5 and H8 fail while H5 and H6 pass", async () => {
    await runCanary(ids["fails-after-payment"], { trigger: "publish" });
    const rows = await observations(ids["fails-after-payment"], "canary");
    expect(rows.length).toBeGreaterThan(0);
    for (const path of new Set(rows.map((r) => r.path))) expect(byCheck(rows, path)).toMatchObject({ R4: "fail", R5: "fail", H8: "fail", C6: "pass", H5: "pass", H6: "pass" });
  }, 120_000);

  it("overcharges: the canary signs nothing, so no paid observation is written (H1 records the overcharge)", async () => {
    const run = await runCanary(ids.overcharges, { trigger: "publish" });
    expect(run.reason).toMatch(/quote_above_listing/);
    expect(await observations(ids.overcharges, "canary")).toEqual([]);
  }, 120_000);

  it("the reference sellers: R6 recomputed from the request and the output", async () => {
    for (const key of ["validity", "verdict"]) {
      const run = await runCanary(ids[key], { trigger: "publish" });
      const rows = await observations(ids[key], "canary");
      const r6 = rows.filter((r) => r.check === "R6");
      // Each paid endpoint has a reference and passes R6; the receipt names the fields compared.
      expect(r6.length, `${key}: ${run.reason}`).toBe(key === "validity" ? 2 : 1);
      for (const o of r6) {
        expect(o.outcome, JSON.stringify(o.receipt)).toBe("pass");
        expect((o.receipt as { compared: unknown[] }).compared.length).toBeGreaterThan(0);
      }
    }
  }, 180_000);
});

describe("the reader", () => {
  it("returns a TrustSubject per endpoint with its free and paid observations and revisions", async () => {
    const subjects = await readTrustSubjects(t.prisma, ids.honest);
    const endpoints = await t.prisma.endpoint.findMany({ where: { listingId: ids.honest }, orderBy: { position: "asc" } });
    expect(subjects.map((s) => s.endpointId)).toEqual(endpoints.map((e) => e.id));
    const payable = subjects.filter((s) => s.observations.some((o) => o.kind === "paid"));
    expect(payable).toHaveLength(3);
    for (const s of payable) {
      expect(new Set(s.observations.map((o) => o.kind))).toEqual(new Set(["free", "paid"]));
      expect(s.observations.every((o) => o.revision === 1 && o.endpointId === s.endpointId)).toBe(true);
      expect(s.revisions).toEqual([{ revision: 1, startedAt: expect.any(String), changes: [], note: null }]);
      expect(s.observations.find((o) => o.check === "R7")).toMatchObject({ kind: "paid", vantage: "canary", value: expect.any(Number) });
    }
  });
});

describe("the grade, end to end (the engine over these real probes and paid samples)", () => {
  const rubric = loadRubric();
  /** The result of each endpoint the canary paid (or each with an observation `which` picks), scored now with the band. */
  const grades = async (key: string, which: (o: { check: string; kind: string; outcome: string }) => boolean = (o) => o.kind === "paid") =>
    (await readTrustSubjects(t.prisma, ids[key]))
      .filter((s) => s.observations.some(which))
      .map((s) => scoreSubject(rubric, s, { band: true }));

  it("fails-after-payment: charged without delivery fires its gate on every paid endpoint: capped at 59 and avoid", async () => {
    const rs = await grades("fails-after-payment");
    expect(rs).toHaveLength(3);
    for (const r of rs) {
      expect(r.flags).toContain("charged_without_delivery");
      expect(r.score!).toBeLessThanOrEqual(59);
      expect(r.verdict).toBe("avoid");
      expect(r.band!.high).toBeLessThanOrEqual(59);
    }
  });

  it("honest: no gate fires, and one probe with one paid sample is insufficient evidence with a wide band", async () => {
    for (const r of await grades("honest")) {
      expect(r.flags).toEqual([]);
      expect(r.verdict).toBe("insufficient_evidence");
      expect(r.verdictBecause).toContain("1 R1 probe(s), fewer than 8");
      expect(r.confidence).not.toBe("high");
      expect(r.checks.find((c) => c.id === "H5")!.rate).toBe(1);
    }
  });

  it("never-settles and overcharges score below honest; the overcharger's H1 fails and, since the canary signed nothing, its H5 is unmeasured (no overcharge gate)", async () => {
    const mean = (rs: { score: number | null }[]) => rs.reduce((a, r) => a + r.score!, 0) / rs.length;
    const honest = mean(await grades("honest"));
    const never = await grades("never-settles");
    // The three priced endpoints, whose 402 asks twice the listed price.
    const over = await grades("overcharges", (o) => o.check === "H1" && o.outcome === "fail");
    expect(over).toHaveLength(3);
    expect(mean(never)).toBeLessThan(honest);
    expect(mean(over)).toBeLessThan(honest);
    for (const r of never) expect(r.checks.find((c) => c.id === "R4")!.rate).toBe(0);
    for (const r of over) {
      expect(r.checks.find((c) => c.id === "H1")!.rate).toBe(0);
      expect(r.checks.find((c) => c.id === "H5")!.rate).toBeNull();
      expect(r.flags).not.toContain("overcharge");
    }
  });

  it("the reference sellers: R6 passes, so their good dimension is measured", async () => {
    for (const key of ["validity", "verdict"]) {
      for (const r of await grades(key)) {
        if (!r.checks.find((c) => c.id === "R4")!.n) continue; // a free route the canary does not pay
        expect(r.checks.find((c) => c.id === "R6")!.rate).toBe(1);
        expect(r.dimensions.find((d) => d.id === "good")!.score).toBe(100);
      }
    }
  });
});

describe("C3's chain read (one DOMAIN_SEPARATOR eth_call)", () => {
  const req = (name: string, version: string, asset: string = local.usdc) => ({ scheme: "exact", network: "eip155:31337", amount: "1", asset, payTo: payee("c3"), maxTimeoutSeconds: 60, extra: { name, version } });
  it("equal for the test USDC's own name and version; different for another; unmeasured without an RPC", async () => {
    const ok = await readAssetDomains([req("USD Coin", "2")], { settings: { rpcUrls: {}, TOLLGATE_CHAIN_RPC_URL: node.rpcUrl } });
    expect([...ok.values()]).toEqual([{ ok: true, matches: true, expected: expectedSeparator("eip155:31337", local.usdc, "USD Coin", "2"), onChain: expect.stringMatching(/^0x[0-9a-f]{64}$/) }]);
    const wrong = await readAssetDomains([req("USDC", "2")], { settings: { rpcUrls: {}, TOLLGATE_CHAIN_RPC_URL: node.rpcUrl } });
    expect([...wrong.values()][0]).toMatchObject({ ok: true, matches: false });
    const down = await readAssetDomains([req("USD Coin", "2")], { settings: { rpcUrls: {} } });
    expect([...down.values()][0]).toMatchObject({ ok: false, unmeasured: expect.stringMatching(/no RPC configured/) });
    // An asset the table does not hold is not read: C3's table half fails it without the chain.
    expect((await readAssetDomains([req("USD Coin", "2", payee("not-a-token"))], { settings: { rpcUrls: {}, TOLLGATE_CHAIN_RPC_URL: node.rpcUrl } })).size).toBe(0);
  });
});
