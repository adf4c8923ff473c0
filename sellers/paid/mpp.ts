/**
 * The MPP paid reference sellers: an HTTP server whose resources sit behind mppx's own server
 * (`Mppx.create` from `mppx/server` with the EVM charge method of `mppx/evm/server`), charging the
 * local test USDC (EIP-3009, EIP-712 domain "USD Coin" / "2") on the local chain. A call without a
 * credential gets mppx's 402 with `WWW-Authenticate: Payment …` (an HMAC-bound `evm`/`charge`
 * challenge; mppx's EVM charge also offers the same charge as an x402 v2 `PAYMENT-REQUIRED`). A call
 * with `Authorization: Payment <credential>` is verified and settled before anything is delivered,
 * and the answer carries mppx's `Payment-Receipt` naming the settlement transaction.
 *
 * Two sellers, one path prefix each, each selling `GET /<seller>/weather`:
 *
 * - `honest`: verifies and settles through an x402 facilitator (mppx's `x402.facilitator` option:
 *   lib/chain's facilitator in process, or its /api/facilitator URL), which submits the signed
 *   `transferWithAuthorization` on chain; then delivers JSON with the receipt.
 * - `never-settles`: mppx checks the credential (signature, amount, recipient, challenge binding),
 *   but its `settle` never reaches the chain: it answers a receipt naming a made-up transaction hash.
 *
 * `GET /<seller>/terms` answers the seller's terms (free, JSON).
 *
 * `mppRouterFetch` is the buyer's side: a fetch that pays MPP challenges with the mppx client
 * (`mppx/client` with the EVM charge method and a viem account) and carries the buyer's Tollgate API
 * key as `X-Tollgate-Key`, since the MPP credential occupies `Authorization` (docs/ROUTER.md).
 */
import type { FacilitatorClient } from "@x402/core/server";
import { Mppx as MppxClient } from "mppx/client";
import { charge as chargeClient } from "mppx/evm/client";
import { charge as chargeServer } from "mppx/evm/server";
import { Mppx, Request as MppxRequest } from "mppx/server";
import { formatUnits, keccak256, toHex, type Account, type Address } from "viem";
import { LOCAL_CHAIN_ID, LOCAL_USDC_DOMAIN } from "@/devchain/local-chain";
import { listenLoopback } from "../listen";
import { facilitatorClientFor, type FacilitatorTarget } from "../facilitator-client";

const WEATHER = { city: "Lisbon", temperatureC: 19, conditions: "clear" };
/** The test USDC's decimals (devchain/artifacts: 6, like USDC). */
const USDC_DECIMALS = 6;

export const MPP_SELLERS = ["honest", "never-settles"] as const;
export type MppSellerName = (typeof MPP_SELLERS)[number];

/** mppx's x402 facilitator shape (`verify`, `settle`) as the EVM charge's `x402.facilitator` takes it. */
type MppxFacilitator = NonNullable<NonNullable<chargeServer.Parameters["x402"]>["facilitator"]>;

export interface MppSellersOptions {
  /** 0 (default) picks a free port on 127.0.0.1. */
  port?: number;
  /** A facilitator URL, a URL with its caller credential ({url, token}), or an x402 FacilitatorClient (../facilitator-client.ts). */
  facilitator: FacilitatorTarget;
  /** The USDC contract charged in (on the local chain: LOCAL_USDC_ADDRESS). */
  usdc: Address;
  /** Where the sellers are paid. */
  payTo: Address;
  /** The price in atomic units (default 10000 = 0.01 USDC). */
  price?: string;
  chainId?: number;
  /** The HMAC key binding challenge ids (at least 32 bytes; default a fresh random one per start). */
  secretKey?: string;
  /** The challenge realm (default "tollgate-mpp-seller"). */
  realm?: string;
}

export interface MppSellers {
  url: string;
  port: number;
  /** The full URL of a seller's paid resource. */
  resource(seller: MppSellerName): string;
  price: string;
  close(): Promise<void>;
}

/** A settle that never reaches the chain: a receipt naming a transaction hash made up from the nonce. */
const neverSettles: chargeServer.SettleAuthorization = async ({ payload }) => ({ reference: keccak256(toHex(`never settled ${payload.nonce}`)) });

