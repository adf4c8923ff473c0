/**
 * Is the buyer's side of a relayed payment sound? The router's own answer, never the seller's word (docs/ROUTER.md).
 */
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import type { FacilitatorEvmSigner } from "@x402/evm";
import { ExactEvmScheme } from "@x402/evm/exact/facilitator";
import { getAddress, hashTypedData, isAddress, verifyHash, verifyTypedData, zeroAddress, type Address, type Hex, type PublicClient } from "viem";
import { evmChainId, isRpcOutage, readChain, type ChainRead } from "@/lib/chain/rpc";
import type { ReadOptions } from "@/lib/ledger/confirm-payment";
import { findAsset } from "@/lib/x402/assets";
import { EIP3009_READS, TRANSFER_WITH_AUTHORIZATION_TYPES } from "@/lib/x402/eip3009";
import type { DecodedPayment } from "./payment-headers";

export type BuyerFault =
  | "payer_authorization_mismatch"
  | "payer_authorization_expired"
  | "payer_authorization_not_yet_valid"
  | "payer_authorization_spent"
  | "payer_bad_signature"
  | "payer_insufficient_funds"
  | "payer_requirements_mismatch";

export type BuyerSide =
  | { verdict: "sound" }
  | { verdict: "buyer_fault"; reason: BuyerFault; detail: string }
  | { verdict: "unmeasured"; reason: string; detail: string };

export interface Domain {
  name: string;
  version: string;
}

export interface PaymentTerms {
  asset: string;
  network: string;
  maxTimeoutSeconds?: number;
}

/** Never the seller's `extra`. */
export async function domainsFor(network: string, asset: string, options: ReadOptions = {}): Promise<ChainRead<Domain[]>> {
  const known = findAsset(network, asset);
  const table = (known?.domains ?? []).filter((d) => d.version !== null).map((d) => ({ name: d.name, version: d.version! }));
  if (table.length > 0) return { ok: true, value: table };
  if (!isAddress(asset)) return { ok: false, unmeasured: `${asset} is not an EVM token address` };
  const address = getAddress(asset);
  return readChain(
    network,
    async (client) => {
      try {
        const d = await client.getEip712Domain({ address });
        if (d.domain.name && d.domain.version) return [{ name: d.domain.name, version: d.domain.version }];
      } catch (e) {
        if (isRpcOutage(e)) throw e;
      }
      const [name, version] = await Promise.all([
        client.readContract({ address, abi: EIP3009_READS, functionName: "name" }),
        client.readContract({ address, abi: EIP3009_READS, functionName: "version" }),
      ]);
      return [{ name, version }];
    },
    options,
  ).catch((e: unknown) => ({ ok: false as const, unmeasured: `the token ${address} names no EIP-712 domain (${e instanceof Error ? e.message.split("\n")[0] : String(e)})` }));
}

function typedDataHash(payment: DecodedPayment, domain: Domain, chainId: number, asset: Address): Hex {
  return hashTypedData({
    domain: { ...domain, chainId, verifyingContract: asset },
    types: TRANSFER_WITH_AUTHORIZATION_TYPES,
    primaryType: "TransferWithAuthorization",
    message: payment.authorization,
  });
}

/** The domain the buyer signed in; `recoveredHash` when a plain ECDSA recovery proved it offline over that typed-data hash. */
export interface SignedDomain extends Domain {
  recoveredHash?: Hex;
}

/** Offline for plain ECDSA, on chain for a contract wallet. */
export async function signedDomain(payment: DecodedPayment, terms: PaymentTerms, options: ReadOptions = {}): Promise<ChainRead<SignedDomain | null>> {
  const chainId = evmChainId(terms.network);
  if (chainId === null || !isAddress(terms.asset)) return { ok: false, unmeasured: `${terms.network} is not an EVM network the router reads` };
  const domains = await domainsFor(terms.network, terms.asset, options);
  if (!domains.ok) return domains;
  const asset = getAddress(terms.asset);
  const hashes = domains.value.map((d) => ({ d, hash: typedDataHash(payment, d, chainId, asset) }));
  const isEcdsa = payment.signature.length === 132;
  for (const { d, hash } of hashes) {
    if (await verifyHash({ address: payment.authorization.from, hash, signature: payment.signature }).catch(() => false)) return { ok: true, value: isEcdsa ? { ...d, recoveredHash: hash } : d };
  }
  if (isEcdsa) {
    const code = await readChain(terms.network, (c) => c.getCode({ address: payment.authorization.from }), options);
    if (!code.ok) return code;
    if (!code.value || code.value === "0x") return { ok: true, value: null };
  }
  for (const { d, hash } of hashes) {
    const onChain = await readChain(terms.network, (c) => c.verifyHash({ address: payment.authorization.from, hash, signature: payment.signature }), options);
    if (!onChain.ok) return onChain;
    if (onChain.value) return { ok: true, value: d };
  }
  return { ok: true, value: null };
}

