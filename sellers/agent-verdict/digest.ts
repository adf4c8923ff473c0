/**
 * Hashes and the deliverable's exact bytes (docs/AGENT-VERDICT.md "Deliverable bytes").
 *
 * - `hashCanonical(v)`: SHA-256 (lowercase hex) of the RFC 8785 canonical JSON of v, the way the
 *   output schema defines inputRoot ("hashCanonical of your exact request (keys sorted, strings
 *   byte-exact)", docs/spec/products.md "Agent verdict service").
 * - the deliverable's bytes: text as UTF-8, json as its canonical JSON in UTF-8, bytes as the
 *   decoded standard padded base64. The work is data: nothing here runs or stores it.
 */
import { createHash } from "node:crypto";
import { keccak256 as viemKeccak256 } from "viem";
import { canonicalJson } from "@/lib/badges/canonical-json";

export const sha256Hex = (bytes: Uint8Array | string): string => createHash("sha256").update(bytes).digest("hex");
export const keccak256Hex = (bytes: Uint8Array): `0x${string}` => viemKeccak256(bytes);
export const hashCanonical = (value: unknown): string => sha256Hex(canonicalJson(value));

export type DeliverableKind = "text" | "json" | "bytes";

/** The deliverable as judged: its exact bytes and the views the checks read. */
export interface Evaluated {
  kind: DeliverableKind;
  bytes: Buffer;
  /** The bytes as text when they are valid UTF-8, else null. */
  text: string | null;
  /** The bytes' JSON value when they are JSON (a json deliverable always is). */
  json: { ok: true; value: unknown } | { ok: false };
  sha256: string;
  keccak256: `0x${string}`;
}

export interface DeliverableDigest {
  kind: DeliverableKind;
  byteLength: number;
  sha256: string;
  keccak256: `0x${string}`;
  isJson: boolean;
}

/** RFC 4648 section 4 base64 with padding, nothing else (no whitespace, no URL alphabet). */
const STANDARD_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export function isStandardBase64(s: string): boolean {
  if (!STANDARD_BASE64.test(s)) return false;
  // Canonical encoding only: the unused bits of the last symbol must be zero, so one byte string has one spelling.
  return Buffer.from(s, "base64").toString("base64") === s;
}

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

function decodeUtf8(bytes: Buffer): string | null {
  try {
    return utf8.decode(bytes);
  } catch {
    return null;
  }
}

function parseJson(text: string | null): Evaluated["json"] {
  if (text === null) return { ok: false };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

/** The exact bytes of a deliverable the request validator has admitted (kind and value already checked). */
export function deliverableBytes(kind: DeliverableKind, value: unknown): Buffer {
  if (kind === "text") return Buffer.from(value as string, "utf8");
  if (kind === "json") return Buffer.from(canonicalJson(value), "utf8");
  return Buffer.from(value as string, "base64");
}

export function evaluateDeliverable(kind: DeliverableKind, value: unknown): Evaluated {
  const bytes = deliverableBytes(kind, value);
  const text = kind === "bytes" ? decodeUtf8(bytes) : bytes.toString("utf8");
  const json: Evaluated["json"] = kind === "json" ? { ok: true, value } : parseJson(text);
  return { kind, bytes, text, json, sha256: sha256Hex(bytes), keccak256: keccak256Hex(bytes) };
}

export function digestOf(e: Evaluated): DeliverableDigest {
  return { kind: e.kind, byteLength: e.bytes.length, sha256: e.sha256, keccak256: e.keccak256, isJson: e.json.ok };
}
