/**
 * The evidence bundle (docs/ATTESTATIONS.md "The evidence bundle"): everything the engine read for one
 * scoring of one endpoint, as one canonical JSON document (RFC 8785) and its SHA-256. Format 2 (written
 * now): one row per (instant, vantage, revision), the rubric by its pins, receipts beside it under a
 * Merkle root (./receipts.ts). Format 1 (stored earlier, still verified): one object per observation.
 */
import { createHash } from "node:crypto";
import { canonicalJson } from "../badges/canonical-json";
import type { Observation, Revision, TrustSubject } from "../trust/observation";
import { readingOf, type TrustRubric } from "../trust/rubric";
import type { BandOptions } from "../trust/engine/band";
import { receiptsDocument, type ReceiptEntry, type ReceiptsDocument } from "./receipts";

export const BUNDLE_TYPE = "tollgate.evidence-bundle/2";
export const BUNDLE_TYPE_V1 = "tollgate.evidence-bundle/1";

export interface AttestedEndpoint {
  id: string;
  listingId: string;
  url: string;
  method: string;
}

export interface BundleScoring {
  /** ISO 8601 (the engine's `now`). */
  now: string;
  seed: number;
  /** `{}` is the reading's defaults. */
  bandOptions: Partial<BandOptions>;
}

export interface EvidenceBundleV1 {
  _type: typeof BUNDLE_TYPE_V1;
  endpoint: AttestedEndpoint;
  rubric: {
    ref: string;
    reading: string;
    sha256: string;
    readingSha256: string;
    document: unknown;
    readingDocument: unknown;
  };
  scoring: BundleScoring;
  subject: TrustSubject;
}

export interface BuiltBundleV1 {
  document: EvidenceBundleV1;
  /** The canonical JSON text; `bytes` is its UTF-8. */
  canonical: string;
  bytes: Buffer;
  /** Lowercase hex SHA-256 of `bytes`. */
  sha256: string;
}

export class BundleError extends Error {
  constructor(
    readonly code: "endpoint_mismatch" | "bad_now" | "bad_seed" | "no_reading" | "bad_observation" | "bad_bundle",
    message: string,
    readonly pointer = "",
  ) {
    super(pointer ? `${message} at ${pointer}` : message);
    this.name = "BundleError";
  }
}

export const sha256Hex = (b: string | Uint8Array) => createHash("sha256").update(b).digest("hex");

/** SHA-256 of its canonical JSON. */
export const documentSha256 = (v: unknown) => sha256Hex(canonicalJson(v));

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** (observedAt, check, vantage), then the canonical text: the same set is always the same bytes. */
export function compareObservations(a: Observation, b: Observation): number {
  return Date.parse(a.observedAt) - Date.parse(b.observedAt) || cmp(a.check, b.check) || cmp(a.vantage, b.vantage) || cmp(canonicalJson(a), canonicalJson(b));
}

function plainObservation(o: Observation): Observation {
  return {
    endpointId: o.endpointId,
    check: o.check,
    kind: o.kind,
    outcome: o.outcome,
    value: o.value ?? null,
    observedAt: o.observedAt,
    vantage: o.vantage,
    revision: o.revision,
    receipt: o.receipt ?? {},
  };
}

function plainRevision(r: Revision): Revision {
  return { revision: r.revision, startedAt: r.startedAt, changes: [...r.changes], note: r.note ?? null };
}

export interface BuildBundleInput {
  endpoint: AttestedEndpoint;
  rubric: TrustRubric;
  scoring: { now: Date | string; seed: number; bandOptions?: Partial<BandOptions> };
  subject: TrustSubject;
}

