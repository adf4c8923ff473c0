/**
 * The demo market: the seed's listing shapes (docs/spec/scoring-system.md "Both scores on real
 * shapes") as live sellers on the local chain (sellers/market), and the buyers whose real payments,
 * relayed by the router and confirmed on chain, are the only ledger the demo's rank reads.
 *
 * - mature-and-honest: an honest seller paid by many distinct buyers;
 * - popular-but-thin: a wash seller: one wallet buying from itself, many times (traction 0);
 * - trafficked-but-unpayable: a seller that never settles, failing three distinct buyers three times
 *   each (the settle gate reads it unpayable);
 * - well-built-brand-new: an honest seller nobody has paid yet;
 * - geo-lookup-mpp: the MPP geo lookup (sellers/mpp-seller.ts's document) served behind mppx, paid by
 *   its buyers with the mppx client through the router;
 * - two summarisers that take real money and misbehave: one charges twice its listed price, one
 *   settles and then answers 500. (A seller paying out to another wallet than it names is not in
 *   the market: a listing document names no payee to hold the 402 against; sellers/paid's wrong-payee
 *   advertises one, and lib/router/relay-call.test.ts shows the chain's recipient recorded.)
 *
 * Every wallet here is derived from a public label (demoWallet), funded on the local chain only, and
 * worthless anywhere else.
 */
import { x402Client } from "@x402/core/client";
import { toClientEvmSigner } from "@x402/evm";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { wrapFetchWithPayment } from "@x402/fetch";
import { keccak256, toHex, type Address, type PrivateKeyAccount } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { ListingDocument } from "@/lib/listing-document/document";
import { LOCAL_NETWORK, type LocalChain } from "@/devchain/local-chain";
import type { MarketBehaviour, MarketSellerSpec } from "@/sellers/market";
import { listingFor } from "@/sellers/documents";
import { mppSeller } from "@/sellers/mpp-seller";
import { brokenSellers } from "@/sellers/broken";
import { VALIDITY_EXAMPLE_INPUT } from "@/sellers/validity-check/examples";
import { mppRouterFetch } from "@/sellers/paid/mpp";

/** The key of a demo wallet, from a public label: local chain only (anyone can derive it). */
export function demoKey(label: string): `0x${string}` {
  return keccak256(toHex(`tollgate demo wallet: ${label}`));
}

/** A wallet of the demo market, from a public label: local chain only (its key is derivable by anyone). */
export function demoWallet(label: string): PrivateKeyAccount {
  return privateKeyToAccount(demoKey(label));
}

/** The canary's house wallet in the demo (TOLLGATE_CANARY_KEY of the demo's server; docs/CANARY.md). */
export const CANARY_HOUSE_LABEL = "canary house";
/** What the demo mints the house wallet up to (atomic units): the day's default budget. */
export const CANARY_HOUSE_FUNDS = 5_000_000n;

/** Who buys what from whom: per market seller, its behaviour and payee, and the calls its buyers make. */
export interface ShapePlan {
  /** The seller's key: a seed shape (demo/seed-demo.ts SHAPES) or one of marketExtras(). */
  key: string;
  behaviour: MarketBehaviour;
  payTo: Address;
  /** wrong-payee only: where its payment requirement actually pays. */
  otherPayTo?: Address;
  /** Each buyer wallet and how many paid calls it makes (to the document's first payable endpoint, unless `request` names one). */
  buyers: Array<{ wallet: PrivateKeyAccount; calls: number }>;
  /** The call the buyers make, when not the first payable endpoint with its request example. */
  request?: { method: "GET" | "POST"; path: string; body?: unknown };
}

/** The seed products (sellers/validity-check, sellers/agent-verdict): their own services, not market sellers. */
export type ProductPlan = Pick<ShapePlan, "key" | "buyers" | "request"> & { payTo: Address };

