/**
 * The one gate every listing document passes: the published JSON Schema (2020-12), each problem by JSON pointer, then
 * every optional field filled.
 */
import Ajv2020, { type ErrorObject } from "ajv/dist/2020";
import addFormats from "ajv-formats";
import schema from "@/public/schemas/listing.schema.json";
import type { EndpointPricing, ListingDocument, ListingEndpoint, ListingOperations } from "./document";
import { endpointUrlKey } from "./endpoint-url";
import { unstorableText } from "./unstorable";

export { unstorableText };

export interface ListingValidationError {
  /** e.g. "/endpoints/0/method"; "" for the document. */
  pointer: string;
  message: string;
}

export type ListingValidation = { ok: true; value: ListingDocument } | { ok: false; errors: ListingValidationError[] };

// Compiled once per process: compiling costs far more than validating.
const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
addFormats(ajv);
const validate = ajv.compile(schema);

const escapeToken = (t: string) => t.replace(/~/g, "~0").replace(/\//g, "~1");

function toError(e: ErrorObject): ListingValidationError {
  const at = e.instancePath;
  switch (e.keyword) {
    case "required":
      return { pointer: `${at}/${escapeToken(String(e.params.missingProperty))}`, message: "is required" };
    case "additionalProperties":
      return { pointer: `${at}/${escapeToken(String(e.params.additionalProperty))}`, message: "is not a field of the listing document" };
    case "enum":
      return { pointer: at, message: `must be one of ${(e.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}` };
    case "type":
      return { pointer: at, message: `must be of type ${Array.isArray(e.params.type) ? e.params.type.join(" or ") : e.params.type}` };
    case "format":
      return { pointer: at, message: `must be a valid ${e.params.format}` };
    case "maxLength":
      return { pointer: at, message: `is longer than the limit of ${Number(e.params.limit).toLocaleString("en-US")} characters` };
    case "pattern":
      return { pointer: at, message: `has the wrong shape (must match ${e.params.pattern})` };
    default:
      return { pointer: at, message: e.message ?? e.keyword };
  }
}

/** Lower-case ASCII words joined by "-". */
export function slugify(title: string): string {
  const s = title
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 80)
    .replace(/-+$/g, "");
  return s || "listing";
}

type Loose<T> = { [K in keyof T]?: T[K] | undefined };
const orNull = <T>(v: T | undefined): T | null => (v === undefined ? null : v);

function completeOperations(o: Loose<ListingOperations> | null | undefined): ListingOperations {
  const x = o ?? {};
  return {
    authPreconditions: orNull(x.authPreconditions),
    networkRequirements: orNull(x.networkRequirements),
    fundingRequirements: orNull(x.fundingRequirements),
    limits: orNull(x.limits),
    timeouts: orNull(x.timeouts),
    syncMode: orNull(x.syncMode),
    errors: orNull(x.errors),
    idempotency: orNull(x.idempotency),
    supportChannel: orNull(x.supportChannel),
  };
}

function completePricing(p: Loose<EndpointPricing> | null | undefined): EndpointPricing | null {
  if (p === null || p === undefined) return null;
  const d = p.dynamic;
  return {
    label: orNull(p.label),
    usd: orNull(p.usd),
    machine: orNull(p.machine),
    mode: orNull(p.mode),
    dynamic: d === null || d === undefined ? null : { min: orNull(d.min), max: orNull(d.max), driver: orNull(d.driver), unit: orNull(d.unit) },
  };
}

function completeEndpoint(e: Loose<ListingEndpoint>): ListingEndpoint {
  return {
    method: e.method as ListingEndpoint["method"],
    path: e.path as string,
    description: orNull(e.description),
    requestSchema: orNull(e.requestSchema),
    noParameters: e.noParameters ?? false,
    responseSchema: orNull(e.responseSchema),
    requestExample: orNull(e.requestExample),
    payable: e.payable ?? false,
    pricing: completePricing(e.pricing),
    docsUrl: orNull(e.docsUrl),
  };
}