/** The checks both formats make of their input: a valid instant and seed, this endpoint's subject, a rubric with its reading. */
function checkInput({ endpoint, rubric, scoring, subject }: BuildBundleInput) {
  const nowMs = scoring.now instanceof Date ? scoring.now.getTime() : Date.parse(scoring.now);
  if (!Number.isFinite(nowMs)) throw new BundleError("bad_now", "scoring.now is not an instant", "/scoring/now");
  if (!Number.isSafeInteger(scoring.seed)) throw new BundleError("bad_seed", "scoring.seed must be an integer", "/scoring/seed");
  if (subject.endpointId !== endpoint.id) throw new BundleError("endpoint_mismatch", `the subject is endpoint ${subject.endpointId}, not ${endpoint.id}`, "/subject/endpointId");
  const reading = rubric.reading ?? readingOf(rubric);
  if (!reading) throw new BundleError("no_reading", "the rubric carries no reading");
  return { nowMs, reading };
}

/**
 * Builds a format-1 bundle (what the sweep wrote before format 2; kept so stored ones stay
 * reproducible and the verifier's format-1 path stays tested). Observations after `now` are left out
 * (the engine ignores them). Refuses a subject of another endpoint.
 */
export function buildBundleV1({ endpoint, rubric, scoring, subject }: BuildBundleInput): BuiltBundleV1 {
  const { nowMs, reading } = checkInput({ endpoint, rubric, scoring, subject });

  const observations: Observation[] = [];
  subject.observations.forEach((o, i) => {
    if (o.endpointId !== endpoint.id) throw new BundleError("endpoint_mismatch", `observation of endpoint ${o.endpointId}`, `/subject/observations/${i}/endpointId`);
    const at = Date.parse(o.observedAt);
    if (!Number.isFinite(at)) throw new BundleError("bad_observation", "observedAt is not an instant", `/subject/observations/${i}/observedAt`);
    if (at <= nowMs) observations.push(plainObservation(o));
  });
  observations.sort(compareObservations);
  const revisions = subject.revisions.map(plainRevision).sort((a, b) => a.revision - b.revision);

  const document: EvidenceBundleV1 = {
    _type: BUNDLE_TYPE_V1,
    endpoint: { id: endpoint.id, listingId: endpoint.listingId, url: endpoint.url, method: endpoint.method },
    rubric: {
      ref: rubric.ref,
      reading: reading.ref,
      sha256: documentSha256(rubric.file),
      readingSha256: documentSha256(reading.file),
      document: rubric.file,
      readingDocument: reading.file,
    },
    scoring: { now: new Date(nowMs).toISOString(), seed: scoring.seed, bandOptions: { ...(scoring.bandOptions ?? {}) } },
    subject: { endpointId: subject.endpointId, observations, revisions },
  };
  const canonical = canonicalJson(document);
  const bytes = Buffer.from(canonical, "utf8");
  return { document, canonical, bytes, sha256: sha256Hex(bytes) };
}

/** The engine's options for a bundle's scoring (band on, the bundle's seed and tuning). */
export function scoreOptionsOf(bundle: { scoring: BundleScoring }): { now: string; seed: number; band: true; bandOptions: Partial<BandOptions> } {
  return { now: bundle.scoring.now, seed: bundle.scoring.seed, band: true, bandOptions: bundle.scoring.bandOptions };
}

// ---- format 2 -----------------------------------------------------------------------------------

/** One row: [instant, vantage, revision, a letter per rubric check (p f n u; upper case: with a value; `-` none), the values of the upper-case letters in order]. */
export type BundleRow = [string, string, number, string, number[]];

export interface EvidenceBundle {
  _type: typeof BUNDLE_TYPE;
  endpoint: AttestedEndpoint;
  /** By pin only: the verifier ships the documents these hashes name. */
  rubric: { ref: string; reading: string; sha256: string; readingSha256: string };
  scoring: BundleScoring;
  /** The rubric's check ids in its order: the rows' columns. */
  checks: string[];
  revisions: Revision[];
  rows: BundleRow[];
  /** The receipts document beside the bundle: its Merkle root, entry count and canonical SHA-256. */
  receipts: { root: string; leaves: number; sha256: string };
}

export interface BuiltReceipts {
  document: ReceiptsDocument;
  canonical: string;
  bytes: Buffer;
  sha256: string;
}

export interface BuiltBundle {
  document: EvidenceBundle;
  canonical: string;
  bytes: Buffer;
  sha256: string;
  /** The observations the rows hold, in the bundle's order (what the engine scores; bundleSubject). */
  subject: TrustSubject;
  observations: number;
  receipts: BuiltReceipts;
}

