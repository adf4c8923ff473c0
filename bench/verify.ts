/**
 * bench:verify: the standalone verifier on a month of hourly probes and daily paid samples per
 * endpoint (test/verifier/rig.ts, receipts as the producers write them): verification time per bundle
 * (p50/p95, the bundle as served text, and re-spelled so it must be re-canonicalised) and bundle size
 * (p50/p95, raw, gzip, and without receipts). `npm run bench:verify -- --endpoints N` (default 40).
 */
import { cpus, loadavg } from "node:os";
import { gzipSync } from "node:zlib";
import { canonicalJson } from "@/lib/badges/canonical-json";
import { attest, generateSubject, keySetOf, monthProfile, seeded, testKey, type Fault } from "@/test/verifier/rig";
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

/** The proposal's estimate: the rows the engine reads, grouped by (instant, vantage, revision), without receipts. */
function compactRows(d: { rubric: unknown; subject: { observations: Array<{ check: string; outcome: string; value: number | null; observedAt: string; vantage: string; revision: number }> } }) {
  const order = ["R1", "R2", "R3", "R4", "R5", "R7", "C1", "C2", "C3", "C4", "C5", "C6", "H1", "H2", "H3", "H4", "H5", "H6", "H7", "H8", "H9", "S1", "S2", "S3", "S4", "S5", "R6"];
  const groups = new Map<string, { t: string; v: string; r: number; o: string[]; x: Array<number | null> }>();
  for (const o of d.subject.observations) {
    const k = `${o.observedAt}|${o.vantage}|${o.revision}`;
    let g = groups.get(k);
    if (!g) groups.set(k, (g = { t: o.observedAt, v: o.vantage, r: o.revision, o: order.map(() => "-"), x: [] }));
    g.o[order.indexOf(o.check)] = o.outcome[0];
    if (o.value !== null) g.x.push(o.value);
  }
  return { rubric: d.rubric, rows: [...groups.values()].map((g) => [g.t, g.v, g.r, g.o.join(""), g.x]) };
}

const key = testKey();
const keys = keySetOf(key);
const rand = seeded(2026);
const faults: Fault[] = ["none", "none", "none", "flaky", "slow", "timeouts", "failed_paid_call", "injection"];
const fast: number[] = [];
const cpu: number[] = [];
const compact: number[] = [];
const compactGz: number[] = [];
const respelled: number[] = [];
const raw: number[] = [];
const gz: number[] = [];
const bare: number[] = [];
const docs: number[] = [];
let observations = 0;
const load0 = loadavg()[0];
const t0 = Date.now();

for (let i = 0; i < N; i++) {
  const subject = generateSubject(`ep_${i}`, monthProfile(faults[i % faults.length]), rand);
  const a = attest(subject, key);
  const text = a.bundle.canonical;
  const pretty = JSON.stringify(JSON.parse(text), null, 1);
  const envelope = JSON.parse(JSON.stringify(a.envelope));
  if (i === 0) for (let w = 0; w < 3; w++) verifyAttestation({ envelope, bundle: text, keys, at: AT }); // warm-up
  let t = performance.now();
  const c = process.cpuUsage();
  const r = verifyAttestation({ envelope, bundle: text, keys, at: AT });
  fast.push(performance.now() - t);
  const used = process.cpuUsage(c);
  cpu.push((used.user + used.system) / 1000);
  if (!r.ok) throw new Error(`endpoint ${i}: ${r.code} ${r.detail}`);
  t = performance.now();
  const r2 = verifyAttestation({ envelope, bundle: pretty, keys, at: AT });
  respelled.push(performance.now() - t);
  if (!r2.ok) throw new Error(`endpoint ${i} (re-spelled): ${r2.code} ${r2.detail}`);
  raw.push(a.bundle.bytes.length);
  gz.push(gzipSync(a.bundle.bytes).length);
  const doc = structuredClone(a.bundle.document);
  for (const o of doc.subject.observations) o.receipt = {};
  bare.push(Buffer.byteLength(canonicalJson(doc)));
  const packed = Buffer.from(canonicalJson(compactRows(a.bundle.document)));
  compact.push(packed.length);
  compactGz.push(gzipSync(packed).length);
  docs.push(Buffer.byteLength(canonicalJson(a.bundle.document.rubric)));
  observations += subject.observations.length;
}

const load1 = loadavg()[0];
console.log(`verify CPU time (user + system, the process's), bundle as served: p50 ${f1(pct(cpu, 50))} ms, p95 ${f1(pct(cpu, 95))} ms`);
console.log(`a compact encoding (proposal: one row per probe instant, outcomes as letters in rubric order, curve values beside; no receipts): p95 ${f1(kb(pct(compact, 95)))} KB, gzip ${f1(kb(pct(compactGz, 95)))} KB`);
console.log(`bench:verify: ${N} endpoints, each 30 days of hourly probes (16 free checks) and daily paid samples (11 paid checks), ${Math.round(observations / N)} observations an endpoint; ${((Date.now() - t0) / 1000).toFixed(0)} s in all`);
console.log(`load average (1 min) ${load0.toFixed(2)} at start, ${load1.toFixed(2)} at end, on ${cpus().length} cores`);
console.log(`verify, bundle as served (hash of its bytes): p50 ${f1(pct(fast, 50))} ms, p95 ${f1(pct(fast, 95))} ms`);
console.log(`verify, bundle re-spelled (re-canonicalised): p50 ${f1(pct(respelled, 50))} ms, p95 ${f1(pct(respelled, 95))} ms`);
console.log(`bundle size: p50 ${f1(kb(pct(raw, 50)))} KB, p95 ${f1(kb(pct(raw, 95)))} KB; gzip p95 ${f1(kb(pct(gz, 95)))} KB; without receipts p95 ${f1(kb(pct(bare, 95)))} KB; rubric and reading documents ${f1(kb(pct(docs, 95)))} KB`);
console.log(`RESULT verify_p95 ${f1(pct(fast, 95))} ms`);
console.log(`RESULT verify_cpu_p95 ${f1(pct(cpu, 95))} ms`);
console.log(`RESULT verify_respelled_p95 ${f1(pct(respelled, 95))} ms`);
console.log(`RESULT bundle_p95 ${f1(kb(pct(raw, 95)))} KB`);
console.log(`RESULT bundle_gzip_p95 ${f1(kb(pct(gz, 95)))} KB`);
console.log(`RESULT bundle_no_receipts_p95 ${f1(kb(pct(bare, 95)))} KB`);
console.log(`RESULT bundle_compact_p95 ${f1(kb(pct(compact, 95)))} KB`);
console.log(`RESULT load_average ${load0.toFixed(2)} ${load1.toFixed(2)}`);
