/** The rank sweep's tick: a due sweep every 30 s, a full read every FULL_SWEEP_INTERVAL_MS (docs/RANK.md "The tick"). */
import { env } from "@/lib/env";
import type { Tick } from "@/lib/scheduler";
import { runRankSweep } from "./sweep-ranks";

export const RANK_SWEEP_INTERVAL_MS = 30_000;

export const rankTicks: Tick[] = [
  {
    name: "rank.sweep",
    // Read when the scheduler starts, not at import (next build has no server environment).
    get intervalMs() {
      return env().TOLLGATE_RANK_TICK_S * 1000;
    },
    run: async () => void (await runRankSweep({ mode: "due" })),
  },
];