const LETTER: Record<string, string> = { pass: "p", fail: "f", na: "n", unmeasured: "u" };
const OUTCOME_OF: Record<string, Observation["outcome"]> = { p: "pass", f: "fail", n: "na", u: "unmeasured" };

interface Placed {
  o: Observation;
  t: number;
  col: number;
  value: number | null;
  receiptText: string | null;
}

/**
 * Builds a format-2 bundle and its receipts document. Rows are ordered by (instant, vantage,
 * revision); two observations of one check under the same key go to successive rows of that key. The
 * same set of observations is always the same bytes. Refuses a subject of another endpoint, a check
 * the rubric lacks, a kind or outcome the rubric does not allow, a value that is not a finite number.
 */
export function buildBundle({ endpoint, rubric, scoring, subject }: BuildBundleInput): BuiltBundle {
  const { nowMs, reading } = checkInput({ endpoint, rubric, scoring, subject });
  const checks = rubric.checks.map((c) => c.id);

  const placed: Placed[] = [];
  subject.observations.forEach((o, i) => {
    const at = `/subject/observations/${i}`;
    if (o.endpointId !== endpoint.id) throw new BundleError("endpoint_mismatch", `observation of endpoint ${o.endpointId}`, `${at}/endpointId`);
    const t = Date.parse(o.observedAt);
    if (!Number.isFinite(t)) throw new BundleError("bad_observation", "observedAt is not an instant", `${at}/observedAt`);
    if (t > nowMs) return;
    const c = rubric.checkById.get(o.check);
    if (!c) throw new BundleError("bad_observation", `check ${JSON.stringify(o.check)} is not one of the rubric's`, `${at}/check`);
    if (o.kind !== c.kind) throw new BundleError("bad_observation", `kind must be "${c.kind}" for check ${c.id}`, `${at}/kind`);
    if (!(o.outcome in LETTER)) throw new BundleError("bad_observation", "outcome must be pass, fail, na or unmeasured", `${at}/outcome`);
    const value = o.value ?? null;
    if (value !== null && !(typeof value === "number" && Number.isFinite(value))) throw new BundleError("bad_observation", "value must be a finite number or null", `${at}/value`);
    if (typeof o.vantage !== "string") throw new BundleError("bad_observation", "vantage must be a string", `${at}/vantage`);
    if (!Number.isSafeInteger(o.revision)) throw new BundleError("bad_observation", "revision must be an integer", `${at}/revision`);
    const receipt = o.receipt ?? {};
    placed.push({ o, t, col: c.index, value, receiptText: Object.keys(receipt).length ? canonicalJson(receipt) : null });
  });
  // A full tie (same key, check, outcome and value) is ordered by its receipt's canonical text.
  placed.sort(
    (a, b) =>
      a.t - b.t ||
      cmp(a.o.vantage, b.o.vantage) ||
      a.o.revision - b.o.revision ||
      a.col - b.col ||
      cmp(a.o.outcome, b.o.outcome) ||
      (a.value ?? -Infinity) - (b.value ?? -Infinity) ||
      cmp(a.receiptText ?? "", b.receiptText ?? ""),
  );

  interface Draft {
    key: [string, string, number];
    cells: Array<Placed | null>;
  }
  const drafts: Draft[] = [];
  let keyStart = 0;
  for (let i = 0; i < placed.length; i++) {
    const p = placed[i];
    const prev = i > 0 ? placed[i - 1] : null;
    if (!prev || prev.t !== p.t || prev.o.vantage !== p.o.vantage || prev.o.revision !== p.o.revision) keyStart = drafts.length;
    let d = keyStart;
    while (d < drafts.length && drafts[d].cells[p.col] !== null) d++;
    if (d === drafts.length) drafts.push({ key: [new Date(p.t).toISOString(), p.o.vantage, p.o.revision], cells: checks.map(() => null) });
    drafts[d].cells[p.col] = p;
  }

  const rows: BundleRow[] = [];
  const entries: ReceiptEntry[] = [];
  drafts.forEach((d, r) => {
    let letters = "";
    const values: number[] = [];
    d.cells.forEach((p, col) => {
      if (!p) return void (letters += "-");
      const l = LETTER[p.o.outcome];
      letters += p.value === null ? l : l.toUpperCase();
      if (p.value !== null) values.push(p.value);
      if (p.receiptText !== null) entries.push({ row: r, check: checks[col], receipt: p.o.receipt });
    });
    rows.push([d.key[0], d.key[1], d.key[2], letters, values]);
  });

  const rdoc = receiptsDocument(endpoint.id, entries);
  const rcanonical = canonicalJson(rdoc);
  const rbytes = Buffer.from(rcanonical, "utf8");
  const receipts: BuiltReceipts = { document: rdoc, canonical: rcanonical, bytes: rbytes, sha256: sha256Hex(rbytes) };

  const document: EvidenceBundle = {
    _type: BUNDLE_TYPE,
    endpoint: { id: endpoint.id, listingId: endpoint.listingId, url: endpoint.url, method: endpoint.method },
    rubric: { ref: rubric.ref, reading: reading.ref, sha256: documentSha256(rubric.file), readingSha256: documentSha256(reading.file) },
    scoring: { now: new Date(nowMs).toISOString(), seed: scoring.seed, bandOptions: { ...(scoring.bandOptions ?? {}) } },
    checks,
    revisions: subject.revisions.map(plainRevision).sort((a, b) => a.revision - b.revision),
    rows,
    receipts: { root: rdoc.root, leaves: entries.length, sha256: receipts.sha256 },
  };
  const canonical = canonicalJson(document);
  const bytes = Buffer.from(canonical, "utf8");
  const decoded = bundleSubject(document, rubric, rdoc);
  return { document, canonical, bytes, sha256: sha256Hex(bytes), subject: decoded, observations: decoded.observations.length, receipts };
}

