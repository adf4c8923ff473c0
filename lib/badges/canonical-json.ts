/** RFC 8785 canonical JSON (JCS) for signing; non-JSON values are refused, never coerced (a signature over a coerced value would lie). */

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

export function canonicalJson(value: unknown): string {
  return write(value, "", new Set());
}
