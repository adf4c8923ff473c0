/**
 * The listing document's size limits, read from the published schema (public/schemas/listing.schema.json),
 * so the editor can show each field's limit as the seller types and refuse before sending. The same
 * numbers the server's ajv gate enforces (validate.ts); nothing here is a second copy of them.
 *
 * Lengths are counted as JSON Schema counts them: in Unicode code points, not UTF-16 units.
 */
import schema from "@/public/schemas/listing.schema.json";
import type { ListingDocument } from "./document";
import type { ListingValidationError } from "./validate";

/**
 * The largest listing document the editor sends, in UTF-8 bytes of its JSON: the server action's and
 * POST /api/listings' body limit (1 MiB, next.config.mjs serverActions.bodySizeLimit and lib/http.ts
 * BODY_LIMITS.listingDocument) less room for the action's other arguments and its encoding.
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

/** The schema node a JSON pointer leads to ("/endpoints/3/pricing/label"), or undefined. */
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

/** The schema's maxLength for the text field at a JSON pointer, or null when the schema sets none. */
export function fieldMaxLength(pointer: string): number | null {
  return nodeAt(pointer)?.maxLength ?? null;
}

/** The schema's maxItems for the array at a JSON pointer, or null. */
export function fieldMaxItems(pointer: string): number | null {
  return nodeAt(pointer)?.maxItems ?? null;
}

/** Length in Unicode code points (JSON Schema's maxLength unit). */
export function codePointLength(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    // A high surrogate followed by a low one is one code point.
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

/** UTF-8 bytes of a string, without allocating an encoder (works in the browser and in Node). */
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

/** "1.2 MB" / "512 KB": a byte count as a person reads it. */
export function formatBytes(n: number): string {
  if (n >= 1 << 20) return `${(n / (1 << 20)).toFixed(2).replace(/\.?0+$/, "")} MB`;
  if (n >= 1024) return `${Math.round(n / 1024)} KB`;
  return `${n} bytes`;
}

/** The message for a text over its limit, as the editor and the server both say it. */
export function overLimitMessage(length: number, max: number): string {
  return `is ${fmtInt(length)} characters; the limit is ${fmtInt(max)} (${fmtInt(length - max)} over)`;
}

/**
 * Every limit the document breaks, by JSON pointer, before it is sent: each text field over its
 * schema maxLength, an array over its maxItems, and the whole document over DOCUMENT_BYTES_LIMIT
 * (pointer ""). Walks the document as the schema describes it; unknown fields are the validator's job.
 */
export function checkListingLimits(doc: ListingDocument | Record<string, unknown>): ListingValidationError[] {
  const errors: ListingValidationError[] = [];
  const walk = (value: unknown, pointer: string, node: SchemaNode | undefined) => {
    const n = deref(node);
    if (!n) return;
    if (typeof value === "string") {
      if (n.maxLength !== undefined) {
        // A quick bound first: code points are never more than UTF-16 units.
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
