/**
 * Canonical JSON after RFC 8785 (JSON Canonicalization Scheme), so the bytes we sign are a function
 * of the statement's *value*, not of how some serialiser happened to order or space it:
 *  - object members sorted by their names' UTF-16 code units (what Array.prototype.sort does);
 *  - no insignificant whitespace;
 *  - numbers in ECMAScript Number-to-String form (what JSON.stringify produces for a finite number;
 *    -0 becomes 0), and non-finite numbers refused;
 *  - strings as JSON.stringify escapes them (the JCS rules are the ES2019 rules), with lone
 *    surrogates refused because JCS requires I-JSON.
 * Anything that is not plain JSON data (undefined, functions, bigint, Dates, Maps, class instances)
 * is refused rather than silently coerced, since a signature over a coerced value would be a lie.
 */

export class CanonicalJsonError extends TypeError {
  constructor(
    message: string,
    readonly pointer: string,
  ) {
    super(`${message} at ${pointer || "/"}`);
    this.name = "CanonicalJsonError";
  }
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function pointerToken(key: string): string {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}

function str(s: string, pointer: string): string {
  if (LONE_SURROGATE.test(s)) throw new CanonicalJsonError("lone surrogate in string", pointer);
  return JSON.stringify(s);
}

function write(value: unknown, pointer: string, seen: Set<object>): string {
  switch (typeof value) {
    case "string":
      return str(value, pointer);
    case "number":
      if (!Number.isFinite(value)) throw new CanonicalJsonError(`non-finite number ${value}`, pointer);
      return JSON.stringify(value);
    case "boolean":
      return value ? "true" : "false";
    case "object": {
      if (value === null) return "null";
      if (seen.has(value)) throw new CanonicalJsonError("cycle", pointer);
      seen.add(value);
      let out: string;
      if (Array.isArray(value)) {
        out = "[" + value.map((v, i) => write(v, `${pointer}/${i}`, seen)).join(",") + "]";
      } else {
        const proto = Object.getPrototypeOf(value);
        if (proto !== Object.prototype && proto !== null) throw new CanonicalJsonError("not a plain object", pointer);
        const obj = value as Record<string, unknown>;
        const keys = Object.keys(obj).sort();
        out =
          "{" +
          keys
            .map((k) => {
              const p = `${pointer}/${pointerToken(k)}`;
              return str(k, p) + ":" + write(obj[k], p, seen);
            })
            .join(",") +
          "}";
      }
      seen.delete(value);
      return out;
    }
    default:
      throw new CanonicalJsonError(`${typeof value} is not JSON`, pointer);
  }
}

/** The canonical serialisation of `value`. Throws CanonicalJsonError on anything that is not JSON. */
export function canonicalJson(value: unknown): string {
  return write(value, "", new Set());
}
