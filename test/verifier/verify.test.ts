/**
 * The standalone verifier (verifier/) against the app: generated endpoints scored by lib/trust/engine,
 * bundled by lib/attest/bundle.ts (format 2; format 1 as stored before) and signed, each recomputed by
 * the verifier to the digit, under both readings; every single-observation change or deletion and
 * every changed, moved or deleted receipt refused; forged, expired, foreign and mis-keyed
 * attestations refused with their codes.
 */
import { describe, expect, it } from "vitest";
import { buildBundle, scoreOptionsOf, type BuiltBundle } from "@/lib/attest/bundle";
import { receiptsDocument } from "@/lib/attest/receipts";
import { loadRubric, scoreSubject } from "@/lib/trust/engine";
import type { Observation } from "@/lib/trust/observation";
import { READING_FILES, RUBRIC_FILES } from "@/lib/trust/rubric";
import { canonicalSha256 } from "../../verifier/src/jcs.ts";
import { verifyAttestation, type Code } from "../../verifier/src/verify.ts";
import { pinnedReading, pinnedRubric, READING_PINS, RUBRIC_PINS } from "../../verifier/src/pins.ts";
import { attest, attestV1, generateSubject, keySetOf, NOW, randomProfile, seeded, sign, statementOf, testKey, type Attested } from "./rig";

const key = testKey();
const keys = keySetOf(key);
const AT = new Date("2026-12-05T06:00:00.000Z");
const verify = (a: Pick<Attested<unknown>, "envelope">, bundle: unknown, extra: Partial<Parameters<typeof verifyAttestation>[0]> = {}) => verifyAttestation({ envelope: a.envelope, bundle, keys, at: AT, ...extra });

/** The statement's grade as the app's engine gives it, and as the verifier recomputed it. */
const gradeOf = (r: { score: number | null; grade: string | null; band: { low: number; high: number } | null; confidence: string | null; verdict: string }) => ({ score: r.score, grade: r.grade, band: r.band && { low: r.band.low, high: r.band.high }, confidence: r.confidence, verdict: r.verdict });

