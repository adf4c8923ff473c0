/**
 * DSSE (Dead Simple Signing Envelope, https://github.com/secure-systems-lab/dsse) for badge
 * statements. We sign PAE(payloadType, payload) — never the SVG bytes, which any optimiser or CDN may
 * rewrite — with Ed25519, so the signature covers both the statement and what kind of thing it
 * claims to be (no type confusion between payloads).
 */
import { createPrivateKey, createPublicKey, sign as edSign, verify as edVerify, type KeyObject } from "node:crypto";
import { canonicalJson } from "./canonical-json";
import type { BadgeStatement } from "./statement";
import { parseJsonStrict } from "./strict-json";

export const BADGE_PAYLOAD_TYPE = "application/vnd.tollgate.badge-statement+json; version=1";

export interface DsseSignature {
  keyid: string;
  sig: string;
}

export interface DsseEnvelope {
  payloadType: string;
  payload: string;
  signatures: DsseSignature[];
}

/**
 * Pre-Authentication Encoding:
 *   "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body
 * where LEN is the byte length in ASCII decimal without leading zeros, and type is UTF-8.
 */
export function pae(payloadType: string, body: Uint8Array): Buffer {
  const type = Buffer.from(payloadType, "utf8");
  const head = Buffer.from(`DSSEv1 ${type.length} `, "ascii");
  const mid = Buffer.from(` ${body.length} `, "ascii");
  return Buffer.concat([head, type, mid, body]);
}

export interface Signer {
  keyid: string;
  privateKey: KeyObject;
}

/** Sign arbitrary payload bytes into an envelope with one signature. */
export function signEnvelope(payload: Uint8Array, payloadType: string, signer: Signer): DsseEnvelope {
  // Ed25519 takes no digest parameter (null): it hashes internally, and is deterministic.
  const sig = edSign(null, pae(payloadType, payload), signer.privateKey);
  return {
    payloadType,
    payload: Buffer.from(payload).toString("base64"),
    signatures: [{ keyid: signer.keyid, sig: sig.toString("base64") }],
  };
}

// Which statement object each envelope made here was signed from, so the renderer can confirm an
// envelope belongs to the statement it is drawing without canonicalising it a second time. Only
// deeply frozen statements (what buildStatement returns) are remembered: a mutable one could change
// after signing. Weak: it keeps neither alive. Anything else takes the full comparison.
const signedFrom = new WeakMap<DsseEnvelope, BadgeStatement>();
const deepFrozen = (s: BadgeStatement) => Object.isFrozen(s) && Object.isFrozen(s.listing) && Object.isFrozen(s.result);

/** Canonicalise (RFC 8785) and sign a badge statement. The envelope is frozen. */
export function signStatement(statement: BadgeStatement, signer: Signer): DsseEnvelope {
  const envelope = Object.freeze(signEnvelope(Buffer.from(canonicalJson(statement), "utf8"), BADGE_PAYLOAD_TYPE, signer));
  if (deepFrozen(statement)) signedFrom.set(envelope, statement);
  return envelope;
}

/** True when `envelope`'s payload is exactly the canonical JSON of `statement`. */
export function envelopeCarries(envelope: DsseEnvelope, statement: BadgeStatement): boolean {
  if (signedFrom.get(envelope) === statement) return true;
  return envelope.payload === Buffer.from(canonicalJson(statement), "utf8").toString("base64");
}

/** True when `sig` is a valid Ed25519 signature by `publicKey` over PAE(payloadType, payload). */
export function verifyPae(payloadType: string, payload: Uint8Array, sig: Uint8Array, publicKey: KeyObject): boolean {
  if (sig.length !== 64) return false;
  try {
    return edVerify(null, pae(payloadType, payload), publicKey, sig);
  } catch {
    return false;
  }
}

const B64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * Strict standard base64 (RFC 4648 §4, padded). Node's decoder skips junk silently, so we check the
 * alphabet and that re-encoding gives the same text: one envelope, one spelling.
 */
