/** The badge signing keyring (Ed25519, validity windows, rotation) and its published key set (docs/BADGES.md "Keys"). */
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, type KeyObject } from "node:crypto";
import { promises as fs } from "node:fs";
import path from "node:path";
import { decodeBase64Strict, ed25519PrivateKeyFromSeed, ed25519PublicKeyFromRaw, rawPublicKey, type Signer } from "./dsse";
import { MAX_TTL_SECONDS, isoSeconds } from "./statement";

export const KEY_FILE_NAME = "badge-keys.json";
export const WELL_KNOWN_KEYS_PATH = "/.well-known/tollgate-badge-keys.json";
/** Other instances may still sign with the old key until they pick up a rotation. */
export const DEFAULT_ROTATION_GRACE_SECONDS = 300;
const EPOCH = "1970-01-01T00:00:00Z";

export type KeyStatus = "active" | "retired";

export interface PublicBadgeKey {
  keyid: string;
  alg: "Ed25519";
  /** Raw 32 bytes, base64. */
  publicKey: string;
  notBefore: string;
  /** null: valid until retired. */
  notAfter: string | null;
  status: KeyStatus;
}

export interface PublicKeySet {
  keys: PublicBadgeKey[];
}

export interface ActiveKey extends PublicBadgeKey {
  status: "active";
  privateKey: KeyObject;
}

export interface Keyring {
  source: "env" | "file";
  file: string | null;
  active: ActiveKey;
  keys: PublicBadgeKey[];
}

export type KeyringErrorCode = "signing_key_missing" | "signing_key_invalid" | "previous_keys_invalid" | "key_file_invalid" | "key_file_io";
export interface KeyringError {
  code: KeyringErrorCode;
  message: string;
}
export type LoadKeyringResult = { ok: true; keyring: Keyring; warnings: string[] } | { ok: false; error: KeyringError };

/** First 16 hex digits of SHA-256 over the raw public key: stable, short, derivable by anyone. */
export function keyidFor(rawPublic: Uint8Array): string {
  return createHash("sha256").update(rawPublic).digest("hex").slice(0, 16);
}

export function signerFor(keyring: Keyring): Signer {
  return { keyid: keyring.active.keyid, privateKey: keyring.active.privateKey };
}

function activeFrom(privateKey: KeyObject, notBefore: string): ActiveKey {
  const raw = rawPublicKey(privateKey);
  return { keyid: keyidFor(raw), alg: "Ed25519", publicKey: raw.toString("base64"), notBefore, notAfter: null, status: "active", privateKey };
}

function publicOf(k: PublicBadgeKey): PublicBadgeKey {
  return { keyid: k.keyid, alg: "Ed25519", publicKey: k.publicKey, notBefore: k.notBefore, notAfter: k.notAfter, status: k.status };
}

const isoTime = (s: unknown): s is string => typeof s === "string" && Number.isFinite(Date.parse(s)) && /^\d{4}-\d{2}-\d{2}T/.test(s);

/** PKCS#8 PEM (literal "\n" tolerated) or a base64 seed. */
export function parsePrivateKey(text: string): KeyObject | string {
  const t = text.trim();
  let key: KeyObject;
  if (t.startsWith("-----BEGIN")) {
    try {
      key = createPrivateKey({ key: t.replace(/\\n/g, "\n"), format: "pem" });
    } catch (e) {
      return `not a readable PEM private key (${(e as Error).message})`;
    }
  } else {
    const seed = decodeBase64Strict(t);
    if (!seed || seed.length !== 32) return "expected a PKCS#8 PEM or a base64-encoded 32-byte Ed25519 seed";
    key = ed25519PrivateKeyFromSeed(seed);
  }
  if (key.asymmetricKeyType !== "ed25519") return `expected an Ed25519 key, got ${key.asymmetricKeyType}`;
  return key;
}

function parsePublicKey(text: string): Buffer | string {
  const t = text.trim();
  if (t.startsWith("-----BEGIN")) {
    try {
      const k = createPublicKey({ key: t.replace(/\\n/g, "\n"), format: "pem" });
      if (k.asymmetricKeyType !== "ed25519") return `expected an Ed25519 key, got ${k.asymmetricKeyType}`;
      return rawPublicKey(k);
    } catch (e) {
      return `not a readable PEM public key (${(e as Error).message})`;
    }
  }
  const raw = decodeBase64Strict(t);
  if (!raw || raw.length !== 32) return "expected base64 of a raw 32-byte Ed25519 public key, or an SPKI PEM";
  try {
    ed25519PublicKeyFromRaw(raw);
  } catch (e) {
    return `not an Ed25519 public key (${(e as Error).message})`;
  }
  return raw;
}