describe("the verifier reproduces the app's grade to the digit", () => {
  for (const [reading, count, seed] of [
    [2, 1000, 30],
    [1, 300, 31],
  ] as const) {
    it(`for ${count} generated endpoints under reading ${reading}`, () => {
      const rand = seeded(seed);
      const seen = { verdicts: new Set<string>(), grades: new Set<string | null>(), confidences: new Set<string | null>(), flags: new Set<string>(), observations: 0 };
      for (let i = 0; i < count; i++) {
        const subject = generateSubject(`ep_${reading}_${i}`, randomProfile(rand), rand);
        // Most endpoints are scored with the sweep's seed; some with their own, or a tuned band.
        const a = attest(subject, key, { reading, seed: i % 7 === 0 ? 1 + i : 402, bandOptions: i % 50 === 0 ? { rho: 0.4 } : undefined });
        const r = verify(a, a.bundle.canonical, i % 10 === 0 ? { receipts: a.bundle.receipts.canonical } : {});
        expect(r.code, `endpoint ${i}: ${r.detail}`).toBe("ok");
        expect(gradeOf(r.recomputed!)).toEqual(gradeOf(a.result));
        seen.verdicts.add(a.result.verdict);
        seen.grades.add(a.result.grade);
        seen.confidences.add(a.result.confidence);
        a.result.flags.forEach((f) => seen.flags.add(f));
        seen.observations += subject.observations.length;
      }
      // The generated histories reach every verdict, grade, confidence and gate.
      expect([...seen.verdicts].sort()).toEqual(["avoid", "caution", "down", "insufficient_evidence", "ok"]);
      expect(seen.grades).toEqual(new Set(["A", "B", "C", "D", "F", null]));
      expect(seen.confidences).toEqual(new Set(["high", "medium", "low", null]));
      expect([...seen.flags].sort()).toEqual(["charged_without_delivery", "down", "injection", "overcharge", "payto_changed", "wrong_payee"]);
      expect(seen.observations).toBeGreaterThan(count * 500);
    }, 600_000);
  }

  it("still verifies format-1 bundles (stored before format 2), with the grade their format-2 bundle of the same evidence gives", () => {
    const rand = seeded(32);
    for (let i = 0; i < 120; i++) {
      const subject = generateSubject(`ep_v1_${i}`, randomProfile(rand), rand);
      const a = attestV1(subject, key, { reading: i % 3 === 0 ? 1 : 2 });
      const r = verify(a, a.bundle.canonical);
      expect(r.code, `endpoint ${i}: ${r.detail}`).toBe("ok");
      expect(gradeOf(r.recomputed!)).toEqual(gradeOf(a.result));
      const b = attest(subject, key, { reading: i % 3 === 0 ? 1 : 2 });
      expect(b.bundle.observations).toBe(a.bundle.document.subject.observations.length);
      expect(gradeOf(b.result)).toEqual(gradeOf(a.result));
    }
  }, 600_000);

  it("recomputes from a parsed bundle as from its text, and from a re-spelled (pretty-printed) text", () => {
    const rand = seeded(5);
    const a = attest(generateSubject("ep_p", randomProfile(rand), rand), key);
    expect(verify(a, JSON.parse(a.bundle.canonical)).code).toBe("ok");
    expect(verify(a, JSON.stringify(JSON.parse(a.bundle.canonical), null, 2)).code).toBe("ok");
  });

  it("knows the pinned rubric and readings the app pins (by their canonical content)", () => {
    for (const [ref, pin] of Object.entries(RUBRIC_FILES)) expect(RUBRIC_PINS[ref]).toBe(pin.contentSha256);
    for (const [ref, versions] of Object.entries(READING_FILES)) for (const [v, pin] of Object.entries(versions)) expect(READING_PINS[`${ref}/reading-${v}`]).toBe(pin.contentSha256);
    expect(Object.keys(READING_PINS)).toHaveLength(3);
    // The copies it ships (verifier/rubrics/) are the app's documents.
    for (const [ref, pin] of Object.entries(RUBRIC_FILES)) expect(pinnedRubric(ref)).toEqual(pin.json);
    for (const [ref, versions] of Object.entries(READING_FILES)) for (const [v, pin] of Object.entries(versions)) expect(pinnedReading(`${ref}/reading-${v}`)).toEqual(pin.json);
  });
});

