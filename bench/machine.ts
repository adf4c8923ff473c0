/** What every bench prints beside its RESULT lines: the machine and its load average (os.loadavg()). */
import os from "node:os";

/** "load 1.23 0.98 0.70 (1/5/15 min) on 2 cores". */
export function loadAverage(): string {
  return `load ${os.loadavg().map((l) => l.toFixed(2)).join(" ")} (1/5/15 min) on ${os.cpus().length} cores`;
}

/** The line printed just before a bench's RESULT lines. */
export function printLoadAverage(): void {
  console.log(`LOAD ${loadAverage()}`);
}
