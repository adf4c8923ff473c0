/**
 * The house key per network (docs/CANARY.md "The house wallet"): TOLLGATE_CANARY_KEY_<namespace>_<reference>
 * beside the default TOLLGATE_CANARY_KEY, parsed as the RPC URLs per network are, and a run pays each
 * endpoint with the key of the network it is priced in. On a real anvil: this process has a key for
 * the local chain only (no default), so a listing on it is paid by that key, and one priced on Base
 * cannot be paid at all.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keccak256, toHex, type Hex } from "viem";
import type { LocalChain } from "@/devchain/local-chain";
import { EnvError, parseEnv } from "@/lib/env";
import { writeListing } from "@/lib/listings/save";
import { shapeDocument } from "@/demo/seed-demo";
import type { Market } from "@/sellers/market";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { createTestListing, createTestOrganization } from "@/test/ledger";
import { startPaidRig, type PaidRig } from "@/test/paid-rig";
import { anyHouseKey, houseKeyFor } from "./house";
import { runCanary } from "./runs";

const key = (label: string) => keccak256(toHex(`canary house key test: ${label}`)) as Hex;
const BIG = { day: 10_000_000n, listing: 1_000_000n };

describe("configuration", () => {
  it("TOLLGATE_CANARY_KEY_<namespace>_<reference> maps to the CAIP-2 network, beside the default", () => {
    const e = parseEnv({ TOLLGATE_CANARY_KEY: key("default"), TOLLGATE_CANARY_KEY_eip155_8453: key("base"), TOLLGATE_CANARY_KEY_eip155_31337: key("local") });
    expect(e.canaryKeys).toEqual({ "eip155:8453": key("base"), "eip155:31337": key("local") });
    expect(houseKeyFor("eip155:8453", e)).toBe(key("base"));
    expect(houseKeyFor("eip155:31337", e)).toBe(key("local"));
    // A network without its own key takes the default.
    expect(houseKeyFor("eip155:84532", e)).toBe(key("default"));
    expect(anyHouseKey(e)).toBe(true);
  });

  it("without a default, a network without its own key has none", () => {
    const e = parseEnv({ TOLLGATE_CANARY_KEY_eip155_31337: key("local") });
    expect(houseKeyFor("eip155:8453", e)).toBeNull();
    expect(houseKeyFor("eip155:31337", e)).toBe(key("local"));
    expect(anyHouseKey(e)).toBe(true);
    expect(anyHouseKey(parseEnv({}))).toBe(false);
    expect(parseEnv({}).canaryKeys).toEqual({});
  });

  it.each([
    [{ TOLLGATE_CANARY_KEY_base: key("x") }, /TOLLGATE_CANARY_KEY_base must name a CAIP-2 network/],
    [{ TOLLGATE_CANARY_KEY_eip155_8453: "0x1234" }, /TOLLGATE_CANARY_KEY_eip155_8453 must be a 0x-prefixed 32-byte hex private key/],
  ])("a malformed key stops start-up naming the variable (%o)", (source, message) => {
    expect(() => parseEnv(source)).toThrow(EnvError);
    expect(() => parseEnv(source)).toThrow(message);
  });
});

describe("a run pays with the key of the listing's network (anvil)", () => {
  let rig: PaidRig;
  let local: LocalChain;
  let market: Market;
  let t: TestDatabase;
  let org: string;
  let localHouse: PaidRig["house"];

  beforeAll(async () => {
    const doc = shapeDocument("mature-and-honest");
    // Read on first use of lib/env (after this). A key for the local chain only; no default.
    rig = await startPaidRig({
      label: "canary house key test",
      sellers: [{ slug: "keyed", document: { ...doc, slug: "keyed" }, behaviour: "honest" }],
      houseKeyFor: { network: "eip155:31337" },
      houseFunds: 1_000_000n,
    });
    ({ local, house: localHouse } = rig);
    market = rig.market!;
    t = await createTestDatabase();
    org = await createTestOrganization(t.prisma);
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    await rig?.close();
  });

  it("a listing on the local chain is paid by the local chain's key", async () => {
    const id = (await writeListing({ ...market.documents.keyed, slug: "keyed" }, { organizationId: org, publicationState: "published" })).id;
    const before = await local.balanceOf(localHouse.address);
    const run = await runCanary(id, {}, { caps: BIG });
    expect(run).toMatchObject({ state: "done", outcome: "verified" });
    const samples = await t.prisma.canarySample.findMany({ where: { runId: run.runId } });
    expect(samples).toHaveLength(3);
    for (const s of samples) expect(s).toMatchObject({ outcome: "pass", payer: localHouse.address.toLowerCase(), chainNetwork: "eip155:31337" });
    const rows = await t.prisma.routerPayment.findMany({ where: { listingId: id } });
    expect(rows.map((r) => [r.payer, r.house, r.status])).toEqual(Array(3).fill([localHouse.address.toLowerCase(), true, "settled"]));
    expect(before - (await local.balanceOf(localHouse.address))).toBe(8000n);
  });

  it("an endpoint priced on a network with no key (and no default) is not paid: no_house_wallet, the listing unverified", async () => {
    const id = await createTestListing(t.prisma, {
      organizationId: org,
      baseUrl: `${market.url}/keyed`,
      endpoints: [{ method: "GET", path: "/v1/geocode", requestExample: { q: "Berlin" } }],
    });
    const run = await runCanary(id, {}, { caps: BIG });
    expect(run).toMatchObject({ state: "done", outcome: "unverified" });
    expect(run.reason).toBe("GET /v1/geocode: no verdict (no_house_wallet)");
    expect(await t.prisma.routerPayment.count({ where: { listingId: id } })).toBe(0);
    // Nothing was reserved for an endpoint that cannot be paid.
    expect((await t.prisma.canaryRun.findUniqueOrThrow({ where: { id: run.runId } })).reserved?.toString()).toBe("0");
  });
});