export function decodeBase64Strict(s: string): Buffer | null {
  if (!B64.test(s)) return null;
  const bytes = Buffer.from(s, "base64");
  return bytes.toString("base64") === s ? bytes : null;
}

export type ParseEnvelopeResult = { ok: true; envelope: DsseEnvelope; payload: Buffer } | { ok: false; message: string };

/**
 * Parse and shape-check an envelope (JSON text or an already-parsed value). Unknown fields are
 * refused, and so is JSON text with a repeated member name (parsed strictly: JSON.parse would keep
 * the last `"payload"` where another verifier might keep the first).
 */
export function parseEnvelope(input: string | unknown): ParseEnvelopeResult {
  let v: unknown = input;
  if (typeof input === "string") {
    try {
      v = parseJsonStrict(input);
    } catch (e) {
      return { ok: false, message: `envelope is not JSON: ${(e as Error).message}` };
    }
  }
  if (typeof v !== "object" || v === null || Array.isArray(v)) return { ok: false, message: "envelope is not an object" };
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o)) if (!["payloadType", "payload", "signatures"].includes(k)) return { ok: false, message: `unexpected field /${k}` };
  if (typeof o.payloadType !== "string") return { ok: false, message: "/payloadType must be a string" };
  if (typeof o.payload !== "string") return { ok: false, message: "/payload must be a string" };
  const payload = decodeBase64Strict(o.payload);
  if (!payload) return { ok: false, message: "/payload is not canonical base64" };
  if (!Array.isArray(o.signatures) || o.signatures.length === 0 || o.signatures.length > 8) return { ok: false, message: "/signatures must be an array of 1–8 signatures" };
  const signatures: DsseSignature[] = [];
  for (const [i, s] of o.signatures.entries()) {
    if (typeof s !== "object" || s === null || Array.isArray(s)) return { ok: false, message: `/signatures/${i} is not an object` };
    const so = s as Record<string, unknown>;
    for (const k of Object.keys(so)) if (k !== "keyid" && k !== "sig") return { ok: false, message: `unexpected field /signatures/${i}/${k}` };
    if (typeof so.keyid !== "string" || so.keyid.length === 0) return { ok: false, message: `/signatures/${i}/keyid must be a non-empty string` };
    if (typeof so.sig !== "string" || !decodeBase64Strict(so.sig)) return { ok: false, message: `/signatures/${i}/sig is not canonical base64` };
    signatures.push({ keyid: so.keyid, sig: so.sig });
  }
  return { ok: true, envelope: { payloadType: o.payloadType, payload: o.payload, signatures }, payload };
}

/** Ed25519 public key from its raw 32 bytes (as published in the key set). */
export function ed25519PublicKeyFromRaw(raw: Uint8Array): KeyObject {
  if (raw.length !== 32) throw new RangeError("an Ed25519 public key is 32 bytes");
  // SPKI DER for Ed25519 is a fixed 12-byte prefix (RFC 8410) followed by the key.
  const spki = Buffer.concat([Buffer.from("302a300506032b6570032100", "hex"), raw]);
  return createPublicKey({ key: spki, format: "der", type: "spki" });
}

/** Ed25519 private key from a 32-byte seed (RFC 8032 "secret key"). */
export function ed25519PrivateKeyFromSeed(seed: Uint8Array): KeyObject {
  if (seed.length !== 32) throw new RangeError("an Ed25519 seed is 32 bytes");
  // PKCS#8 DER for Ed25519 is a fixed 16-byte prefix (RFC 8410) followed by the seed.
  const pkcs8 = Buffer.concat([Buffer.from("302e020100300506032b657004220420", "hex"), seed]);
  return createPrivateKey({ key: pkcs8, format: "der", type: "pkcs8" });
}

/** The raw 32 bytes of an Ed25519 public key. */
export function rawPublicKey(key: KeyObject): Buffer {
  const pub = key.type === "private" ? createPublicKey(key) : key;
  if (pub.asymmetricKeyType !== "ed25519") throw new RangeError(`expected an Ed25519 key, got ${pub.asymmetricKeyType}`);
  const der = pub.export({ format: "der", type: "spki" });
  return der.subarray(der.length - 32);
}
