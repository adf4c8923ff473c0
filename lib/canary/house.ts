/**
 * The house wallet per network (docs/CANARY.md "The house wallet"): the key of the network a listing
 * is paid in, TOLLGATE_CANARY_KEY_<namespace>_<reference> (lib/env.ts `canaryKeys`), else the default
 * TOLLGATE_CANARY_KEY; none, nothing is signed on that network.
 */
import type { Hex } from "viem";
import { env, type Env } from "@/lib/env";

export type HouseKeySettings = Pick<Env, "TOLLGATE_CANARY_KEY" | "canaryKeys">;

/** The house key for a CAIP-2 network: its own, else the default; null when neither is configured. */
export function houseKeyFor(network: string, settings: HouseKeySettings = env()): Hex | null {
  return ((settings.canaryKeys[network] ?? settings.TOLLGATE_CANARY_KEY) as Hex | undefined) ?? null;
}

/** Whether any house key is configured (the canary's ticks do nothing otherwise). */
export function anyHouseKey(settings: HouseKeySettings = env()): boolean {
  return !!settings.TOLLGATE_CANARY_KEY || Object.keys(settings.canaryKeys).length > 0;
}
