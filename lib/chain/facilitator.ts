/** Tollgate's own x402 facilitator for the local chain (EIP-3009 exact scheme); its door is lib/facilitator. */
import { AsyncLocalStorage } from "node:async_hooks";
import { x402Facilitator } from "@x402/core/facilitator";
import type { Network, PaymentPayload, PaymentRequirements, SettleResponse, SupportedResponse, VerifyResponse } from "@x402/core/types";
import { toFacilitatorEvmSigner } from "@x402/evm";
import { ExactEvmScheme } from "@x402/evm/exact/facilitator";
import { createWalletClient, getAddress, http, parseSignature, publicActions, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { z } from "zod";
import { env, type Env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { EIP3009_SETTLE_ABI } from "@/lib/x402/eip3009";
import { LOCAL_NETWORK, LOCAL_POLLING_MS, localChain } from "./local-network";
import { noteFacilitatorOutage } from "./facilitator-health";
import { isRpcOutage } from "./rpc";
import { FairSendQueue, type SendRecord } from "./send-queue";

type FacilitatorClient = ReturnType<typeof walletClientFor>;

function walletClientFor(rpcUrl: string, privateKey: Hex) {
  const account = privateKeyToAccount(privateKey);
  return createWalletClient({ chain: localChain(rpcUrl), transport: http(rpcUrl), account, pollingInterval: LOCAL_POLLING_MS }).extend(publicActions);
}

export interface FacilitatorSetup {
  facilitator: x402Facilitator;
  address: Address;
  network: Network;
  outages(): number;
  /** One at a time, round-robin across callers (./send-queue.ts). */
  sends: Pick<FairSendQueue, "pending" | "history" | "enqueue">;
  client: FacilitatorClient;
}

interface CallContext {
  caller: string;
  gasUsed: bigint;
}
const callContext = new AsyncLocalStorage<CallContext>();

export const IN_PROCESS_CALLER = "in-process";

/**
 * The most gas one settlement may use: above a transferWithAuthorization's (about 60–90 thousand, more for a contract
 * wallet's ERC-1271 check). A payer whose settlement would need more is refused before the send, and every send
 * carries it as its gas limit, so the chain never bills more than the gas budget reserved (lib/facilitator/gas.ts).
 */
export const SETTLE_GAS_LIMIT = 150_000n;

const SIGNER_METHODS = ["readContract", "verifyTypedData", "writeContract", "sendTransaction", "waitForTransactionReceipt", "getCode"] as const;
const SENDS: ReadonlySet<string> = new Set(["writeContract", "sendTransaction"]);

export function createFacilitator(rpcUrl: string, privateKey: Hex): FacilitatorSetup {
  const client = walletClientFor(rpcUrl, privateKey);
  const account = client.account;
  // getAddresses() needs `client.address`, which a viem wallet client lacks. @x402/evm swallows some RPC failures
  // into `invalid_exact_evm_signature`, so outages are counted for chainCall.
  let outages = 0;
  const queue = new FairSendQueue();
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
      ? (params: Record<string, unknown>, ...rest: unknown[]) => {
          // A send's gas is capped whatever viem would estimate: a contract wallet can burn any amount inside its signature check.
          const gas = typeof params?.gas === "bigint" && params.gas < SETTLE_GAS_LIMIT ? params.gas : SETTLE_GAS_LIMIT;
          return queue.enqueue(callContext.getStore()?.caller ?? IN_PROCESS_CALLER, () => call({ ...params, gas }, ...rest));
        }
      : name === "waitForTransactionReceipt"
        ? async (...args: unknown[]) => {
            const receipt = (await call(...args)) as { gasUsed?: bigint };
            const ctx = callContext.getStore();
            if (ctx && typeof receipt?.gasUsed === "bigint") ctx.gasUsed += receipt.gasUsed;
            return receipt;
          }
        : call;
  }
  const signer = toFacilitatorEvmSigner(watched as unknown as Parameters<typeof toFacilitatorEvmSigner>[0]);
  // Registered so `supported` names it; served by lib/facilitator/receipt.ts.
  const facilitator = new x402Facilitator().register(LOCAL_NETWORK, new ExactEvmScheme(signer)).registerExtension({ key: "bazaar" });
  return { facilitator, address: account.address, network: LOCAL_NETWORK, outages: () => outages, sends: queue, client };
}

let cached: { key: string; setup: FacilitatorSetup } | undefined;

export function facilitatorFromEnv(e: Pick<Env, "TOLLGATE_CHAIN_RPC_URL" | "TOLLGATE_FACILITATOR_KEY"> = env()): FacilitatorSetup {
  const missing = [!e.TOLLGATE_CHAIN_RPC_URL && "TOLLGATE_CHAIN_RPC_URL", !e.TOLLGATE_FACILITATOR_KEY && "TOLLGATE_FACILITATOR_KEY"].filter(Boolean);
  if (missing.length > 0 || !e.TOLLGATE_CHAIN_RPC_URL || !e.TOLLGATE_FACILITATOR_KEY) {
    throw new AppError("unavailable", `The facilitator is not configured on this deployment: set ${missing.join(" and ")}.`);
  }
  const key = `${e.TOLLGATE_CHAIN_RPC_URL} ${e.TOLLGATE_FACILITATOR_KEY}`;
  if (cached?.key !== key) cached = { key, setup: createFacilitator(e.TOLLGATE_CHAIN_RPC_URL, e.TOLLGATE_FACILITATOR_KEY as Hex) };
  return cached.setup;
}

// ---- The x402 v2 request body (@x402/core's PaymentRequirementsV2 / PaymentPayloadV2).

const caip2 = z.string().regex(/^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$/, "must be a CAIP-2 network id such as eip155:8453");
const extra = z.record(z.string(), z.unknown()).nullish();

export const PaymentRequirementsBody = z.object({
  scheme: z.string().min(1, "must name the scheme, e.g. exact"),
  network: caip2,
  amount: z.string().regex(/^\d+$/, "must be the amount in atomic units as a string of digits"),
  asset: z.string().min(1, "must name the asset"),
  payTo: z.string().min(1, "must name the recipient"),
  maxTimeoutSeconds: z.number().int().positive().max(2_147_483_647),
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
  const strip = <T extends { extra?: Record<string, unknown> | null }>(r: T) => ({ ...r, extra: r.extra ?? undefined });
  const payload = {
    ...body.paymentPayload,
    resource: body.paymentPayload.resource ?? undefined,
    accepted: strip(body.paymentPayload.accepted),
    extensions: body.paymentPayload.extensions ?? undefined,
  } as unknown as PaymentPayload;
  return { payload, requirements: strip(body.paymentRequirements) as unknown as PaymentRequirements };
}

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

/** An unreadable chain is a 503, not a verdict; a broadcast settlement is returned as it is. */
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

// ---- What the exact EVM scheme reads from the payload: an EIP-3009 authorization and its signature.

const hexOf = (bytes: number) => z.string().regex(new RegExp(`^0x[0-9a-fA-F]{${bytes * 2}}$`), `must be 0x and ${bytes} bytes of hex`);
const UINT256_MAX = (1n << 256n) - 1n;
const uint = z
  .string()
  .regex(/^\d{1,78}$/, "must be a whole number as a string of digits")
  .refine((v) => BigInt(v) <= UINT256_MAX, "must fit in 256 bits");
export const ExactEvmPayloadBody = z.object({
  authorization: z.object({ from: hexOf(20), to: hexOf(20), value: uint, validAfter: uint, validBefore: uint, nonce: hexOf(32) }, { error: "must be the EIP-3009 authorization {from, to, value, validAfter, validBefore, nonce}" }),
  signature: z.string().regex(/^0x([0-9a-fA-F]{2})+$/, "must be the signature as 0x-prefixed hex"),
});
export type ExactEvmPayload = z.infer<typeof ExactEvmPayloadBody>;

const ExactEvmRequirementsBody = z.object({
  asset: hexOf(20),
  payTo: hexOf(20),
  amount: uint,
  extra: z.object({ name: z.string().max(200).optional(), version: z.string().max(50).optional() }).passthrough().nullish(),
});

function parseAt<S extends z.ZodType>(schema: S, value: unknown, at: string): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const details = parsed.error.issues.map((i) => ({ pointer: [at, ...i.path.map(String)].join("/"), message: i.message }));
  throw new AppError("bad_request", `request body is invalid at ${details[0].pointer}: ${details[0].message}`, details);
}

export function exactEvmPayload(body: FacilitatorRequest): ExactEvmPayload {
  parseAt(ExactEvmRequirementsBody, body.paymentRequirements, "/paymentRequirements");
  parseAt(ExactEvmRequirementsBody, body.paymentPayload.accepted, "/paymentPayload/accepted");
  return parseAt(ExactEvmPayloadBody, body.paymentPayload.payload, "/paymentPayload/payload");
}

export function payerOf(body: FacilitatorRequest): Address | null {
  const parsed = ExactEvmPayloadBody.safeParse(body.paymentPayload.payload);
  return parsed.success ? getAddress(parsed.data.authorization.from) : null;
}

export const ZERO_VALUE = "invalid_exact_evm_zero_value";
export const INSUFFICIENT_BALANCE = "invalid_exact_evm_insufficient_balance";
export const NONCE_USED = "invalid_exact_evm_nonce_already_used";
export const SIMULATION_FAILED = "invalid_exact_evm_transaction_simulation_failed";
export const GAS_ABOVE_LIMIT = "invalid_exact_evm_gas_above_limit";

type Refusal = { reason: string; message: string };

/** Refused before any read: it only burns gas. */
function zeroValue(p: ExactEvmPayload): Refusal | null {
  return BigInt(p.authorization.value) === 0n ? { reason: ZERO_VALUE, message: "the authorization's value is 0: nothing would be paid, so nothing is submitted" } : null;
}

/** Balance, unused nonce, a simulation without revert within SETTLE_GAS_LIMIT: a refusal here costs no gas. */
export async function preflight(setup: FacilitatorSetup, p: ExactEvmPayload, asset: string): Promise<Refusal | null> {
  const a = p.authorization;
  const token = getAddress(asset);
  const from = getAddress(a.from);
  const [balance, used] = await Promise.all([
    setup.client.readContract({ address: token, abi: EIP3009_SETTLE_ABI, functionName: "balanceOf", args: [from] }),
    setup.client.readContract({ address: token, abi: EIP3009_SETTLE_ABI, functionName: "authorizationState", args: [from, a.nonce as Hex] }),
  ]);
  if (balance < BigInt(a.value)) return { reason: INSUFFICIENT_BALANCE, message: `the payer ${from} holds ${balance} of the ${a.value} it authorizes` };
  if (used) return { reason: NONCE_USED, message: `the payer's authorization nonce ${a.nonce} was already used` };
  const base = [from, getAddress(a.to), BigInt(a.value), BigInt(a.validAfter), BigInt(a.validBefore), a.nonce as Hex] as const;
  let gas: bigint;
  try {
    // The estimate is the simulation: it reverts as the transfer would, and says what the send would cost.
    const estimate = (args: readonly unknown[]) => setup.client.estimateContractGas({ address: token, abi: EIP3009_SETTLE_ABI, functionName: "transferWithAuthorization", args: args as never, account: setup.address });
    if (p.signature.length === 132) {
      const sig = parseSignature(p.signature as Hex);
      gas = await estimate([...base, Number(sig.v ?? BigInt(sig.yParity + 27)), sig.r, sig.s]);
    } else {
      gas = await estimate([...base, p.signature as Hex]);
    }
  } catch (e) {
    if (isRpcOutage(e)) throw e;
    return { reason: SIMULATION_FAILED, message: `the transfer would revert: ${(e as { shortMessage?: string }).shortMessage ?? (e as Error).message}` };
  }
  if (gas > SETTLE_GAS_LIMIT) return { reason: GAS_ABOVE_LIMIT, message: `settling this authorization would use ${gas} gas, above the facilitator's limit of ${SETTLE_GAS_LIMIT} a settlement (the payer's wallet spends it checking its signature)` };
  return null;
}

export interface Admission {
  done(gasUsed: bigint): Promise<void>;
}

export interface CallOptions {
  /** The send queue is per caller. */
  caller?: string;
  admit?: (payer: Address) => Promise<Admission>;
}

export async function verify(setup: FacilitatorSetup, body: FacilitatorRequest): Promise<VerifyResponse> {
  const { payload, requirements } = toCore(body);
  const no = unsupported(setup, requirements);
  if (no) return { isValid: false, invalidReason: no.reason, invalidMessage: no.message };
  const p = exactEvmPayload(body);
  const zero = zeroValue(p);
  if (zero) return { isValid: false, invalidReason: zero.reason, invalidMessage: zero.message, payer: getAddress(p.authorization.from) };
  return chainCall(setup, () => setup.facilitator.verify(payload, requirements), (r) => !r.isValid);
}

export async function settle(setup: FacilitatorSetup, body: FacilitatorRequest, opts: CallOptions = {}): Promise<SettleResponse> {
  const { payload, requirements } = toCore(body);
  const no = unsupported(setup, requirements);
  if (no) return { success: false, errorReason: no.reason, errorMessage: no.message, transaction: "", network: requirements.network };
  const p = exactEvmPayload(body);
  const payer = getAddress(p.authorization.from);
  const refuse = (r: Refusal): SettleResponse => ({ success: false, errorReason: r.reason, errorMessage: r.message, transaction: "", network: requirements.network, payer });
  const zero = zeroValue(p);
  if (zero) return refuse(zero);
  const pre = await chainCall(setup, () => preflight(setup, p, requirements.asset), () => false);
  if (pre?.reason === SIMULATION_FAILED) {
    const v = await chainCall(setup, () => setup.facilitator.verify(payload, requirements), (r) => !r.isValid);
    if (!v.isValid) return refuse({ reason: v.invalidReason ?? SIMULATION_FAILED, message: v.invalidMessage ?? pre.message });
  }
  if (pre) return refuse(pre);
  const admission = opts.admit ? await opts.admit(payer) : null;
  const ctx: CallContext = { caller: opts.caller ?? IN_PROCESS_CALLER, gasUsed: 0n };
  try {
    return await callContext.run(ctx, () => chainCall(setup, () => setup.facilitator.settle(payload, requirements), (r) => !r.success && !r.transaction));
  } finally {
    await admission?.done(ctx.gasUsed);
  }
}

export type { SendRecord };
