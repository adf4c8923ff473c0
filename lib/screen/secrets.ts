/** Secret values in JSON (readiness E5, docs/TRUST.md "Observations"): pointer and kind only, never the value. */
import crypto from "node:crypto";
import { english } from "viem/accounts";

export type SecretKind = "private_key" | "seed_phrase" | "bearer_token" | "api_key";

export interface SecretValue {
  pointer: string;
  kind: SecretKind;
}

const WORDS: readonly string[] = english;
const WORD_INDEX = new Map(WORDS.map((w, i) => [w, i]));

export function isBip39Phrase(text: string): boolean {
  const words = text.trim().toLowerCase().split(/\s+/);
  if (![12, 15, 18, 21, 24].includes(words.length)) return false;
  const idx = words.map((w) => WORD_INDEX.get(w));
  if (idx.some((i) => i === undefined)) return false;
  const bits = (idx as number[]).map((i) => i.toString(2).padStart(11, "0")).join("");
  const csLen = words.length / 3;
  const entBits = bits.slice(0, bits.length - csLen);
  const entropy = Buffer.from(entBits.match(/.{8}/g)!.map((b) => parseInt(b, 2)));
  const hash = crypto.createHash("sha256").update(entropy).digest();
  const cs = [...hash].map((b) => b.toString(2).padStart(8, "0")).join("").slice(0, csLen);
  return cs === bits.slice(bits.length - csLen);
}

const KEY_NAME = /^(?:priv(?:ate)?[_-]?key|pk|sk|secret(?:[_-]?key)?|signer[_-]?key|wallet[_-]?key|key|account[_-]?key|hot[_-]?key|private)$/i;
const TOKEN_NAME = /(?:api[_-]?key|apikey|access[_-]?token|auth[_-]?token|bearer|secret|client[_-]?secret|token|password|authorization)$/i;

const PEM_PRIVATE = /-----BEGIN (?:RSA |EC |DSA |OPENSSH |ENCRYPTED )?PRIVATE KEY-----/;
const EXTENDED_PRIVATE = /^[xyzt]prv[1-9A-HJ-NP-Za-km-z]{100,112}$/;
const HEX64 = /^(?:0x)?[0-9a-fA-F]{64}$/;
const BEARER = /^Bearer\s+[A-Za-z0-9\-._~+/]{16,}=*$/i;
const JWT = /^eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}$/;
/** OpenAI, Anthropic, Stripe, AWS, GitHub, Slack, Google. */
const API_KEY_SHAPES = [
  /^sk-(?:proj-|ant-[a-z0-9]+-)?[A-Za-z0-9_-]{20,}$/,
  /^(?:sk|rk)_live_[A-Za-z0-9]{16,}$/,
  /^AKIA[0-9A-Z]{16}$/,
  /^gh[pousr]_[A-Za-z0-9]{36,}$/,
  /^github_pat_[A-Za-z0-9_]{40,}$/,
  /^xox[abprs]-[A-Za-z0-9-]{10,}$/,
  /^AIza[0-9A-Za-z_-]{35}$/,
];

const MIN_SECRET_CHARS = 15;

/** One string value (under the key that holds it, if any): the kind of secret it looks like, or null. */
export function secretKindOf(value: string, key: string | null): SecretKind | null {
  const v = value.trim();
  // Every shape below needs at least 15 characters (the shortest is a Slack token, "xoxb-" and 10).
  if (v.length < MIN_SECRET_CHARS) return null;
  if (PEM_PRIVATE.test(v) || EXTENDED_PRIVATE.test(v)) return "private_key";
  if (HEX64.test(v) && key !== null && KEY_NAME.test(key)) return "private_key";
  if (v.length <= 400 && /^[a-z]+(?:\s+[a-z]+){11,23}$/i.test(v) && isBip39Phrase(v)) return "seed_phrase";
  if (BEARER.test(v) || JWT.test(v)) return "bearer_token";
  if (API_KEY_SHAPES.some((re) => re.test(v))) return "api_key";
  // Long, no spaces, letters and digits mixed.
  if (key !== null && TOKEN_NAME.test(key) && /^[A-Za-z0-9_\-.+/=]{24,}$/.test(v) && /[0-9]/.test(v) && /[A-Za-z]/.test(v) && !HEX64.test(v)) return "api_key";
  return null;
}

const esc = (s: string) => s.replace(/~/g, "~0").replace(/\//g, "~1");

/** True when findSecretValues(json) would find anything; stops at the first secret and builds no pointers. */
export function hasSecretValue(json: unknown): boolean {
  return anySecret(json, null, 0);
}

function anySecret(v: unknown, key: string | null, depth: number): boolean {
  if (depth > 64) return false;
  if (typeof v === "string") return secretKindOf(v, key) !== null;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (anySecret(v[i], key, depth + 1)) return true;
  } else if (v && typeof v === "object") {
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o);
    for (let i = 0; i < keys.length; i++) if (anySecret(o[keys[i]], keys[i], depth + 1)) return true;
  }
  return false;
}

/** Every string value in a JSON value that looks like a secret, with its pointer (values only; keys are names). */
export function findSecretValues(json: unknown): SecretValue[] {
  const out: SecretValue[] = [];
  const walk = (v: unknown, at: string, key: string | null, depth: number) => {
    if (depth > 64 || out.length >= 100) return;
    if (typeof v === "string") {
      const kind = secretKindOf(v, key);
      if (kind) out.push({ pointer: at, kind });
    } else if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${at}/${i}`, key, depth + 1));
    else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) walk(x, `${at}/${esc(k)}`, k, depth + 1);
  };
  walk(json, "", null, 0);
  return out;
}
