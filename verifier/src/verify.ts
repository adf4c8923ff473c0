/**
 * Verifying an endpoint attestation against its evidence bundle (docs/ATTESTATIONS.md; formats 1 and
 * 2): the DSSE signature (PAE, Ed25519, a known key valid at issuedAt), the time window, the bundle's
 * canonical hash, the endpoint, the pinned rubric and reading, the receipts when given, then the grade
 * recomputed by ./engine.ts and compared field by field. Stops at the first failure, named by its code.
 */
import { createPublicKey, verify as edVerify } from "node:crypto";
import { gradeSubject, instant, type Grade, type Obs, type RubricDoc, type Semantics, type Subject } from "./engine.ts";
import { canonicalize, canonicalSha256, sha256Hex } from "./jcs.ts";
import { pinnedReading, pinnedRubric, READING_PINS, RUBRIC_PINS } from "./pins.ts";
import { receiptsRoot } from "./receipts.ts";

export const PAYLOAD_TYPE = "application/vnd.tollgate.endpoint-attestation+json; version=1";
export const STATEMENT_TYPE = "tollgate.endpoint-attestation/1";
export const BUNDLE_TYPE = "tollgate.evidence-bundle/1";
export const BUNDLE_TYPE_2 = "tollgate.evidence-bundle/2";
export const RECEIPTS_TYPE = "tollgate.evidence-receipts/1";
/** Clock skew allowed on issuedAt (the server's own rule). */
const SKEW_MS = 5 * 60_000;

/** Exit codes, one per refusal (verifier/README.md lists them). `mismatch:<field>` share 30–39. */
export const EXIT = {
  ok: 0,
  usage: 2,
  input: 3,
  signature: 10,
  unknown_key: 11,
  key_not_valid: 12,
  statement_invalid: 13,
  expired: 14,
  not_yet_valid: 15,
  bundle_hash: 20,
  bundle_invalid: 21,
  rubric_hash: 22,
  endpoint_mismatch: 23,
  receipts: 24,
  unknown_rubric: 25,
  "mismatch:observations": 30,
  "mismatch:scoring": 31,
  "mismatch:score": 32,
  "mismatch:grade": 33,
  "mismatch:band": 34,
  "mismatch:confidence": 35,
  "mismatch:verdict": 36,
  inclusion: 40,
  rpc: 41,
} as const;
export type Code = keyof typeof EXIT;

export interface Check {
  name: string;
  status: "pass" | "fail" | "skipped";
  detail: string;
}

export interface Report {
  ok: boolean;
  code: Code;
  detail: string;
  checks: Check[];
  statement?: Statement;
  recomputed?: Grade;
}

export interface PublicKey {
  keyid: string;
  alg: "Ed25519";
  publicKey: string;
  notBefore: string;
  notAfter: string | null;
  status?: string;
}

export interface Envelope {
  payloadType: string;
  payload: string;
  signatures: Array<{ keyid: string; sig: string }>;
}

export interface Endpoint {
  id: string;
  listingId: string;
  url: string;
  method: string;
}

export interface Statement {
  _type: string;
  endpoint: Endpoint;
  payment: { scheme: string; network: string; asset: string; payTo: string; amount: string } | null;
  grade: { score: number | null; grade: string | null; band: { low: number; high: number; width?: number } | null; confidence: string | null; verdict: string };
  rubric: { ref: string; reading: string; sha256: string; readingSha256: string };
  scoring: { now: string; seed: number };
  evidence: { sha256: string; observations: number };
  issuedAt: string;
  expiresAt: string;
}

export interface Bundle {
  _type: string;
  endpoint: Endpoint;
  rubric: { ref: string; reading: string; sha256: string; readingSha256: string; document: RubricDoc; readingDocument: { rubric?: string; version?: number; semantics: Semantics } };
  scoring: { now: string; seed: number; bandOptions?: { rho?: number; gridStep?: number; gridMax?: number } };
  subject: { endpointId: string; observations: Array<{ endpointId: string; check: string; kind: string; outcome: "pass" | "fail" | "na" | "unmeasured"; value: number | null; observedAt: string; vantage: string; revision: number }>; revisions: Array<{ revision: number; startedAt: string }> };
}

/** What the caller is about to pay: each given field must equal the statement's. */
export interface Expect {
  endpointId?: string;
  url?: string;
  method?: string;
  payTo?: string;
  network?: string;
  asset?: string;
  amount?: string;
}