export async function startMppSellers(options: MppSellersOptions): Promise<MppSellers> {
  const price = options.price ?? "10000";
  if (!/^\d{1,38}$/.test(price)) throw new Error(`price must be atomic units as digits, got ${JSON.stringify(price)}`);
  const chainId = options.chainId ?? LOCAL_CHAIN_ID;
  const secretKey = options.secretKey ?? toHex(crypto.getRandomValues(new Uint8Array(32))).slice(2);
  const realm = options.realm ?? "tollgate-mpp-seller";
  // @x402/core's FacilitatorClient and mppx's facilitator share the wire shape (x402 v2 verify/settle);
  // only their TypeScript declarations differ.
  const facilitator = facilitatorClientFor(options.facilitator) as unknown as MppxFacilitator;

  const handlers = new Map<MppSellerName, (req: Request) => Promise<Response>>();
  for (const seller of MPP_SELLERS) {
    const method = chargeServer({
      currency: options.usdc,
      recipient: options.payTo,
      chainId,
      decimals: USDC_DECIMALS,
      authorization: { ...LOCAL_USDC_DOMAIN },
      x402: { facilitator },
      ...(seller === "never-settles" ? { settle: neverSettles } : {}),
    });
    const mppx = Mppx.create({ methods: [method], secretKey, realm });
    const pay = mppx.charge({ amount: formatUnits(BigInt(price), USDC_DECIMALS), description: `Weather from the ${seller} MPP reference seller` });
    handlers.set(seller, async (req) => {
      const result = await pay(req);
      if (result.status === 402) return result.challenge;
      return result.withReceipt(Response.json({ seller, ...WEATHER }));
    });
  }

  const handle = async (req: Request): Promise<Response> => {
    const path = new URL(req.url).pathname;
    const [, seller, rest] = /^\/([^/]+)\/(weather|terms)$/.exec(path) ?? [];
    const pay = handlers.get(seller as MppSellerName);
    if (!pay) return Response.json({ error: "not_found", message: `no MPP seller resource at ${req.method} ${path}` }, { status: 404 });
    if (req.method !== "GET") return Response.json({ error: "method_not_allowed", message: `${path} answers GET` }, { status: 405 });
    if (rest === "terms") return Response.json({ seller, protocol: "mpp", method: "evm", intent: "charge", chainId, currency: options.usdc, price, payTo: options.payTo });
    return pay(req);
  };

  const { url, port, close } = await listenLoopback(MppxRequest.toNodeListener(handle), options.port);
  return {
    url,
    port,
    price,
    resource: (seller) => `${url}/${seller}/weather`,
    close,
  };
}

export interface MppBuyerOptions {
  /** The buyer's own key: it signs each EIP-3009 authorization (the router never holds it). */
  account: Account;
  /** The buyer's Tollgate API key (tg_…), sent as X-Tollgate-Key; omit to call a seller directly. */
  apiKey?: string;
  /** The fetch to wrap (default: the global fetch). */
  fetch?: typeof fetch;
  /** The USDC contract the buyer agrees to pay in, and its chain (default: the local chain). */
  usdc: Address;
  chainId?: number;
  /** The most it pays for one call, in atomic units (default 1000000 = 1 USDC). */
  maxAtomicAmount?: string;
}

/**
 * A fetch that pays MPP `evm`/`charge` challenges with the mppx client: it gets the 402, signs the
 * EIP-3009 authorization the challenge asks for (this USDC, this chain, at most `maxAtomicAmount`)
 * and retries with `Authorization: Payment <credential>`. With `apiKey`, every request also carries
 * `X-Tollgate-Key: <apiKey>`, so pointed at `/router/call/<listing>/<path>` it pays an MPP listing
 * through the router.
 */
export function mppRouterFetch(options: MppBuyerOptions): typeof fetch {
  const chainId = options.chainId ?? LOCAL_CHAIN_ID;
  const base = options.fetch ?? fetch;
  const keyed: typeof fetch = options.apiKey
    ? (input, init) => {
        const headers = new Headers(input instanceof Request ? input.headers : undefined);
        new Headers(init?.headers).forEach((v, k) => headers.set(k, v));
        headers.set("x-tollgate-key", options.apiKey!);
        return base(input, { ...init, headers });
      }
    : base;
  const client = MppxClient.create({
    polyfill: false,
    fetch: keyed,
    methods: [
      chargeClient({
        account: options.account,
        authorization: { ...LOCAL_USDC_DOMAIN },
        decimals: USDC_DECIMALS,
        networks: [chainId],
        currencies: [options.usdc],
        maxAtomicAmount: options.maxAtomicAmount ?? "1000000",
      }),
    ],
  });
  return client.fetch as typeof fetch;
}
