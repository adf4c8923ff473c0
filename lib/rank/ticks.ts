/**
 * The rank sweep's scheduled work: it re-ranks changed listings every 30 seconds (rank is computed
 * "every tick"). The tick is a due sweep: it reads only the listings marked by the rank-input
 * triggers, due by time or never ranked, and every FULL_SWEEP_INTERVAL_MS it reads the whole catalog
 * (docs/RANK.md "The tick"). At bench:rank's 100,000 listings a tick with nothing due takes
 * milliseconds where a full read takes 1.6–2.5 s (docs/BENCHMARKS.md). Each health sweep
 * (lib/monitor/ticks.ts) marks every listing it probed, so the first tick after it reads most of the
 * catalog (a full read, DUE_FULL_SHARE), and the ticks between are cheap.
 */
import type { Tick } from "@/lib/scheduler";
import { runRankSweep } from "./sweep-ranks";

export const RANK_SWEEP_INTERVAL_MS = 30_000;

export const rankTicks: Tick[] = [{ name: "rank.sweep", intervalMs: RANK_SWEEP_INTERVAL_MS, run: async () => void (await runRankSweep({ mode: "due" })) }];
