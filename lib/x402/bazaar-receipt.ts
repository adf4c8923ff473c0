/**
 * The bazaar extension's facilitator side (x402-foundation specs/extensions/bazaar.md "Facilitator Behavior"): the
 * payload's `extensions.bazaar` validated before anything is cataloged, and the `EXTENSION-RESPONSES` header.
 */
import { isValidRouteTemplate } from "@x402/extensions/bazaar";
import { checkBazaarV2, type BazaarFacts } from "./bazaar";
import { isObject } from "./json";

export const EXTENSION_RESPONSES_HEADER = "EXTENSION-RESPONSES";
export type BazaarStatus = "success" | "processing" | "rejected";
export interface BazaarExtensionResponse {
  status: BazaarStatus;
  rejectedReason?: string;
}

/** `code` names the rule (docs/PROBE.md "Receipts"); `reason` is `code: words`. */
export interface BazaarRejection {
  code: string;
  reason: string;
  pointer: string;
}

export interface ReadBazaar {
  /** origin + path (or + a valid routeTemplate). */
  resourceUrl: string;
  method: string | null;
  facts: BazaarFacts;
}

const reject = (code: string, words: string, pointer: string): BazaarRejection => ({ code, reason: `${code}: ${words}`, pointer });

/** An `$id` or `$ref` other than a same-document fragment (the spec forbids both). */
function foreignIdentifier(schema: unknown, depth = 0): boolean {
  if (depth > 64) return false;
  if (Array.isArray(schema)) return schema.some((s) => foreignIdentifier(s, depth + 1));
  if (!isObject(schema)) return false;
  for (const [k, v] of Object.entries(schema)) {
    if ((k === "$id" || k === "$ref" || k === "$dynamicRef") && typeof v === "string" && !v.startsWith("#")) return true;
    if (foreignIdentifier(v, depth + 1)) return true;
  }
  return false;
}

function resourceKey(resource: unknown, template: string | undefined): { url: string } | BazaarRejection {
  if (!isObject(resource) || resource.url === undefined) return reject("resource_missing", "the payload names no resource.url to catalog", "/paymentPayload/resource/url");
  if (typeof resource.url !== "string" || resource.url.length > 2048) return reject("resource_url_invalid", "resource.url is not a URL of at most 2048 characters", "/paymentPayload/resource/url");
  let url: URL;
  try {
    url = new URL(resource.url);
  } catch {
    return reject("resource_url_invalid", `resource.url ${JSON.stringify(resource.url.slice(0, 80))} is not an absolute URL`, "/paymentPayload/resource/url");
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return reject("resource_url_invalid", `resource.url uses ${url.protocol}; only http and https resources are cataloged`, "/paymentPayload/resource/url");
  if (url.username || url.password) return reject("resource_url_invalid", "resource.url carries credentials", "/paymentPayload/resource/url");
  return { url: url.origin + (template ?? url.pathname) };
}

/**
 * Null when it carries none; else the catalog key and facts, or the first rule it breaks (C5, the spec's `$id`/`$ref`
 * rule, the resource).
 */
export function readPayloadBazaar(payload: { resource?: unknown; extensions?: unknown }): ReadBazaar | BazaarRejection | null {
  if (!isObject(payload.extensions) || !("bazaar" in payload.extensions)) return null;
  const ext = payload.extensions.bazaar;
  if (!isObject(ext)) return reject("bazaar_not_object", "extensions.bazaar is not an object {info, schema}", "/paymentPayload/extensions/bazaar");
  const { facts, findings } = checkBazaarV2({ resource: payload.resource, extensions: payload.extensions });
  const failed = findings.find((f) => f.severity === "fail");
  if (failed) return reject(failed.code, failed.message, `/paymentPayload${failed.pointer}`);
  if (foreignIdentifier(ext.schema)) return reject("bazaar_ref_external", "the bazaar schema names an $id or $ref outside its own document", "/paymentPayload/extensions/bazaar/schema");
  const template = typeof ext.routeTemplate === "string" && isValidRouteTemplate(ext.routeTemplate) ? ext.routeTemplate : undefined;
  const key = resourceKey(payload.resource, template);
  if ("code" in key) return key;
  return { resourceUrl: key.url, method: facts.kind === "mcp" ? "POST" : facts.method, facts };
}

export function isRejection(r: ReadBazaar | BazaarRejection | null): r is BazaarRejection {
  return r !== null && "code" in r;
}

/** base64 of `{"bazaar": {status, rejectedReason?}}`. */
export function encodeExtensionResponses(bazaar: BazaarExtensionResponse): string {
  return Buffer.from(JSON.stringify({ bazaar }), "utf8").toString("base64");
}

export function decodeExtensionResponses(header: string | null): Record<string, unknown> | null {
  if (!header) return null;
  try {
    const v = JSON.parse(Buffer.from(header, "base64").toString("utf8"));
    return isObject(v) ? v : null;
  } catch {
    return null;
  }
}
