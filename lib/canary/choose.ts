/** What a canary run calls (docs/CANARY.md "A run", step 1). */
import type { Hex } from "viem";
import { privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import type { ReadOptions } from "@/lib/ledger/confirm-payment";
import { RELAY_DEADLINE_MS } from "@/lib/router/relay-call";
import type { BudgetCaps } from "./budget";
import { houseKeyFor } from "./house";
import { aboveCeiling } from "./price-ceiling";

export type CanaryStage = "signed" | "paid";

export interface CanaryOptions {
  key?: Hex;
  allowHosts?: string[];
  chain?: ReadOptions;
  caps?: BudgetCaps;
  priceCeiling?: bigint;
  /** Throwing there interrupts the run as a killed worker would. */
  onStage?: (stage: CanaryStage, endpoint: { method: string; path: string }) => void | Promise<void>;
}

export const ENDPOINT_SELECT = {
  id: true,
  method: true,
  path: true,
  trustPath: true,
  position: true,
  payable: true,
  requestExample: true,
  noParameters: true,
  responseSchema: true,
  priceAmount: true,
  priceAsset: true,
  priceNetwork: true,
  priceUsd: true,
  priceDecimals: true,
  priceMode: true,
} as const;

export type EndpointRow = {
  id: string;
  method: string;
  path: string;
  trustPath: string;
  payable: boolean;
  requestExample: unknown;
  noParameters: boolean;
  responseSchema: unknown;
  priceAmount: string | null;
  priceAsset: string | null;
  priceNetwork: string | null;
  /** The USD price the listing states, its token's places and fixed/dynamic: `quote_above_stated`. */
  priceUsd: string | null;
  priceDecimals: number | null;
  priceMode: string | null;
};

/** Capped at the relay's 30 s. */
export function declaredTimeoutMs(timeouts: string | null): number {
  let longest = 0;
  for (const m of (timeouts ?? "").matchAll(/(\d+(?:\.\d+)?)\s*(ms|milliseconds?|s|secs?|seconds?|min|minutes?)\b/gi)) {
    const unit = m[2].toLowerCase();
    const ms = unit.startsWith("ms") || unit.startsWith("milli") ? Number(m[1]) : unit.startsWith("min") ? Number(m[1]) * 60_000 : Number(m[1]) * 1000;
    longest = Math.max(longest, ms);
  }
  return longest > 0 && longest < RELAY_DEADLINE_MS ? Math.round(longest) : RELAY_DEADLINE_MS;
}

export function requestOf(e: EndpointRow): { query: string; body: string | undefined } {
  if (e.method === "GET" || e.method === "DELETE") {
    const ex = e.requestExample;
    if (!ex || typeof ex !== "object" || Array.isArray(ex)) return { query: "", body: undefined };
    const flat = Object.entries(ex as Record<string, unknown>).filter(([, v]) => ["string", "number", "boolean"].includes(typeof v));
    return { query: flat.length ? `?${new URLSearchParams(flat.map(([k, v]) => [k, String(v)])).toString()}` : "", body: undefined };
  }
  return { query: "", body: JSON.stringify(e.requestExample ?? {}) };
}

const accounts = new Map<Hex, PrivateKeyAccount>();
export function houseAccount(options: CanaryOptions, network: string): PrivateKeyAccount | null {
  const key = options.key ?? houseKeyFor(network);
  if (!key) return null;
  let account = accounts.get(key);
  if (!account) accounts.set(key, (account = privateKeyToAccount(key)));
  return account;
}

export function unrunnableReason(e: EndpointRow, options: CanaryOptions, ceiling: bigint, approved: bigint | null): string | null {
  if (e.requestExample === null && !e.noParameters) return "no_request_example";
  if (!e.priceAmount || !e.priceAsset || !e.priceNetwork || !/^\d{1,60}$/.test(e.priceAmount)) return "no_machine_price";
  if (!houseAccount(options, e.priceNetwork)) return "no_house_wallet";
  return aboveCeiling(BigInt(e.priceAmount), ceiling, approved);
}
