/**
 * The rank sweep's scheduled work: it re-ranks changed listings every 30 seconds (TOLLGATE_RANK_TICK_S; rank is computed
 * "every tick"). The tick is a due sweep: it reads only the listings marked by the rank-input
 * triggers, due by time or never ranked, and every FULL_SWEEP_INTERVAL_MS it reads the whole catalog
 * (docs/RANK.md "The tick"). At bench:rank's 100,000 listings a tick with nothing due takes
 * milliseconds where a full read takes 1.6–2.5 s (docs/BENCHMARKS.md). Each health sweep
 * (lib/health/ticks.ts) marks every listing it probed, so the first tick after it reads most of the
 * catalog (a full read, DUE_FULL_SHARE), and the ticks between are cheap.
 */
import { env } from "@/lib/env";
import type { Tick } from "@/lib/scheduler";
import { runRankSweep } from "./sweep-ranks";

/** The default interval; TOLLGATE_RANK_TICK_S sets another. */
export const RANK_SWEEP_INTERVAL_MS = 30_000;

export const rankTicks: Tick[] = [
  {
    name: "rank.sweep",
    // Read when the scheduler starts, not at import (next build imports this without the server's environment).
    get intervalMs() {
      return env().TOLLGATE_RANK_TICK_S * 1000;
    },
    run: async () => void (await runRankSweep({ mode: "due" })),
  },
];