/** Who buys the seed products, keyed as demo/seed-demo.ts lists them ("seed:003", "seed:002"). */
export function productPlan(): ProductPlan[] {
  const buyers = (prefix: string, n: number, calls: number) => Array.from({ length: n }, (_, i) => ({ wallet: demoWallet(`${prefix} ${i + 1}`), calls }));
  return [
    // Paid with the product's own published example (sellers/validity-check/examples.ts).
    { key: "003", payTo: demoWallet("validity-check payee").address, buyers: buyers("buyer", 5, 2), request: { method: "POST", path: "/validity", body: VALIDITY_EXAMPLE_INPUT } },
    { key: "002", payTo: demoWallet("agent-verdict payee").address, buyers: buyers("buyer", 4, 1) },
  ];
}

/** Distinct buyers of the mature seller: enough to clear the traction floor by far. */
export const MATURE_BUYERS = 24;
/** Distinct buyers of the MPP seller. */
export const MPP_BUYERS = 6;

/** The market's sellers beyond the seed shapes: key → the listing document it serves (before localising). */
export function marketExtras(origin = "https://market.example"): Record<string, ListingDocument> {
  // A complete x402 summariser (docs, logo, discovery) whose only fault, in the market, is its behaviour.
  const summariser = brokenSellers.find((s) => s.slug === "lowercase-payto")!;
  const text = (key: string, title: string, shortDescription: string): ListingDocument => ({
    ...listingFor(summariser, origin),
    slug: key,
    title,
    shortDescription,
    description: `${shortDescription} Up to 2,000 characters of text in, one sentence out, paid per call over x402 in USDC; no account or API key.`,
  });
  return {
    "geo-lookup-mpp": { ...listingFor(mppSeller, origin), slug: "geo-lookup-mpp" },
    "quillsum-overcharges": text("quillsum-overcharges", "Quillsum one-line summaries", "One-sentence summaries of short texts for agents."),
    "digestly-fails-after-payment": text("digestly-fails-after-payment", "Digestly summariser", "Summaries of short texts, one call at a time."),
  };
}

export function marketPlan(): ShapePlan[] {
  const buyers = (prefix: string, n: number, calls: number) => Array.from({ length: n }, (_, i) => ({ wallet: demoWallet(`${prefix} ${i + 1}`), calls }));
  const wash = demoWallet("popular-but-thin wash trader");
  return [
    { key: "mature-and-honest", behaviour: "honest", payTo: demoWallet("mature-and-honest payee").address, buyers: buyers("buyer", MATURE_BUYERS, 2) },
    // The seller's payee is the buyer: every payment moves money from a wallet to itself.
    { key: "popular-but-thin", behaviour: "honest", payTo: wash.address, buyers: [{ wallet: wash, calls: 12 }] },
    { key: "trafficked-but-unpayable", behaviour: "never-settles", payTo: demoWallet("trafficked-but-unpayable payee").address, buyers: buyers("buyer", 3, 3) },
    { key: "well-built-brand-new", behaviour: "honest", payTo: demoWallet("well-built-brand-new payee").address, buyers: [] },
    { key: "geo-lookup-mpp", behaviour: "honest", payTo: demoWallet("geo-lookup-mpp payee").address, buyers: buyers("mpp buyer", MPP_BUYERS, 2) },
    // Broken in the ways the rank floors exist for: each takes real money, and the ledger shows how.
    { key: "quillsum-overcharges", behaviour: "overcharges", payTo: demoWallet("quillsum payee").address, buyers: buyers("buyer", 4, 2) },
    { key: "digestly-fails-after-payment", behaviour: "fails-after-payment", payTo: demoWallet("digestly payee").address, buyers: buyers("buyer", 3, 3) },
  ];
}

/** The market's sellers: each shape's document served live with its plan's behaviour. */
export function marketSellers(plan: readonly ShapePlan[], documents: Record<string, ListingDocument>): MarketSellerSpec[] {
  return plan.map((p) => {
    const document = documents[p.key];
    if (!document) throw new Error(`no listing document for market seller ${p.key}`);
    return { slug: p.key, document, behaviour: p.behaviour, payTo: p.payTo, otherPayTo: p.otherPayTo };
  });
}