/**
 * A format-2 bundle read back as the engine's subject: its rows in order, each row's letters in
 * column order (`kind` from the rubric, the receipts from their document when given, else `{}`).
 */
export function bundleSubject(doc: EvidenceBundle, rubric: TrustRubric, receipts?: ReceiptsDocument): TrustSubject {
  const kinds = doc.checks.map((id, j) => {
    const c = rubric.checkById.get(id);
    if (!c) throw new BundleError("bad_bundle", `column ${id} is not a check of ${rubric.ref}`, `/checks/${j}`);
    return c.kind;
  });
  const byCell = new Map<string, Record<string, unknown>>();
  for (const e of receipts?.receipts ?? []) byCell.set(`${e.row}/${e.check}`, e.receipt);
  const observations: Observation[] = [];
  doc.rows.forEach(([observedAt, vantage, revision, letters, values], r) => {
    if (letters.length !== doc.checks.length) throw new BundleError("bad_bundle", `has ${letters.length} letters for ${doc.checks.length} checks`, `/rows/${r}/3`);
    let v = 0;
    for (let j = 0; j < letters.length; j++) {
      const ch = letters[j];
      if (ch === "-") continue;
      const outcome = OUTCOME_OF[ch.toLowerCase()];
      if (!outcome) throw new BundleError("bad_bundle", `letter ${JSON.stringify(ch)} is not an outcome`, `/rows/${r}/3`);
      const value = ch === ch.toUpperCase() ? values[v++] : null;
      if (value === undefined) throw new BundleError("bad_bundle", "fewer values than upper-case letters", `/rows/${r}/4`);
      const check = doc.checks[j];
      observations.push({ endpointId: doc.endpoint.id, check, kind: kinds[j], outcome, value, observedAt, vantage, revision, receipt: byCell.get(`${r}/${check}`) ?? {} });
    }
    if (v !== values.length) throw new BundleError("bad_bundle", "more values than upper-case letters", `/rows/${r}/4`);
  });
  return { endpointId: doc.endpoint.id, observations, revisions: doc.revisions.map(plainRevision) };
}
