/**
 * Whose failure it is (docs/ROUTER.md "Whose failure it is"). A relayed x402 payment the seller did
 * not settle counts against the seller's settle gate, unless the buyer's own authorization could
 * never have settled. The seller's word for why it refused is not taken (a seller that blamed its
 * buyers would hide its own failures); the router checks the signed EIP-3009 authorization itself:
 *
 * - `payer_authorization_mismatch`: it moves another amount, or to another address, than the
 *   requirement it answers (`accepted`) asks;
 * - `payer_authorization_expired` / `payer_authorization_not_yet_valid`: outside its validity window
 *   when relayed;
 * - `payer_bad_signature`: the signature is not the payer's over that authorization in the asset's
 *   EIP-712 domain (checked offline, then on chain for a contract wallet, EIP-1271/6492);
 * - `payer_insufficient_funds`: the payer's balance of the asset, read from the chain, is below it.
 *
 * Anything else (including a spent nonce, which may be the seller's own unreported settlement) is
 * the seller's: null. So is a question the chain could not answer: an outage never shifts blame.
 */
import { getAddress, hashTypedData, isAddress, parseAbi, verifyHash, type Address, type Hex } from "viem";
import { evmChainId, readChain } from "@/lib/chain/rpc";
import { EIP3009_TYPES } from "@/lib/chain/test-usdc";
import type { ReadOptions } from "@/lib/ledger/confirm-payment";

export type BuyerFault =
  | "payer_authorization_mismatch"
  | "payer_authorization_expired"
  | "payer_authorization_not_yet_valid"
  | "payer_bad_signature"
  | "payer_insufficient_funds";

/** The one EIP-712 type an x402 `exact` authorization is signed with. */
const TRANSFER_WITH_AUTHORIZATION = { TransferWithAuthorization: EIP3009_TYPES.TransferWithAuthorization } as const;

const BALANCE_OF = parseAbi(["function balanceOf(address account) view returns (uint256)"]);

interface Authorization {
  from: Address;
  to: Address;
  value: bigint;
  validAfter: bigint;
  validBefore: bigint;
  nonce: Hex;
}

/** The EIP-3009 authorization, its signature and the requirement it answers, or null for any other payload shape. */
function readPayload(payload: unknown): { auth: Authorization; signature: Hex; accepted: { amount: bigint; asset: Address; network: string; payTo: string; name?: string; version?: string } } | null {
  const p = payload as {
    accepted?: { amount?: unknown; asset?: unknown; network?: unknown; payTo?: unknown; extra?: { name?: unknown; version?: unknown } };
    payload?: { signature?: unknown; authorization?: Record<string, unknown> };
  };
  const a = p?.payload?.authorization;
  const sig = p?.payload?.signature;
  const acc = p?.accepted;
  const uint = (v: unknown) => (typeof v === "string" && /^\d{1,78}$/.test(v) ? BigInt(v) : typeof v === "number" && Number.isSafeInteger(v) && v >= 0 ? BigInt(v) : null);
  if (!a || typeof sig !== "string" || !/^0x[0-9a-fA-F]+$/.test(sig) || !acc) return null;
  const [value, validAfter, validBefore, amount] = [uint(a.value), uint(a.validAfter), uint(a.validBefore), uint(acc.amount)];
  const addr = (v: unknown) => (typeof v === "string" && isAddress(v) ? getAddress(v) : null);
  const [from, to, asset] = [addr(a.from), addr(a.to), addr(acc.asset)];
  if (!from || !to || !asset || value === null || validAfter === null || validBefore === null || amount === null) return null;
  if (typeof a.nonce !== "string" || !/^0x[0-9a-fA-F]{64}$/.test(a.nonce) || typeof acc.network !== "string" || typeof acc.payTo !== "string") return null;
  const str = (v: unknown) => (typeof v === "string" && v ? v : undefined);
  return {
    auth: { from, to, value, validAfter, validBefore, nonce: a.nonce as Hex },
    signature: sig as Hex,
    accepted: { amount, asset, network: acc.network, payTo: acc.payTo, name: str(acc.extra?.name), version: str(acc.extra?.version) },
  };
}

/** The buyer's fault that kept a relayed x402 payment from settling, or null when it is not (provably) the buyer's. */
export async function buyerFault(payload: unknown, options: ReadOptions & { now?: Date } = {}): Promise<BuyerFault | null> {
  const read = readPayload(payload);
  if (!read) return null;
  const { auth, signature, accepted } = read;
  const chainId = evmChainId(accepted.network);
  if (chainId === null) return null;

  if (auth.value !== accepted.amount || !isAddress(accepted.payTo) || getAddress(accepted.payTo) !== auth.to) return "payer_authorization_mismatch";
  const now = BigInt(Math.floor((options.now ?? new Date()).getTime() / 1000));
  if (auth.validBefore <= now) return "payer_authorization_expired";
  if (auth.validAfter > now) return "payer_authorization_not_yet_valid";

  if (accepted.name && accepted.version) {
    const hash = hashTypedData({
      domain: { name: accepted.name, version: accepted.version, chainId, verifyingContract: accepted.asset },
      types: TRANSFER_WITH_AUTHORIZATION,
      primaryType: "TransferWithAuthorization",
      message: auth,
    });
    const offline = await verifyHash({ address: auth.from, hash, signature }).catch(() => false);
    if (!offline) {
      // A contract wallet signs by EIP-1271 (or 6492 before deployment): only the chain can say.
      const onChain = await readChain(accepted.network, (client) => client.verifyHash({ address: auth.from, hash, signature }), options);
      if (!onChain.ok) return null;
      if (!onChain.value) return "payer_bad_signature";
    }
  }

  const balance = await readChain(accepted.network, (client) => client.readContract({ address: accepted.asset, abi: BALANCE_OF, functionName: "balanceOf", args: [auth.from] }), options);
  if (balance.ok && balance.value < auth.value) return "payer_insufficient_funds";
  return null;
}