/** Format 2: one row per (instant, vantage, revision), the rubric by pin, the receipts beside it. */
export interface Bundle2 {
  _type: string;
  endpoint: Endpoint;
  rubric: { ref: string; reading: string; sha256: string; readingSha256: string };
  scoring: { now: string; seed: number; bandOptions?: { rho?: number; gridStep?: number; gridMax?: number } };
  checks: string[];
  revisions: Array<{ revision: number; startedAt: string }>;
  rows: Array<[string, string, number, string, number[]]>;
  receipts: { root: string; leaves: number; sha256: string };
}

export interface VerifyInput {
  envelope: unknown;
  /** The bundle as parsed JSON, or its text as received (then bytes that hash to the attested value need no re-canonicalising). */
  bundle: unknown;
  /** Format 2's receipts document (parsed or text): when given, checked against the bundle's receipts root. */
  receipts?: unknown;
  keys: unknown;
  /** The instant to verify as of (default: now). */
  at?: Date;
  expect?: Expect;
}

const B64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** Strict padded base64: one spelling per byte string. */
export function b64(s: unknown): Buffer | null {
  if (typeof s !== "string" || !B64.test(s)) return null;
  const b = Buffer.from(s, "base64");
  return b.toString("base64") === s ? b : null;
}

export function pae(type: string, body: Uint8Array): Buffer {
  const t = Buffer.from(type, "utf8");
  return Buffer.concat([Buffer.from(`DSSEv1 ${t.length} `), t, Buffer.from(` ${body.length} `), body]);
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isTime = (s: unknown): s is string => typeof s === "string" && /^\d{4}-\d{2}-\d{2}T/.test(s) && Number.isFinite(Date.parse(s));

/** A published key set ({keys: [...]}, /.well-known/tollgate-badge-keys.json); each keyid is derived again from its key. */
export function parseKeySet(v: unknown): PublicKey[] | string {
  if (!isObj(v) || !Array.isArray(v.keys)) return "the key set must be {keys: [...]}";
  const out: PublicKey[] = [];
  for (const [i, k] of v.keys.entries()) {
    if (!isObj(k)) return `/keys/${i} is not an object`;
    if (k.alg !== "Ed25519") return `/keys/${i}/alg must be "Ed25519"`;
    const raw = b64(k.publicKey);
    if (!raw || raw.length !== 32) return `/keys/${i}/publicKey must be base64 of 32 bytes`;
    if (k.keyid !== sha256Hex(raw).slice(0, 16)) return `/keys/${i}/keyid is not the first 16 hex digits of SHA-256 over its key`;
    if (!isTime(k.notBefore)) return `/keys/${i}/notBefore must be an ISO 8601 time`;
    if (k.notAfter !== null && !isTime(k.notAfter)) return `/keys/${i}/notAfter must be an ISO 8601 time or null`;
    out.push(k as unknown as PublicKey);
  }
  return out;
}

function edVerifies(rawKey: Buffer, message: Buffer, sig: Buffer): boolean {
  if (sig.length !== 64) return false;
  try {
    const key = createPublicKey({ key: Buffer.concat([Buffer.from("302a300506032b6570032100", "hex"), rawKey]), format: "der", type: "spki" });
    return edVerify(null, message, key, sig);
  } catch {
    return false;
  }
}

const STATEMENT_FIELDS = ["_type", "endpoint", "payment", "grade", "rubric", "scoring", "evidence", "issuedAt", "expiresAt"];

function statementProblem(s: unknown): string | null {
  if (!isObj(s)) return "the payload is not a JSON object";
  for (const k of STATEMENT_FIELDS) if (!(k in s)) return `/${k} is required`;
  if (s._type !== STATEMENT_TYPE) return `/_type must be "${STATEMENT_TYPE}"`;
  const e = s.endpoint;
  if (!isObj(e) || ["id", "listingId", "url", "method"].some((k) => typeof e[k] !== "string")) return "/endpoint must carry id, listingId, url and method";
  const g = s.grade;
  if (!isObj(g) || !("score" in g) || !("grade" in g) || !("band" in g) || !("confidence" in g) || typeof g.verdict !== "string") return "/grade must carry score, grade, band, confidence and verdict";
  const r = s.rubric;
  if (!isObj(r) || ["ref", "reading", "sha256", "readingSha256"].some((k) => typeof r[k] !== "string")) return "/rubric must carry ref, reading, sha256 and readingSha256";
  if (!isObj(s.scoring) || !isTime(s.scoring.now) || !Number.isSafeInteger(s.scoring.seed)) return "/scoring must carry now (an instant) and seed (an integer)";
  if (!isObj(s.evidence) || typeof s.evidence.sha256 !== "string" || !Number.isSafeInteger(s.evidence.observations)) return "/evidence must carry sha256 and observations";
  if (!isTime(s.issuedAt)) return "/issuedAt must be an ISO 8601 time";
  if (!isTime(s.expiresAt)) return "/expiresAt must be an ISO 8601 time";
  return null;
}

const ROW_STRINGS = ["endpointId", "check", "kind", "outcome", "observedAt", "vantage"];
const OUTCOMES = new Set(["pass", "fail", "na", "unmeasured"]);

function bundleProblem(b: unknown): string | null {
  if (!isObj(b)) return "the bundle is not a JSON object";
  if (b._type !== BUNDLE_TYPE) return `/_type must be "${BUNDLE_TYPE_2}" or "${BUNDLE_TYPE}"`;
  if (!isObj(b.endpoint)) return "/endpoint is required";
  const r = b.rubric;
  if (!isObj(r) || !isObj(r.document) || !isObj(r.readingDocument)) return "/rubric must carry document and readingDocument";
  if (!isObj(b.scoring) || !isTime(b.scoring.now) || !Number.isSafeInteger(b.scoring.seed)) return "/scoring must carry now and seed";
  if (b.scoring.bandOptions !== undefined && !isObj(b.scoring.bandOptions)) return "/scoring/bandOptions must be an object";
  const s = b.subject;
  if (!isObj(s) || typeof s.endpointId !== "string" || !Array.isArray(s.observations) || !Array.isArray(s.revisions)) return "/subject must carry endpointId, observations and revisions";
  let prev: { t: number; check: string; vantage: string } | null = null;
  for (const [i, o] of s.observations.entries()) {
    const at = `/subject/observations/${i}`;
    if (!isObj(o)) return `${at} is not an object`;
    for (const k of ROW_STRINGS) if (typeof o[k] !== "string") return `${at}/${k} must be a string`;
    if (!OUTCOMES.has(o.outcome as string)) return `${at}/outcome must be pass, fail, na or unmeasured`;
    if (o.value !== null && typeof o.value !== "number") return `${at}/value must be a number or null`;
    if (!Number.isSafeInteger(o.revision)) return `${at}/revision must be an integer`;
    let t: number;
    try {
      t = instant(o.observedAt as string, `${at}/observedAt`);
    } catch (e) {
      return (e as Error).message;
    }
    const cur = { t, check: o.check as string, vantage: o.vantage as string };
    if (prev && (prev.t > cur.t || (prev.t === cur.t && (prev.check > cur.check || (prev.check === cur.check && prev.vantage > cur.vantage))))) return `${at} is out of the bundle's order (observedAt, check, vantage)`;
    prev = cur;
  }
  for (const [i, r] of s.revisions.entries()) {
    if (!isObj(r) || !Number.isSafeInteger(r.revision) || !isTime(r.startedAt)) return `/subject/revisions/${i} must carry revision and startedAt`;
  }
  return null;
}

const HEX64 = /^[0-9a-f]{64}$/;
const LETTERS = /^[-pfnuPFNU]*$/;
const OUTCOME_OF: Record<string, Obs["outcome"]> = { p: "pass", f: "fail", n: "na", u: "unmeasured" };

/** Format 2's shape, and its rows read as the engine's subject (or the pointer of the first thing wrong). */
function readBundle2(b: Record<string, unknown>): { subject: Subject; observations: number } | string {
  if (!isObj(b.endpoint)) return "/endpoint is required";
  const r = b.rubric;
  if (!isObj(r) || ["ref", "reading", "sha256", "readingSha256"].some((k) => typeof r[k] !== "string")) return "/rubric must carry ref, reading, sha256 and readingSha256";
  if (!isObj(b.scoring) || !isTime(b.scoring.now) || !Number.isSafeInteger(b.scoring.seed)) return "/scoring must carry now and seed";
  if (b.scoring.bandOptions !== undefined && !isObj(b.scoring.bandOptions)) return "/scoring/bandOptions must be an object";
  if (!Array.isArray(b.checks) || b.checks.some((c) => typeof c !== "string")) return "/checks must be the rubric's check ids";
  if (!Array.isArray(b.revisions) || !Array.isArray(b.rows)) return "/revisions and /rows are required";
  const rc = b.receipts;
  if (!isObj(rc) || typeof rc.root !== "string" || !HEX64.test(rc.root) || typeof rc.sha256 !== "string" || !HEX64.test(rc.sha256) || !Number.isSafeInteger(rc.leaves) || (rc.leaves as number) < 0) return "/receipts must carry root, leaves and sha256";
  for (const [i, v] of b.revisions.entries()) if (!isObj(v) || !Number.isSafeInteger(v.revision) || !isTime(v.startedAt)) return `/revisions/${i} must carry revision and startedAt`;
  const checks = b.checks as string[];
  const observations: Obs[] = [];
  let prev: { t: number; vantage: string; revision: number } | null = null;
  for (const [i, row] of (b.rows as unknown[]).entries()) {
    const at = `/rows/${i}`;
    if (!Array.isArray(row) || row.length !== 5) return `${at} must be [instant, vantage, revision, letters, values]`;
    const [observedAt, vantage, revision, letters, values] = row as [unknown, unknown, unknown, unknown, unknown];
    if (typeof observedAt !== "string") return `${at}/0 must be an instant`;
    let t: number;
    try {
      t = instant(observedAt, `${at}/0`);
    } catch (e) {
      return (e as Error).message;
    }
    if (new Date(t).toISOString() !== observedAt) return `${at}/0 must be written as toISOString writes it`;
    if (typeof vantage !== "string") return `${at}/1 must be a string (the vantage)`;
    if (!Number.isSafeInteger(revision)) return `${at}/2 must be an integer (the revision)`;
    if (typeof letters !== "string" || letters.length !== checks.length || !LETTERS.test(letters)) return `${at}/3 must be one letter (p f n u, upper case with a value, - for none) per check of /checks`;
    if (!Array.isArray(values) || values.some((v) => typeof v !== "number" || !Number.isFinite(v))) return `${at}/4 must be an array of numbers`;
    const cur = { t, vantage, revision: revision as number };
    if (prev && (prev.t > cur.t || (prev.t === cur.t && (prev.vantage > cur.vantage || (prev.vantage === cur.vantage && prev.revision > cur.revision))))) return `${at} is out of the bundle's order (instant, vantage, revision)`;
    prev = cur;
    let v = 0;
    const before = observations.length;
    for (let j = 0; j < letters.length; j++) {
      const ch = letters[j];
      if (ch === "-") continue;
      const lower = ch.toLowerCase();
      const value = ch === lower ? null : (values[v++] as number | undefined);
      if (value === undefined) return `${at}/4 has fewer values than upper-case letters`;
      observations.push({ check: checks[j], outcome: OUTCOME_OF[lower], value, observedAt, revision: revision as number });
    }
    if (v !== values.length) return `${at}/4 has more values than upper-case letters`;
    if (observations.length === before) return `${at} holds no observation`;
  }
  return { subject: { observations, revisions: b.revisions as Subject["revisions"] }, observations: observations.length };
}

/** The receipts document against the bundle's commitment: shape, every entry on an observation of the bundle, in order, the root, the count, the hash. */
function receiptsProblem(input: unknown, b: Bundle2, endpointId: string): string | null {
  let doc = input;
  let hash: string | null = null;
  if (typeof doc === "string") {
    hash = sha256Hex(Buffer.from(doc, "utf8"));
    try {
      doc = JSON.parse(doc);
    } catch (e) {
      return `the receipts are not JSON: ${(e as Error).message}`;
    }
  }
  if (!isObj(doc) || doc._type !== RECEIPTS_TYPE) return `the receipts document's /_type must be "${RECEIPTS_TYPE}"`;
  if (doc.endpointId !== endpointId) return `the receipts are of endpoint ${String(doc.endpointId)}, not ${endpointId}`;
  if (!Array.isArray(doc.receipts)) return "/receipts must be an array";
  const col = new Map(b.checks.map((c, j) => [c, j]));
  let last = -1;
  for (const [i, e] of doc.receipts.entries()) {
    if (!isObj(e) || !Number.isSafeInteger(e.row) || typeof e.check !== "string" || !isObj(e.receipt)) return `receipt /receipts/${i} must carry row, check and receipt`;
    const j = col.get(e.check);
    const row = b.rows[e.row as number];
    if (j === undefined || !row || row[3][j] === "-") return `receipt /receipts/${i} names row ${e.row} check ${e.check}, no observation of the bundle`;
    const pos = (e.row as number) * b.checks.length + j;
    if (pos <= last) return `receipt /receipts/${i} is out of order or repeated (row, check)`;
    last = pos;
  }
  const root = receiptsRoot(doc.receipts);
  if (root !== b.receipts.root) return `the receipts' Merkle root is ${root}, the bundle commits to ${b.receipts.root} (a receipt changed, added or deleted)`;
  if (doc.receipts.length !== b.receipts.leaves) return `${doc.receipts.length} receipts, the bundle commits to ${b.receipts.leaves}`;
  if (doc.root !== b.receipts.root) return `the receipts document names root ${String(doc.root)}, the bundle ${b.receipts.root}`;
  hash ??= canonicalSha256(doc);
  if (hash !== b.receipts.sha256) {
    const canonical = canonicalSha256(doc);
    if (canonical !== b.receipts.sha256) return `the receipts document hashes to ${canonical}, the bundle names ${b.receipts.sha256}`;
  }
  return null;
}

const same = (a: unknown, b: unknown) => canonicalize(a) === canonicalize(b);

export function verifyAttestation(input: VerifyInput): Report {
  const checks: Check[] = [];
  const at = input.at ?? new Date();
  const pass = (name: string, detail: string) => void checks.push({ name, status: "pass", detail });
  const fail = (code: Code, name: string, detail: string, extra: Partial<Report> = {}): Report => {
    checks.push({ name, status: "fail", detail });
    return { ok: false, code, detail, checks, ...extra };
  };

  // 1. The envelope and its signature, before anything it says is read.
  const keys = parseKeySet(input.keys);
  if (typeof keys === "string") return fail("input", "keys", keys);
  const env = (isObj(input.envelope) && isObj(input.envelope.envelope) ? input.envelope.envelope : input.envelope) as Envelope;
  if (!isObj(env) || typeof env.payloadType !== "string" || !Array.isArray(env.signatures) || env.signatures.length === 0) return fail("signature", "envelope", "not a DSSE envelope {payloadType, payload, signatures}");
  if (env.payloadType !== PAYLOAD_TYPE) return fail("signature", "payload_type", `payloadType is "${env.payloadType}", not "${PAYLOAD_TYPE}"`);
  const payload = b64(env.payload);
  if (!payload) return fail("signature", "envelope", "/payload is not canonical base64");
  const message = pae(env.payloadType, payload);
  let key: PublicKey | null = null;
  let badSig: string | null = null;
  for (const s of env.signatures) {
    const k = isObj(s) ? keys.find((x) => x.keyid === s.keyid) : undefined;
    if (!k) continue;
    const sig = b64(s.sig);
    if (sig && edVerifies(b64(k.publicKey)!, message, sig)) {
      key = k;
      break;
    }
    badSig = k.keyid;
  }
  if (!key) {
    if (badSig) return fail("signature", "signature", `the Ed25519 signature by key ${badSig} does not verify over PAE(payloadType, payload)`);
    return fail("unknown_key", "key", `no signature by a key of the set (signed by ${env.signatures.map((s) => (isObj(s) ? String(s.keyid) : "?")).join(", ")}; the set has ${keys.map((k) => k.keyid).join(", ") || "none"})`);
  }
  pass("signature", `Ed25519 over PAE by key ${key.keyid}`);

  // 2. The statement, its key's window and its own.
  let statement: Statement;
  try {
    statement = JSON.parse(payload.toString("utf8"));
  } catch {
    return fail("statement_invalid", "statement", "the payload is not JSON");
  }
  const problem = statementProblem(statement);
  if (problem) return fail("statement_invalid", "statement", problem);
  if (canonicalize(statement) !== payload.toString("utf8")) return fail("statement_invalid", "statement", "the payload is not the statement's canonical JSON (RFC 8785)");
  pass("statement", `${statement._type} for endpoint ${statement.endpoint.id}`);
  const issued = Date.parse(statement.issuedAt);
  const nb = Date.parse(key.notBefore);
  const na = key.notAfter === null ? Infinity : Date.parse(key.notAfter);
  if (issued < nb || issued > na) return fail("key_not_valid", "key_validity", `issued ${statement.issuedAt}; key ${key.keyid} is valid ${key.notBefore} – ${key.notAfter ?? "open"}`, { statement });
  pass("key_validity", `key ${key.keyid} valid at ${statement.issuedAt}`);
  if (issued > at.getTime() + SKEW_MS) return fail("not_yet_valid", "issued", `issued ${statement.issuedAt}, after ${at.toISOString()}`, { statement });
  if (Date.parse(statement.expiresAt) <= at.getTime()) return fail("expired", "expiry", `expired ${statement.expiresAt} (verifying as of ${at.toISOString()})`, { statement });
  pass("expiry", `valid ${statement.issuedAt} – ${statement.expiresAt} at ${at.toISOString()}`);

  // 3. What the caller is about to pay.
  const ex = input.expect ?? {};
  const pay = statement.payment;
  const wanted: Array<[string, string | undefined, unknown]> = [
    ["endpoint id", ex.endpointId, statement.endpoint.id],
    ["url", ex.url, statement.endpoint.url],
    ["method", ex.method?.toUpperCase(), statement.endpoint.method.toUpperCase()],
    ["payTo", ex.payTo?.toLowerCase(), pay?.payTo?.toLowerCase()],
    ["network", ex.network, pay?.network],
    ["asset", ex.asset?.toLowerCase(), pay?.asset?.toLowerCase()],
    ["amount", ex.amount, pay?.amount],
  ];
  for (const [name, want, got] of wanted) {
    if (want !== undefined && want !== got) return fail("endpoint_mismatch", "expected", `the attestation's ${name} is ${String(got ?? "none")}, not ${want}`, { statement });
  }

  // 4. The bundle is the one attested, of the same endpoint.
  // Bytes that hash to the attested value are the canonical bytes that were hashed (SHA-256 is
  // collision resistant), so they parse to the attested value; any other spelling is canonicalised.
  let value = input.bundle;
  let hash: string | null = null;
  if (typeof value === "string") {
    const raw = sha256Hex(Buffer.from(value, "utf8"));
    try {
      value = JSON.parse(value);
    } catch (e) {
      return fail("bundle_invalid", "bundle", `not JSON: ${(e as Error).message}`, { statement });
    }
    if (raw === statement.evidence.sha256) hash = raw;
  }
  try {
    hash ??= canonicalSha256(value);
  } catch (e) {
    return fail("bundle_invalid", "bundle", `not canonicalisable: ${(e as Error).message}`, { statement });
  }
  if (hash !== statement.evidence.sha256) return fail("bundle_hash", "bundle_hash", `the bundle's canonical SHA-256 is ${hash}, the attestation names ${statement.evidence.sha256}`, { statement });
  pass("bundle_hash", hash);
  const v2 = isObj(value) && value._type === BUNDLE_TYPE_2;
  if (!v2) return verifyRest1(value, statement, input, checks, fail, pass);
  const read = readBundle2(value as Record<string, unknown>);
  if (typeof read === "string") return fail("bundle_invalid", "bundle", read, { statement });
  const bundle = value as unknown as Bundle2;
  if (!same(bundle.endpoint, statement.endpoint)) return fail("endpoint_mismatch", "endpoint", `the bundle is of ${canonicalize(bundle.endpoint)}, the attestation of ${canonicalize(statement.endpoint)}`, { statement });
  pass("endpoint", `${statement.endpoint.method} ${statement.endpoint.url} (${statement.endpoint.id})`);

  // 5. The rubric and reading: named by pin, this verifier's own copies used.
  const r = bundle.rubric;
  if (r.ref !== statement.rubric.ref || r.reading !== statement.rubric.reading) return fail("rubric_hash", "rubric", `the bundle names ${r.ref} ${r.reading}, the attestation ${statement.rubric.ref} ${statement.rubric.reading}`, { statement });
  if (!(r.ref in RUBRIC_PINS)) return fail("unknown_rubric", "rubric", `rubric ${r.ref} is not one this verifier ships (it ships ${Object.keys(RUBRIC_PINS).join(", ")}): update the verifier`, { statement });
  if (!(r.reading in READING_PINS) || !r.reading.startsWith(`${r.ref}/`)) return fail("unknown_rubric", "rubric", `reading ${r.reading} is not one this verifier ships (it ships ${Object.keys(READING_PINS).join(", ")}): update the verifier`, { statement });
  if (r.sha256 !== RUBRIC_PINS[r.ref] || statement.rubric.sha256 !== RUBRIC_PINS[r.ref]) return fail("rubric_hash", "rubric", `rubric ${r.ref} is pinned as ${RUBRIC_PINS[r.ref]}; the bundle names ${r.sha256}, the attestation ${statement.rubric.sha256}`, { statement });
  if (r.readingSha256 !== READING_PINS[r.reading] || statement.rubric.readingSha256 !== READING_PINS[r.reading]) return fail("rubric_hash", "rubric", `reading ${r.reading} is pinned as ${READING_PINS[r.reading]}; the bundle names ${r.readingSha256}, the attestation ${statement.rubric.readingSha256}`, { statement });
  const doc = pinnedRubric(r.ref);
  const semantics = pinnedReading(r.reading).semantics;
  const columns = doc.checks.map((c) => c.id);
  if (!same(bundle.checks, columns)) return fail("bundle_invalid", "bundle", `/checks must be ${r.ref}'s checks in its order (${columns.join(" ")})`, { statement });
  pass("rubric", `${r.reading} (rubric ${r.sha256.slice(0, 12)}…, reading ${r.readingSha256.slice(0, 12)}…), the verifier's pinned copies`);

  // 5b. The receipts, when given: every one committed by the bundle's root.
  if (input.receipts !== undefined) {
    const rp = receiptsProblem(input.receipts, bundle, statement.endpoint.id);
    if (rp) return fail("receipts", "receipts", rp, { statement });
    pass("receipts", `${bundle.receipts.leaves} receipts under root ${bundle.receipts.root.slice(0, 12)}…`);
  } else checks.push({ name: "receipts", status: "skipped", detail: "not given (the grade does not read them)" });

  // 6. The grade, recomputed.
  if (read.observations !== statement.evidence.observations) return fail("mismatch:observations", "observations", `the bundle holds ${read.observations} observations, the attestation says ${statement.evidence.observations}`, { statement });
  return recompute(doc, semantics, read.subject, bundle.scoring, read.observations, statement, checks, fail);
}

type Fail = (code: Code, name: string, detail: string, extra?: Partial<Report>) => Report;

/** Format 1: the rubric and reading documents inside the bundle, one object per observation. */
function verifyRest1(value: unknown, statement: Statement, input: VerifyInput, checks: Check[], fail: Fail, pass: (name: string, detail: string) => void): Report {
  const bp = bundleProblem(value);
  if (bp) return fail("bundle_invalid", "bundle", bp, { statement });
  const bundle = value as Bundle;
  if (!same(bundle.endpoint, statement.endpoint)) return fail("endpoint_mismatch", "endpoint", `the bundle is of ${canonicalize(bundle.endpoint)}, the attestation of ${canonicalize(statement.endpoint)}`, { statement });
  const stray = bundle.subject.observations.findIndex((o) => o.endpointId !== statement.endpoint.id);
  if (bundle.subject.endpointId !== statement.endpoint.id || stray >= 0) return fail("endpoint_mismatch", "endpoint", stray >= 0 ? `/subject/observations/${stray} is of endpoint ${bundle.subject.observations[stray].endpointId}` : `/subject/endpointId is ${bundle.subject.endpointId}`, { statement });
  pass("endpoint", `${statement.endpoint.method} ${statement.endpoint.url} (${statement.endpoint.id})`);

  // 5. The rubric and reading are the pinned documents, and the ones attested.
  const r = bundle.rubric;
  if (r.ref === statement.rubric.ref && r.reading === statement.rubric.reading && (!(r.ref in RUBRIC_PINS) || !(r.reading in READING_PINS))) {
    return fail("unknown_rubric", "rubric", `${r.ref in RUBRIC_PINS ? `reading ${r.reading}` : `rubric ${r.ref}`} is not one this verifier ships (it ships ${[...Object.keys(RUBRIC_PINS), ...Object.keys(READING_PINS)].join(", ")}): update the verifier`, { statement });
  }
  const docHash = canonicalSha256(r.document);
  const readingHash = canonicalSha256(r.readingDocument);
  const rubricWrong =
    r.ref !== statement.rubric.ref || r.reading !== statement.rubric.reading ? `the bundle names ${r.ref} ${r.reading}, the attestation ${statement.rubric.ref} ${statement.rubric.reading}`
    : docHash !== RUBRIC_PINS[r.ref] || docHash !== r.sha256 || docHash !== statement.rubric.sha256 ? `the rubric document hashes to ${docHash}; pinned ${RUBRIC_PINS[r.ref]}, bundle ${r.sha256}, attestation ${statement.rubric.sha256}`
    : !r.reading.startsWith(`${r.ref}/`) ? `reading ${r.reading} is not a reading of ${r.ref}`
    : readingHash !== READING_PINS[r.reading] || readingHash !== r.readingSha256 || readingHash !== statement.rubric.readingSha256 ? `the reading document hashes to ${readingHash}; pinned ${READING_PINS[r.reading]}, bundle ${r.readingSha256}, attestation ${statement.rubric.readingSha256}`
    : null;
  if (rubricWrong) return fail("rubric_hash", "rubric", rubricWrong, { statement });
  pass("rubric", `${r.reading} (rubric ${docHash.slice(0, 12)}…, reading ${readingHash.slice(0, 12)}…)`);
  if (input.receipts !== undefined) checks.push({ name: "receipts", status: "skipped", detail: "a format-1 bundle carries its receipts inside it (covered by its hash)" });

  // 6. The grade, recomputed.
  if (bundle.subject.observations.length !== statement.evidence.observations) return fail("mismatch:observations", "observations", `the bundle holds ${bundle.subject.observations.length} observations, the attestation says ${statement.evidence.observations}`, { statement });
  return recompute(r.document, r.readingDocument.semantics, bundle.subject, bundle.scoring, bundle.subject.observations.length, statement, checks, fail);
}

function recompute(doc: RubricDoc, semantics: Semantics, subject: Subject, scoring: Bundle["scoring"], observations: number, statement: Statement, checks: Check[], fail: Fail): Report {
  if (scoring.now !== statement.scoring.now || scoring.seed !== statement.scoring.seed) return fail("mismatch:scoring", "scoring", `the bundle scores at ${scoring.now} with seed ${scoring.seed}, the attestation says ${statement.scoring.now}, ${statement.scoring.seed}`, { statement });
  let got: Grade;
  try {
    got = gradeSubject(doc, semantics, subject, scoring);
  } catch (e) {
    return fail("bundle_invalid", "recompute", (e as Error).message, { statement });
  }
  const g = statement.grade;
  const bandOf = (b: Statement["grade"]["band"], mine: Grade["band"]) => (b === null || mine === null ? b === mine : b.low === mine.low && b.high === mine.high && (b.width === undefined || b.width === mine.width));
  const fields: Array<[Code, boolean, string]> = [
    ["mismatch:score", g.score === got.score, `score ${g.score} attested, ${got.score} recomputed`],
    ["mismatch:grade", g.grade === got.grade, `grade ${g.grade} attested, ${got.grade} recomputed`],
    ["mismatch:band", bandOf(g.band, got.band), `band ${JSON.stringify(g.band)} attested, ${JSON.stringify(got.band)} recomputed`],
    ["mismatch:confidence", g.confidence === got.confidence, `confidence ${g.confidence} attested, ${got.confidence} recomputed`],
    ["mismatch:verdict", g.verdict === got.verdict, `verdict ${g.verdict} attested, ${got.verdict} recomputed`],
  ];
  for (const [code, ok, detail] of fields) checks.push({ name: code.slice(9), status: ok ? "pass" : "fail", detail });
  const bad = fields.find((f) => !f[1]);
  if (bad) return { ok: false, code: bad[0], detail: bad[2], checks, statement, recomputed: got };
  const band = got.band ? `${got.band.low}–${got.band.high}` : "no band";
  return { ok: true, code: "ok", detail: `grade ${got.grade ?? "none"} ${got.score ?? ""} (${band}), ${got.confidence ?? "no"} confidence, ${got.verdict}: recomputed from ${observations} observations`, checks, statement, recomputed: got };
}
