/**
 * The two seed products as the catalog lists them (issue 16 "Done when"): each service started on a
 * real anvil, settling through the facilitator's own routes; its product document imported from its
 * URL with lib/discovery draftListingFromUrl, as scripts/demo.ts does; the draft carries each paid
 * endpoint's published request example and the machine price its live 402 quotes; the canary (the
 * house wallet, through the router's relay) pays every paid endpoint of each and the listing is
 * verified; and the readiness report of each imported listing is the one docs/VALIDITY-CHECK.md and
 * docs/AGENT-VERDICT.md explain rule by rule (this test reads their tables, so they cannot drift).
 */
import { readFileSync } from "node:fs";
import express from "express";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalChain } from "@/devchain/local-chain";
import { LOCAL_NETWORK } from "@/devchain/local-chain";
import { draftListingFromUrl, type DraftResult } from "@/lib/discovery/import";
import type { ListingDocument } from "@/lib/listing-document/document";
import { writeListing } from "@/lib/listings/save";
import { runCanary } from "@/lib/canary/runs";
import { CURRENT_RUBRIC, RULE_IDS, scoreReadiness, type ReadinessResult } from "@/lib/scoring/readiness";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { createTestOrganization } from "@/test/ledger";
import { startPaidRig, type PaidRig } from "@/test/paid-rig";
import { EXAMPLE_REQUEST } from "./agent-verdict/product";
import { UPTO_EXAMPLE_INPUT, VALIDITY_EXAMPLE_INPUT } from "./validity-check/examples";
import { validityCheckApp } from "./validity-check/service";
import criteriaDocument from "./validity-check/criteria.json";
import { listenLoopback } from "./listen";
import { TEST_FACILITATOR_TOKEN } from "@/test/router-routes";

let rig: PaidRig;
let local: LocalChain;
let routes: PaidRig["routes"];
let house: PaidRig["house"];
let t: TestDatabase;
let org: string;
const drafts: Record<"003" | "002", Extract<DraftResult, { ok: true }>> = {} as never;
/** Each product's payee in the rig, by seed number. */
const payee = (key: "003" | "002") => rig.payee(key === "003" ? "validity-check" : "agent-verdict");
const BIG = { day: 10_000_000n, listing: 1_000_000n };
/** The instant the provisional reports are scored at (it enters no rule of a provisional run). */
const NOW = new Date("2026-12-03T12:00:00Z");

beforeAll(async () => {
  rig = await startPaidRig({ label: "tollgate products test", products: true, houseFunds: 1_000_000n });
  ({ local, routes, house } = rig);
  t = await createTestDatabase();
  org = await createTestOrganization(t.prisma);
  for (const [key, url] of [["003", `${rig.validity!.url}/criteria`], ["002", `${rig.verdict!.url}/docs/AGENT_VERDICT.json`]] as const) {
    const r = await draftListingFromUrl(url, { allowHosts: rig.hosts, deadlineMs: 5000 });
    if (!r.ok) throw new Error(`${url}: ${r.detail}`);
    drafts[key] = r;
  }
}, 120_000);

afterAll(async () => {
  await t?.close();
  await rig?.close();
});

const machine = (amount: string) => ({ amount, asset: local.usdc, network: LOCAL_NETWORK, decimals: 6 });

