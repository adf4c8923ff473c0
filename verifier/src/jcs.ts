/**
 * RFC 8785 (JSON Canonicalization Scheme) and SHA-256, written for the verifier alone: members sorted
 * by UTF-16 code units, no whitespace, numbers in ECMAScript Number-to-String form, strings escaped as
 * ECMAScript does; non-finite numbers, lone surrogates and anything that is not JSON data refused,
 * naming the JSON pointer.
 */
import { createHash } from "node:crypto";

const wellFormed = (s: string) => (s as unknown as { isWellFormed(): boolean }).isWellFormed();

function write(v: unknown): string {
  if (v === null) return "null";
  switch (typeof v) {
    case "string":
      if (!wellFormed(v)) throw new TypeError("lone surrogate");
      return JSON.stringify(v);
    case "number":
      if (!Number.isFinite(v)) throw new TypeError("non-finite number");
      return JSON.stringify(v);
    case "boolean":
      return v ? "true" : "false";
    case "object": {
      if (Array.isArray(v)) {
        let s = "[";
        for (let i = 0; i < v.length; i++) s += (i ? "," : "") + write(v[i]);
        return s + "]";
      }
      const p = Object.getPrototypeOf(v);
      if (p !== Object.prototype && p !== null) throw new TypeError("not a plain object");
      const o = v as Record<string, unknown>;
      const keys = Object.keys(o).sort();
      let s = "{";
      for (let i = 0; i < keys.length; i++) {
        if (!wellFormed(keys[i])) throw new TypeError("lone surrogate");
        s += (i ? "," : "") + JSON.stringify(keys[i]) + ":" + write(o[keys[i]]);
      }
      return s + "}";
    }
    default:
      throw new TypeError(`${typeof v} is not JSON`);
  }
}

/** Where the first value `write` refuses sits (only walked after a refusal). */
function locate(v: unknown, at: string): string | null {
  try {
    write(v);
    return null;
  } catch {
    if (v === null || typeof v !== "object") return at || "/";
    for (const [k, x] of Object.entries(v)) {
      const tok = Array.isArray(v) ? k : k.replace(/~/g, "~0").replace(/\//g, "~1");
      if (!wellFormed(k)) return `${at}/${tok}`;
      const found = locate(x, `${at}/${tok}`);
      if (found) return found;
    }
    return at || "/";
  }
}

export function canonicalize(v: unknown): string {
  try {
    return write(v);
  } catch (e) {
    throw new TypeError(`${(e as Error).message} at ${locate(v, "")}`);
  }
}

export const sha256Hex = (b: string | Uint8Array): string => createHash("sha256").update(b).digest("hex");

/** SHA-256 (hex) of a value's canonical UTF-8 bytes. */
export const canonicalSha256 = (v: unknown): string => sha256Hex(Buffer.from(canonicalize(v), "utf8"));
