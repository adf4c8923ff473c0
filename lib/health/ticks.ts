/** The monitor's ticks: the health sweep every 5 minutes, so an hour of samples is MIN_UPTIME_SAMPLES. */
import type { Tick } from "@/lib/scheduler";
import { runHealthSweep } from "./sweep-health";

export const HEALTH_SWEEP_INTERVAL_MS = 5 * 60_000;

export const monitorTicks: Tick[] = [{ name: "monitor.health-sweep", intervalMs: HEALTH_SWEEP_INTERVAL_MS, run: async () => void (await runHealthSweep()) }];