function parsePreviousKeys(json: string): PublicBadgeKey[] | string {
  let v: unknown;
  try {
    v = JSON.parse(json);
  } catch (e) {
    return `BADGE_PREVIOUS_KEYS is not JSON: ${(e as Error).message}`;
  }
  if (!Array.isArray(v)) return "BADGE_PREVIOUS_KEYS must be a JSON array";
  const out: PublicBadgeKey[] = [];
  for (const [i, item] of v.entries()) {
    const at = `BADGE_PREVIOUS_KEYS/${i}`;
    if (typeof item !== "object" || item === null) return `${at} must be an object`;
    const o = item as Record<string, unknown>;
    for (const k of Object.keys(o)) if (!["keyid", "publicKey", "notBefore", "notAfter"].includes(k)) return `${at}/${k} is not a known field`;
    if (typeof o.publicKey !== "string") return `${at}/publicKey must be a string`;
    const raw = parsePublicKey(o.publicKey);
    if (typeof raw === "string") return `${at}/publicKey: ${raw}`;
    if (!isoTime(o.notBefore)) return `${at}/notBefore must be an ISO 8601 time`;
    // A previous key must end: otherwise a leaked old key could sign "current" badges forever.
    if (!isoTime(o.notAfter)) return `${at}/notAfter must be an ISO 8601 time`;
    if (Date.parse(o.notAfter) < Date.parse(o.notBefore)) return `${at}/notAfter is before notBefore`;
    const keyid = keyidFor(raw);
    if (o.keyid !== undefined && o.keyid !== keyid) return `${at}/keyid does not match the key (expected ${keyid})`;
    out.push({ keyid, alg: "Ed25519", publicKey: raw.toString("base64"), notBefore: isoSeconds(Date.parse(o.notBefore)), notAfter: isoSeconds(Date.parse(o.notAfter)), status: "retired" });
  }
  return out;
}

function fromEnv(env: Record<string, string | undefined>): LoadKeyringResult {
  const key = parsePrivateKey(env.BADGE_SIGNING_KEY!);
  if (typeof key === "string") return { ok: false, error: { code: "signing_key_invalid", message: `BADGE_SIGNING_KEY: ${key}` } };
  const nbText = env.BADGE_SIGNING_KEY_NOT_BEFORE;
  if (nbText !== undefined && !isoTime(nbText)) return { ok: false, error: { code: "signing_key_invalid", message: "BADGE_SIGNING_KEY_NOT_BEFORE must be an ISO 8601 time" } };
  const active = activeFrom(key, nbText ? isoSeconds(Date.parse(nbText)) : EPOCH);
  const previous = env.BADGE_PREVIOUS_KEYS ? parsePreviousKeys(env.BADGE_PREVIOUS_KEYS) : [];
  if (typeof previous === "string") return { ok: false, error: { code: "previous_keys_invalid", message: previous } };
  const warnings: string[] = [];
  const keys: PublicBadgeKey[] = [publicOf(active)];
  for (const p of previous) {
    if (keys.some((k) => k.keyid === p.keyid)) {
      warnings.push(`BADGE_PREVIOUS_KEYS lists key ${p.keyid} twice or lists the active key; ignored`);
      continue;
    }
    keys.push(p);
  }
  return { ok: true, keyring: { source: "env", file: null, active, keys }, warnings };
}

interface KeyFileEntry extends PublicBadgeKey {
  /** Base64 Ed25519 seed; present on the active key only (retired keys' secrets are destroyed). */
  seed?: string;
}
interface KeyFile {
  version: 1;
  keys: KeyFileEntry[];
}

function keyFileOf(keyring: Keyring): KeyFile {
  const der = keyring.active.privateKey.export({ format: "der", type: "pkcs8" });
  const seed = der.subarray(der.length - 32).toString("base64");
  return { version: 1, keys: keyring.keys.map((k) => (k.keyid === keyring.active.keyid ? { ...publicOf(k), seed } : publicOf(k))) };
}