describe("any single changed or deleted observation is refused", () => {
  const rand = seeded(77);
  const profiles = Array.from({ length: 8 }, () => ({ ...randomProfile(rand), days: 2 + rand() * 4, probeEveryHours: 8 + Math.floor(rand() * 5), fullReceipts: rand() < 0.5 }));
  const subjects = profiles.map((p, i) => generateSubject(`ep_t${i}`, p, rand));
  const sample = subjects.map((s) => attest(s, key));
  const rubric = loadRubric();
  const rebuild = (a: Attested, observations: Observation[]) => buildBundle({ endpoint: a.bundle.document.endpoint, rubric, scoring: { now: NOW, seed: 402 }, subject: { ...a.bundle.subject, observations } });

  const changes: Array<[string, (o: Observation) => void]> = [
    ["outcome", (o) => void (o.outcome = o.outcome === "pass" ? "fail" : "pass")],
    ["observedAt", (o) => void (o.observedAt = new Date(Date.parse(o.observedAt) - 1).toISOString())],
    ["value", (o) => void (o.value = o.value === null ? 1 : o.value + 0.1)],
    ["revision", (o) => void (o.revision += 1)],
    ["vantage", (o) => void (o.vantage = `${o.vantage}-x`)],
    ["receipt", (o) => void (o.receipt = { ...o.receipt, edited: true })],
  ];

  it("by the bundle hash, for every observation of every sampled bundle (changed six ways, and deleted), format 2", () => {
    let tried = 0;
    const refused: Record<string, number> = {};
    for (const a of sample) {
      const obs = a.bundle.subject.observations;
      for (let i = 0; i < obs.length; i++) {
        for (const [what, change] of [...changes, ["deleted", null] as const]) {
          const copy = obs.map((o) => ({ ...o }));
          if (change === null) copy.splice(i, 1);
          else change(copy[i]);
          const b = rebuild(a, copy);
          const r = verify(a, b.canonical);
          tried++;
          refused[r.code] = (refused[r.code] ?? 0) + 1;
          expect(r.code, `${what} ${i}`).toBe("bundle_hash");
        }
      }
    }
    expect(refused).toEqual({ bundle_hash: tried });
    expect(tried).toBeGreaterThan(2000);
  }, 600_000);

  it("the rows read back are the observations put in (as of now), whatever their order", () => {
    for (const [k, a] of sample.entries()) {
      const sort = (xs: Observation[]) => xs.map((o) => JSON.stringify([Date.parse(o.observedAt), o.check, o.vantage, o.revision, o.outcome, o.value, o.kind, o.receipt])).sort();
      const given = subjects[k].observations.filter((o) => Date.parse(o.observedAt) <= Date.parse(NOW));
      expect(sort(a.bundle.subject.observations)).toEqual(sort(given));
      expect(rebuild(a, [...given].reverse()).sha256).toBe(a.bundle.sha256);
    }
  });

  it("format 1, by the bundle hash, every observation of a sampled bundle changed five ways, and deleted", () => {
    let tried = 0;
    for (const subject of subjects.slice(0, 3)) {
      const a = attestV1(subject, key);
      const n = a.bundle.document.subject.observations.length;
      for (let i = 0; i < n; i++) {
        for (const [what, change] of [...changes.filter(([w]) => w !== "vantage"), ["deleted", null] as const]) {
          const b = JSON.parse(a.bundle.canonical);
          if (change === null) b.subject.observations.splice(i, 1);
          else change(b.subject.observations[i]);
          tried++;
          expect(verify(a, b).code, `${what} ${i}`).toBe("bundle_hash");
        }
      }
    }
    expect(tried).toBeGreaterThan(500);
  }, 600_000);

  it("and, when the signer itself vouches for the changed bundle with the old grade, by the recomputation exactly when the grade moved", () => {
    // A signer that re-hashes a doctored bundle but keeps the old grade: the verifier's recomputation
    // agrees with the app's engine on the doctored bundle, so it refuses exactly the doctorings that move a field.
    let moved = 0;
    let kept = 0;
    for (const a of sample.slice(0, 3)) {
      const obs = a.bundle.subject.observations;
      for (let i = 0; i < obs.length; i++) {
        const copy = obs.map((o) => ({ ...o }));
        copy[i].outcome = copy[i].outcome === "pass" ? "fail" : "pass";
        if (copy[i].outcome === "pass" && ["R3", "R7"].includes(copy[i].check) && copy[i].value === null) copy[i].value = 5000;
        const bundle = rebuild(a, copy);
        const truth = scoreSubject(rubric, bundle.subject, scoreOptionsOf(bundle.document));
        const lying = { ...a.statement, evidence: { sha256: bundle.sha256, observations: obs.length } };
        const r = verify({ envelope: sign(lying, key) }, bundle.canonical);
        const differs = JSON.stringify(gradeOf(truth)) !== JSON.stringify(gradeOf(a.result));
        if (differs) {
          moved++;
          expect(r.code.startsWith("mismatch:"), `${i}: ${r.detail}`).toBe(true);
        } else {
          kept++;
          expect(r.code, `${i}: ${r.detail}`).toBe("ok");
        }
      }
    }
    expect(moved).toBeGreaterThan(20);
    expect(moved + kept).toBe(sample.slice(0, 3).reduce((n, a) => n + a.bundle.observations, 0));
  }, 600_000);
});

