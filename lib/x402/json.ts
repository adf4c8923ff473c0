/** RFC 6901. */
export function pointer(...segments: Array<string | number>): string {
  return segments.map((s) => "/" + String(s).replace(/~/g, "~0").replace(/\//g, "~1")).join("");
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Null when equal; key order does not matter. */
export function firstDifference(a: unknown, b: unknown, at = ""): string | null {
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return at || "/";
    for (let i = 0; i < a.length; i++) {
      const d = firstDifference(a[i], b[i], `${at}/${i}`);
      if (d !== null) return d;
    }
    return null;
  }
  if (isObject(a) && isObject(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of [...keys].sort()) {
      const d = firstDifference(a[k], b[k], at + pointer(k));
      if (d !== null) return d;
    }
    return null;
  }
  return Object.is(a, b) ? null : at || "/";
}

/** Keys too: a field named "privateKey" is an ask. */
export function* walkStrings(value: unknown, at = "", depth = 0): Generator<{ pointer: string; text: string; isKey: boolean }> {
  if (depth > 32) return; // a hostile document can nest deeply
  if (typeof value === "string") {
    yield { pointer: at, text: value, isKey: false };
  } else if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) yield* walkStrings(value[i], `${at}/${i}`, depth + 1);
  } else if (isObject(value)) {
    for (const [k, v] of Object.entries(value)) {
      const p = at + pointer(k);
      yield { pointer: p, text: k, isKey: true };
      yield* walkStrings(v, p, depth + 1);
    }
  }
}

/** Plain records have lower-cased names (safeFetch). */
export type HeaderBag = Record<string, string | string[] | undefined> | { get(name: string): string | null };

export function getHeader(headers: HeaderBag, name: string): string | null {
  if (typeof (headers as { get?: unknown }).get === "function") {
    return (headers as { get(name: string): string | null }).get(name);
  }
  const lower = name.toLowerCase();
  for (const [k, v] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (k.toLowerCase() !== lower || v === undefined) continue;
    return Array.isArray(v) ? v.join(", ") : v;
  }
  return null;
}

export function bodyText(body: Uint8Array | string | null | undefined): string {
  if (body == null) return "";
  return typeof body === "string" ? body : new TextDecoder("utf-8", { fatal: false }).decode(body);
}