function keyringFromFile(text: string, file: string): Keyring | string {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    return `not JSON: ${(e as Error).message}`;
  }
  const o = v as Partial<KeyFile>;
  if (typeof o !== "object" || o === null || o.version !== 1 || !Array.isArray(o.keys) || o.keys.length === 0) return "expected {version: 1, keys: [...]}";
  let active: ActiveKey | null = null;
  const keys: PublicBadgeKey[] = [];
  for (const [i, k] of o.keys.entries()) {
    const at = `/keys/${i}`;
    if (typeof k !== "object" || k === null) return `${at} is not an object`;
    const raw = typeof k.publicKey === "string" ? decodeBase64Strict(k.publicKey) : null;
    if (!raw || raw.length !== 32) return `${at}/publicKey is not a base64 32-byte key`;
    if (k.keyid !== keyidFor(raw)) return `${at}/keyid does not match its public key`;
    if (!isoTime(k.notBefore) || (k.notAfter !== null && !isoTime(k.notAfter))) return `${at} has an invalid validity window`;
    if (k.status === "active") {
      if (active) return "more than one active key";
      const seed = typeof k.seed === "string" ? decodeBase64Strict(k.seed) : null;
      if (!seed || seed.length !== 32) return `${at}/seed is missing or not a base64 32-byte seed`;
      const privateKey = ed25519PrivateKeyFromSeed(seed);
      if (!rawPublicKey(privateKey).equals(raw)) return `${at}/seed does not belong to its public key`;
      active = { ...publicOf(k), status: "active", privateKey };
    } else if (k.status !== "retired") {
      return `${at}/status must be "active" or "retired"`;
    }
    keys.push(publicOf(k));
  }
  if (!active) return "no active key";
  keys.sort((a, b) => (a.status === b.status ? 0 : a.status === "active" ? -1 : 1));
  return { source: "file", file, active, keys };
}

