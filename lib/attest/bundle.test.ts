import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "../badges/canonical-json";
import type { Observation, TrustSubject } from "../trust/observation";
import { loadRubric, scoreSubject } from "../trust/engine";
import { READING_FILES } from "../trust/rubric";
import { RUBRIC_FILES } from "../trust/rubric";
import { buildBundle, buildBundleV1, bundleSubject, BundleError, BUNDLE_TYPE, BUNDLE_TYPE_V1, scoreOptionsOf } from "./bundle";
import { receiptProof, receiptsDocument, verifyReceiptProof } from "./receipts";

const endpoint = { id: "ep_1", listingId: "ls_1", url: "https://api.example.com/v1/quote", method: "GET" };
const NOW = "2026-12-05T04:00:00.000Z";
const DAY = 86_400_000;

function history(days: number): Observation[] {
  const out: Observation[] = [];
  const t0 = Date.parse(NOW) - days * DAY;
  for (let d = 0; d < days; d++) {
    for (let h = 0; h < 24; h += 6) {
      const at = new Date(t0 + d * DAY + h * 3_600_000).toISOString();
      for (const check of ["R1", "C1", "C2", "H1"]) out.push({ endpointId: "ep_1", check, kind: "free", outcome: (d * 7 + h) % 11 === 0 ? "fail" : "pass", value: null, observedAt: at, vantage: "monitor", revision: 1, receipt: { status: 402, ms: 40 + h } });
      out.push({ endpointId: "ep_1", check: "R3", kind: "free", outcome: "pass", value: 120 + h, observedAt: at, vantage: "monitor", revision: 1, receipt: { ms: 120 + h } });
    }
    out.push({ endpointId: "ep_1", check: "R4", kind: "paid", outcome: "pass", value: null, observedAt: new Date(t0 + d * DAY + 600_000).toISOString(), vantage: "canary", revision: 1, receipt: { transaction: `0x${d.toString(16).padStart(64, "0")}` } });
  }
  return out;
}

const subjectOf = (observations: Observation[]): TrustSubject => ({ endpointId: "ep_1", observations, revisions: [{ revision: 1, startedAt: "2026-10-01T00:00:00.000Z", changes: [], note: null }] });