/** Mint each planned buyer enough test USDC for its calls (1 USDC per call, far above any price here). */
export async function fundBuyers(local: LocalChain, plan: readonly Pick<ShapePlan, "buyers">[]): Promise<number> {
  const seen = new Set<string>();
  for (const { wallet, calls } of plan.flatMap((p) => p.buyers)) {
    if (seen.has(wallet.address)) continue;
    seen.add(wallet.address);
    const want = BigInt(calls) * 1_000_000n;
    const has = await local.balanceOf(wallet.address);
    if (has < want) await local.mint(wallet.address, want - has);
  }
  return seen.size;
}

export interface TrafficResult {
  key: string;
  calls: number;
  /** HTTP status the router answered each call with, counted. */
  statuses: Record<number, number>;
}

/**
 * Make the plan's paid calls through the router: each buyer pays with its own key, signing an EIP-3009
 * authorization per call, at `${routerOrigin}/router/call/<listing slug>/<path>`, carrying the demo's
 * API key: with @x402/fetch for an x402 seller, with the mppx client (sellers/paid/mpp.ts
 * mppRouterFetch, the key as X-Tollgate-Key) for an MPP one. `slugs` maps a key to its listing's slug.
 * Calls run one buyer at a time.
 */
export async function playMarket(input: {
  local: LocalChain;
  plan: readonly (ShapePlan | ProductPlan)[];
  documents: Record<string, ListingDocument>;
  slugs: Record<string, string>;
  routerOrigin: string;
  apiKey: string;
  /** Keys to play (default: all). */
  only?: ReadonlySet<string>;
}): Promise<TrafficResult[]> {
  const results: TrafficResult[] = [];
  for (const p of input.plan) {
    if (input.only && !input.only.has(p.key)) continue;
    const doc = input.documents[p.key];
    const endpoint = p.request
      ? { method: p.request.method, path: p.request.path, requestExample: p.request.body ?? null }
      : doc?.endpoints.find((e) => e.payable && e.pricing?.machine) ?? doc?.endpoints.find((e) => e.payable && e.requestExample != null);
    if (!doc || !endpoint || p.buyers.length === 0) continue;
    const result: TrafficResult = { key: p.key, calls: 0, statuses: {} };
    const url = `${input.routerOrigin}/router/call/${input.slugs[p.key]}${endpoint.path}${queryOf(endpoint.method, endpoint.requestExample)}`;
    const mpp = doc.protocols.includes("mpp") && !doc.protocols.includes("x402");
    for (const { wallet, calls } of p.buyers) {
      const pay = mpp
        ? mppRouterFetch({ account: wallet, apiKey: input.apiKey, usdc: input.local.usdc })
        : wrapFetchWithPayment(
            fetch,
            new x402Client()
              .register(LOCAL_NETWORK, new ExactEvmScheme(toClientEvmSigner(wallet, input.local.publicClient)))
              .setSpendControls({ allowedAssets: [{ network: LOCAL_NETWORK, asset: input.local.usdc }] }),
          );
      for (let i = 0; i < calls; i++) {
        const body = endpoint.method === "GET" ? undefined : JSON.stringify(endpoint.requestExample ?? {});
        const res = await pay(url, {
          method: endpoint.method,
          headers: { ...(mpp ? {} : { authorization: `Bearer ${input.apiKey}` }), ...(body ? { "content-type": "application/json" } : {}) },
          body,
        });
        await res.arrayBuffer();
        result.calls++;
        result.statuses[res.status] = (result.statuses[res.status] ?? 0) + 1;
      }
    }
    results.push(result);
  }
  return results;
}

/** A GET endpoint's request example as its query string ("" when it has none or it is not flat). */
function queryOf(method: string, example: unknown): string {
  if (method !== "GET" || !example || typeof example !== "object" || Array.isArray(example)) return "";
  const flat = Object.entries(example as Record<string, unknown>).filter(([, v]) => ["string", "number", "boolean"].includes(typeof v));
  return flat.length ? `?${new URLSearchParams(flat.map(([k, v]) => [k, String(v)])).toString()}` : "";
}
