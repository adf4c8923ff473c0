/**
 * Reading any chain: one viem client per CAIP-2 network (TOLLGATE_RPC_URL_<network>). An RPC outage is a fact not
 * measured, never one that failed: readChain returns `{ ok: false, unmeasured }`; other errors are thrown.
 */
import {
  createPublicClient,
  http,
  HttpRequestError,
  LimitExceededRpcError,
  ResourceUnavailableRpcError,
  SocketClosedError,
  TimeoutError,
  WebSocketRequestError,
  webSocket,
  type PublicClient,
} from "viem";
import { env } from "@/lib/env";
import { LOCAL_CHAIN_ID } from "./local-network";

export type ChainRead<T> = { ok: true; value: T } | { ok: false; unmeasured: string };

export interface RpcSettings {
  rpcUrls: Record<string, string>;
  TOLLGATE_CHAIN_RPC_URL?: string;
}

export function rpcUrlFor(network: string, settings: RpcSettings = env()): string | null {
  const url = settings.rpcUrls[network];
  if (url) return url;
  if (network === `eip155:${LOCAL_CHAIN_ID}` && settings.TOLLGATE_CHAIN_RPC_URL) return settings.TOLLGATE_CHAIN_RPC_URL;
  return null;
}

export function evmChainId(network: string): number | null {
  const m = /^eip155:(\d{1,18})$/.exec(network);
  return m ? Number(m[1]) : null;
}

const clients = new Map<string, PublicClient>();

/** Cached per network and URL; null when unconfigured or not EVM. `timeoutMs` with one retry. */
export function publicClientFor(network: string, settings: RpcSettings = env(), timeoutMs = 10_000): PublicClient | null {
  const chainId = evmChainId(network);
  const url = rpcUrlFor(network, settings);
  if (chainId === null || !url) return null;
  const key = `${network} ${url} ${timeoutMs}`;
  let client = clients.get(key);
  if (!client) {
    const transport = /^wss?:/.test(url) ? webSocket(url, { timeout: timeoutMs, retryCount: 1 }) : http(url, { timeout: timeoutMs, retryCount: 1 });
    client = createPublicClient({ transport }) as PublicClient;
    clients.set(key, client);
  }
  return client;
}

/** "The chain could not be read" rather than "the chain said so". */
export function isRpcOutage(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const outage = (e: unknown) =>
    e instanceof HttpRequestError ||
    e instanceof TimeoutError ||
    e instanceof WebSocketRequestError ||
    e instanceof SocketClosedError ||
    e instanceof LimitExceededRpcError ||
    e instanceof ResourceUnavailableRpcError;
  if (outage(error)) return true;
  // viem wraps transport errors; look along the cause chain.
  const walk = (error as { walk?: (fn: (e: unknown) => boolean) => unknown }).walk;
  if (typeof walk === "function") return Boolean(walk.call(error, outage));
  let cause: unknown = (error as { cause?: unknown }).cause;
  for (let depth = 0; cause && depth < 10; depth++) {
    if (outage(cause)) return true;
    cause = (cause as { cause?: unknown }).cause;
  }
  return false;
}

/** RPC URLs can carry API keys, so they are left out. */
function outageReason(network: string, error: unknown): string {
  const e = error as { shortMessage?: string; name?: string };
  const kind = error instanceof Error ? (e.name ?? "Error") : "error";
  return `the ${network} RPC did not answer (${kind}${e.shortMessage ? `: ${e.shortMessage.split("\n")[0].replace(/https?:\/\/\S+/g, "<rpc>")}` : ""})`;
}

export async function readChain<T>(
  network: string,
  fn: (client: PublicClient) => Promise<T>,
  options: { settings?: RpcSettings; timeoutMs?: number } = {},
): Promise<ChainRead<T>> {
  const client = publicClientFor(network, options.settings ?? env(), options.timeoutMs);
  if (!client) {
    return {
      ok: false,
      unmeasured: evmChainId(network) === null
        ? `no chain reader for ${network} (only eip155 networks are read)`
        : `no RPC configured for ${network} (set TOLLGATE_RPC_URL_${network.replace(":", "_")})`,
    };
  }
  try {
    return { ok: true, value: await fn(client) };
  } catch (error) {
    if (isRpcOutage(error)) return { ok: false, unmeasured: outageReason(network, error) };
    throw error;
  }
}
