/**
 * The rubric versions this probe gathers the evidence for, declared by the catalog-monitor with every
 * claim (lib/queue/monitors.ts). readiness/1.1.0 reads each endpoint's docs page (D3), which the probe
 * records since evidence format version 2 (lib/probe/endpoint-docs.ts); readiness/1.2.0 reads the same
 * evidence with its scheme policies and schema shapes. A probe that stops gathering what a version
 * reads must drop it here, and the API then stops handing it analyses under that version.
 */
export const MONITOR_RUBRIC_VERSIONS: readonly string[] = ["readiness/1.0.0", "readiness/1.1.0", "readiness/1.2.0"];