describe("the import of a product document carries what the seller publishes", () => {
  it("validity-check: each paid op's published example and the 402's machine price; the document's words kept", () => {
    const { draft, sources } = drafts["003"];
    expect(sources.map((s) => `${s.kind} ${s.status} ${s.ok}`)).toEqual([
      "product-document 200 true", "well-known-x402 404 false", "openapi 200 true", "challenge 402 true", "challenge 402 true",
    ]);
    expect(draft.protocols).toEqual(["x402"]);
    expect(draft.networks).toEqual([LOCAL_NETWORK]);
    const byKey = Object.fromEntries(draft.endpoints.map((e) => [`${e.method} ${e.path}`, e]));
    expect(byKey["POST /upto"].requestExample).toEqual(UPTO_EXAMPLE_INPUT);
    expect(byKey["POST /validity"].requestExample).toEqual(VALIDITY_EXAMPLE_INPUT);
    expect(byKey["POST /upto"].pricing).toEqual({ label: "$0.01 per challenge", usd: "0.01", machine: machine("10000"), mode: "fixed", dynamic: null });
    expect(byKey["POST /validity"].pricing).toEqual({ label: "$0.01 per payload", usd: "0.01", machine: machine("10000"), mode: "fixed", dynamic: null });
    // The free routes are not called for a 402 and carry no price.
    expect(byKey["GET /criteria"].pricing).toBeNull();
    expect(byKey["POST /precheck"].pricing).toBeNull();
  });

  it("agent-verdict: the summary's example, the 402's floor quote as the machine price, still dynamic from $0.04", () => {
    const { draft, sources } = drafts["002"];
    expect(sources.map((s) => `${s.kind} ${s.status} ${s.ok}`)).toEqual([
      "product-document 200 true", "well-known-x402 200 true", "openapi 404 false", "challenge 402 true",
    ]);
    expect(draft.protocols).toEqual(["x402"]);
    expect(draft.networks).toEqual([LOCAL_NETWORK]);
    const [e] = draft.endpoints;
    expect(e.requestExample).toEqual(EXAMPLE_REQUEST);
    expect(e.pricing).toEqual({ label: "from $0.04", usd: null, machine: machine("40000"), mode: "dynamic", dynamic: { min: "0.04", max: null, driver: null, unit: null } });
  });

  it("without the OpenAPI document a paid op has no example, so no 402 is read: a warning names it, and the import still drafts", async () => {
    // The same service with its OpenAPI document withheld: the criteria document alone publishes no
    // example, and the service refuses an empty body free (challenge_required) before any 402.
    const r = await draftValidityWith("/openapi.json", (_req, res) => void res.status(404).json({ error: "not_found" }));
    const upto = r.draft.endpoints.find((e) => e.path === "/upto")!;
    expect(upto).toMatchObject({ requestExample: null, pricing: { usd: "0.01", machine: null, mode: "fixed" } });
    expect(r.sources.filter((s) => s.kind === "challenge").map((s) => s.status)).toEqual([400, 400]);
    expect(r.warnings).toContain("POST /upto: no request example is published for it, so its 402 could not be read (a seller that checks the body before quoting refuses an empty one).");
    expect(r.draft.protocols).toEqual([]);
  });
});

describe("a document's stated price and the 402's, compared as amounts", () => {
  it("'$0.010' stated and 10000 atomic units quoted are the same price: kept as the document wrote it, no warning", async () => {
    const r = await draftValidityWith("/criteria", (_req, res) =>
      void res.json({ ...criteriaDocument, endpoints: { ...criteriaDocument.endpoints, upto: criteriaDocument.endpoints.upto.replace("$0.01 ", "$0.010 ") } }),
    );
    const upto = r.draft.endpoints.find((e) => e.path === "/upto")!;
    expect(upto.pricing).toMatchObject({ usd: "0.010", machine: { amount: "10000" } });
    // Compared as strings, "0.010" and "0.01" differed and the import warned of an overcharge that is not one.
    expect(r.warnings.filter((w) => w.includes("the 402 quotes"))).toEqual([]);
  });
});

/** The validity-check service with one GET route answered otherwise, drafted from its /criteria. */
async function draftValidityWith(route: string, handler: express.RequestHandler): Promise<Extract<DraftResult, { ok: true }>> {
  const { app } = validityCheckApp({ facilitator: { url: `${routes.origin}/api/facilitator`, token: TEST_FACILITATOR_TOKEN }, usdc: local.usdc, payTo: payee("003") });
  const wrapped = express();
  wrapped.get(route, handler);
  wrapped.use(app);
  const served = await listenLoopback(wrapped);
  try {
    const r = await draftListingFromUrl(`${served.url}/criteria`, { allowHosts: [`127.0.0.1:${served.port}`], deadlineMs: 5000 });
    if (!r.ok) throw new Error(r.detail);
    return r;
  } finally {
    await served.close();
  }
}

