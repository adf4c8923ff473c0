/**
 * Generated endpoints for the verifier's tests and benchmark: seeded random observation histories
 * (probes, paid samples, curve values, timeouts, na, revisions, gates firing), scored by the app's
 * engine, bundled by lib/attest/bundle.ts (format 2, or format 1 as stored before) and signed as
 * docs/ATTESTATIONS.md says with a test key.
 */
import { generateKeyPairSync, type KeyObject } from "node:crypto";
import { buildBundle, buildBundleV1, scoreOptionsOf, type BuiltBundle, type BuiltBundleV1 } from "@/lib/attest/bundle";
import { canonicalJson } from "@/lib/badges/canonical-json";
import { rawPublicKey, signEnvelope, type DsseEnvelope } from "@/lib/badges/dsse";
import { keyidFor } from "@/lib/badges/keys";
import { loadRubric, scoreSubject, type TrustResult } from "@/lib/trust/engine";
import { mulberry32 } from "@/lib/trust/engine/stats";
import type { Observation, Outcome, Revision, TrustSubject } from "@/lib/trust/observation";

export const PAYLOAD_TYPE = "application/vnd.tollgate.endpoint-attestation+json; version=1";
export const NOW = "2026-12-05T04:00:00.000Z";
const DAY = 86_400_000;
const HOUR = 3_600_000;

const FREE = ["R1", "R2", "R3", "C1", "C2", "C3", "C4", "C5", "H1", "H2", "H3", "H4", "S1", "S2", "S4", "S5"];
const PAID = ["R4", "R5", "R6", "R7", "C6", "H5", "H6", "H7", "H8", "H9", "S3"];

export type Fault = "none" | "overcharge" | "wrong_payee" | "charged_without_delivery" | "injection" | "down" | "payto_changed" | "flaky" | "slow" | "timeouts" | "failed_paid_call" | "unreached";
const FAULTS: Fault[] = ["overcharge", "wrong_payee", "charged_without_delivery", "injection", "down", "payto_changed", "flaky", "slow", "timeouts", "failed_paid_call", "unreached"];

export interface Profile {
  /** Days of history before now. */
  days: number;
  /** Hours between probes. */
  probeEveryHours: number;
  /** Hours between paid samples (Infinity: none). */
  paidEveryHours: number;
  /** Receipts as the producers write them (a decoded 402, requirements, transactions), or a line. */
  fullReceipts: boolean;
  fault: Fault;
  revisions: number;
}

const hex = (rand: () => number, n: number) => Array.from({ length: n }, () => Math.floor(rand() * 16).toString(16)).join("");

export function randomProfile(rand: () => number): Profile {
  const r = rand();
  const days = r < 0.05 ? rand() * 0.4 : r < 0.2 ? 1 + rand() * 3 : 2 + rand() * 33;
  return {
    days,
    probeEveryHours: [1, 2, 3, 6, 9, 12][Math.floor(rand() * 6)],
    paidEveryHours: rand() < 0.1 ? Infinity : [12, 24, 48, 72, 120, 24 * 20][Math.floor(rand() * 6)],
    fullReceipts: false,
    fault: rand() < 0.45 ? "none" : FAULTS[Math.floor(rand() * FAULTS.length)],
    revisions: rand() < 0.65 ? 0 : 1 + Math.floor(rand() * 2),
  };
}

/** A month of hourly probes and daily paid samples, receipts as written: the benchmark's endpoint. */
export const monthProfile = (fault: Fault = "none"): Profile => ({ days: 30, probeEveryHours: 1, paidEveryHours: 24, fullReceipts: true, fault, revisions: 0 });