/** What `signedDomain` proved offline (null when it proved it on chain, or not at all). */
function recovered(payment: DecodedPayment, domain: SignedDomain): Recovered | null {
  return domain.recoveredHash ? { address: payment.authorization.from, signature: payment.signature, hash: domain.recoveredHash } : null;
}

const SCHEME_FAULTS: Record<string, BuyerFault> = {
  invalid_exact_evm_signature: "payer_bad_signature",
  invalid_exact_evm_failed_to_parse_signature: "payer_bad_signature",
  invalid_exact_evm_payload_authorization_valid_before: "payer_authorization_expired",
  invalid_exact_evm_payload_authorization_valid_after: "payer_authorization_not_yet_valid",
  invalid_exact_evm_payload_authorization_value_mismatch: "payer_authorization_mismatch",
  invalid_exact_evm_authorization_value: "payer_authorization_mismatch",
  invalid_exact_evm_recipient_mismatch: "payer_authorization_mismatch",
  invalid_exact_evm_network_mismatch: "payer_authorization_mismatch",
  invalid_exact_evm_scheme: "payer_authorization_mismatch",
  invalid_exact_evm_insufficient_balance: "payer_insufficient_funds",
  invalid_exact_evm_nonce_already_used: "payer_authorization_spent",
};

/** A plain ECDSA signature already recovered to its signer over this typed-data hash (by `signedDomain`). */
interface Recovered {
  address: Address;
  signature: Hex;
  hash: Hex;
}

/**
 * The scheme's own signature check, answered from `signedDomain`'s recovery when it asks about the
 * very same signer, signature and typed-data hash: recovering a 65-byte ECDSA signature is pure
 * arithmetic, so its answer at the pinned block is the one already had (about 2 ms of CPU a call,
 * docs/ROUTER.md "The hot path"). Anything else (another hash, a contract wallet's signature) is checked anew.
 */
export function alreadyRecovered(typed: Parameters<typeof verifyTypedData>[0], known: Recovered | null): boolean {
  if (!known || typeof typed.signature !== "string" || typed.signature.toLowerCase() !== known.signature.toLowerCase()) return false;
  if (typeof typed.address !== "string" || typed.address.toLowerCase() !== known.address.toLowerCase()) return false;
  try {
    return hashTypedData(typed as Parameters<typeof hashTypedData>[0]) === known.hash;
  } catch {
    return false;
  }
}

/** Read-only at `blockNumber`, sends refused, RPC outages counted so they never stand as an invalid verdict. */
function pinnedSigner(client: PublicClient, blockNumber: bigint, onOutage: () => void, known: Recovered | null = null): FacilitatorEvmSigner {
  const watch = <A extends unknown[], R>(fn: (...a: A) => Promise<R>) => async (...a: A): Promise<R> => {
    try {
      return await fn(...a);
    } catch (e) {
      if (isRpcOutage(e)) onOutage();
      throw e;
    }
  };
  const refuse = async (): Promise<never> => {
    throw new Error("the router's buyer-side check never sends a transaction");
  };
  return {
    getAddresses: () => [zeroAddress],
    readContract: watch((args) => client.readContract({ ...(args as Parameters<PublicClient["readContract"]>[0]), blockNumber })),
    verifyTypedData: watch(async (args) => {
      const typed = args as Parameters<typeof verifyTypedData>[0];
      if (alreadyRecovered(typed, known)) return true;
      if (await verifyTypedData(typed).catch(() => false)) return true;
      return client.verifyTypedData({ ...(typed as Parameters<PublicClient["verifyTypedData"]>[0]), blockTag: undefined, blockNumber } as Parameters<PublicClient["verifyTypedData"]>[0]);
    }),
    getCode: watch((args) => client.getCode({ ...args, blockNumber })),
    writeContract: refuse,
    sendTransaction: refuse,
    waitForTransactionReceipt: refuse,
  };
}

function requirementOf(payment: DecodedPayment, terms: PaymentTerms, domain: Domain): PaymentRequirements {
  const window = Number(payment.authorization.validBefore - payment.authorization.validAfter);
  return {
    scheme: "exact",
    network: terms.network as PaymentRequirements["network"],
    asset: terms.asset,
    amount: payment.amount,
    payTo: payment.payTo,
    maxTimeoutSeconds: terms.maxTimeoutSeconds ?? (Number.isSafeInteger(window) ? window : 0),
    extra: { name: domain.name, version: domain.version },
  };
}