function shuffled<T>(xs: T[], seed: number): T[] {
  const a = [...xs];
  let s = seed;
  for (let i = a.length - 1; i > 0; i--) {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    const j = s % (i + 1);
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

describe("buildBundle", () => {
  const rubric = loadRubric();
  const obs = history(30);

  it("is the same bytes and hash whatever order the rows came in", () => {
    const a = buildBundle({ endpoint, rubric, scoring: { now: NOW, seed: 402 }, subject: subjectOf(obs) });
    for (const seed of [1, 2, 3]) {
      const b = buildBundle({ endpoint, rubric, scoring: { now: new Date(NOW), seed: 402 }, subject: subjectOf(shuffled(obs, seed)) });
      expect(b.sha256).toBe(a.sha256);
      expect(b.canonical).toBe(a.canonical);
    }
    expect(a.sha256).toBe(createHash("sha256").update(a.bytes).digest("hex"));
    expect(a.canonical).toBe(canonicalJson(JSON.parse(a.canonical)));
    expect(a.document._type).toBe(BUNDLE_TYPE);
  });

  it("holds one row per (instant, vantage, revision) in that order, a letter per rubric check, the values beside", () => {
    const { document, subject, observations } = buildBundle({ endpoint, rubric, scoring: { now: NOW, seed: 402 }, subject: subjectOf(shuffled(obs, 9)) });
    expect(document.checks).toEqual(rubric.checks.map((c) => c.id));
    // Four probes a day (five checks each) and one paid sample: five rows a day.
    expect(document.rows.length).toBe(30 * 5);
    for (let i = 1; i < document.rows.length; i++) {
      const [p, q] = [document.rows[i - 1], document.rows[i]];
      expect(Date.parse(p[0]) < Date.parse(q[0]) || (p[0] === q[0] && (p[1] < q[1] || (p[1] === q[1] && p[2] <= q[2])))).toBe(true);
    }
    const r3 = document.checks.indexOf("R3");
    const probe = document.rows.find((r) => r[1] === "monitor")!;
    expect(probe[3][r3]).toBe("P");
    expect(probe[4]).toEqual([120]);
    expect(observations).toBe(obs.length);
    // Read back: every observation, receipts included, none invented.
    const key = (o: Observation) => JSON.stringify([o.observedAt, o.check, o.kind, o.outcome, o.value, o.vantage, o.revision, o.receipt]);
    expect(subject.observations.map(key).sort()).toEqual(obs.map(key).sort());
    expect(bundleSubject(document, rubric).observations.every((o) => Object.keys(o.receipt).length === 0)).toBe(true);
  });

  it("keeps two observations of one check at one instant (a second row), and refuses what it cannot hold", () => {
    const twice = [...obs, { ...obs[0], outcome: "fail" as const, receipt: { again: true } }];
    const b = buildBundle({ endpoint, rubric, scoring: { now: NOW, seed: 402 }, subject: subjectOf(twice) });
    expect(b.observations).toBe(twice.length);
    expect(b.document.rows[0][0]).toBe(b.document.rows[1][0]);
    expect(buildBundle({ endpoint, rubric, scoring: { now: NOW, seed: 402 }, subject: subjectOf([...twice].reverse()) }).sha256).toBe(b.sha256);
    const bad: Array<[Partial<Observation>, RegExp]> = [
      [{ check: "Z9" }, /observations\/0\/check/],
      [{ kind: "paid" }, /kind must be "free"/],
      [{ outcome: "maybe" as never }, /observations\/0\/outcome/],
      [{ value: Number.NaN }, /observations\/0\/value/],
    ];
    for (const [patch, message] of bad) expect(() => buildBundle({ endpoint, rubric, scoring: { now: NOW, seed: 402 }, subject: subjectOf([{ ...obs[0], ...patch }, ...obs.slice(1)]) })).toThrow(message);
  });

  it("commits the receipts by a Merkle root: each entry provable on its own, the document's hash named", () => {
    const b = buildBundle({ endpoint, rubric, scoring: { now: NOW, seed: 402 }, subject: subjectOf(obs) });
    const doc = b.receipts.document;
    expect(doc.receipts.length).toBe(obs.length);
    expect(b.document.receipts).toEqual({ root: doc.root, leaves: obs.length, sha256: createHash("sha256").update(b.receipts.bytes).digest("hex") });
    expect(receiptsDocument(doc.endpointId, doc.receipts).root).toBe(doc.root);
    for (const i of [0, 1, 17, doc.receipts.length - 1]) {
      const proof = receiptProof(doc.receipts, i);
      expect(verifyReceiptProof(doc.receipts[i], proof, doc.root)).toBe(true);
      expect(verifyReceiptProof({ ...doc.receipts[i], receipt: { ...doc.receipts[i].receipt, ms: -1 } }, proof, doc.root)).toBe(false);
      expect(verifyReceiptProof({ ...doc.receipts[i], row: doc.receipts[i].row + 1 }, proof, doc.root)).toBe(false);
    }
    // Without receipts: no entries, and the empty tree's root.
    const bare = buildBundle({ endpoint, rubric, scoring: { now: NOW, seed: 402 }, subject: subjectOf(obs.map((o) => ({ ...o, receipt: {} }))) });
    expect(bare.document.receipts).toMatchObject({ leaves: 0, root: createHash("sha256").digest("hex") });
    expect(bare.sha256).not.toBe(b.sha256);
  });

  it("format 1 (stored before): one object per observation, ordered by (observedAt, check, vantage), the documents inside", () => {
    const { document } = buildBundleV1({ endpoint, rubric, scoring: { now: NOW, seed: 402 }, subject: subjectOf(shuffled(obs, 9)) });
    expect(document._type).toBe(BUNDLE_TYPE_V1);
    expect(document.rubric.document).toEqual(rubric.file);
    const os = document.subject.observations;
    for (let i = 1; i < os.length; i++) {
      const [p, q] = [os[i - 1], os[i]];
      const key = (o: Observation) => [Date.parse(o.observedAt), o.check, o.vantage] as const;
      const [a, b] = [key(p), key(q)];
      expect(a[0] < b[0] || (a[0] === b[0] && (a[1] < b[1] || (a[1] === b[1] && a[2] <= b[2])))).toBe(true);
    }
  });

  it("pins the rubric and reading by the hash of their canonical JSON, matching the repository's pins", () => {
    const { document } = buildBundle({ endpoint, rubric, scoring: { now: NOW, seed: 402 }, subject: subjectOf(obs) });
    expect(document.rubric.ref).toBe("x402-endpoint/1.0.0-draft.1");
    expect(document.rubric.sha256).toBe(RUBRIC_FILES[rubric.ref].contentSha256);
    expect(document.rubric.readingSha256).toBe(READING_FILES[rubric.ref][rubric.reading!.version].contentSha256);
    expect(document.rubric.reading).toBe(rubric.reading!.ref);
  });

  it("detects any single change: an outcome, a receipt, a deletion, the seed, the now", () => {
    const base = buildBundle({ endpoint, rubric, scoring: { now: NOW, seed: 402 }, subject: subjectOf(obs) }).sha256;
    const hashes = new Set<string>([base]);
    const variants: Observation[][] = [
      obs.map((o, i) => (i === 17 ? { ...o, outcome: "fail" as const } : o)),
      obs.map((o, i) => (i === 17 ? { ...o, receipt: { ...o.receipt, ms: 41 } } : o)),
      obs.filter((_, i) => i !== 17),
      obs.map((o, i) => (i === 17 ? { ...o, vantage: "analysis" } : o)),
    ];
    for (const v of variants) hashes.add(buildBundle({ endpoint, rubric, scoring: { now: NOW, seed: 402 }, subject: subjectOf(v) }).sha256);
    hashes.add(buildBundle({ endpoint, rubric, scoring: { now: NOW, seed: 403 }, subject: subjectOf(obs) }).sha256);
    hashes.add(buildBundle({ endpoint, rubric, scoring: { now: "2026-12-05T04:00:00.001Z", seed: 402 }, subject: subjectOf(obs) }).sha256);
    hashes.add(buildBundle({ endpoint: { ...endpoint, method: "POST" }, rubric, scoring: { now: NOW, seed: 402 }, subject: subjectOf(obs) }).sha256);
    expect(hashes.size).toBe(8);
  });

  it("leaves out what came after now, so later rows do not change an earlier bundle", () => {
    const later: Observation = { ...obs[0], observedAt: "2026-12-05T04:00:00.001Z" };
    const a = buildBundle({ endpoint, rubric, scoring: { now: NOW, seed: 402 }, subject: subjectOf(obs) });
    const b = buildBundle({ endpoint, rubric, scoring: { now: NOW, seed: 402 }, subject: subjectOf([...obs, later]) });
    expect(b.sha256).toBe(a.sha256);
    expect(a.observations).toBe(obs.length);
  });

  it("scores from the bundle alone to the same grade as from the rows", () => {
    const built = buildBundle({ endpoint, rubric, scoring: { now: NOW, seed: 402 }, subject: subjectOf(obs) });
    const direct = scoreSubject(rubric, subjectOf(obs), { now: NOW, seed: 402, band: true });
    const round = JSON.parse(built.canonical);
    const again = scoreSubject(rubric, bundleSubject(round, rubric), scoreOptionsOf(round));
    expect(again.score).toBe(direct.score);
    expect(again.band).toEqual(direct.band);
    expect(again.grade).toBe(direct.grade);
    expect(again.verdict).toBe(direct.verdict);
  });

  it("refuses another endpoint's rows, a bad now and a bad seed, naming where", () => {
    const foreign = [...obs, { ...obs[0], endpointId: "ep_2" }];
    expect(() => buildBundle({ endpoint, rubric, scoring: { now: NOW, seed: 402 }, subject: subjectOf(foreign) })).toThrow(/observations\/\d+\/endpointId/);
    expect(() => buildBundle({ endpoint, rubric, scoring: { now: NOW, seed: 402 }, subject: { ...subjectOf(obs), endpointId: "ep_2" } })).toThrow(BundleError);
    expect(() => buildBundle({ endpoint, rubric, scoring: { now: "yesterday", seed: 402 }, subject: subjectOf(obs) })).toThrow(/scoring\/now/);
    expect(() => buildBundle({ endpoint, rubric, scoring: { now: NOW, seed: 1.5 }, subject: subjectOf(obs) })).toThrow(/scoring\/seed/);
  });
});