async function writeKeyFile(keyring: Keyring, file: string, exclusive: boolean): Promise<void> {
  const tmp = `${file}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
  // Created 0600 from the first byte; link fails with EEXIST if another process won.
  await fs.writeFile(tmp, JSON.stringify(keyFileOf(keyring), null, 2) + "\n", { mode: 0o600, flag: "wx" });
  try {
    if (exclusive) await fs.link(tmp, file);
    else await fs.rename(tmp, file);
  } finally {
    await fs.rm(tmp, { force: true });
  }
}

async function fromFile(dataDir: string, now: Date): Promise<LoadKeyringResult> {
  const file = path.join(dataDir, KEY_FILE_NAME);
  const warnings: string[] = [];
  try {
    await fs.mkdir(dataDir, { recursive: true, mode: 0o700 });
    for (let attempt = 0; attempt < 2; attempt++) {
      let text: string | null = null;
      try {
        text = await fs.readFile(file, "utf8");
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
      }
      if (text !== null) {
        const kr = keyringFromFile(text, file);
        // Never overwrite an unreadable key file: that would rotate away a key with live badges.
        if (typeof kr === "string") return { ok: false, error: { code: "key_file_invalid", message: `${file}: ${kr}` } };
        const st = await fs.stat(file);
        if ((st.mode & 0o077) !== 0) {
          await fs.chmod(file, 0o600);
          warnings.push(`${file} was readable by others (mode ${(st.mode & 0o777).toString(8)}); reset to 0600`);
        }
        return { ok: true, keyring: kr, warnings };
      }
      const { privateKey } = generateKeyPairSync("ed25519");
      const active = activeFrom(privateKey, isoSeconds(now.getTime()));
      const keyring: Keyring = { source: "file", file, active, keys: [publicOf(active)] };
      try {
        await writeKeyFile(keyring, file, true);
        warnings.push(`generated badge signing key ${active.keyid} in ${file}`);
        return { ok: true, keyring, warnings };
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
        // Lost the race to another process starting at the same time: use its key.
      }
    }
    return { ok: false, error: { code: "key_file_io", message: `${file}: could not create or read the key file` } };
  } catch (e) {
    return { ok: false, error: { code: "key_file_io", message: `${file}: ${(e as Error).message}` } };
  }
}

export interface LoadKeyringOptions {
  env: Record<string, string | undefined>;
  dataDir: string;
  now?: Date;
}

export async function loadKeyring({ env, dataDir, now = new Date() }: LoadKeyringOptions): Promise<LoadKeyringResult> {
  if (env.BADGE_SIGNING_KEY) return fromEnv(env);
  if (env.NODE_ENV === "production") {
    return { ok: false, error: { code: "signing_key_missing", message: "BADGE_SIGNING_KEY must be set in production (PKCS#8 PEM or base64 Ed25519 seed)" } };
  }
  return fromFile(dataDir, now);
}

export interface RotateOptions {
  now: Date;
  /** How long the old key may still sign after rotation; default 5 minutes. */
  graceSeconds?: number;
  privateKey?: KeyObject;
}

/**
 * A new active key; the previous one retires at now + grace. Verification asks whether a key was valid
 * when the statement was issued, so old badges keep verifying. Pure: persist with saveKeyring.
 */
export function rotateKey(keyring: Keyring, { now, graceSeconds = DEFAULT_ROTATION_GRACE_SECONDS, privateKey }: RotateOptions): Keyring {
  const nowMs = now.getTime();
  const next = activeFrom(privateKey ?? generateKeyPairSync("ed25519").privateKey, isoSeconds(nowMs));
  if (keyring.keys.some((k) => k.keyid === next.keyid)) throw new RangeError("rotation to a key that is already in the keyring");
  const retiredAt = isoSeconds(nowMs + graceSeconds * 1000);
  const keys: PublicBadgeKey[] = [publicOf(next)];
  for (const k of keyring.keys) {
    const retired: PublicBadgeKey = k.status === "active" ? { ...publicOf(k), status: "retired", notAfter: retiredAt } : publicOf(k);
    if (stillNeeded(retired, nowMs)) keys.push(retired);
  }
  return { source: keyring.source, file: keyring.file, active: next, keys };
}

function stillNeeded(k: PublicBadgeKey, nowMs: number): boolean {
  return k.notAfter === null || Date.parse(k.notAfter) + MAX_TTL_SECONDS * 1000 >= nowMs;
}

export async function saveKeyring(keyring: Keyring): Promise<void> {
  if (keyring.source !== "file" || !keyring.file) {
    throw new Error("an environment keyring cannot be saved: set BADGE_SIGNING_KEY and BADGE_PREVIOUS_KEYS instead");
  }
  await writeKeyFile(keyring, keyring.file, false);
}

export function publicKeySet(keyring: Keyring, opts: { now?: Date } = {}): PublicKeySet {
  const keys = keyring.keys.filter((k) => opts.now === undefined || stillNeeded(k, opts.now.getTime()));
  return { keys: keys.map(publicOf) };
}

export type ParseKeySetResult = { ok: true; keySet: PublicKeySet } | { ok: false; message: string };

export function parsePublicKeySet(input: unknown): ParseKeySetResult {
  let v = input;
  if (typeof input === "string") {
    try {
      v = JSON.parse(input);
    } catch (e) {
      return { ok: false, message: `key set is not JSON: ${(e as Error).message}` };
    }
  }
  if (typeof v !== "object" || v === null || !Array.isArray((v as PublicKeySet).keys)) return { ok: false, message: "key set must be {keys: [...]}" };
  for (const k of Object.keys(v)) if (k !== "keys") return { ok: false, message: `unexpected field /${k}` };
  const keys: PublicBadgeKey[] = [];
  for (const [i, k] of (v as { keys: unknown[] }).keys.entries()) {
    const at = `/keys/${i}`;
    if (typeof k !== "object" || k === null) return { ok: false, message: `${at} is not an object` };
    const o = k as Record<string, unknown>;
    for (const f of Object.keys(o)) if (!["keyid", "alg", "publicKey", "notBefore", "notAfter", "status"].includes(f)) return { ok: false, message: `unexpected field ${at}/${f}` };
    if (o.alg !== "Ed25519") return { ok: false, message: `${at}/alg must be "Ed25519"` };
    const raw = typeof o.publicKey === "string" ? decodeBase64Strict(o.publicKey) : null;
    if (!raw || raw.length !== 32) return { ok: false, message: `${at}/publicKey must be base64 of 32 bytes` };
    if (o.keyid !== keyidFor(raw)) return { ok: false, message: `${at}/keyid does not match its public key` };
    if (!isoTime(o.notBefore)) return { ok: false, message: `${at}/notBefore must be an ISO 8601 time` };
    if (o.notAfter !== null && !isoTime(o.notAfter)) return { ok: false, message: `${at}/notAfter must be an ISO 8601 time or null` };
    if (o.status !== "active" && o.status !== "retired") return { ok: false, message: `${at}/status must be "active" or "retired"` };
    keys.push({ keyid: o.keyid, alg: "Ed25519", publicKey: o.publicKey as string, notBefore: o.notBefore, notAfter: o.notAfter as string | null, status: o.status });
  }
  return { ok: true, keySet: { keys } };
}
