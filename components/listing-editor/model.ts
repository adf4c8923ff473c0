/** The listing editor's pure helpers: field ids, empty values and the JSON text areas' contents. */
import type { EndpointPricing, HttpMethod, ListingEndpoint } from "@/lib/listing-document/document";

export type Err = { pointer: string; message: string };
/** The endpoint fields edited as JSON text. */
export type JsonField = "requestSchema" | "responseSchema" | "requestExample";
const JSON_FIELDS: JsonField[] = ["requestSchema", "responseSchema", "requestExample"];
export const METHODS: HttpMethod[] = ["GET", "POST", "PUT", "PATCH", "DELETE"];

/** The element id of the input for a JSON pointer (the error summary links to it). */
export const idOf = (pointer: string) => `f${pointer.replace(/[^A-Za-z0-9]+/g, "-")}`;
export const nn = (s: string): string | null => (s.trim() === "" ? null : s);
const jsonText = (v: unknown) => (v === null || v === undefined ? "" : JSON.stringify(v, null, 2));

export function emptyEndpoint(): ListingEndpoint {
  return { method: "POST", path: "/", description: null, requestSchema: null, noParameters: false, responseSchema: null, requestExample: null, payable: true, pricing: null, docsUrl: null };
}
export function emptyPricing(): EndpointPricing {
  return { label: null, usd: null, machine: null, mode: null, dynamic: null };
}

export const jsonKey = (i: number, f: JsonField) => `${i}/${f}`;

/** The JSON text areas' starting contents, from the endpoints' values. */
export function initialJsonTexts(endpoints: ListingEndpoint[]): Record<string, string> {
  const t: Record<string, string> = {};
  endpoints.forEach((e, i) => {
    for (const f of JSON_FIELDS) t[jsonKey(i, f)] = jsonText(e[f]);
  });
  return t;
}

/** The JSON text areas after endpoint i is removed: the later endpoints' texts move up one. */
export function withoutEndpoint(texts: Record<string, string>, i: number): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(texts)) {
    const [idx, f] = k.split("/");
    const n = Number(idx);
    if (n < i) out[k] = v;
    else if (n > i) out[`${n - 1}/${f}`] = v;
  }
  return out;
}
