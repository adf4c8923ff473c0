/**
 * bench:trust — the trust engine at catalog scale (issue #21 "Benchmark").
 *
 * 10,000 endpoints, each with 30 days of hourly free observations (16 free checks) and daily paid
 * samples (11 paid checks): 11,866 observations an endpoint, 118.7 million in all, simulated per
 * endpoint (test/trust-histories.ts, each endpoint its own pass rates, outages and bad calls) and
 * dropped after it is scored, so only the scoring is timed. In the same run every endpoint is scored
 * twice, without the band and with the 4,000-draw band, alternating which goes first. Targets: the
 * band costs at most 5× the plain scoring, and the whole re-score (with the band, on one core) fits
 * in one health-sweep interval (lib/health/ticks.ts HEALTH_SWEEP_INTERVAL_MS).
 *
 *   npm run bench:trust [-- --endpoints 10000 --days 30]
 *
 * Ends with RESULT lines.
 */
import { performance } from "node:perf_hooks";
import { HEALTH_SWEEP_INTERVAL_MS } from "@/lib/health/ticks";
import { loadRubric, scoreSubject } from "@/lib/trust/engine";
import { mulberry32 } from "@/lib/trust/engine/stats";
import { simulateHistory, type HistoryOptions } from "@/test/trust-histories";
import { printLoadAverage } from "./machine";

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

const endpoints = arg("endpoints", 10_000);
const days = arg("days", 30);
const rubric = loadRubric();
console.log(`trust engine: ${rubric.reading!.ref}`);
const now = "2026-12-03T12:00:00.000Z";
const gated = new Set(rubric.file.gates.map((g) => g.check));

let plainMs = 0;
let bandMs = 0;
let generateMs = 0;
let observations = 0;
const verdicts = new Map<string, number>();
const confidence = new Map<string, number>();
const count = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);

const started = performance.now();
for (let e = 0; e < endpoints; e++) {
  const r = mulberry32(20261203 + e);
  const pass: Record<string, number> = {};
  // One check in five is flaky (70–100%), the rest nearly perfect; the checks a gate reads never fail here, so no
  // cap decides a score and every endpoint is scored in full.
  for (const c of rubric.checks) pass[c.id] = gated.has(c.id) ? 1 : r() < 0.2 ? 0.7 + 0.3 * r() : 0.98 + 0.02 * r();
  const o: HistoryOptions = { endpointId: `ep-${e}`, now, days, freeEveryHours: 1, paidEveryDays: 1, pass, outage: r() * 0.05, badCall: r() * 0.1, seed: e + 1 };
  let t = performance.now();
  const subject = simulateHistory(rubric, o);
  generateMs += performance.now() - t;
  observations += subject.observations.length;

  const plainFirst = e % 2 === 0;
  for (const withBand of plainFirst ? [false, true] : [true, false]) {
    t = performance.now();
    const result = scoreSubject(rubric, subject, { now, band: withBand });
    const ms = performance.now() - t;
    if (withBand) {
      bandMs += ms;
      count(verdicts, result.verdict);
      count(confidence, result.confidence ?? "none");
    } else plainMs += ms;
  }
  if ((e + 1) % 1000 === 0) process.stdout.write(`  ${e + 1} endpoints: plain ${(plainMs / 1000).toFixed(1)} s, with band ${(bandMs / 1000).toFixed(1)} s\n`);
}
const wall = performance.now() - started;

const ratio = bandMs / plainMs;
const intervalS = HEALTH_SWEEP_INTERVAL_MS / 1000;
console.log(`endpoints ${endpoints}, observations ${observations.toLocaleString("en")} (${(observations / endpoints).toFixed(0)} each), ${days} days`);
console.log(`simulating the histories (not timed): ${(generateMs / 1000).toFixed(1)} s; wall ${(wall / 1000).toFixed(1)} s`);
console.log(`score all without the band: ${(plainMs / 1000).toFixed(2)} s (${(plainMs / endpoints).toFixed(3)} ms an endpoint)`);
console.log(`score all with the ${rubric.file.monte_carlo.draws}-draw band: ${(bandMs / 1000).toFixed(2)} s (${(bandMs / endpoints).toFixed(3)} ms an endpoint)`);
console.log(`band ÷ plain: ${ratio.toFixed(2)} (target ≤ 5); with the band, the re-score takes ${((bandMs / 1000 / intervalS) * 100).toFixed(1)}% of one ${intervalS} s health-sweep interval on one core`);
console.log(`verdicts ${JSON.stringify(Object.fromEntries(verdicts))}; confidence ${JSON.stringify(Object.fromEntries(confidence))}`);
printLoadAverage();
console.log(`RESULT trust_score_all_plain_s ${(plainMs / 1000).toFixed(2)} s`);
console.log(`RESULT trust_score_all_band_s ${(bandMs / 1000).toFixed(2)} s`);
console.log(`RESULT trust_band_plain_ratio ${ratio.toFixed(2)}`);
console.log(`RESULT trust_band_share_of_sweep_interval ${(bandMs / HEALTH_SWEEP_INTERVAL_MS).toFixed(3)}`);