describe("the receipts beside a format-2 bundle", () => {
  const rand = seeded(55);
  const a = attest(generateSubject("ep_rc", { days: 3, probeEveryHours: 6, paidEveryHours: 24, fullReceipts: true, fault: "none", revisions: 1 }, rand), key);
  const doc = a.bundle.receipts.document;
  const withReceipts = (receipts: unknown) => verify(a, a.bundle.canonical, { receipts });
  const edited = (edit: (d: typeof doc) => void) => {
    const d = structuredClone(doc);
    edit(d);
    return d;
  };

  it("accepts the genuine document, as text or parsed, and names the check", () => {
    expect(doc.receipts.length).toBeGreaterThan(100);
    for (const r of [withReceipts(a.bundle.receipts.canonical), withReceipts(JSON.parse(a.bundle.receipts.canonical)), withReceipts(JSON.stringify(doc, null, 2))]) {
      expect(r.code, r.detail).toBe("ok");
      expect(r.checks.find((c) => c.name === "receipts")).toMatchObject({ status: "pass" });
    }
    expect(verify(a, a.bundle.canonical).checks.find((c) => c.name === "receipts")).toMatchObject({ status: "skipped" });
  });

  it("refuses every single changed, deleted or moved receipt, and the root recomputed over a forgery", () => {
    let tried = 0;
    for (let i = 0; i < doc.receipts.length; i++) {
      const forged = [
        edited((d) => void (d.receipts[i].receipt = { ...d.receipts[i].receipt, edited: true })),
        edited((d) => void d.receipts.splice(i, 1)),
        edited((d) => void (d.receipts[i].row = (d.receipts[i].row + 1) % a.bundle.document.rows.length)),
        // A forger recomputes the document's own root: the bundle's signed root still differs.
        receiptsDocument(doc.endpointId, edited((d) => void (d.receipts[i].receipt = {})).receipts),
      ];
      for (const f of forged) {
        const r = withReceipts(f);
        tried++;
        expect(r.code, `receipt ${i}: ${r.detail}`).toBe("receipts");
      }
    }
    expect(tried).toBe(4 * doc.receipts.length);
    expect(withReceipts(edited((d) => d.receipts.push({ ...d.receipts[0] }))).code).toBe("receipts");
    expect(withReceipts(edited((d) => d.receipts.reverse())).code).toBe("receipts");
    expect(withReceipts(edited((d) => void (d.endpointId = "ep_other"))).code).toBe("receipts");
    expect(withReceipts(edited((d) => void (d.root = "0".repeat(64)))).code).toBe("receipts");
    expect(withReceipts("{not json").code).toBe("receipts");
  });

  it("another bundle's receipts are refused", () => {
    const other = attest(generateSubject("ep_rc", { days: 2, probeEveryHours: 6, paidEveryHours: 24, fullReceipts: true, fault: "none", revisions: 0 }, rand), key);
    const r = withReceipts(other.bundle.receipts.canonical);
    expect(r.code).toBe("receipts");
    expect(r.detail).toMatch(/Merkle root|no observation/);
  });
});

