/**
 * Checking one Tollgate endpoint attestation (docs/ATTESTATIONS.md "The attestation") against the
 * payment about to be made: the DSSE signature by a pinned key valid at issue, the time window,
 * the endpoint's URL, every payment field, and the grade's verdict. Pure; node:crypto only.
 */
import { createPublicKey, verify as edVerify } from "node:crypto";

export const PAYLOAD_TYPE = "application/vnd.tollgate.endpoint-attestation+json; version=1";
export const STATEMENT_TYPE = "tollgate.endpoint-attestation/1";
/** Tollgate signs each attestation for 24 hours (docs/ATTESTATIONS.md); a longer one is not Tollgate's. */
export const MAX_LIFETIME_MS = 24 * 3_600_000;

export interface PinnedKey {
  keyid: string;
  alg: "Ed25519";
  publicKey: string;
  notBefore: string;
  notAfter: string | null;
}
export interface KeySet {
  keys: PinnedKey[];
}

export interface Statement {
  _type: string;
  endpoint: { id: string; listingId: string; url: string; method: string };
  payment: { scheme: string; network: string; asset: string; payTo: string | null; amount: string } | null;
  grade: { score: number | null; grade: string | null; verdict: string; confidence: string | null };
  scoring: { now: string; seed: number };
  issuedAt: string;
  expiresAt: string;
}

/** What the buyer is about to pay: the resource's URL and the x402 requirement's (or MPP charge's) terms. */
export interface PaymentTerms {
  url: string;
  /** The request's method (guard.fetch always knows it); when given, the attestation must be of this method's endpoint. */
  method?: string;
  scheme?: string;
  network: string;
  asset: string;
  payTo: string;
  amount: string;
}

export type RefusalCode =
  | "avoid"
  | "down"
  | "unlisted"
  | "unattested"
  | "listing_changed"
  | "payto_changed"
  | "price_above_listing"
  | "price_changed"
  | "network_mismatch"
  | "asset_mismatch"
  | "scheme_mismatch"
  | "free_listing"
  | "stale"
  | "expired"
  | "not_yet_valid"
  | "bad_signature"
  | "unknown_key"
  | "malformed"
  | "bad_lifetime"
  | "wrong_endpoint"
  | "tollgate_unreachable";

export interface CheckOptions {
  now: number;
  /** Verdicts refused (default avoid and down). */
  refuseVerdicts: readonly string[];
  /** Evidence older than this (the grade's scoring time) is stale even inside the statement's life. */
  maxEvidenceAgeMs: number;
  skewMs: number;
}

export type Checked = { ok: true; statement: Statement; keyid: string } | { ok: false; code: RefusalCode; message: string; statement?: Statement };

const B64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const b64 = (s: unknown) => (typeof s === "string" && B64.test(s) ? Buffer.from(s, "base64") : null);
const SPKI_PREFIX = Buffer.from("302a300506032b6570032100", "hex");

function pae(type: string, body: Buffer): Buffer {
  const t = Buffer.from(type, "utf8");
  return Buffer.concat([Buffer.from(`DSSEv1 ${t.length} `), t, Buffer.from(` ${body.length} `), body]);
}

function edVerifies(raw: Buffer, message: Buffer, sig: Buffer): boolean {
  if (raw.length !== 32 || sig.length !== 64) return false;
  try {
    return edVerify(null, message, createPublicKey({ key: Buffer.concat([SPKI_PREFIX, raw]), format: "der", type: "spki" }), sig);
  } catch {
    return false;
  }
}

