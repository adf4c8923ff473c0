/** Whose failure an unsettled relayed payment is (docs/ROUTER.md "Whose failure it is"). */
import { getAddress, parseEventLogs, type Hex } from "viem";
import { facilitatorOutageBetween } from "@/lib/chain/facilitator-health";
import { readChain } from "@/lib/chain/rpc";
import type { ReadOptions } from "@/lib/ledger/confirm-payment";
import { EIP3009_EVENTS } from "@/lib/x402/eip3009";
import type { BuyerSide, PaymentTerms } from "./buyer-side";
import type { DecodedPayment } from "./payment-headers";
import { matchRequirements, type UnpaidAnswer } from "./seller-requirements";

export type UnsettledVerdict =
  | { status: "failed"; reason: string; detail: string }
  | { status: "rejected"; reason: string; detail: string }
  | { status: "unmeasured"; reason: string; detail: string }
  /** The seller settled it after all and did not say so. */
  | { status: "unconfirmed"; transaction: string; detail: string };

export interface UnsettledContext {
  payment: DecodedPayment;
  terms: PaymentTerms;
  side: BuyerSide;
  /** Epoch ms: the payment's arrival and the seller's answer. */
  window: { from: number; to: number };
  /** Null when the seller could not be reached. */
  unpaid: () => Promise<UnpaidAnswer | null>;
  chain?: ReadOptions;
}

/** One the seller made and did not claim. */
async function unclaimedSettlement(ctx: UnsettledContext): Promise<{ ok: true; tx: string | null } | { ok: false; unmeasured: string }> {
  const { authorization } = ctx.payment;
  const read = await readChain(
    ctx.terms.network,
    async (client) => {
      const latest = await client.getBlockNumber({ cacheTime: 0 });
      const logs = await client.getLogs({
        address: getAddress(ctx.terms.asset),
        event: EIP3009_EVENTS[1],
        args: { authorizer: authorization.from, nonce: authorization.nonce as Hex },
        fromBlock: latest > 1_000n ? latest - 1_000n : 0n,
        toBlock: latest,
      });
      const [used] = parseEventLogs({ abi: EIP3009_EVENTS, logs, eventName: "AuthorizationUsed" });
      return used ? used.transactionHash : null;
    },
    ctx.chain,
  );
  return read.ok ? { ok: true, tx: read.value } : read;
}

/** For a payment the seller answered without claiming it settled. */
export async function judgeUnsettled(ctx: UnsettledContext): Promise<UnsettledVerdict> {
  const { side } = ctx;
  // A nonce spent at the arrival block is a replay: the buyer's.
  if (side.verdict === "buyer_fault") return { status: "rejected", reason: side.reason, detail: side.detail };
  if (side.verdict === "unmeasured") return { status: "unmeasured", reason: side.reason, detail: side.detail };

  // Spent since it reached us: the seller settled it and did not say so, or the buyer did, to a payee of its
  // own choosing, while the seller refused it. Only a payment that answers the seller's own challenge is the seller's.
  const settled = await unclaimedSettlement(ctx);
  if (!settled.ok) return { status: "unmeasured", reason: "chain_unreadable", detail: settled.unmeasured };
  if (settled.tx) {
    const match = await sellersRequirement(ctx);
    if (match !== true) return match.status === "rejected" ? { ...match, detail: `${match.detail}; its authorization was spent on chain (${settled.tx}), not as a payment the seller asked for` } : match;
    return { status: "unconfirmed", transaction: settled.tx, detail: "the seller settled this authorization without claiming it" };
  }

  if (facilitatorOutageBetween(ctx.window.from, ctx.window.to)) {
    return { status: "unmeasured", reason: "facilitator_unreachable", detail: "Tollgate's facilitator could not reach the chain while this payment was relayed" };
  }
  const match = await sellersRequirement(ctx);
  if (match !== true) return match;
  return { status: "failed", reason: "not_settled", detail: "the buyer's signed authorization was sound and answered the seller's requirement, and the seller did not settle it" };
}

/** True when the payment answers the seller's own unpaid challenge; else the verdict that says why not. */
async function sellersRequirement(ctx: UnsettledContext): Promise<true | Extract<UnsettledVerdict, { status: "rejected" | "unmeasured" }>> {
  const answer = await ctx.unpaid().catch(() => null);
  if (!answer) return { status: "unmeasured", reason: "seller_requirements_unreadable", detail: "the seller's requirements could not be read to compare the payment with" };
  const match = matchRequirements(answer, ctx.payment);
  if ("unreadable" in match) return { status: "unmeasured", reason: "seller_requirements_unreadable", detail: match.unreadable };
  if ("unstable" in match) return { status: "unmeasured", reason: "seller_challenge_unstable", detail: match.unstable };
  if (!match.match) return { status: "rejected", reason: "payer_requirements_mismatch", detail: match.detail };
  return true;
}
