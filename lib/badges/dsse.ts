/** DSSE envelopes for badge statements: Ed25519 over PAE(payloadType, payload), never over the SVG bytes (docs/BADGES.md "The envelope"). */
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

/** PAE: "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body, LEN in ASCII decimal bytes. */
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

export function signEnvelope(payload: Uint8Array, payloadType: string, signer: Signer): DsseEnvelope {
  // Ed25519 hashes internally: no digest parameter.
  const sig = edSign(null, pae(payloadType, payload), signer.privateKey);
  return {
    payloadType,
    payload: Buffer.from(payload).toString("base64"),
    signatures: [{ keyid: signer.keyid, sig: sig.toString("base64") }],
  };
}

// Envelope → the deeply frozen statement it was signed from, so the renderer skips a second
// canonicalisation. Mutable statements are not remembered (they could change after signing).
const signedFrom = new WeakMap<DsseEnvelope, BadgeStatement>();
const deepFrozen = (s: BadgeStatement) => Object.isFrozen(s) && Object.isFrozen(s.listing) && Object.isFrozen(s.result);

export function signStatement(statement: BadgeStatement, signer: Signer): DsseEnvelope {
  const envelope = Object.freeze(signEnvelope(Buffer.from(canonicalJson(statement), "utf8"), BADGE_PAYLOAD_TYPE, signer));
  if (deepFrozen(statement)) signedFrom.set(envelope, statement);
  return envelope;
}

export function envelopeCarries(envelope: DsseEnvelope, statement: BadgeStatement): boolean {
  if (signedFrom.get(envelope) === statement) return true;
  return envelope.payload === Buffer.from(canonicalJson(statement), "utf8").toString("base64");
}

export function verifyPae(payloadType: string, payload: Uint8Array, sig: Uint8Array, publicKey: KeyObject): boolean {
  if (sig.length !== 64) return false;
  try {
    return edVerify(null, pae(payloadType, payload), publicKey, sig);
  } catch {
    return false;
  }
}

const B64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Strict padded base64: Node's decoder skips junk, so we require a round trip (one spelling). */
export function decodeBase64Strict(s: string): Buffer | null {
  if (!B64.test(s)) return null;
  const bytes = Buffer.from(s, "base64");
  return bytes.toString("base64") === s ? bytes : null;
}

export type ParseEnvelopeResult = { ok: true; envelope: DsseEnvelope; payload: Buffer } | { ok: false; message: string };

/** Shape-checked envelope; unknown fields and repeated member names are refused (verifiers disagree on which wins). */
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

export function ed25519PublicKeyFromRaw(raw: Uint8Array): KeyObject {
  if (raw.length !== 32) throw new RangeError("an Ed25519 public key is 32 bytes");
  // SPKI DER prefix for Ed25519 (RFC 8410), then the key.
  const spki = Buffer.concat([Buffer.from("302a300506032b6570032100", "hex"), raw]);
  return createPublicKey({ key: spki, format: "der", type: "spki" });
}

export function ed25519PrivateKeyFromSeed(seed: Uint8Array): KeyObject {
  if (seed.length !== 32) throw new RangeError("an Ed25519 seed is 32 bytes");
  // PKCS#8 DER prefix for Ed25519 (RFC 8410), then the seed.
  const pkcs8 = Buffer.concat([Buffer.from("302e020100300506032b657004220420", "hex"), seed]);
  return createPrivateKey({ key: pkcs8, format: "der", type: "pkcs8" });
}

export function rawPublicKey(key: KeyObject): Buffer {
  const pub = key.type === "private" ? createPublicKey(key) : key;
  if (pub.asymmetricKeyType !== "ed25519") throw new RangeError(`expected an Ed25519 key, got ${pub.asymmetricKeyType}`);
  const der = pub.export({ format: "der", type: "spki" });
  return der.subarray(der.length - 32);
}
