/** Deletes ended rate-limit windows and spent or expired sign-in nonces. */
import { sweepNonces } from "@/lib/auth/siwe";
import type { Tick } from "@/lib/scheduler";
import { sweepRateLimitWindows } from "./rate-limit";

export const LIMITS_SWEEP_INTERVAL_MS = 60_000;

export async function sweepLimits(now = new Date()): Promise<{ windows: number; nonces: number }> {
  return { windows: await sweepRateLimitWindows(now), nonces: await sweepNonces(now) };
}

export const limitTicks: Tick[] = [{ name: "limits.sweep", intervalMs: LIMITS_SWEEP_INTERVAL_MS, run: async () => void (await sweepLimits()) }];
