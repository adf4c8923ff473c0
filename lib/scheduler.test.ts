import { describe, expect, it } from "vitest";
import { startScheduler } from "@/lib/scheduler";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("scheduler", () => {
  it("runs each tick on its interval, never overlapping itself, and survives a failing tick", async () => {
    let concurrent = 0;
    let maxConcurrent = 0;
    let slowRuns = 0;
    const logs: string[] = [];
    const s = startScheduler(
      [
        {
          name: "slow",
          intervalMs: 10,
          run: async () => {
            concurrent++;
            maxConcurrent = Math.max(maxConcurrent, concurrent);
            await sleep(35);
            concurrent--;
            slowRuns++;
          },
        },
        { name: "broken", intervalMs: 10, run: async () => Promise.reject(new Error("boom")) },
      ],
      { initialDelayMs: 0, log: (m) => logs.push(m) },
    );
    await sleep(200);
    await s.stop();
    const runs = s.runs();
    expect(maxConcurrent).toBe(1);
    expect(slowRuns).toBeGreaterThanOrEqual(3);
    expect(runs.slow.ok).toBe(slowRuns);
    expect(runs.broken.failed).toBeGreaterThanOrEqual(5);
    expect(runs.broken.lastError).toBe("boom");
    expect(logs[0]).toMatch(/broken failed: boom/);
    const after = runs.slow.ok;
    await sleep(50);
    expect(s.runs().slow.ok).toBe(after);
  });
});
