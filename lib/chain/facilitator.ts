/**
 * Tollgate's own x402 facilitator for the local chain: `x402Facilitator` from @x402/core with the
 * exact EVM scheme from @x402/evm (EIP-3009 transferWithAuthorization, submitted and paid for by
 * the facilitator's signer), served by /api/facilitator/{supported,verify,settle} in the x402 v2
 * facilitator API. No facilitator package exists on npm; this is the composition the x402 packages
 * document. Sellers in the demo use it; a production seller may use any facilitator.
 *
 * Configured by TOLLGATE_CHAIN_RPC_URL and TOLLGATE_FACILITATOR_KEY (lib/env.ts). Without them the
 * routes answer 503 `unavailable`.
 */
import { x402Facilitator } from "@x402/core/facilitator";
import type { Network, PaymentPayload, PaymentRequirements, SettleResponse, SupportedResponse, VerifyResponse } from "@x402/core/types";
import { toFacilitatorEvmSigner } from "@x402/evm";
import { ExactEvmScheme } from "@x402/evm/exact/facilitator";
import { createWalletClient, http, publicActions, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { z } from "zod";
import { env, type Env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { LOCAL_NETWORK, LOCAL_POLLING_MS, localChain } from "./local-chain";
import { noteFacilitatorOutage } from "./facilitator-health";
import { isRpcOutage } from "./rpc";

export interface FacilitatorSetup {
  facilitator: x402Facilitator;
  /** The signer that submits settlements (and pays their gas). */
  address: Address;
  network: Network;
  /** How many of the signer's chain calls met an RPC outage so far (see chainCall). */
  outages(): number;
}

/** The signer methods the exact EVM scheme calls; each is watched for RPC outages. */
const SIGNER_METHODS = ["readContract", "verifyTypedData", "writeContract", "sendTransaction", "waitForTransactionReceipt", "getCode"] as const;
/** The methods that send a transaction from the signer (and so take its next nonce). */
const SENDS: ReadonlySet<string> = new Set(["writeContract", "sendTransaction"]);

/** A facilitator for the local chain at `rpcUrl`, signing with `privateKey`. */
export function createFacilitator(rpcUrl: string, privateKey: Hex): FacilitatorSetup {
  const account = privateKeyToAccount(privateKey);
  const client = createWalletClient({ chain: localChain(rpcUrl), transport: http(rpcUrl), account, pollingInterval: LOCAL_POLLING_MS }).extend(publicActions);
  // toFacilitatorEvmSigner spreads the client and answers getAddresses() with `client.address`, which
  // a viem wallet client does not have (it has account.address): without it the signer list is
  // [undefined]. The cast bridges viem 2.57's stricter verifyTypedData parameter union and the
  // plain-record shape @x402/evm declares; the methods are viem's own.
  //
  // @x402/evm 2.27 swallows some RPC failures: a getCode that cannot reach the node makes
  // verify answer `invalid_exact_evm_signature`. Counting outages at the signer lets chainCall turn
  // such an answer into 503 `unavailable` (unmeasured) instead of a verdict on the payment.
  //
  // One signer means one nonce sequence. viem fills each transaction's nonce from the node's pending
  // count, so two settlements sent at once take the same nonce and all but one fail
  // (`invalid_exact_evm_transaction_failed`): the market's buyers and the canary's house calls do
  // settle at once. The signer's sends go out one at a time: each waits until the previous one was
  // accepted by the node (not mined), so the pending count already includes it.
  let outages = 0;
  let sending: Promise<unknown> = Promise.resolve();
  const watched: Record<string, unknown> = { ...client, address: account.address };
  for (const name of SIGNER_METHODS) {
    const method = (client as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>)[name];
    const call = async (...args: unknown[]) => {
      try {
        return await method(...args);
      } catch (e) {
        if (isRpcOutage(e)) {
          outages++;
          noteFacilitatorOutage();
        }
        throw e;
      }
    };
    watched[name] = SENDS.has(name)
      ? (...args: unknown[]) => {
          const sent = sending.then(() => call(...args));
          sending = sent.catch(() => undefined);
          return sent;
        }
      : call;
  }
  const signer = toFacilitatorEvmSigner(watched as unknown as Parameters<typeof toFacilitatorEvmSigner>[0]);
  const facilitator = new x402Facilitator().register(LOCAL_NETWORK, new ExactEvmScheme(signer));
  return { facilitator, address: account.address, network: LOCAL_NETWORK, outages: () => outages };
}

let cached: { key: string; setup: FacilitatorSetup } | undefined;

/** The configured facilitator, or AppError `unavailable` naming the missing setting. */
export function facilitatorFromEnv(e: Pick<Env, "TOLLGATE_CHAIN_RPC_URL" | "TOLLGATE_FACILITATOR_KEY"> = env()): FacilitatorSetup {
  const missing = [!e.TOLLGATE_CHAIN_RPC_URL && "TOLLGATE_CHAIN_RPC_URL", !e.TOLLGATE_FACILITATOR_KEY && "TOLLGATE_FACILITATOR_KEY"].filter(Boolean);
  if (missing.length > 0 || !e.TOLLGATE_CHAIN_RPC_URL || !e.TOLLGATE_FACILITATOR_KEY) {
    throw new AppError("unavailable", `The facilitator is not configured on this deployment: set ${missing.join(" and ")}.`);
  }
  const key = `${e.TOLLGATE_CHAIN_RPC_URL} ${e.TOLLGATE_FACILITATOR_KEY}`;
  if (cached?.key !== key) cached = { key, setup: createFacilitator(e.TOLLGATE_CHAIN_RPC_URL, e.TOLLGATE_FACILITATOR_KEY as Hex) };
  return cached.setup;
}

// ---- The x402 v2 facilitator request body (as @x402/core's PaymentRequirementsV2 / PaymentPayloadV2).

const caip2 = z.string().regex(/^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$/, "must be a CAIP-2 network id such as eip155:8453");
const extra = z.record(z.string(), z.unknown()).nullish();

export const PaymentRequirementsBody = z.object({
  scheme: z.string().min(1, "must name the scheme, e.g. exact"),
  network: caip2,
  amount: z.string().regex(/^\d+$/, "must be the amount in atomic units as a string of digits"),
  asset: z.string().min(1, "must name the asset"),
  payTo: z.string().min(1, "must name the recipient"),
  maxTimeoutSeconds: z.number().int().positive(),
  extra,
});

const v2 = z.literal(2, { error: "must be 2: this facilitator speaks x402 v2" });

export const PaymentPayloadBody = z.object({
  x402Version: v2,
  resource: z
    .object({ url: z.string(), description: z.string().nullish(), mimeType: z.string().nullish(), serviceName: z.string().nullish(), tags: z.array(z.string()).nullish(), iconUrl: z.string().nullish() })
    .nullish(),
  accepted: PaymentRequirementsBody,
  payload: z.record(z.string(), z.unknown()),
  extensions: extra,
});

export const FacilitatorRequestBody = z.object({
  x402Version: v2,
  paymentPayload: PaymentPayloadBody,
  paymentRequirements: PaymentRequirementsBody,
});
export type FacilitatorRequest = z.infer<typeof FacilitatorRequestBody>;

function toCore(body: FacilitatorRequest): { payload: PaymentPayload; requirements: PaymentRequirements } {
  // The zod shapes above mirror @x402/core's v2 types; only the template-literal Network type differs.
  const strip = <T extends { extra?: Record<string, unknown> | null }>(r: T) => ({ ...r, extra: r.extra ?? undefined });
  const payload = {
    ...body.paymentPayload,
    resource: body.paymentPayload.resource ?? undefined,
    accepted: strip(body.paymentPayload.accepted),
    extensions: body.paymentPayload.extensions ?? undefined,
  } as unknown as PaymentPayload;
  return { payload, requirements: strip(body.paymentRequirements) as unknown as PaymentRequirements };
}

/** Why (scheme, network) is not ours to verify, as an x402 error code and message; null when it is. */
function unsupported(setup: FacilitatorSetup, r: PaymentRequirements): { reason: string; message: string } | null {
  const kinds = setup.facilitator.getSupported().kinds;
  if (!kinds.some((k) => k.scheme === r.scheme)) {
    return { reason: "unsupported_scheme", message: `scheme ${JSON.stringify(r.scheme)} is not supported here; supported: ${[...new Set(kinds.map((k) => k.scheme))].join(", ")}` };
  }
  if (!kinds.some((k) => k.scheme === r.scheme && k.network === r.network)) {
    return { reason: "invalid_network", message: `network ${r.network} is not supported here for ${r.scheme}; supported: ${kinds.map((k) => k.network).join(", ")}` };
  }
  return null;
}

const UNAVAILABLE = "The facilitator's chain RPC did not answer; try again later.";

/**
 * A chain that cannot be read is a 503, not a verdict on the payment: a thrown outage, or a refusal
 * reached while the signer met an outage (`refused(result)` true and the outage count went up). A
 * settlement already broadcast (it names a transaction) is returned as it is.
 */
async function chainCall<T>(setup: FacilitatorSetup, run: () => Promise<T>, refused: (result: T) => boolean): Promise<T> {
  const before = setup.outages();
  let result: T;
  try {
    result = await run();
  } catch (e) {
    if (isRpcOutage(e) || setup.outages() > before) throw new AppError("unavailable", UNAVAILABLE);
    throw e;
  }
  if (refused(result) && setup.outages() > before) throw new AppError("unavailable", UNAVAILABLE);
  return result;
}

export function supported(setup: FacilitatorSetup): SupportedResponse {
  return setup.facilitator.getSupported() as SupportedResponse;
}

export async function verify(setup: FacilitatorSetup, body: FacilitatorRequest): Promise<VerifyResponse> {
  const { payload, requirements } = toCore(body);
  const no = unsupported(setup, requirements);
  if (no) return { isValid: false, invalidReason: no.reason, invalidMessage: no.message };
  return chainCall(setup, () => setup.facilitator.verify(payload, requirements), (r) => !r.isValid);
}

export async function settle(setup: FacilitatorSetup, body: FacilitatorRequest): Promise<SettleResponse> {
  const { payload, requirements } = toCore(body);
  const no = unsupported(setup, requirements);
  if (no) return { success: false, errorReason: no.reason, errorMessage: no.message, transaction: "", network: requirements.network };
  return chainCall(setup, () => setup.facilitator.settle(payload, requirements), (r) => !r.success && !r.transaction);
}
