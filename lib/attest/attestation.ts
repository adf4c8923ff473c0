/**
 * The endpoint attestation (docs/ATTESTATIONS.md "The attestation"): the statement, its DSSE signature, and
 * verifyAttestation, a relying party's checks. Pure.
 */
import { canonicalJson } from "../badges/canonical-json";
import { decodeBase64Strict, ed25519PublicKeyFromRaw, parseEnvelope, signEnvelope, verifyPae, type DsseEnvelope, type Signer } from "../badges/dsse";
import type { PublicKeySet } from "../badges/keys";
import { parseJsonStrict } from "../badges/strict-json";
import type { AttestedEndpoint } from "./bundle";

export const ATTESTATION_TYPE = "tollgate.endpoint-attestation/1";
export const ATTESTATION_PAYLOAD_TYPE = "application/vnd.tollgate.endpoint-attestation+json; version=1";
/** A day, renewed by each sweep that scores the endpoint again. */
export const ATTESTATION_TTL_MS = 24 * 3_600_000;

export interface AttestedPayment {
  scheme: "exact";
  network: string;
  asset: string;
  /** Lowercase; null until a 402 or canary quote shows it (then it matches no payment). */
  payTo: string | null;
  amount: string;
}

export interface AttestationStatement {
  _type: typeof ATTESTATION_TYPE;
  endpoint: AttestedEndpoint;
  payment: AttestedPayment | null;
  grade: { score: number | null; grade: string | null; band: { low: number; high: number } | null; confidence: string | null; verdict: string };
  rubric: { ref: string; reading: string; sha256: string; readingSha256: string };
  scoring: { now: string; seed: number };
  evidence: { sha256: string; observations: number };
  issuedAt: string;
  expiresAt: string;
}

export const statementBytes = (s: AttestationStatement) => Buffer.from(canonicalJson(s), "utf8");

export function signAttestation(statement: AttestationStatement, signer: Signer): DsseEnvelope {
  return signEnvelope(statementBytes(statement), ATTESTATION_PAYLOAD_TYPE, signer);
}

export type AttestationRefusal =
  | "malformed_envelope"
  | "wrong_payload_type"
  | "malformed_statement"
  | "unknown_key"
  | "bad_signature"
  | "key_not_valid_at_issue"
  | "not_yet_valid"
  | "expired"
  | "bad_lifetime"
  | "wrong_endpoint"
  | "wrong_payment";

export interface AttestationExpectation {
  /** Every given field must equal the statement's. */
  endpoint: Partial<AttestedEndpoint>;
  /** undefined: not checked; null: expected free. */
  payment?: Omit<AttestedPayment, "payTo"> & { payTo: string } | null;
  now?: Date;
  /** On issuedAt; default 5 minutes. */
  skewMs?: number;
}

export type VerifyAttestationResult =
  | { ok: true; statement: AttestationStatement; keyid: string }
  | { ok: false; reason: AttestationRefusal; message: string; statement?: AttestationStatement };

const HEX64 = /^[0-9a-f]{64}$/;
const iso = (v: unknown): v is string => typeof v === "string" && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/.test(v) && Number.isFinite(Date.parse(v));
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const numOrNull = (v: unknown) => v === null || (typeof v === "number" && Number.isFinite(v));
const strOrNull = (v: unknown) => v === null || typeof v === "string";

/** Or the JSON pointer of the first thing wrong. */
export function statementProblem(s: unknown): string | null {
  if (!isObj(s)) return "/";
  if (s._type !== ATTESTATION_TYPE) return "/_type";
  const e = s.endpoint;
  if (!isObj(e)) return "/endpoint";
  for (const k of ["id", "listingId", "url", "method"]) if (typeof e[k] !== "string") return `/endpoint/${k}`;
  if (s.payment !== null) {
    const p = s.payment;
    if (!isObj(p)) return "/payment";
    if (p.scheme !== "exact") return "/payment/scheme";
    for (const k of ["network", "asset", "amount"]) if (typeof p[k] !== "string") return `/payment/${k}`;
    if (!strOrNull(p.payTo)) return "/payment/payTo";
    if (!/^\d+$/.test(p.amount as string)) return "/payment/amount";
  }
  const g = s.grade;
  if (!isObj(g)) return "/grade";
  if (!numOrNull(g.score)) return "/grade/score";
  if (!strOrNull(g.grade)) return "/grade/grade";
  if (g.band !== null && !(isObj(g.band) && typeof g.band.low === "number" && typeof g.band.high === "number")) return "/grade/band";
  if (!strOrNull(g.confidence)) return "/grade/confidence";
  if (typeof g.verdict !== "string") return "/grade/verdict";
  const r = s.rubric;
  if (!isObj(r) || typeof r.ref !== "string" || typeof r.reading !== "string") return "/rubric";
  if (typeof r.sha256 !== "string" || !HEX64.test(r.sha256)) return "/rubric/sha256";
  if (typeof r.readingSha256 !== "string" || !HEX64.test(r.readingSha256)) return "/rubric/readingSha256";
  const sc = s.scoring;
  if (!isObj(sc) || !iso(sc.now)) return "/scoring/now";
  if (!Number.isSafeInteger(sc.seed)) return "/scoring/seed";
  const ev = s.evidence;
  if (!isObj(ev) || typeof ev.sha256 !== "string" || !HEX64.test(ev.sha256)) return "/evidence/sha256";
  if (!Number.isSafeInteger(ev.observations) || (ev.observations as number) < 0) return "/evidence/observations";
  if (!iso(s.issuedAt)) return "/issuedAt";
  if (!iso(s.expiresAt)) return "/expiresAt";
  return null;
}

