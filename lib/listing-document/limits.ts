/**
 * The listing document's size limits, read from public/schemas/listing.schema.json for the editor: the same numbers
 * validate.ts enforces. Lengths are code points, as JSON Schema counts.
 */
import schema from "@/public/schemas/listing.schema.json";
import type { ListingDocument } from "./document";
import type { ListingValidationError } from "./validate";

/**
 * The body limit (1 MiB: next.config.mjs, lib/http.ts BODY_LIMITS.listingDocument) less room for the action's other
 * arguments.
 */
export const DOCUMENT_BYTES_LIMIT = (1 << 20) - 16 * 1024;

type SchemaNode = {
  $ref?: string;
  maxLength?: number;
  maxItems?: number;
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
};

const root = schema as unknown as SchemaNode & { $defs: Record<string, SchemaNode> };

function deref(node: SchemaNode | undefined): SchemaNode | undefined {
  let n = node;
  for (let i = 0; n?.$ref && i < 8; i++) {
    const m = /^#\/\$defs\/(.+)$/.exec(n.$ref);
    n = m ? root.$defs[m[1]!] : undefined;
  }
  return n;
}

function nodeAt(pointer: string): SchemaNode | undefined {
  let n: SchemaNode | undefined = root;
  if (pointer === "") return n;
  for (const raw of pointer.split("/").slice(1)) {
    n = deref(n);
    if (!n) return undefined;
    const token = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (/^\d+$/.test(token) && n.items) n = n.items;
    else n = n.properties?.[token];
  }
  return deref(n);
}

export function fieldMaxLength(pointer: string): number | null {
  return nodeAt(pointer)?.maxLength ?? null;
}

export function fieldMaxItems(pointer: string): number | null {
  return nodeAt(pointer)?.maxItems ?? null;
}

export function codePointLength(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/** Without an encoder (browser and Node). */
export function utf8Bytes(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

const fmtInt = (n: number) => n.toLocaleString("en-US");

export function formatBytes(n: number): string {
  if (n >= 1 << 20) return `${(n / (1 << 20)).toFixed(2).replace(/\.?0+$/, "")} MB`;
  if (n >= 1024) return `${Math.round(n / 1024)} KB`;
  return `${n} bytes`;
}

/** As the editor and the server both say it. */
export function overLimitMessage(length: number, max: number): string {
  return `is ${fmtInt(length)} characters; the limit is ${fmtInt(max)} (${fmtInt(length - max)} over)`;
}

/**
 * Every limit the document breaks, by JSON pointer (the whole document at ""). Unknown fields are the validator's
 * job.
 */
export function checkListingLimits(doc: ListingDocument | Record<string, unknown>): ListingValidationError[] {
  const errors: ListingValidationError[] = [];
  const walk = (value: unknown, pointer: string, node: SchemaNode | undefined) => {
    const n = deref(node);
    if (!n) return;
    if (typeof value === "string") {
      if (n.maxLength !== undefined) {
        // Code points are never more than UTF-16 units.
        if (value.length > n.maxLength) {
          const len = codePointLength(value);
          if (len > n.maxLength) errors.push({ pointer, message: overLimitMessage(len, n.maxLength) });
        }
      }
      return;
    }
    if (Array.isArray(value)) {
      if (n.maxItems !== undefined && value.length > n.maxItems) errors.push({ pointer, message: `has ${fmtInt(value.length)} items; the limit is ${fmtInt(n.maxItems)}` });
      if (n.items) value.forEach((v, i) => walk(v, `${pointer}/${i}`, n.items));
      return;
    }
    if (value && typeof value === "object" && n.properties) {
      for (const [k, v] of Object.entries(value)) {
        const child = n.properties[k];
        if (child) walk(v, `${pointer}/${k.replace(/~/g, "~0").replace(/\//g, "~1")}`, child);
      }
    }
  };
  walk(doc, "", root);
  const bytes = utf8Bytes(JSON.stringify(doc));
  if (bytes > DOCUMENT_BYTES_LIMIT) {
    errors.push({ pointer: "", message: `the listing is ${formatBytes(bytes)}; a listing can be at most ${formatBytes(DOCUMENT_BYTES_LIMIT)} (shorten the largest fields or schemas)` });
  }
  return errors;
}
