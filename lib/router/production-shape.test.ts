/**
 * The paid path in the production shape, offline: anvil as Base Sepolia (chain id 84532) with the
 * token's code at Base Sepolia's canonical USDC address, reached only through
 * TOLLGATE_RPC_URL_eip155_84532, a seller settling through its own facilitator, and the asset table's
 * Base Sepolia entry (not a `local` one). The binding, the blame rules and the audit hold there too.
 */
import { x402Client } from "@x402/core/client";
import { x402Facilitator } from "@x402/core/facilitator";
import type { FacilitatorClient } from "@x402/core/server";
import { toClientEvmSigner, toFacilitatorEvmSigner } from "@x402/evm";
import { ExactEvmScheme as ExactEvmClient } from "@x402/evm/exact/client";
import { ExactEvmScheme as ExactEvmFacilitator } from "@x402/evm/exact/facilitator";
import { wrapFetchWithPayment } from "@x402/fetch";
import { createPublicClient, http, keccak256, toHex, type Address, type PrivateKeyAccount } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAnvil, type AnvilNode } from "@/devchain/anvil";
import { LOCAL_DEV_KEYS } from "@/devchain/local-chain";
import { placeTokenAt, type StandInToken } from "@/devchain/stand-in";
import { auditLedger } from "@/lib/ledger/audit";
import { confirmationsSettled } from "@/lib/router/confirm-after-answer";
import { relayCall } from "@/lib/router/relay-call";
import { canonicalUsdc, findAsset } from "@/lib/x402/assets";
import { neverSettlingClient, startPaidSellers, type PaidSellers } from "@/sellers/paid";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { createTestListing } from "@/test/ledger";

const NETWORK = "eip155:84532" as const;
const BASE_SEPOLIA = canonicalUsdc(NETWORK)!;
let node: AnvilNode;
let token: StandInToken;
let sellers: PaidSellers;
let t: TestDatabase;
let buyer: PrivateKeyAccount;
const slugs: Record<string, string> = {};
const ids: Record<string, string> = {};

/** The seller's own facilitator: @x402/core's x402Facilitator with @x402/evm's exact scheme and a key of its own. */
function sellersFacilitator(rpcUrl: string): FacilitatorClient {
  const account = privateKeyToAccount(LOCAL_DEV_KEYS[7]);
  const client = { ...token.owner, ...createPublicClient({ chain: token.chain, transport: http(rpcUrl) }) };
  const wallet = { ...client, account, address: account.address, writeContract: (a: never) => token.owner.writeContract({ ...(a as object), account } as never), sendTransaction: (a: never) => token.owner.sendTransaction({ ...(a as object), account } as never) };
  const facilitator = new x402Facilitator().register(NETWORK, new ExactEvmFacilitator(toFacilitatorEvmSigner(wallet as never)));
  return {
    verify: (p, r) => facilitator.verify(p, r),
    settle: (p, r) => facilitator.settle(p, r),
    getSupported: async () => facilitator.getSupported() as never,
  };
}

beforeAll(async () => {
  delete process.env.TOLLGATE_CHAIN_RPC_URL;
  node = await startAnvil({ chainId: 84532 });
  process.env.TOLLGATE_RPC_URL_eip155_84532 = node.rpcUrl;
  token = await placeTokenAt({ rpcUrl: node.rpcUrl, chainId: 84532, address: BASE_SEPOLIA.address as Address, name: BASE_SEPOLIA.domains[0].name });
  buyer = privateKeyToAccount(keccak256(toHex("production shape buyer")));
  await token.mint(buyer.address, 5_000_000n);
  const payTo = privateKeyToAccount(keccak256(toHex("production shape payee"))).address;
  const otherPayTo = privateKeyToAccount(keccak256(toHex("production shape other payee"))).address;
  const own = sellersFacilitator(node.rpcUrl);
  const common = { usdc: BASE_SEPOLIA.address as Address, payTo, otherPayTo, network: NETWORK, domain: { name: BASE_SEPOLIA.domains[0].name, version: "2" } };
  sellers = await startPaidSellers({ ...common, facilitator: own });
  const lying = await startPaidSellers({ ...common, facilitator: neverSettlingClient(own) });
  const prior = sellers.close;
  sellers.close = async () => {
    await lying.close();
    await prior();
  };
  t = await createTestDatabase();
  for (const [key, baseUrl] of [["honest", `${sellers.url}/honest`], ["lying", `${lying.url}/honest`]] as const) {
    ids[key] = await createTestListing(t.prisma, {
      title: `base sepolia ${key}`,
      baseUrl,
      networks: [NETWORK],
      endpoints: [{ method: "GET", path: "/weather", priceAmount: "10000", priceAsset: BASE_SEPOLIA.address, priceNetwork: NETWORK, priceUsd: "0.01" }],
    });
    slugs[key] = (await t.prisma.listing.findUniqueOrThrow({ where: { id: ids[key] }, select: { slug: true } })).slug;
  }
  process.env.TOLLGATE_PROBE_ALLOW_HOSTS = `127.0.0.1:${sellers.port},127.0.0.1:${lying.port}`;
}, 120_000);
afterAll(async () => {
  await t?.close();
  await sellers?.close();
  await node?.stop();
  delete process.env.TOLLGATE_RPC_URL_eip155_84532;
});