/**
 * In order, first failure answering: envelope, signature over PAE by a published key valid at issue, shape,
 * issued/expiry at `now`, then endpoint and payment.
 */
export function verifyAttestation(input: unknown, keySet: PublicKeySet, expect: AttestationExpectation): VerifyAttestationResult {
  const parsed = parseEnvelope(input);
  if (!parsed.ok) return { ok: false, reason: "malformed_envelope", message: parsed.message };
  const { envelope, payload } = parsed;
  if (envelope.payloadType !== ATTESTATION_PAYLOAD_TYPE) return { ok: false, reason: "wrong_payload_type", message: `payload type ${JSON.stringify(envelope.payloadType)} is not ${ATTESTATION_PAYLOAD_TYPE}` };

  const byId = new Map(keySet.keys.map((k) => [k.keyid, k]));
  const candidates = envelope.signatures.filter((s) => byId.has(s.keyid));
  if (candidates.length === 0) return { ok: false, reason: "unknown_key", message: `no signature by a published key (keyids: ${envelope.signatures.map((s) => s.keyid).join(", ")})` };
  const good = candidates.find((s) => {
    const raw = decodeBase64Strict(byId.get(s.keyid)!.publicKey);
    const sig = decodeBase64Strict(s.sig);
    return !!raw && !!sig && verifyPae(envelope.payloadType, payload, sig, ed25519PublicKeyFromRaw(raw));
  });
  if (!good) return { ok: false, reason: "bad_signature", message: "no signature verifies over the payload" };
  const key = byId.get(good.keyid)!;

  let statement: unknown;
  try {
    statement = parseJsonStrict(payload.toString("utf8"));
  } catch (e) {
    return { ok: false, reason: "malformed_statement", message: `payload is not JSON: ${(e as Error).message}` };
  }
  const problem = statementProblem(statement);
  if (problem) return { ok: false, reason: "malformed_statement", message: `statement is malformed at ${problem}` };
  const s = statement as AttestationStatement;

  const issued = Date.parse(s.issuedAt);
  const nb = Date.parse(key.notBefore);
  const na = key.notAfter === null ? Infinity : Date.parse(key.notAfter);
  if (issued < nb || issued > na) return { ok: false, reason: "key_not_valid_at_issue", message: `issued ${s.issuedAt}, key ${key.keyid} valid ${key.notBefore} – ${key.notAfter ?? "open"}`, statement: s };
  const now = (expect.now ?? new Date()).getTime();
  if (issued > now + (expect.skewMs ?? 300_000)) return { ok: false, reason: "not_yet_valid", message: `issued ${s.issuedAt}, in the future`, statement: s };
  if (Date.parse(s.expiresAt) <= now) return { ok: false, reason: "expired", message: `expired at ${s.expiresAt}`, statement: s };
  // Bounded, so a retired (or leaked) key cannot sign, under a backdated issuedAt, a statement that lasts as long as it likes.
  const life = Date.parse(s.expiresAt) - issued;
  if (!(life > 0 && life <= ATTESTATION_TTL_MS)) return { ok: false, reason: "bad_lifetime", message: `valid ${s.issuedAt} – ${s.expiresAt}; an attestation lives at most ${ATTESTATION_TTL_MS / 3_600_000} hours`, statement: s };
  if (Date.parse(s.scoring.now) > issued + (expect.skewMs ?? 300_000)) return { ok: false, reason: "bad_lifetime", message: `scored at ${s.scoring.now}, after it was issued (${s.issuedAt})`, statement: s };

  for (const [k, v] of Object.entries(expect.endpoint) as Array<[keyof AttestedEndpoint, string | undefined]>) {
    if (v !== undefined && s.endpoint[k] !== v) return { ok: false, reason: "wrong_endpoint", message: `endpoint.${k} is ${JSON.stringify(s.endpoint[k])}, expected ${JSON.stringify(v)}`, statement: s };
  }
  if (expect.payment !== undefined) {
    const want = expect.payment;
    if (want === null || s.payment === null) {
      if (want !== s.payment) return { ok: false, reason: "wrong_payment", message: want === null ? "the attestation names a payment; the endpoint was expected free" : "the attestation names no payment", statement: s };
    } else {
      const lower = (x: string | null) => (x === null ? null : x.toLowerCase());
      const diffs = (["scheme", "network", "amount"] as const).filter((k) => s.payment![k] !== want[k]);
      if (lower(s.payment.asset) !== want.asset.toLowerCase()) diffs.push("asset" as never);
      if (lower(s.payment.payTo) !== want.payTo.toLowerCase()) diffs.push("payTo" as never);
      if (diffs.length) return { ok: false, reason: "wrong_payment", message: `payment differs in ${diffs.join(", ")}`, statement: s };
    }
  }
  return { ok: true, statement: s, keyid: key.keyid };
}
