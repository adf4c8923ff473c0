/**
 * bench:verify: the standalone verifier on a month of hourly probes and daily paid samples per
 * endpoint (test/verifier/rig.ts, receipts as the producers write them), bundle format 2 beside format
 * 1 on the same evidence: verification wall and CPU per bundle (the median of 3 calls; p50/p95 over
 * bundles; as served, and with the receipts document), bundle and receipts sizes (raw, gzip).
 * `npm run bench:verify -- --endpoints N` (default 40).
 */
import { cpus, loadavg } from "node:os";
import { gzipSync } from "node:zlib";
import { attest, attestV1, generateSubject, keySetOf, monthProfile, seeded, testKey, type Fault } from "@/test/verifier/rig";
import { verifyAttestation } from "../verifier/src/verify.ts";

const arg = (name: string, d: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : d;
};
const N = arg("endpoints", 40);
const AT = new Date("2026-12-05T05:00:00.000Z");
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};
const kb = (b: number) => b / 1024;
const f1 = (x: number) => x.toFixed(1);

const key = testKey();
const keys = keySetOf(key);
const rand = seeded(2026);
const faults: Fault[] = ["none", "none", "none", "flaky", "slow", "timeouts", "failed_paid_call", "injection"];
const m = () => ({ wall: [] as number[], cpu: [] as number[] });
const v2 = m();
const v2r = m();
const v1 = m();
const size = { raw2: [] as number[], gz2: [] as number[], receipts: [] as number[], receiptsGz: [] as number[], raw1: [] as number[], gz1: [] as number[] };
let observations = 0;
const load0 = loadavg();
const t0 = Date.now();

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Each bundle verified REPEAT times in a row; its figure is the median call (one preemption on a shared machine is not the bundle's). */
const REPEAT = 3;
function timed(into: ReturnType<typeof m>, f: () => { ok: boolean; code: string; detail: string }, what: string) {
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let k = 0; k < REPEAT; k++) {
    const t = performance.now();
    const c = process.cpuUsage();
    const r = f();
    wall.push(performance.now() - t);
    const used = process.cpuUsage(c);
    cpu.push((used.user + used.system) / 1000);
    if (!r.ok) throw new Error(`${what}: ${r.code} ${r.detail}`);
  }
  into.wall.push(median(wall));
  into.cpu.push(median(cpu));
}

for (let i = 0; i < N; i++) {
  const subject = generateSubject(`ep_${i}`, monthProfile(faults[i % faults.length]), rand);
  const a = attest(subject, key);
  const a1 = attestV1(subject, key);
  const env2 = JSON.parse(JSON.stringify(a.envelope));
  const env1 = JSON.parse(JSON.stringify(a1.envelope));
  const text2 = a.bundle.canonical;
  const text1 = a1.bundle.canonical;
  const receipts = a.bundle.receipts.canonical;
  if (i === 0) {
    // Warm-up, every path.
    for (let w = 0; w < 10; w++) {
      verifyAttestation({ envelope: env2, bundle: text2, keys, at: AT });
      verifyAttestation({ envelope: env2, bundle: text2, receipts, keys, at: AT });
      verifyAttestation({ envelope: env1, bundle: text1, keys, at: AT });
    }
  }
  // Interleaved, so both formats see the same load.
  timed(v2, () => verifyAttestation({ envelope: env2, bundle: text2, keys, at: AT }), `endpoint ${i} (format 2)`);
  timed(v1, () => verifyAttestation({ envelope: env1, bundle: text1, keys, at: AT }), `endpoint ${i} (format 1)`);
  timed(v2r, () => verifyAttestation({ envelope: env2, bundle: text2, receipts, keys, at: AT }), `endpoint ${i} (format 2 with receipts)`);
  size.raw2.push(a.bundle.bytes.length);
  size.gz2.push(gzipSync(a.bundle.bytes).length);
  size.receipts.push(a.bundle.receipts.bytes.length);
  size.receiptsGz.push(gzipSync(a.bundle.receipts.bytes).length);
  size.raw1.push(a1.bundle.bytes.length);
  size.gz1.push(gzipSync(a1.bundle.bytes).length);
  observations += a.bundle.observations;
}

const load1 = loadavg();
const la = (l: number[]) => l.map((x) => x.toFixed(2)).join(" ");
const line = (name: string, x: ReturnType<typeof m>) => console.log(`${name}: wall p50 ${f1(pct(x.wall, 50))} ms, p95 ${f1(pct(x.wall, 95))} ms; CPU p50 ${f1(pct(x.cpu, 50))} ms, p95 ${f1(pct(x.cpu, 95))} ms`);
console.log(`bench:verify: ${N} endpoints, each 30 days of hourly probes (16 free checks) and daily paid samples (11 paid checks), ${Math.round(observations / N)} observations an endpoint; ${((Date.now() - t0) / 1000).toFixed(0)} s in all`);
console.log(`load average (1/5/15 min) ${la(load0)} at start, ${la(load1)} at end, on ${cpus().length} cores`);
line("verify, format 2 as served", v2);
line("verify, format 2 and its receipts document", v2r);
line("verify, format 1 as served", v1);
console.log(`format 2 bundle: p50 ${f1(kb(pct(size.raw2, 50)))} KB, p95 ${f1(kb(pct(size.raw2, 95)))} KB; gzip p95 ${f1(kb(pct(size.gz2, 95)))} KB`);
console.log(`format 2 receipts document (beside it): p95 ${f1(kb(pct(size.receipts, 95)))} KB; gzip p95 ${f1(kb(pct(size.receiptsGz, 95)))} KB`);
console.log(`format 1 bundle: p95 ${f1(kb(pct(size.raw1, 95)))} KB; gzip p95 ${f1(kb(pct(size.gz1, 95)))} KB`);
console.log(`RESULT verify_p95 ${f1(pct(v2.wall, 95))} ms`);
console.log(`RESULT verify_cpu_p95 ${f1(pct(v2.cpu, 95))} ms`);
console.log(`RESULT verify_with_receipts_p95 ${f1(pct(v2r.wall, 95))} ms`);
console.log(`RESULT verify_format1_p95 ${f1(pct(v1.wall, 95))} ms`);
console.log(`RESULT bundle_p95 ${f1(kb(pct(size.raw2, 95)))} KB`);
console.log(`RESULT bundle_gzip_p95 ${f1(kb(pct(size.gz2, 95)))} KB`);
console.log(`RESULT receipts_p95 ${f1(kb(pct(size.receipts, 95)))} KB`);
console.log(`RESULT bundle_format1_p95 ${f1(kb(pct(size.raw1, 95)))} KB`);
console.log(`RESULT load_average ${load0[0].toFixed(2)} ${load1[0].toFixed(2)}`);
