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

/** Offline for plain ECDSA, on chain for a contract wallet. */
export async function signedDomain(payment: DecodedPayment, terms: PaymentTerms, options: ReadOptions = {}): Promise<ChainRead<Domain | null>> {
  const chainId = evmChainId(terms.network);
  if (chainId === null || !isAddress(terms.asset)) return { ok: false, unmeasured: `${terms.network} is not an EVM network the router reads` };
  const domains = await domainsFor(terms.network, terms.asset, options);
  if (!domains.ok) return domains;
  const asset = getAddress(terms.asset);
  const hashes = domains.value.map((d) => ({ d, hash: typedDataHash(payment, d, chainId, asset) }));
  for (const { d, hash } of hashes) {
    if (await verifyHash({ address: payment.authorization.from, hash, signature: payment.signature }).catch(() => false)) return { ok: true, value: d };
  }
  const isEcdsa = payment.signature.length === 132;
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

/** Read-only at `blockNumber`, sends refused, RPC outages counted so they never stand as an invalid verdict. */
function pinnedSigner(client: PublicClient, blockNumber: bigint, onOutage: () => void): FacilitatorEvmSigner {
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
  signature: Promise<ChainRead<Domain | null>>;
  side: Promise<BuyerSide>;
}

export function startBuyerSideCheck(payment: DecodedPayment, terms: PaymentTerms, options: ReadOptions = {}): BuyerSideCheck {
  const signature = signedDomain(payment, terms, options).catch((e: unknown): ChainRead<Domain | null> => ({ ok: false, unmeasured: `the signature could not be checked: ${e instanceof Error ? e.message.split("\n")[0] : String(e)}` }));
  return { signature, side: judgeBuyerSide(payment, terms, options, signature) };
}

export async function judgeBuyerSide(payment: DecodedPayment, terms: PaymentTerms, options: ReadOptions = {}, signature?: Promise<ChainRead<Domain | null>>): Promise<BuyerSide> {
  try {
    const signed = await (signature ?? signedDomain(payment, terms, options));
    if (!signed.ok) return { verdict: "unmeasured", reason: "chain_unreadable", detail: signed.unmeasured };
    if (!signed.value) return { verdict: "buyer_fault", reason: "payer_bad_signature", detail: `the signature is not ${payment.authorization.from}'s over this authorization in ${terms.asset}'s EIP-712 domain` };
    if (payment.requirement.scheme !== undefined && payment.protocol === "x402" && payment.requirement.scheme !== "exact") {
      return { verdict: "unmeasured", reason: "scheme_unsupported", detail: `the router judges the exact scheme only, not ${String(payment.requirement.scheme)}` };
    }
    const requirement = requirementOf(payment, terms, signed.value);
    let outages = 0;
    const verdict = await readChain(
      terms.network,
      async (client) => {
        const block = await client.getBlockNumber({ cacheTime: 0 });
        const scheme = new ExactEvmScheme(pinnedSigner(client, block, () => outages++));
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
