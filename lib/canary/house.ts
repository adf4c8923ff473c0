/**
 * The house wallet per network (docs/CANARY.md "The house wallet"): TOLLGATE_CANARY_KEY_<namespace>_<reference>, else
 * TOLLGATE_CANARY_KEY; none, nothing is signed there.
 */
import type { Hex } from "viem";
import { env, type Env } from "@/lib/env";

export type HouseKeySettings = Pick<Env, "TOLLGATE_CANARY_KEY" | "canaryKeys">;

export function houseKeyFor(network: string, settings: HouseKeySettings = env()): Hex | null {
  return ((settings.canaryKeys[network] ?? settings.TOLLGATE_CANARY_KEY) as Hex | undefined) ?? null;
}

/** The canary's ticks do nothing otherwise. */
export function anyHouseKey(settings: HouseKeySettings = env()): boolean {
  return !!settings.TOLLGATE_CANARY_KEY || Object.keys(settings.canaryKeys).length > 0;
}