export function generateSubject(endpointId: string, p: Profile, rand: () => number, now = NOW): TrustSubject {
  const end = Date.parse(now);
  const start = end - p.days * DAY;
  const revisions: Revision[] = [{ revision: 1, startedAt: new Date(start - DAY).toISOString(), changes: [], note: null }];
  for (let k = 0; k < p.revisions; k++) {
    // Occasionally a revision starts after now: an as-of score has not seen it yet.
    const at = rand() < 0.1 ? end + HOUR : start + rand() * (end - start);
    revisions.push({ revision: k + 2, startedAt: new Date(Math.max(at, Date.parse(revisions[k].startedAt) + HOUR)).toISOString(), changes: [rand() < 0.5 ? "price" : "description"], note: rand() < 0.5 ? "new pricing" : null });
  }
  const revisionAt = (t: number) => revisions.filter((r) => Date.parse(r.startedAt) <= t).reduce((a, r) => Math.max(a, r.revision), 1);
  const quality = 0.75 + rand() * 0.25;
  const latency = 80 + rand() * 4000;
  const paidLatency = 300 + rand() * 9000;
  const c4na = rand() < 0.5;
  const h4na = rand() < 0.7;
  const r6na = rand() < 0.6;
  const payTo = `0x${hex(rand, 40)}`;
  const asset = "0x036cbd53842c5426634e7929541ec2318f3dcf7e";
  const url = `https://api${Math.floor(rand() * 1000)}.example.com/v1/quote`;
  const faultFrom = start + rand() * (end - start);
  const out: Observation[] = [];
  const obs = (check: string, kind: "free" | "paid", outcome: Outcome, at: number, value: number | null, receipt: Record<string, unknown>, vantage: string) =>
    out.push({ endpointId, check, kind, outcome, value, observedAt: new Date(at).toISOString(), vantage, revision: revisionAt(at), receipt });
  const ok = (q = quality) => (rand() < q ? "pass" : "fail");
  const paymentRequired = { x402Version: 2, resource: { url, description: "A quote for the pair", mimeType: "application/json" }, accepts: [{ scheme: "exact", network: "eip155:84532", amount: "10000", asset, payTo, maxTimeoutSeconds: 60, extra: { name: "USDC", version: "2" } }] };

  for (let t = start, i = 0; t <= end; t += p.probeEveryHours * HOUR, i++) {
    const faulty = t >= faultFrom;
    const down = p.fault === "down" && t >= end - 80 * HOUR;
    const where = { url, status: down ? null : 402 };
    const vantage = i % 7 === 3 ? "analysis" : "monitor";
    for (const check of FREE) {
      let outcome: Outcome = ok(p.fault === "flaky" ? quality - 0.3 : quality + 0.2);
      let value: number | null = null;
      let receipt: Record<string, unknown> = p.fullReceipts ? { ...where } : { s: where.status };
      if (p.fault === "unreached") {
        // The probe never reached it (a refused target, no answer): nothing is measured, so no grade.
        obs(check, "free", check === "S2" || check === "S4" ? "na" : "unmeasured", t, null, { reason: "the probe made no call to this endpoint" }, vantage);
        continue;
      }
      if (check === "R1") {
        if (down) outcome = "fail";
        const ttfb = Math.round(latency * Math.exp((rand() - 0.5) * 1.2));
        if (p.fullReceipts) receipt = { ...where, ttfbMs: ttfb };
      } else if (check === "R3") {
        const slow = p.fault === "slow" && faulty ? 8 : 1;
        const timeout = (p.fault === "timeouts" && faulty && rand() < 0.2) || down;
        outcome = timeout ? "fail" : "pass";
        value = timeout ? null : Math.round(latency * slow * Math.exp((rand() - 0.5) * 1.5) * 10) / 10;
        if (p.fullReceipts) receipt = timeout ? { ...where, reason: "no first byte within the probe's deadline (a timeout: no latency value)" } : { ...where, ttfbMs: value, measure: "time to first byte (response head) of the unpaid request" };
      } else if (down) outcome = "unmeasured";
      else if (check === "C1" && p.fullReceipts) receipt = { ...where, kind: "x402-v2", findings: [{ code: "payment_required_parsed", severity: "pass" }], paymentRequired };
      else if (check === "C2" && p.fullReceipts) receipt = { ...where, requirements: paymentRequired.accepts };
      else if (check === "C3" && rand() < 0.1) outcome = "unmeasured";
      else if (check === "C4" && c4na) outcome = "na";
      else if (check === "H3" && p.fault === "payto_changed" && t >= end - 100 * HOUR && t <= end - 90 * HOUR) outcome = "fail";
      else if (check === "H4" && h4na) outcome = "na";
      else if (check === "S2" && p.fault === "injection" && faulty && t < faultFrom + 2 * DAY) outcome = "fail";
      else if (check === "S2" || check === "S4") {
        outcome = "pass";
        if (p.fullReceipts) receipt = { screened: ["/title", "/description", "/402/accepts/0/extra"], matches: [], screen: "pattern screen (lib/screen): it has an error rate" };
      }
      if (p.fullReceipts && check.startsWith("H") && !down) receipt = { ...where, quote: { amount: "10000", asset, network: "eip155:84532", payTo, scheme: "exact" }, listed: { amount: "10000", asset, network: "eip155:84532" } };
      obs(check, "free", outcome, t, value, receipt, vantage);
    }
  }
  for (let t = start + 0.37 * HOUR; p.fault !== "unreached" && Number.isFinite(p.paidEveryHours) && t <= end; t += p.paidEveryHours * HOUR) {
    const faulty = t >= faultFrom;
    const failedCall = p.fault === "failed_paid_call" && t + p.paidEveryHours * HOUR > end;
    const tx = { transaction: `0x${hex(rand, 64)}`, block: Math.floor(rand() * 1e7), network: "eip155:84532" };
    for (const check of PAID) {
      let outcome: Outcome = ok(quality + 0.15);
      let value: number | null = null;
      let receipt: Record<string, unknown> = p.fullReceipts ? { ...tx } : { tx: tx.transaction.slice(0, 10) };
      if (check === "R7") {
        outcome = p.fault === "timeouts" && faulty && rand() < 0.3 ? "fail" : "pass";
        value = outcome === "fail" ? null : Math.round(paidLatency * Math.exp((rand() - 0.5) * 1.4));
        if (p.fullReceipts) receipt = value === null ? { reason: "the relay's deadline passed: no last byte (no latency value)" } : { ttlbMs: value, measure: "request with payment to the last byte, as the relay timed the seller's call" };
      } else if (failedCall && ["H5", "H6", "H8", "R6", "S3"].includes(check)) outcome = "na";
      else if (failedCall && (check === "R4" || check === "R5" || check === "C6")) outcome = "fail";
      else if (check === "H5" && p.fault === "overcharge" && faulty && rand() < 0.5) outcome = "fail";
      else if (check === "H6" && p.fault === "wrong_payee" && faulty && rand() < 0.5) outcome = "fail";
      else if (check === "H8" && p.fault === "charged_without_delivery" && faulty && rand() < 0.6) outcome = "fail";
      else if (check === "H7" && rand() < 0.5) outcome = "unmeasured";
      else if (check === "H9") outcome = "na";
      else if (check === "R6" && r6na) outcome = "na";
      else if (check === "C6" && rand() < 0.05) outcome = "unmeasured";
      if (p.fullReceipts && (check === "H5" || check === "H6")) receipt = { ...tx, quote: { amount: "10000", payTo, asset }, chain: { amount: "10000", to: payTo, asset } };
      if (p.fullReceipts && check === "S3") receipt = { outputSha256: hex(rand, 64), matches: [], screen: "pattern screen (lib/screen): it has an error rate" };
      obs(check, "paid", outcome, t, value, receipt, "canary");
    }
  }
  // Now and then a row written after now: the bundle leaves it out, as the engine ignores it.
  if (rand() < 0.05) obs("R1", "free", "pass", end + 10 * 60_000, null, { s: 402 }, "monitor");
  return { endpointId, observations: out, revisions };
}

