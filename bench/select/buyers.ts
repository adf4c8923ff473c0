/**
 * A buyer of the selection market: its own wallet paying through the router's relay with
 * @x402/fetch (`wrapFetchWithPayment`, exact EVM scheme), as an agent would, and an API key. It pays
 * whatever the seller's 402 asks in the listed asset (no price cap: the selector is what is judged),
 * and reports whether it sent a payment and for how much.
 */
import { x402Client } from "@x402/core/client";
import { decodePaymentSignatureHeader } from "@x402/core/http";
import { toClientEvmSigner } from "@x402/evm";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { wrapFetchWithPayment } from "@x402/fetch";
import type { Address, PrivateKeyAccount, PublicClient } from "viem";
import { LOCAL_NETWORK } from "@/devchain/local-chain";

export interface CallOutcome {
  status: number;
  body: unknown;
  /** A payment was signed and sent (whether the seller then settled it or not). */
  paid: boolean;
  /** The amount the payment authorised (atomic units), 0n when none was sent. */
  authorised: bigint;
}

export type RouterBuyer = (callUrl: string, input: string) => Promise<CallOutcome>;

/** A buyer paying through `/router/call/…` with `apiKey`; `callUrl` is the router's URL for the endpoint. */
export function routerBuyer(wallet: PrivateKeyAccount, publicClient: PublicClient, usdc: Address, apiKey: string): RouterBuyer {
  const client = new x402Client()
    .register(LOCAL_NETWORK, new ExactEvmScheme(toClientEvmSigner(wallet, publicClient)))
    .setSpendControls({ allowedAssets: [{ network: LOCAL_NETWORK, asset: usdc }] });
  return async (callUrl, input) => {
    let authorised = 0n;
    const seen: typeof fetch = async (req, init) => {
      const header = new Headers(req instanceof Request ? req.headers : init?.headers).get("payment-signature");
      if (header) {
        const accepted = (decodePaymentSignatureHeader(header) as { accepted?: { amount?: string } }).accepted;
        authorised = BigInt(accepted?.amount ?? "0");
      }
      return fetch(req, init);
    };
    const pay = wrapFetchWithPayment(seen, client);
    const res = await pay(callUrl, { method: "POST", headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" }, body: JSON.stringify({ input }) });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      /* not JSON: kept as text */
    }
    return { status: res.status, body, paid: authorised > 0n, authorised };
  };
}
