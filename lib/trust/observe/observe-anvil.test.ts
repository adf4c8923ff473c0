/**
 * The observations end to end on a real anvil (the rig of lib/canary/canary.test.ts): market sellers
 * (honest, never-settles, fails-after-payment, overcharges) and the two reference sellers
 * (validity-check, agent-verdict) served live; the health sweep probes them (free checks written with
 * each health sample) and the canary pays them (paid checks written with each completed sample),
 * and the reader hands back a TrustSubject per endpoint.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { keccak256, toHex } from "viem";
import { startAnvil, type AnvilNode } from "@/lib/chain/anvil";
import { LOCAL_DEV_KEYS, setupLocalChain, type LocalChain } from "@/lib/chain/local-chain";
import { draftListingFromUrl } from "@/lib/discovery/import";
import { writeListing } from "@/lib/listings/save";
import { runCanary } from "@/lib/canary/runs";
import { runHealthSweep } from "@/lib/monitor/sweep-health";
import { shapeDocument } from "@/demo/seed-demo";
import { startMarket, type Market, type MarketBehaviour } from "@/sellers/market";
import { startValidityCheck, type ValidityCheck } from "@/sellers/validity-check/service";
import { UPTO_EXAMPLE_INPUT, VALIDITY_EXAMPLE_INPUT } from "@/sellers/validity-check/examples";
import { EXAMPLE_REQUEST } from "@/sellers/agent-verdict/product";
import { startAgentVerdict, type AgentVerdictService } from "@/sellers/agent-verdict/index";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { createTestOrganization } from "@/test/ledger";
import { facilitatorRoutes } from "@/test/router-routes";
import { serveRoutes, type RouteServer } from "@/test/route-server";
import { expectedSeparator, readAssetDomains, readTrustSubjects } from "@/lib/trust/observe";
import type { ListingEndpoint } from "@/lib/listing-document/document";

let node: AnvilNode;
let local: LocalChain;
let routes: RouteServer;
let market: Market;
let validity: ValidityCheck;
let verdict: AgentVerdictService;
let t: TestDatabase;
let org: string;
let hosts: string[];
const HOUSE_KEY = keccak256(toHex("tollgate trust observe test house wallet")) as Hex;
const house = privateKeyToAccount(HOUSE_KEY);
const payee = (label: string) => privateKeyToAccount(keccak256(toHex(`trust observe payee ${label}`))).address;
const BEHAVIOURS: MarketBehaviour[] = ["honest", "never-settles", "fails-after-payment", "overcharges"];
const ids: Record<string, string> = {};

beforeAll(async () => {
  node = await startAnvil();
  local = await setupLocalChain(node.rpcUrl);
  routes = await serveRoutes(facilitatorRoutes());
  const doc = shapeDocument("mature-and-honest");
  market = await startMarket({
    facilitator: `${routes.origin}/api/facilitator`,
    usdc: local.usdc,
    sellers: BEHAVIOURS.map((behaviour) => ({ slug: `t-${behaviour}`, document: { ...doc, slug: `t-${behaviour}` }, behaviour, payTo: payee(behaviour) })),
  });
  validity = await startValidityCheck({ facilitator: `${routes.origin}/api/facilitator`, usdc: local.usdc, payTo: payee("validity") });
  verdict = await startAgentVerdict({ facilitator: `${routes.origin}/api/facilitator`, usdc: local.usdc, payTo: payee("verdict") });
  hosts = [market.port, validity.port, verdict.port].map((p) => `127.0.0.1:${p}`);
  process.env.TOLLGATE_PROBE_ALLOW_HOSTS = hosts.join(",");
  process.env.TOLLGATE_CHAIN_RPC_URL = node.rpcUrl;
  process.env.TOLLGATE_FACILITATOR_KEY = LOCAL_DEV_KEYS[9];
  process.env.TOLLGATE_CANARY_KEY = HOUSE_KEY;
  t = await createTestDatabase();
  org = await createTestOrganization(t.prisma);
  await local.mint(house.address, 2_000_000n);
  for (const b of BEHAVIOURS) ids[b] = (await writeListing({ ...market.documents[`t-${b}`], slug: `t-${b}` }, { organizationId: org, publicationState: "published" })).id;
  // The reference sellers, listed from the documents their services publish (as the demo lists them).
  for (const [key, url] of [["validity", `${validity.url}/criteria`], ["verdict", `${verdict.url}/docs/AGENT_VERDICT.json`]] as const) {
    const drafted = await draftListingFromUrl(url, { allowHosts: hosts });
    if (!drafted.ok) throw new Error(`${url}: ${drafted.detail}`);
    // The drafted document names no protocol and no request examples (the product documents publish
    // their examples elsewhere); the seller completes the listing with the services' own published
    // examples and says it is paid over x402, so the canary can call it.
    const examples: Record<string, unknown> = key === "validity" ? { "/validity": VALIDITY_EXAMPLE_INPUT, "/upto": UPTO_EXAMPLE_INPUT } : { "/api/x402/AGENT_VERDICT": EXAMPLE_REQUEST };
    // Its machine price: validity-check's $0.01; agent-verdict's dynamic quote, held against its most ($0.077).
    const machine = { asset: local.usdc, network: "eip155:31337", decimals: 6, amount: key === "validity" ? "10000" : "77000" };
    const endpoints = drafted.draft.endpoints.map((e) =>
      examples[e.path] ? ({ ...e, requestExample: examples[e.path], pricing: { ...e.pricing, machine, mode: key === "validity" ? "fixed" : "dynamic" } } as ListingEndpoint) : e,
    );
    ids[key] = (await writeListing({ ...drafted.draft, endpoints, protocols: ["x402"], slug: `t-${key}` }, { organizationId: org, publicationState: "published" })).id;
  }
}, 180_000);

afterAll(async () => {
  await t?.close();
  await market?.close();
  await validity?.close();
  await verdict?.close();
  await routes?.close();
  await node?.stop();
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
