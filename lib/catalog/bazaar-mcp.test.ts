/**
 * The Bazaar MCP's tools on /mcp, paying through the router on a real anvil: search_resources finds a
 * live market seller probed by lib/probe; proxy_tool_call answers its 402 as an x402 MCP
 * payment-required result, and a retry with `_meta["x402/payment"]` is relayed, settled on chain,
 * recorded (not as the house) and counted by the discovery quality block; a replayed payment moves
 * nothing. PGlite, or server PostgreSQL with TEST_DATABASE_URL.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keccak256, toHex, type Hex, type PublicClient } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { x402Client, x402HTTPClient, type PaymentRequired } from "@x402/fetch";
import { toClientEvmSigner } from "@x402/evm";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { createApiKey } from "@/lib/apikeys";
import { writeListing } from "@/lib/listings/save";
import { probeListing } from "@/lib/probe/probe-listing";
import { shapeDocument } from "@/demo/seed-demo";
import { POST } from "@/app/mcp/route";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { createTestOrganization } from "@/test/ledger";
import { storeEvidence } from "@/test/discovery";
import { startPaidRig, type PaidRig } from "@/test/paid-rig";

let rig: PaidRig;
let t: TestDatabase;
let secret: string;
let listingId: string;
const buyer = privateKeyToAccount(keccak256(toHex("bazaar mcp test buyer")) as Hex);

beforeAll(async () => {
  const doc = shapeDocument("mature-and-honest");
  rig = await startPaidRig({ label: "bazaar mcp test", sellers: [{ slug: "bazaar-geo", document: { ...doc, slug: "bazaar-geo" }, behaviour: "honest" }] });
  t = await createTestDatabase();
  const admin = (await t.prisma.user.create({ data: { name: "Admin", role: "admin" } })).id;
  secret = (await createApiKey({ actorId: admin, name: "mcp buyer", scopes: ["router:call"] })).secret;
  const org = await createTestOrganization(t.prisma);
  const document = rig.market!.documents["bazaar-geo"];
  listingId = (await writeListing({ ...document, slug: "bazaar-geo" }, { organizationId: org, publicationState: "published" })).id;
  const probed = await probeListing({ ...document, slug: "bazaar-geo" }, { allowHosts: rig.hosts });
  if (!probed.ok) throw new Error(`probe refused: ${probed.detail}`);
  await storeEvidence(t.prisma, listingId, probed.evidence);
  await rig.local.mint(buyer.address, 1_000_000n);
}, 180_000);
afterAll(async () => {
  await t?.close();
  await rig?.close();
});

let nextId = 1;
async function call(name: string, args: Record<string, unknown>, meta?: Record<string, unknown>, auth = true) {
  const res = await POST(
    new Request("http://localhost/mcp", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18", ...(auth ? { authorization: `Bearer ${secret}` } : {}) },
      body: JSON.stringify({ jsonrpc: "2.0", id: nextId++, method: "tools/call", params: { name, arguments: args, ...(meta ? { _meta: meta } : {}) } }),
    }),
  );
  expect(res.status).toBe(200);
  return (await res.json()).result;
}

describe("search_resources and proxy_tool_call (anvil)", () => {
  it("finds the seller, answers its 402, pays through the router on retry, and the ledger counts the buyer", async () => {
    const found = await call("search_resources", { query: "geocode" });
    const item = found.structuredContent.resources.find((r: { tollgate: { toolName: string } }) => r.tollgate.toolName.includes(":GET /v1/geocode"));
    expect(item).toBeDefined();
    expect(item.accepts[0]).toMatchObject({ network: "eip155:31337", payTo: rig.payee("bazaar-geo") });
    expect(item.quality).toEqual({ l30DaysTotalCalls: 0, l30DaysUniquePayers: 0, lastCalledAt: null });
    const toolName = item.tollgate.toolName;

    // Without a key the proxy is refused; with one, unpaid, it answers the seller's PaymentRequired.
    expect((await call("proxy_tool_call", { toolName, q: "Berlin" }, undefined, false)).isError).toBe(true);
    const unpaid = await call("proxy_tool_call", { toolName, q: "Berlin" });
    expect(unpaid.isError).toBe(true);
    const required = unpaid.structuredContent as PaymentRequired;
    expect(required.x402Version).toBe(2);
    expect(required.accepts[0]).toMatchObject({ payTo: rig.payee("bazaar-geo"), network: "eip155:31337" });

    const client = new x402Client()
      .register("eip155:31337", new ExactEvmScheme(toClientEvmSigner(buyer, rig.local.publicClient as unknown as PublicClient)))
      .setSpendControls({ allowedAssets: [{ network: "eip155:31337", asset: rig.local.usdc }] });
    const payload = await new x402HTTPClient(client).createPaymentPayload(required);
    const before = await rig.local.balanceOf(buyer.address);
    const paid = await call("proxy_tool_call", { toolName, q: "Berlin" }, { "x402/payment": payload });
    expect(paid.isError).toBeFalsy();
    expect(paid._meta["x402/payment-response"]).toMatchObject({ success: true, network: "eip155:31337" });
    expect(JSON.parse(paid.content[0].text)).toBeTypeOf("object");
    const spent = before - (await rig.local.balanceOf(buyer.address));
    expect(spent).toBe(BigInt(required.accepts[0].amount));

    const rows = await t.prisma.routerPayment.findMany({ where: { listingId } });
    expect(rows.map((r) => [r.payer, r.status, r.house])).toEqual([[buyer.address.toLowerCase(), "settled", false]]);

    // The same signed payment again: nothing more leaves the buyer's wallet, no second settlement.
    const replay = await call("proxy_tool_call", { toolName, q: "Berlin" }, { "x402/payment": payload });
    expect(replay.isError).toBe(true);
    expect(before - (await rig.local.balanceOf(buyer.address))).toBe(spent);
    expect(await t.prisma.routerPayment.count({ where: { listingId, status: "settled" } })).toBe(1);

    const after = await call("search_resources", { query: "geocode" });
    const again = after.structuredContent.resources.find((r: { tollgate: { toolName: string } }) => r.tollgate.toolName === toolName);
    expect(again.quality).toMatchObject({ l30DaysTotalCalls: 1, l30DaysUniquePayers: 1 });
    expect(again.tollgate.lastPaidProof).toMatchObject({ transaction: rows[0].transactionId, house: false });
  });

  it("refuses a toolName that names no published resource, and a payment that is not an object", async () => {
    const r = await call("proxy_tool_call", { toolName: "nobody:GET /nothing" });
    expect(r.isError).toBe(true);
    expect(r.content[0].text).toContain("/toolName");
    const found = await call("search_resources", { query: "geocode" });
    const toolName = found.structuredContent.resources[0].tollgate.toolName;
    const bad = await call("proxy_tool_call", { toolName }, { "x402/payment": "not a payload" });
    expect(bad.isError).toBe(true);
    expect(bad.content[0].text).toContain("x402~1payment");
  });
});