/** origin + path, no query or fragment, no trailing slash: how an endpoint's URL is compared. */
export function resourceKey(url: string): string {
  const u = new URL(url);
  return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, "") || "/"}`;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const ISO = (v: unknown) => typeof v === "string" && Number.isFinite(Date.parse(v));

function shapeProblem(s: unknown): string | null {
  if (!isObj(s) || s._type !== STATEMENT_TYPE) return "/_type";
  const e = s.endpoint;
  if (!isObj(e) || typeof e.url !== "string" || typeof e.id !== "string") return "/endpoint";
  const p = s.payment;
  if (p !== null && (!isObj(p) || typeof p.network !== "string" || typeof p.asset !== "string" || typeof p.amount !== "string" || !/^\d+$/.test(p.amount) || !(p.payTo === null || typeof p.payTo === "string"))) return "/payment";
  if (!isObj(s.grade) || typeof s.grade.verdict !== "string") return "/grade";
  if (!isObj(s.scoring) || !ISO(s.scoring.now)) return "/scoring/now";
  if (!ISO(s.issuedAt)) return "/issuedAt";
  if (!ISO(s.expiresAt)) return "/expiresAt";
  return null;
}

/** The signature and the statement alone: which pinned key signed it, or why none did. */
export function openEnvelope(envelope: unknown, keys: KeySet): Checked {
  if (!isObj(envelope) || typeof envelope.payloadType !== "string" || !Array.isArray(envelope.signatures)) return { ok: false, code: "malformed", message: "the attestation is not a DSSE envelope" };
  if (envelope.payloadType !== PAYLOAD_TYPE) return { ok: false, code: "malformed", message: `payload type ${JSON.stringify(envelope.payloadType)} is not an endpoint attestation` };
  const payload = b64(envelope.payload);
  if (!payload) return { ok: false, code: "malformed", message: "the envelope's payload is not base64" };
  const byId = new Map(keys.keys.map((k) => [k.keyid, k]));
  const sigs = (envelope.signatures as unknown[]).filter((s): s is { keyid: string; sig: string } => isObj(s) && typeof s.keyid === "string" && byId.has(s.keyid));
  if (sigs.length === 0) return { ok: false, code: "unknown_key", message: "no signature is by a pinned Tollgate key" };
  const message = pae(PAYLOAD_TYPE, payload);
  const good = sigs.find((s) => {
    const raw = b64(byId.get(s.keyid)!.publicKey);
    const sig = b64(s.sig);
    return !!raw && !!sig && edVerifies(raw, message, sig);
  });
  if (!good) return { ok: false, code: "bad_signature", message: "the attestation's signature does not verify under the pinned key" };
  let statement: unknown;
  try {
    statement = JSON.parse(payload.toString("utf8"));
  } catch {
    return { ok: false, code: "malformed", message: "the signed payload is not JSON" };
  }
  const problem = shapeProblem(statement);
  if (problem) return { ok: false, code: "malformed", message: `the signed statement is malformed at ${problem}` };
  const s = statement as Statement;
  const key = byId.get(good.keyid)!;
  const issued = Date.parse(s.issuedAt);
  if (issued < Date.parse(key.notBefore) || (key.notAfter !== null && issued > Date.parse(key.notAfter))) return { ok: false, code: "bad_signature", message: `key ${key.keyid} was not valid when the statement was issued (${s.issuedAt})`, statement: s };
  // Bounded, so a retired (or leaked) key cannot sign, under a backdated issuedAt, a statement that lasts as long as it likes.
  const life = lifetimeProblem(s);
  if (life) return { ok: false, code: "bad_lifetime", message: life, statement: s };
  return { ok: true, statement: s, keyid: key.keyid };
}

/**
 * Why a statement's times cannot be Tollgate's: it expires more than MAX_LIFETIME_MS after its issue (or not after
 * it), or its grade was scored after it was issued. Null when they can.
 */
export function lifetimeProblem(s: { issuedAt: string; expiresAt: string; scoring: { now: string } }, skewMs = 300_000): string | null {
  const issued = Date.parse(s.issuedAt);
  const life = Date.parse(s.expiresAt) - issued;
  if (!(life > 0 && life <= MAX_LIFETIME_MS)) return `the attestation is valid from ${s.issuedAt} to ${s.expiresAt}; Tollgate signs for at most ${MAX_LIFETIME_MS / 3_600_000} hours`;
  if (Date.parse(s.scoring.now) > issued + skewMs) return `the grade was scored at ${s.scoring.now}, after the attestation was issued (${s.issuedAt})`;
  return null;
}

const usd = (amount: string) => `${amount} base units`;

/** The statement against the payment about to be made; the first difference is the answer. */
export function checkStatement(s: Statement, terms: PaymentTerms, o: CheckOptions): { ok: true } | { ok: false; code: RefusalCode; message: string } {
  const at = (ms: number) => new Date(ms).toISOString();
  if (Date.parse(s.issuedAt) > o.now + o.skewMs) return { ok: false, code: "not_yet_valid", message: `the attestation was issued in the future (${s.issuedAt})` };
  if (Date.parse(s.expiresAt) <= o.now) return { ok: false, code: "expired", message: `Tollgate's attestation for this endpoint expired at ${s.expiresAt}; nothing current vouches for it` };
  if (o.now - Date.parse(s.scoring.now) > o.maxEvidenceAgeMs) return { ok: false, code: "stale", message: `the grade rests on evidence scored ${s.scoring.now}, older than allowed at ${at(o.now)}` };
  if (resourceKey(s.endpoint.url) !== resourceKey(terms.url)) return { ok: false, code: "wrong_endpoint", message: `the attestation is for ${s.endpoint.url}, not ${resourceKey(terms.url)}: another endpoint's attestation` };
  if (terms.method !== undefined && s.endpoint.method !== terms.method.toUpperCase()) return { ok: false, code: "wrong_endpoint", message: `the attestation is for ${s.endpoint.method} ${s.endpoint.url}, not the ${terms.method.toUpperCase()} about to be paid` };
  if (o.refuseVerdicts.includes(s.grade.verdict)) {
    const code: RefusalCode = s.grade.verdict === "down" ? "down" : "avoid";
    return { ok: false, code, message: `Tollgate's grade for this endpoint is ${s.grade.grade ?? "ungraded"} with verdict ${s.grade.verdict}: its evidence says not to pay it` };
  }
  const p = s.payment;
  if (p === null) return { ok: false, code: "free_listing", message: "the endpoint is listed as free, yet it asks for a payment" };
  if (terms.scheme !== undefined && terms.scheme !== p.scheme) return { ok: false, code: "scheme_mismatch", message: `the payment's scheme is ${terms.scheme}, the listing's ${p.scheme}` };
  if (terms.network !== p.network) return { ok: false, code: "network_mismatch", message: `the payment is on ${terms.network}, the listing's price is on ${p.network}` };
  if (terms.asset.toLowerCase() !== p.asset.toLowerCase()) return { ok: false, code: "asset_mismatch", message: `the payment is in asset ${terms.asset}, the listing's price in ${p.asset}` };
  if (p.payTo === null || terms.payTo.toLowerCase() !== p.payTo.toLowerCase()) return { ok: false, code: "payto_changed", message: `the payment goes to ${terms.payTo}, but the graded endpoint was paid at ${p.payTo ?? "(no payee seen yet)"}` };
  if (!/^\d+$/.test(terms.amount)) return { ok: false, code: "malformed", message: `the amount ${JSON.stringify(terms.amount)} is not a whole number of base units` };
  const ask = BigInt(terms.amount);
  const listed = BigInt(p.amount);
  if (ask > listed) return { ok: false, code: "price_above_listing", message: `the endpoint asks ${usd(terms.amount)}, above its listed ${usd(p.amount)}` };
  if (ask !== listed) return { ok: false, code: "price_changed", message: `the endpoint asks ${usd(terms.amount)}, not its listed ${usd(p.amount)}` };
  return { ok: true };
}
