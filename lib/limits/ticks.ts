/**
 * The limits' scheduled work: delete rate-limit windows that have ended, and sign-in nonces that
 * have expired or been spent (lib/auth/siwe.ts sweepNonces). Both tables would otherwise grow with
 * every anonymous request.
 */
import { sweepNonces } from "@/lib/auth/siwe";
import type { Tick } from "@/lib/scheduler";
import { sweepRateLimitWindows } from "./rate-limit";

export const LIMITS_SWEEP_INTERVAL_MS = 60_000;

export async function sweepLimits(now = new Date()): Promise<{ windows: number; nonces: number }> {
  return { windows: await sweepRateLimitWindows(now), nonces: await sweepNonces(now) };
}

export const limitTicks: Tick[] = [{ name: "limits.sweep", intervalMs: LIMITS_SWEEP_INTERVAL_MS, run: async () => void (await sweepLimits()) }];