export interface TestKey {
  keyid: string;
  privateKey: KeyObject;
  publicKey: string;
  notBefore: string;
  notAfter: string | null;
}

export function testKey(notBefore = "2026-01-01T00:00:00Z", notAfter: string | null = null): TestKey {
  const { privateKey } = generateKeyPairSync("ed25519");
  const raw = rawPublicKey(privateKey);
  return { keyid: keyidFor(raw), privateKey, publicKey: raw.toString("base64"), notBefore, notAfter };
}

export const keySetOf = (...keys: TestKey[]) => ({ keys: keys.map((k) => ({ keyid: k.keyid, alg: "Ed25519", publicKey: k.publicKey, notBefore: k.notBefore, notAfter: k.notAfter, status: k.notAfter === null ? "active" : "retired" })) });

export interface Attested<B = BuiltBundle> {
  bundle: B;
  result: TrustResult;
  statement: Record<string, unknown>;
  envelope: DsseEnvelope;
}

export const sign = (statement: unknown, key: TestKey, payloadType = PAYLOAD_TYPE): DsseEnvelope => signEnvelope(Buffer.from(canonicalJson(statement), "utf8"), payloadType, { keyid: key.keyid, privateKey: key.privateKey });

/** The statement docs/ATTESTATIONS.md fixes, from a bundle and the engine's result of scoring it. */
export function statementOf(b: BuiltBundle | BuiltBundleV1, r: TrustResult, issuedAt = "2026-12-05T04:00:01.000Z", ttlHours = 24): Record<string, unknown> {
  const d = b.document;
  const observations = "subject" in d ? d.subject.observations.length : (b as BuiltBundle).observations;
  return {
    _type: "tollgate.endpoint-attestation/1",
    endpoint: d.endpoint,
    payment: { scheme: "exact", network: "eip155:84532", asset: "0x036cbd53842c5426634e7929541ec2318f3dcf7e", payTo: "0x1111111111111111111111111111111111111111", amount: "10000" },
    grade: { score: r.score, grade: r.grade, band: r.band ? { low: r.band.low, high: r.band.high } : null, confidence: r.confidence, verdict: r.verdict },
    rubric: { ref: d.rubric.ref, reading: d.rubric.reading, sha256: d.rubric.sha256, readingSha256: d.rubric.readingSha256 },
    scoring: { now: d.scoring.now, seed: d.scoring.seed },
    evidence: { sha256: b.sha256, observations },
    issuedAt,
    expiresAt: new Date(Date.parse(issuedAt) + ttlHours * HOUR).toISOString(),
  };
}

