/**
 * The rubric versions this probe gathers evidence for, declared with every claim (lib/queue/monitors.ts). A probe
 * that stops gathering what a version reads must drop it here.
 */
export const MONITOR_RUBRIC_VERSIONS: readonly string[] = ["readiness/1.0.0", "readiness/1.1.0", "readiness/1.2.0"];