/** Does not mutate its input. */
function complete(doc: Loose<ListingDocument>): ListingDocument {
  const out: ListingDocument = {
    slug: doc.slug ?? slugify(doc.title as string),
    title: doc.title as string,
    shortDescription: orNull(doc.shortDescription),
    description: orNull(doc.description),
    logoUrl: orNull(doc.logoUrl),
    category: orNull(doc.category),
    homepageUrl: orNull(doc.homepageUrl),
    baseUrl: doc.baseUrl as string,
    docsUrl: orNull(doc.docsUrl),
    walkthrough: orNull(doc.walkthrough),
    discoveryUrl: orNull(doc.discoveryUrl),
    protocols: doc.protocols ? [...doc.protocols] : [],
    networks: doc.networks ? [...doc.networks] : [],
    operations: completeOperations(doc.operations),
    endpoints: (doc.endpoints ?? []).map((e) => completeEndpoint(e as Loose<ListingEndpoint>)),
  };
  if (doc.$schema !== undefined) out.$schema = doc.$schema;
  return out;
}

/** RFC 6901. */
function pointerToken(key: string | number): string {
  return String(key).replace(/~/g, "~0").replace(/\//g, "~1");
}

function unstorableStrings(input: unknown, pointer = "", out: ListingValidationError[] = [], depth = 0): ListingValidationError[] {
  if (out.length >= 100 || depth > 64) return out;
  if (typeof input === "string") {
    const problem = unstorableText(input);
    if (problem) out.push({ pointer, message: problem });
  } else if (Array.isArray(input)) {
    input.forEach((v, i) => unstorableStrings(v, `${pointer}/${i}`, out, depth + 1));
  } else if (input !== null && typeof input === "object") {
    for (const [k, v] of Object.entries(input)) {
      const problem = unstorableText(k);
      if (problem) out.push({ pointer: `${pointer}/${pointerToken(k)}`, message: `its name ${problem}` });
      unstorableStrings(v, `${pointer}/${pointerToken(k)}`, out, depth + 1);
    }
  }
  return out;
}

export function validateListingDocument(input: unknown): ListingValidation {
  // Refused first, before the schema's checks.
  const unstorable = unstorableStrings(input);
  if (unstorable.length) return { ok: false, errors: unstorable };
  if (!validate(input)) {
    const seen = new Set<string>();
    const errors: ListingValidationError[] = [];
    for (const e of validate.errors ?? []) {
      const err = toError(e);
      const key = `${err.pointer}\u0000${err.message}`;
      if (seen.has(key)) continue;
      seen.add(key);
      errors.push(err);
    }
    return { ok: false, errors };
  }
  const doc = complete(input as Loose<ListingDocument>);
  const spelled = urlSpellingErrors(doc);
  return spelled.length ? { ok: false, errors: spelled } : { ok: true, value: doc };
}

/** An escaped unreserved character, a lower-case escape, or a "." / ".." segment: another spelling of some plainer URL. */
const RESPELLED = /%(?:[46][1-9A-Fa-f]|[57][0-9Aa]|3[0-9]|2[DEde]|5[Ff]|7[Ee])|%[0-9A-F]?[a-f]|(?:^|\/)\.{1,2}(?:\/|$)/;

const unescaped = (x: string) => {
  const c = String.fromCharCode(parseInt(x.slice(1), 16));
  return /[A-Za-z0-9\-._~]/.test(c) ? c : x.toUpperCase();
};
const plainPath = (path: string) => new URL(path.replace(/%[0-9A-Fa-f]{2}/g, unescaped), "http://h").pathname;

/**
 * One URL, one endpoint: the catalog, the guard and the trust history compare URLs as urlKey writes them
 * (docs/TRUST.md "Which history an endpoint has"), so no second spelling of a URL is listed.
 */
function urlSpellingErrors(doc: ListingDocument): ListingValidationError[] {
  const errors: ListingValidationError[] = [];
  const respelled = (path: string, plain = plainPath(path)) =>
    `is another spelling of ${plain} (an escaped letter, digit or -._~, a lower-case escape, or a . or .. segment): write ${plain}`;
  const basePath = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*([^?#]*)/i.exec(doc.baseUrl)?.[1] ?? "";
  if (RESPELLED.test(basePath)) errors.push({ pointer: "/baseUrl", message: `has a path that ${respelled(basePath)}` });
  const seen = new Map<string, number>();
  doc.endpoints.forEach((e, i) => {
    if (RESPELLED.test(e.path)) errors.push({ pointer: `/endpoints/${i}/path`, message: respelled(e.path) });
    const key = `${e.method} ${endpointUrlKey(doc.baseUrl, e.path)}`;
    const j = seen.get(key);
    if (j !== undefined && doc.endpoints[j].path !== e.path) errors.push({ pointer: `/endpoints/${i}/path`, message: `is the URL of /endpoints/${j}/path written another way (a trailing slash): list each URL once` });
    else if (j === undefined) seen.set(key, i);
  });
  return errors;
}