export interface AttestOptions {
  reading?: number;
  seed?: number;
  bandOptions?: Record<string, number>;
  now?: string;
}

const endpointOf = (subject: TrustSubject) => ({ id: subject.endpointId, listingId: `ls_${subject.endpointId}`, url: `https://api.example.com/${subject.endpointId}`, method: "GET" });

/** Bundle (format 2), score (the app's engine, over the rows read back from the bundle) and sign one endpoint. */
export function attest(subject: TrustSubject, key: TestKey, o: AttestOptions = {}): Attested {
  const rubric = loadRubric(undefined, o.reading);
  const bundle = buildBundle({ endpoint: endpointOf(subject), rubric, scoring: { now: o.now ?? NOW, seed: o.seed ?? 402, bandOptions: o.bandOptions }, subject });
  const result = scoreSubject(rubric, bundle.subject, scoreOptionsOf(bundle.document));
  const statement = statementOf(bundle, result);
  return { bundle, result, statement, envelope: sign(statement, key) };
}

/** The same in format 1, as the sweep wrote bundles before format 2. */
export function attestV1(subject: TrustSubject, key: TestKey, o: AttestOptions = {}): Attested<BuiltBundleV1> {
  const rubric = loadRubric(undefined, o.reading);
  const bundle = buildBundleV1({ endpoint: endpointOf(subject), rubric, scoring: { now: o.now ?? NOW, seed: o.seed ?? 402, bandOptions: o.bandOptions }, subject });
  const result = scoreSubject(rubric, bundle.document.subject, scoreOptionsOf(bundle.document));
  const statement = statementOf(bundle, result);
  return { bundle, result, statement, envelope: sign(statement, key) };
}

export const seeded = (seed: number) => mulberry32(seed);