/** Never rejects; an unreadable chain is `unmeasured`, never a verdict. */
export interface BuyerSideCheck {
  signature: Promise<ChainRead<SignedDomain | null>>;
  /**
   * The exact scheme's verify pinned to the arrival block, run when first asked and at most once. Only
   * a payment the seller did not settle needs it (a settled one is bound by its transfer on chain), so
   * a settled call pays for the arrival block's number and no more (docs/ROUTER.md "The hot path").
   */
  side: () => Promise<BuyerSide>;
  /** The latest block read as the payment arrived (never rejects). */
  arrival: Promise<ChainRead<bigint>>;
}

/** `afterTurn`: begin after the event loop's current turn, so I/O started in it (the relayed request) goes out first. */
export function startBuyerSideCheck(payment: DecodedPayment, terms: PaymentTerms, options: ReadOptions = {}, start: { afterTurn?: boolean } = {}): BuyerSideCheck {
  const turn = start.afterTurn ? new Promise<void>((resolve) => setImmediate(resolve)) : Promise.resolve();
  const signature = turn.then(() => signedDomain(payment, terms, options)).catch((e: unknown): ChainRead<SignedDomain | null> => ({ ok: false, unmeasured: `the signature could not be checked: ${e instanceof Error ? e.message.split("\n")[0] : String(e)}` }));
  // The block the payment arrived in, read now: the verify's every read is pinned to it whenever it runs.
  const arrival = turn
    .then(() => readChain(terms.network, (c) => c.getBlockNumber({ cacheTime: 0 }), options))
    .catch((e: unknown): ChainRead<bigint> => ({ ok: false, unmeasured: `the arrival block could not be read: ${e instanceof Error ? e.message.split("\n")[0] : String(e)}` }));
  let judged: Promise<BuyerSide> | null = null;
  return { signature, arrival, side: () => (judged ??= judgeBuyerSide(payment, terms, options, signature, arrival)) };
}

/** `arrival`: the block to pin every read to (else the latest block as this runs). */
export async function judgeBuyerSide(
  payment: DecodedPayment,
  terms: PaymentTerms,
  options: ReadOptions = {},
  signature?: Promise<ChainRead<SignedDomain | null>>,
  arrival?: Promise<ChainRead<bigint>>,
): Promise<BuyerSide> {
  try {
    const signed = await (signature ?? signedDomain(payment, terms, options));
    if (!signed.ok) return { verdict: "unmeasured", reason: "chain_unreadable", detail: signed.unmeasured };
    if (!signed.value) return { verdict: "buyer_fault", reason: "payer_bad_signature", detail: `the signature is not ${payment.authorization.from}'s over this authorization in ${terms.asset}'s EIP-712 domain` };
    if (payment.requirement.scheme !== undefined && payment.protocol === "x402" && payment.requirement.scheme !== "exact") {
      return { verdict: "unmeasured", reason: "scheme_unsupported", detail: `the router judges the exact scheme only, not ${String(payment.requirement.scheme)}` };
    }
    const pinned = arrival ? await arrival : null;
    if (pinned && !pinned.ok) return { verdict: "unmeasured", reason: "chain_unreadable", detail: pinned.unmeasured };
    const requirement = requirementOf(payment, terms, signed.value);
    const known = recovered(payment, signed.value);
    let outages = 0;
    const verdict = await readChain(
      terms.network,
      async (client) => {
        const block = pinned ? pinned.value : await client.getBlockNumber({ cacheTime: 0 });
        const scheme = new ExactEvmScheme(pinnedSigner(client, block, () => outages++, known));
        const payload = { x402Version: 2, accepted: requirement, resource: { url: payment.resource ?? "" }, payload: { signature: payment.signature, authorization: stringified(payment) } } as unknown as PaymentPayload;
        return scheme.verify(payload, requirement);
      },
      options,
    );
    if (!verdict.ok) return { verdict: "unmeasured", reason: "chain_unreadable", detail: verdict.unmeasured };
    if (outages > 0) return { verdict: "unmeasured", reason: "chain_unreadable", detail: `the ${terms.network} RPC did not answer every read of the buyer's side` };
    if (verdict.value.isValid) return { verdict: "sound" };
    const why = verdict.value.invalidReason ?? "invalid";
    const fault = SCHEME_FAULTS[why];
    if (fault) return { verdict: "buyer_fault", reason: fault, detail: `the exact scheme's verify at the arrival block: ${why}` };
    return { verdict: "unmeasured", reason: "buyer_side_unproven", detail: `the exact scheme's verify answered ${why}, which names neither party` };
  } catch (e) {
    return { verdict: "unmeasured", reason: "buyer_side_unproven", detail: `the buyer's side could not be judged: ${e instanceof Error ? e.message.split("\n")[0] : String(e)}` };
  }
}

function stringified(payment: DecodedPayment): Record<string, string> {
  const a = payment.authorization;
  return { from: a.from, to: a.to, value: a.value.toString(), validAfter: a.validAfter.toString(), validBefore: a.validBefore.toString(), nonce: a.nonce };
}