const caller = { kind: "api_key" as const, id: "production-shape" };
const hosts = () => (process.env.TOLLGATE_PROBE_ALLOW_HOSTS ?? "").split(",");
function payingFetch(account: PrivateKeyAccount) {
  const client = new x402Client()
    .register(NETWORK, new ExactEvmClient(toClientEvmSigner(account, createPublicClient({ chain: token.chain, transport: http(node.rpcUrl) }) as never)))
    .setSpendControls({ allowedAssets: [{ network: NETWORK, asset: BASE_SEPOLIA.address }] });
  return wrapFetchWithPayment(async (input: RequestInfo | URL, init?: RequestInit) => {
    const req = new Request(input, init);
    const [, , , slug, ...path] = new URL(req.url).pathname.split("/");
    return relayCall(req, slug, path.join("/"), { caller, allowHosts: hosts() });
  }, client);
}
const rows = async (key: string) => {
  await confirmationsSettled();
  return t.prisma.routerPayment.findMany({ where: { listingId: ids[key] }, orderBy: { createdAt: "asc" } });
};

describe("Base Sepolia's shape on a local node", () => {
  it("is configured through the production variables only, and the token reports the asset table's domain (not a local entry)", async () => {
    expect(process.env.TOLLGATE_CHAIN_RPC_URL).toBeUndefined();
    expect(findAsset(NETWORK, BASE_SEPOLIA.address)).toMatchObject({ network: NETWORK });
    expect("local" in findAsset(NETWORK, BASE_SEPOLIA.address)!).toBe(false);
    const domain = await createPublicClient({ chain: token.chain, transport: http(node.rpcUrl) }).getEip712Domain({ address: BASE_SEPOLIA.address as Address });
    expect(domain.domain).toMatchObject({ name: BASE_SEPOLIA.domains[0].name, version: "2", chainId: 84532, verifyingContract: BASE_SEPOLIA.address });
  });

  it("an honest paid call through the router settles, bound to its authorization and transfer", async () => {
    const res = await payingFetch(buyer)(`http://127.0.0.1/router/call/${slugs.honest}/weather`);
    expect(res.status).toBe(200);
    const [row] = await rows("honest");
    expect(row).toMatchObject({ status: "settled", network: NETWORK, asset: BASE_SEPOLIA.address, chainAmount: "10000", payer: buyer.address.toLowerCase() });
    expect(row.transferLogIndex).not.toBeNull();
  });

  it("a seller claiming a settlement that never happened: failed unproven", async () => {
    const res = await payingFetch(buyer)(`http://127.0.0.1/router/call/${slugs.lying}/weather`);
    expect(res.status).toBe(200);
    const [row] = await rows("lying");
    expect(row).toMatchObject({ status: "failed", reason: "unproven" });
  });

  it("an unfunded buyer is the buyer's fault, not the seller's", async () => {
    const broke = privateKeyToAccount(keccak256(toHex("production shape broke buyer")));
    const res = await payingFetch(broke)(`http://127.0.0.1/router/call/${slugs.honest}/weather`);
    expect(res.status).toBe(402);
    const row = (await rows("honest")).find((r) => r.payer === broke.address.toLowerCase());
    expect({ status: row?.status, reason: row?.reason, detail: row?.detail }).toMatchObject({ status: "rejected", reason: "payer_insufficient_funds" });
  });

  it("the audit proves every settled row on this chain", async () => {
    const report = await auditLedger(t.prisma);
    expect(report.checked).toBeGreaterThan(0);
    expect(report.findings).toEqual([]);
  });
});