describe("the canary pays each imported product", () => {
  for (const [key, paths, cost] of [["003", ["POST /upto", "POST /validity"], 20_000n], ["002", ["POST /api/x402/AGENT_VERDICT"], 40_000n]] as const) {
    it(`${key}: every paid endpoint passes on chain and the listing is verified`, async () => {
      const id = (await writeListing(drafts[key].draft, { organizationId: org, publicationState: "published" })).id;
      const before = await local.balanceOf(house.address);
      const run = await runCanary(id, {}, { caps: BIG });
      expect(run).toMatchObject({ state: "done", outcome: "verified" });
      const samples = await t.prisma.canarySample.findMany({ where: { runId: run.runId } });
      expect(samples.map((s) => `${s.method} ${s.path}`).sort()).toEqual([...paths]);
      for (const s of samples) {
        expect(s).toMatchObject({ state: "completed", outcome: "pass", reason: "pass", httpStatus: 200, paymentStatus: "settled", schemaValid: true, chainNetwork: LOCAL_NETWORK });
        expect(s.chainAmount).toBe(s.listedAmount);
        expect(s.chainTo).toBe(payee(key).toLowerCase());
        expect(["refused", "idempotent"]).toContain(s.replay);
      }
      expect(before - (await local.balanceOf(house.address))).toBe(cost);
      expect((await t.prisma.listing.findUniqueOrThrow({ where: { id } })).verificationStatus).toBe("verified");
    }, 60_000);
  }
});

/** The rows of the doc's "Readiness, rule by rule" table: rule → result, points earned, points possible. */
function documentedReport(doc: string): { rules: Map<string, { status: string; earned: number; max: number }>; total: number; band: string | null } {
  const text = readFileSync(path.join(__dirname, "../docs", doc), "utf8");
  const start = text.indexOf("## Readiness, rule by rule");
  expect(start, `${doc} has a "Readiness, rule by rule" section`).toBeGreaterThanOrEqual(0);
  const next = text.indexOf("\n## ", start + 1);
  const section = text.slice(start, next < 0 ? undefined : next);
  const rules = new Map<string, { status: string; earned: number; max: number }>();
  for (const m of section.matchAll(/^\| ([A-Z]\d) \| (pass|partial|fail|not_observed) \| ([\d.]+) \/ (\d+) \|/gm)) rules.set(m[1], { status: m[2], earned: Number(m[3]), max: Number(m[4]) });
  const total = /^\| \*\*Total\*\* \| \| \*\*(\d+)\*\* \/ 100 \| ([A-Za-z ]+?) \(provisional\)/m.exec(section);
  return { rules, total: total ? Number(total[1]) : NaN, band: total ? total[2] : null };
}

function checkAgainst(doc: string, r: ReadinessResult) {
  const documented = documentedReport(doc);
  expect([...documented.rules.keys()]).toEqual([...RULE_IDS]);
  for (const rule of r.rules) {
    expect({ id: rule.id, ...documented.rules.get(rule.id) }).toEqual({ id: rule.id, status: rule.status, earned: Math.round(rule.earned * 100) / 100, max: rule.max });
  }
  expect({ total: documented.total, band: documented.band }).toEqual({ total: r.total, band: r.band.label });
}

describe("the readiness report of each imported listing is the one its doc explains", () => {
  const score = (d: ListingDocument) => scoreReadiness(d, null, CURRENT_RUBRIC, { now: NOW });
  it("validity-check: docs/VALIDITY-CHECK.md", () => {
    const r = score(drafts["003"].draft);
    expect(r).toMatchObject({ provisional: true, caps: [] });
    checkAgainst("VALIDITY-CHECK.md", r);
    expect(r.rules.find((x) => x.id === "E4")!.endpoints).toEqual(["GET /metrics"]);
  });
  it("agent-verdict: docs/AGENT-VERDICT.md", () => {
    const r = score(drafts["002"].draft);
    expect(r).toMatchObject({ provisional: true, caps: [] });
    checkAgainst("AGENT-VERDICT.md", r);
  });
});