describe("refusals", () => {
  const rand = seeded(99);
  const a = attest(generateSubject("ep_r", { days: 10, probeEveryHours: 6, paidEveryHours: 48, fullReceipts: false, fault: "none", revisions: 0 }, rand), key);
  const other = attest(generateSubject("ep_other", { days: 10, probeEveryHours: 6, paidEveryHours: 48, fullReceipts: false, fault: "none", revisions: 0 }, rand), key);
  const resign = (patch: (s: Record<string, any>) => void, k = key) => {
    const s = structuredClone(a.statement) as Record<string, any>;
    patch(s);
    return { envelope: sign(s, k) };
  };
  const expectCode = (r: ReturnType<typeof verify>, code: Code) => expect(r.code, r.detail).toBe(code);

  it("accepts the genuine article", () => expectCode(verify(a, a.bundle.canonical), "ok"));

  it("an attestation for another endpoint: its bundle, the caller's endpoint, a statement naming one endpoint over another's bundle", () => {
    expectCode(verify(other, a.bundle.canonical), "bundle_hash");
    expectCode(verify(a, a.bundle.canonical, { expect: { endpointId: "ep_other" } }), "endpoint_mismatch");
    expectCode(verify(a, a.bundle.canonical, { expect: { url: "https://api.example.com/ep_other" } }), "endpoint_mismatch");
    expectCode(verify(a, a.bundle.canonical, { expect: { payTo: "0x2222222222222222222222222222222222222222" } }), "endpoint_mismatch");
    expectCode(verify(a, a.bundle.canonical, { expect: { amount: "20000" } }), "endpoint_mismatch");
    expectCode(verify(a, a.bundle.canonical, { expect: { endpointId: "ep_r", method: "get", payTo: "0x1111111111111111111111111111111111111111", network: "eip155:84532", amount: "10000" } }), "ok");
    expectCode(verify(resign((s) => (s.endpoint = other.bundle.document.endpoint)), a.bundle.canonical), "endpoint_mismatch");
  });

  it("expired, not yet valid, and valid as of an earlier --at", () => {
    expectCode(verify(a, a.bundle.canonical, { at: new Date("2026-12-06T04:00:01.000Z") }), "expired");
    expectCode(verify(a, a.bundle.canonical, { at: new Date("2026-12-05T03:50:00.000Z") }), "not_yet_valid");
    expectCode(verify(a, a.bundle.canonical, { at: new Date("2026-12-06T04:00:00.999Z") }), "ok");
  });

  it("an unknown key, a bad signature, a key outside its window, another payload type", () => {
    const stranger = testKey();
    expectCode(verify({ envelope: sign(a.statement, stranger) }, a.bundle.canonical), "unknown_key");
    // The stranger's key borrows our keyid: the signature does not verify under our key.
    const borrowed = sign(a.statement, { ...stranger, keyid: key.keyid });
    expectCode(verify({ envelope: borrowed }, a.bundle.canonical), "signature");
    const flipped = structuredClone(a.envelope);
    const sig = Buffer.from(flipped.signatures[0].sig, "base64");
    sig[10] ^= 1;
    flipped.signatures[0].sig = sig.toString("base64");
    expectCode(verify({ envelope: flipped }, a.bundle.canonical), "signature");
    // A payload changed under the old signature (a better grade).
    const s = structuredClone(a.statement) as Record<string, any>;
    s.grade.verdict = s.grade.verdict === "ok" ? "caution" : "ok";
    expectCode(verify({ envelope: { ...a.envelope, payload: Buffer.from(JSON.stringify(s)).toString("base64") } }, a.bundle.canonical), "signature");
    // A badge statement's type signed by the same keys is not an attestation.
    expectCode(verify({ envelope: sign(a.statement, key, "application/vnd.tollgate.badge-statement+json; version=1") }, a.bundle.canonical), "signature");
    // A retired key that ended before the statement was issued.
    const retired = testKey("2026-01-01T00:00:00Z", "2026-12-01T00:00:00Z");
    expectCode(verifyAttestation({ envelope: sign(a.statement, retired), bundle: a.bundle.canonical, keys: keySetOf(key, retired), at: AT }), "key_not_valid");
    // A key set whose keyid is not its key's.
    expectCode(verifyAttestation({ envelope: a.envelope, bundle: a.bundle.canonical, keys: { keys: [{ ...keys.keys[0], keyid: "0123456789abcdef" }] }, at: AT }), "input");
  });

  it("a statement that lies about the grade, the count, the scoring, or names another rubric or reading", () => {
    expectCode(verify(resign((s) => (s.grade.score = s.grade.score + 0.1)), a.bundle.canonical), "mismatch:score");
    expectCode(verify(resign((s) => (s.grade.grade = s.grade.grade === "A" ? "B" : "A")), a.bundle.canonical), "mismatch:grade");
    expectCode(verify(resign((s) => (s.grade.band.high = s.grade.band.high - 0.1)), a.bundle.canonical), "mismatch:band");
    expectCode(verify(resign((s) => (s.grade.confidence = s.grade.confidence === "high" ? "low" : "high")), a.bundle.canonical), "mismatch:confidence");
    expectCode(verify(resign((s) => (s.grade.verdict = s.grade.verdict === "ok" ? "caution" : "ok")), a.bundle.canonical), "mismatch:verdict");
    expectCode(verify(resign((s) => (s.evidence.observations -= 1)), a.bundle.canonical), "mismatch:observations");
    expectCode(verify(resign((s) => (s.scoring.seed = 7)), a.bundle.canonical), "mismatch:scoring");
    expectCode(verify(resign((s) => (s.rubric.readingSha256 = "0".repeat(64))), a.bundle.canonical), "rubric_hash");
    expectCode(verify(resign((s) => (s.rubric.reading = "x402-endpoint/1.0.0-draft.1/reading-1")), a.bundle.canonical), "rubric_hash");
  });

  const vouched = (b: Record<string, any>) => {
    const s = statementOf({ ...a.bundle, sha256: canonicalSha256(b), document: b } as BuiltBundle, a.result);
    return verify({ envelope: sign(s, key) }, b);
  };

  it("a bundle naming a rubric or reading this verifier does not ship, or another hash for a pinned one, even signed", () => {
    const cases: Array<[(b: any, s: any) => void, Code, RegExp]> = [
      [(b, s) => (b.rubric.ref = s.rubric.ref = "x402-endpoint/2.0.0"), "unknown_rubric", /rubric x402-endpoint\/2\.0\.0 is not one this verifier ships/],
      [(b, s) => (b.rubric.reading = s.rubric.reading = "x402-endpoint/1.0.0-draft.1/reading-9"), "unknown_rubric", /reading .*reading-9 is not one this verifier ships/],
      [(b, s) => (b.rubric.sha256 = s.rubric.sha256 = "1".repeat(64)), "rubric_hash", /pinned as/],
      [(b, s) => (b.rubric.readingSha256 = s.rubric.readingSha256 = "2".repeat(64)), "rubric_hash", /pinned as/],
    ];
    for (const [doctor, code, message] of cases) {
      const b = structuredClone(a.bundle.document) as any;
      const s = statementOf(a.bundle, a.result) as any;
      doctor(b, s);
      s.evidence.sha256 = canonicalSha256(b);
      const r = verify({ envelope: sign(s, key) }, b);
      expect(r.code, r.detail).toBe(code);
      expect(r.detail).toMatch(message);
    }
  });

  it("a format-1 bundle carrying a doctored rubric or reading, even with matching hashes and a signature", () => {
    const v1 = attestV1(generateSubject("ep_r1", { days: 10, probeEveryHours: 6, paidEveryHours: 48, fullReceipts: false, fault: "none", revisions: 0 }, seeded(98)), key);
    expectCode(verify(v1, v1.bundle.canonical), "ok");
    for (const doctor of [(b: any) => (b.rubric.document.checks[0].weight = 50), (b: any) => (b.rubric.readingDocument.semantics.rho = 0.9)]) {
      const b = structuredClone(v1.bundle.document) as any;
      doctor(b);
      b.rubric.sha256 = canonicalSha256(b.rubric.document);
      b.rubric.readingSha256 = canonicalSha256(b.rubric.readingDocument);
      const s = statementOf({ ...v1.bundle, sha256: canonicalSha256(b), document: b }, v1.result);
      expectCode(verify({ envelope: sign(s, key) }, b), "rubric_hash");
    }
    const b = structuredClone(v1.bundle.document) as any;
    b.rubric.ref = "x402-endpoint/2.0.0";
    const s = { ...statementOf({ ...v1.bundle, sha256: canonicalSha256(b), document: b }, v1.result), rubric: { ...v1.statement.rubric as object, ref: "x402-endpoint/2.0.0" } };
    expectCode(verify({ envelope: sign(s, key) }, b), "unknown_rubric");
  });

  it("a malformed format-2 bundle, vouched for by its hash: rows out of order, a bad letter or instant, values astray, other columns", () => {
    const cases: Array<[(b: any) => void, RegExp]> = [
      [(b) => b.rows.reverse(), /out of the bundle's order/],
      [(b) => (b.rows[0][3] = "z" + b.rows[0][3].slice(1)), /one letter/],
      [(b) => (b.rows[0][3] = b.rows[0][3].slice(1)), /one letter/],
      [(b) => ((b.rows[0][3] = "-".repeat(b.rows[0][3].length)), (b.rows[0][4] = [])), /holds no observation/],
      [(b) => (b.rows[0][0] = "yesterday"), /not an ISO 8601 instant/],
      [(b) => (b.rows[0][0] = b.rows[0][0].replace("Z", "+00:00")), /as toISOString writes it/],
      [(b) => b.rows[0][4].push(1), /more values/],
      [(b) => (b.rows[0][3] = b.rows[0][3].replace(/[pfnu]/, (c: string) => c.toUpperCase())), /fewer values/],
      [(b) => (b.checks = [...b.checks].reverse()), /\/checks must be/],
      [(b) => delete b.receipts, /\/receipts must carry/],
    ];
    for (const [doctor, message] of cases) {
      const b = structuredClone(a.bundle.document) as any;
      doctor(b);
      const r = vouched(b);
      expect(r.code, r.detail).toBe("bundle_invalid");
      expect(r.detail).toMatch(message);
    }
    // A curve check passing without a value: well-formed rows, refused by the recomputation.
    const b = structuredClone(a.bundle.document) as any;
    const col = b.checks.indexOf("R3");
    const k = b.rows.findIndex((row: any) => row[3][col] === "P");
    b.rows[k][3] = b.rows[k][3].slice(0, col) + "p" + b.rows[k][3].slice(col + 1);
    b.rows[k][4] = [];
    const r = vouched(b);
    expect(r.code).toBe("bundle_invalid");
    expect(r.detail).toMatch(/passes a curve check with no value/);
  });

  it("a malformed format-1 bundle, vouched for by its hash: rows out of order, an unknown check, a bad instant", () => {
    const v1 = attestV1(generateSubject("ep_r", { days: 10, probeEveryHours: 6, paidEveryHours: 48, fullReceipts: false, fault: "none", revisions: 0 }, seeded(97)), key);
    const cases: Array<[(b: any) => void, RegExp]> = [
      [(b) => b.subject.observations.reverse(), /out of the bundle's order/],
      [(b) => (b.subject.observations[b.subject.observations.length - 1].check = "Z9"), /names no check/],
      [(b) => (b.subject.observations[0].observedAt = "yesterday"), /not an ISO 8601 instant/],
      [(b) => (b.subject.observations[0].endpointId = "ep_other"), /is of endpoint ep_other/],
    ];
    for (const [doctor, message] of cases) {
      const b = structuredClone(v1.bundle.document) as any;
      doctor(b);
      const s = statementOf({ ...v1.bundle, sha256: canonicalSha256(b), document: b }, v1.result);
      const r = verify({ envelope: sign(s, key) }, b);
      expect(["bundle_invalid", "endpoint_mismatch"]).toContain(r.code);
      expect(r.detail).toMatch(message);
    }
  });
});
