/** Drafts a listing from a URL (docs/PROBE.md "Discovery import"); remote faults become warnings, never a throw. */
import { checkTarget, type CheckedTarget, type Resolver, type SafeFetchResult } from "@/lib/net";
import type { HttpMethod, ListingDocument, ListingEndpoint, PaymentProtocol } from "@/lib/listing-document/document";
import { mppRequirement, parseMpp } from "@/lib/mpp";
import { parseX402, type X402ParseResult } from "@/lib/x402";
import { bodyText, isObject } from "@/lib/x402/json";
import { networkName } from "@/lib/format";
import { slugify, validateListingDocument } from "@/lib/listing-document/validate";
import { mapBounded } from "@/lib/probe/bounded";
import { DEFAULT_MAX_BODY_BYTES, callUnpaid, getResource, unpaidKey, unpaidRequest, type Net, type UnpaidCalls } from "@/lib/probe/request";
import type { NormalisedRequirement } from "@/lib/evidence";
import { importProductDocument } from "./product-document";
import { emptyService, machinePrice, pricingFromMachine, pricingFromRequirements, readOpenApi, readWellKnown, type EndpointFacts, type ServiceFacts } from "./import-sources";

export interface DraftOptions {
  allowHosts?: string[];
  resolver?: Resolver;
  deadlineMs?: number;
  probeChallenges?: boolean;
  maxEndpoints?: number;
  concurrency?: number;
}

export interface DraftSource {
  kind: "well-known-x402" | "openapi" | "challenge" | "product-document" | "page";
  url: string;
  ok: boolean;
  status: number | null;
  note?: string;
}

export type DraftResult =
  | { ok: true; draft: ListingDocument; sources: DraftSource[]; warnings: string[]; calls: UnpaidCalls }
  | { ok: false; refusal: string; detail: string }
  | { ok: false; error: string; detail: string };

const DISCOVERY_SUFFIXES = ["/.well-known/x402", "/openapi.json"];
const MAX_DOC_BYTES = 2 * 1024 * 1024;

export async function draftListingFromUrl(url: string, opts: DraftOptions = {}): Promise<DraftResult> {
  const checked = checkTarget(url, opts.allowHosts ?? []);
  if (!checked.ok) return checked;
  return draftListingFromTarget(checked.target, opts);
}

export async function draftListingFromTarget(checked: CheckedTarget, opts: DraftOptions = {}): Promise<DraftResult> {
  const target = checked.url;
  const net: Net = { allowHosts: opts.allowHosts, resolver: opts.resolver, deadlineMs: opts.deadlineMs ?? 10_000 };
  const sources: DraftSource[] = [];
  const warnings: string[] = [];
  const calls = new Map<string, { result: SafeFetchResult; deadlineMs: number; maxBodyBytes: number }>();

  // 1. The URL itself: when it is a resource, this answer is its 402 and it is not called again.
  const firstRequest = unpaidRequest("GET", target.href, undefined);
  const firstResult = await callUnpaid(firstRequest, net, MAX_DOC_BYTES);
  // Refused after DNS is a refusal, never a draft of nothing.
  if (!firstResult.ok && "refusal" in firstResult && firstResult.stage !== "redirect" && firstResult.refusal !== "dns_failed") {
    return { ok: false, refusal: firstResult.refusal, detail: firstResult.detail };
  }
  const first = readJson(firstResult);
  if (first.json !== undefined && isObject(first.json) && ("productId" in first.json || "criteria_id" in first.json)) {
    return importFromProductDocument(first.json, target.href, { net, opts, sources, calls });
  }
  if (firstResult.ok && !firstResult.bodyTruncated) calls.set(unpaidKey(firstRequest), { result: firstResult, deadlineMs: net.deadlineMs, maxBodyBytes: MAX_DOC_BYTES });
  const base = baseOf(target);

  // 2. The discovery documents beside the base.
  const wkUrl = base + "/.well-known/x402";
  const oaUrl = base + "/openapi.json";
  const [wk, oa] = await Promise.all([
    target.href === wkUrl ? first : getJson(wkUrl, net),
    target.href === oaUrl ? first : getJson(oaUrl, net),
  ]);
  const wellKnown = wk.json !== undefined && isObject(wk.json) && (Array.isArray(wk.json.resources) || Array.isArray(wk.json.items)) ? readWellKnown(wk.json) : null;
  const openapi = oa.json !== undefined && isObject(oa.json) && typeof oa.json.openapi === "string" ? readOpenApi(oa.json) : null;
  sources.push({ kind: "well-known-x402", url: wkUrl, ok: !!wellKnown, status: wk.status, ...(wellKnown ? {} : { note: wk.note ?? "not an x402 discovery list" }) });
  sources.push({ kind: "openapi", url: oaUrl, ok: !!openapi, status: oa.status, ...(openapi ? {} : { note: oa.note ?? "not an OpenAPI document" }) });
  if (wellKnown) warnings.push(...wellKnown.warnings);
  if (openapi) warnings.push(...openapi.warnings);

  // 3. OpenAPI operations first (they carry methods), then well-known resources.
  const service: ServiceFacts = openapi?.service ?? emptyService();
  if (wellKnown?.instructions) service.walkthrough = wellKnown.instructions;
  let baseUrl = base;
  if (service.serverUrl) {
    const s = resolveOn(service.serverUrl, target);
    if (s && new URL(s).origin === target.origin) baseUrl = s.replace(/\/+$/, "");
    else warnings.push(`OpenAPI servers[0] (${service.serverUrl}) is on another origin; the endpoints are drafted under ${base}.`);
  }
  const facts = new Map<string, EndpointFacts>();
  for (const e of openapi?.endpoints ?? []) facts.set(`${e.method} ${e.path}`, e);
  for (const resource of wellKnown?.resources ?? []) {
    const abs = resolveOn(resource.ref, target);
    const path = abs ? relativePath(abs, baseUrl) : null;
    if (!path) {
      warnings.push(`/.well-known/x402 lists ${resource.ref}, which is not under ${baseUrl}; it was left out.`);
      continue;
    }
    if (![...facts.values()].some((f) => f.path === path && (resource.method === null || f.method === null || f.method === resource.method))) {
      facts.set(`${resource.method ?? "?"} ${path}`, { method: resource.method, path, description: null, requestSchema: null, responseSchema: null, requestExample: undefined, payable: true, pricing: null });
    }
  }
  if (facts.size === 0 && target.href !== base + "/") {
    const path = relativePath(target.href, target.origin);
    if (path && path !== "/") {
      baseUrl = target.origin;
      facts.set(`? ${path}`, { method: null, path, description: null, requestSchema: null, responseSchema: null, requestExample: undefined, payable: null, pricing: null });
    }
  }
  let list = [...facts.values()];
  const cap = opts.maxEndpoints ?? 50;
  if (list.length > cap) {
    warnings.push(`${list.length} endpoints were found; the first ${cap} were drafted.`);
    list = list.slice(0, cap);
  }

  // 4. The 402s, merged in list order so the draft does not depend on timing.
  const read = await mapBounded(list, opts.concurrency ?? 8, (f) =>
    opts.probeChallenges !== false && f.payable !== false ? readChallenge(baseUrl, f, net, calls) : Promise.resolve(null),
  );
  const protocols = new Set<PaymentProtocol>();
  const networks = new Set<string>();
  const endpoints: ListingEndpoint[] = [];
  for (const [i, f] of list.entries()) {
    let merged = f;
    const seen = read[i];
    if (seen) {
      sources.push(seen.source);
      if (seen.warning) warnings.push(seen.warning);
      if (seen.facts) merged = fill(f, seen.facts, warnings);
      for (const p of seen.protocols) protocols.add(p);
      for (const n of seen.networks) networks.add(n);
      if (seen.serviceName && !service.title) service.title = seen.serviceName;
      if (seen.iconUrl && !service.logoUrl) service.logoUrl = seen.iconUrl;
      if (seen.resourceDescription && !service.description) service.description = seen.resourceDescription;
    }
    if (!merged.method) {
      warnings.push(`${merged.path}: the method could not be determined; POST was assumed.`);
    }
    if (merged.payable && merged.pricing && merged.pricing.mode === null) {
      warnings.push(`${merged.method ?? "POST"} ${merged.path}: declare whether the price is fixed or dynamic (P3).`);
    }
    endpoints.push({
      method: merged.method ?? "POST",
      path: merged.path,
      description: merged.description,
      requestSchema: merged.requestSchema,
      noParameters: false,
      responseSchema: merged.responseSchema,
      requestExample: merged.requestExample ?? null,
      payable: merged.payable ?? false,
      pricing: merged.payable ? merged.pricing : null,
      docsUrl: null,
    });
  }
  if (endpoints.length === 0) warnings.push("No endpoints were found: add them by hand.");
  if (protocols.size === 0 && openapi) {
    if (endpoints.some((e) => e.payable)) warnings.push("No 402 challenge was read; the payment protocol is not confirmed.");
  }

  const title = (service.title ?? new URL(baseUrl).host).slice(0, 120);
  const draft: ListingDocument = {
    slug: slugify(title),
    title,
    shortDescription: shortFrom(service.description),
    description: service.description,
    logoUrl: service.logoUrl ? resolveOn(service.logoUrl, target) : null,
    category: service.category,
    homepageUrl: service.homepageUrl ? resolveOn(service.homepageUrl, target) : null,
    baseUrl,
    docsUrl: service.docsUrl ? resolveOn(service.docsUrl, target) : null,
    walkthrough: service.walkthrough,
    discoveryUrl: wellKnown ? wkUrl : openapi ? oaUrl : null,
    protocols: [...protocols],
    networks: [...networks],
    operations: {
      authPreconditions: null,
      networkRequirements: networks.size ? `Pays on ${[...networks].map(networkLabel).join(", ")}.` : null,
      fundingRequirements: null,
      limits: null,
      timeouts: null,
      syncMode: null,
      errors: null,
      idempotency: null,
      supportChannel: null,
    },
    endpoints,
  };
  for (const [field, rule] of [["shortDescription", "M2"], ["description", "M3"], ["logoUrl", "M4"], ["category", "M5"], ["docsUrl", "D1"], ["walkthrough", "D2"]] as const) {
    if (draft[field] === null) warnings.push(`${field} (${rule}) was not found in any source: fill it in.`);
  }
  return { ok: true, draft, sources, warnings, calls };
}

async function getJson(url: string, net: Net): Promise<{ json: unknown; status: number | null; note?: string }> {
  return readJson(await getResource(url, net, { accept: "application/json", maxBodyBytes: MAX_DOC_BYTES, overflow: "error" }));
}

function readJson(r: SafeFetchResult): { json: unknown; status: number | null; note?: string } {
  if (r.ok && r.bodyTruncated) return { json: undefined, status: r.status, note: `body_too_large: the document is larger than ${MAX_DOC_BYTES} bytes` };
  if (!r.ok) return { json: undefined, status: "status" in r ? (r.status ?? null) : null, note: describe(r) };
  if (r.status < 200 || r.status >= 300) return { json: undefined, status: r.status, note: `answered ${r.status}` };
  try {
    return { json: JSON.parse(bodyText(r.body)), status: r.status };
  } catch {
    return { json: undefined, status: r.status, note: "not JSON" };
  }
}

function describe(r: SafeFetchResult): string {
  if (r.ok) return `answered ${r.status}`;
  return "refusal" in r ? `refused: ${r.refusal} (${r.detail})` : `${r.error}: ${r.detail}`;
}

interface ChallengeRead {
  source: DraftSource;
  facts: Partial<EndpointFacts> | null;
  protocols: PaymentProtocol[];
  networks: string[];
  serviceName: string | null;
  iconUrl: string | null;
  resourceDescription: string | null;
  warning: string | null;
}

/** GET first with no known method, then POST with the example; a request answered in this run is not sent again. */
async function readChallenge(baseUrl: string, f: EndpointFacts, net: Net, calls: Map<string, { result: SafeFetchResult; deadlineMs: number; maxBodyBytes: number }>): Promise<ChallengeRead> {
  const url = baseUrl + f.path;
  const methods: HttpMethod[] = f.method ? [f.method] : ["GET", "POST"];
  let last: SafeFetchResult | null = null;
  let used: HttpMethod = methods[0];
  for (const method of methods) {
    used = method;
    const req = unpaidRequest(method, url, f.requestExample);
    const key = unpaidKey(req);
    last = calls.get(key)?.result ?? null;
    if (!last) {
      last = await callUnpaid(req, net, DEFAULT_MAX_BODY_BYTES);
      calls.set(key, { result: last, deadlineMs: net.deadlineMs, maxBodyBytes: DEFAULT_MAX_BODY_BYTES });
    }
    if (!(last.ok && (last.status === 404 || last.status === 405))) break;
  }
  const none: ChallengeRead = { source: { kind: "challenge", url, ok: false, status: null }, facts: null, protocols: [], networks: [], serviceName: null, iconUrl: null, resourceDescription: null, warning: null };
  if (!last || !last.ok) return { ...none, source: { ...none.source, note: last ? describe(last) : "not called" }, warning: `${f.path}: the unpaid call failed (${last ? describe(last) : "not called"}).` };
  const source: DraftSource = { kind: "challenge", url, ok: last.status === 402, status: last.status };
  if (last.status !== 402) {
    const payable = f.payable === true ? true : last.status >= 200 && last.status < 300 ? false : f.payable;
    return { ...none, source: { ...source, note: `answered ${last.status}, not 402` }, facts: { method: f.method ?? used, payable }, warning: f.payable ? `${used} ${f.path}: answered ${last.status} without payment instead of 402.` : null };
  }
  const x402 = parseX402({ status: last.status, headers: last.headers, body: last.body });
  if (x402.kind !== "none" && x402.x402) return fromX402(x402, f, used, source);
  const mpp = parseMpp({ headers: last.headers });
  if (mpp.challenges.length > 0) {
    const reqs: NormalisedRequirement[] = mpp.challenges.map((c) => ({ ...mppRequirement(c), extra: null }));
    const pricing = pricingFromRequirements(reqs);
    return {
      ...none, source: { ...source, note: `mpp, ${mpp.challenges.length} challenge(s)` }, protocols: ["mpp"], networks: reqs.map((r) => r.network).filter((n) => n.includes(":")),
      facts: { method: f.method ?? used, payable: true, pricing: pricing ?? undefined },
      warning: pricing ? null : `${f.path}: the MPP challenge prices in an asset whose decimals are not in the table.`,
    };
  }
  return { ...none, source: { ...source, ok: false, note: "a 402 without a readable challenge" }, facts: { method: f.method ?? used, payable: true }, warning: `${f.path}: answered 402 without a readable x402 or MPP challenge.` };
}

function fromX402(x: X402ParseResult, f: EndpointFacts, used: HttpMethod, source: DraftSource): ChallengeRead {
  const reqs = x.requirements ?? [];
  const bz = x.bazaar;
  const method = (bz?.method && (["GET", "POST", "PUT", "PATCH", "DELETE"] as const).find((m) => m === bz.method)) || f.method || used;
  const pricing = pricingFromRequirements(reqs);
  const resource = isObject(x.x402) && isObject(x.x402.resource) ? x.x402.resource : {};
  return {
    source: { ...source, note: `${x.kind}${bz?.present ? `, bazaar (${bz.reading})` : ""}` },
    facts: {
      method,
      payable: true,
      requestSchema: bz?.requestSchema ?? undefined,
      responseSchema: bz?.responseSchema ?? undefined,
      requestExample: bz?.requestExample,
      description: typeof resource.description === "string" ? resource.description : undefined,
      pricing: pricing ?? undefined,
    },
    protocols: ["x402"],
    networks: [...new Set(reqs.map((r) => r.network).filter((n) => n.includes(":")))],
    serviceName: bz?.serviceName ?? null,
    iconUrl: bz?.iconUrl ?? null,
    resourceDescription: typeof resource.description === "string" ? resource.description : null,
    warning: pricing ? null : `${f.path}: the 402 quotes no asset the table knows; fill the price in by hand.`,
  };
}

/**
 * The 402's machine price replaces a document's; the USD price the seller's own document states is kept
 * (as for a product document, `withChallenge`), so a 402 asking more than it is caught at selection
 * (`asks_above_stated`, docs/SELECTION.md).
 */
function fill(doc: EndpointFacts, seen: Partial<EndpointFacts>, warnings: string[]): EndpointFacts {
  const quoted = seen.pricing ?? null;
  const stated = doc.pricing?.usd ? doc.pricing : null;
  const disagree = stated !== null && quoted?.machine != null && quoted.usd !== null && Number(quoted.usd) !== Number(stated.usd);
  if (disagree) warnings.push(`${doc.method ?? seen.method ?? "POST"} ${doc.path}: the document states $${stated.usd}, the 402 quotes $${quoted.usd}; the machine price is the 402's.`);
  return {
    method: doc.method ?? seen.method ?? null,
    path: doc.path,
    description: doc.description ?? seen.description ?? null,
    requestSchema: doc.requestSchema ?? seen.requestSchema ?? null,
    responseSchema: doc.responseSchema ?? seen.responseSchema ?? null,
    requestExample: doc.requestExample ?? seen.requestExample,
    payable: seen.payable ?? doc.payable,
    // The document's label only while it describes the amount the 402 quotes.
    pricing: disagree
      ? { ...stated, machine: quoted.machine }
      : seen.pricing
      ? { ...seen.pricing, label: doc.pricing?.machine?.amount === seen.pricing.machine?.amount ? (doc.pricing?.label ?? seen.pricing.label) : seen.pricing.label }
      : doc.pricing,
  };
}

/** A seller's product document (docs/SEED-IMPORT.md), completed from its OpenAPI document and each endpoint's 402. */
async function importFromProductDocument(
  doc: Record<string, unknown>,
  url: string,
  ctx: { net: Net; opts: DraftOptions; sources: DraftSource[]; calls: Map<string, { result: SafeFetchResult; deadlineMs: number; maxBodyBytes: number }> },
): Promise<DraftResult> {
  const { net, opts, sources, calls } = ctx;
  const r = importProductDocument(doc, { sourceUrl: url });
  if (!r.ok) {
    return { ok: false, error: "product_document_invalid", detail: r.errors.map((e) => `${e.pointer || "(root)"}: ${e.message}`).join("; ") };
  }
  sources.push({ kind: "product-document", url, ok: true, status: 200, note: r.format });
  const warnings = r.unmapped.map((u) => `${u.source}: ${u.reason}`);
  if (opts.probeChallenges === false) return { ok: true, draft: r.listing, sources, warnings, calls };

  const listing = r.listing;
  const base = listing.baseUrl.replace(/\/+$/, "");
  const wkUrl = base + "/.well-known/x402";
  const oaUrl = base + "/openapi.json";
  const [wk, oa] = await Promise.all([getJson(wkUrl, net), getJson(oaUrl, net)]);
  const wellKnown = wk.json !== undefined && isObject(wk.json) && (Array.isArray(wk.json.resources) || Array.isArray(wk.json.items)) ? readWellKnown(wk.json) : null;
  const openapi = oa.json !== undefined && isObject(oa.json) && typeof oa.json.openapi === "string" ? readOpenApi(oa.json) : null;
  sources.push({ kind: "well-known-x402", url: wkUrl, ok: !!wellKnown, status: wk.status, ...(wellKnown ? {} : { note: wk.note ?? "not an x402 discovery list" }) });
  sources.push({ kind: "openapi", url: oaUrl, ok: !!openapi, status: oa.status, ...(openapi ? {} : { note: oa.note ?? "not an OpenAPI document" }) });
  const published = new Map((openapi?.endpoints ?? []).map((e) => [`${e.method} ${e.path}`, { ...e, noParameters: takesNoInput(oa.json, e.method ?? "", e.path) }]));
  const discoveryUrl = listing.discoveryUrl ?? (wellKnown ? wkUrl : openapi ? oaUrl : null);
  const walkthrough = listing.walkthrough ?? wellKnown?.instructions ?? null;

  let endpoints = listing.endpoints.map((e) => fromOpenApi(e, published.get(`${e.method} ${e.path}`), oaUrl));
  const read = await mapBounded(endpoints, opts.concurrency ?? 8, (e) =>
    e.payable ? readChallenge(base, { method: e.method, path: e.path, description: e.description, requestSchema: e.requestSchema, responseSchema: e.responseSchema, requestExample: e.requestExample ?? undefined, payable: true, pricing: e.pricing }, net, calls) : Promise.resolve(null),
  );
  const protocols = new Set<PaymentProtocol>(listing.protocols);
  const networks = new Set<string>(listing.networks);
  endpoints = endpoints.map((e, i) => {
    const seen = read[i];
    if (!seen) return e;
    sources.push(seen.source);
    if (seen.warning) warnings.push(seen.warning);
    if (!seen.source.ok && e.requestExample === null) warnings.push(`${e.method} ${e.path}: no request example is published for it, so its 402 could not be read (a seller that checks the body before quoting refuses an empty one).`);
    for (const p of seen.protocols) protocols.add(p);
    for (const n of seen.networks) networks.add(n);
    return seen.facts ? withChallenge(e, seen.facts, warnings) : e;
  });
  const enriched = validateListingDocument({ ...listing, discoveryUrl, walkthrough, protocols: [...protocols], networks: [...networks], endpoints });
  if (!enriched.ok) {
    warnings.push(`what the 402s and the OpenAPI document say did not fit the listing (${enriched.errors.map((x) => `${x.pointer}: ${x.message}`).join("; ")}); the draft is the product document's alone.`);
    return { ok: true, draft: listing, sources, warnings, calls };
  }
  return { ok: true, draft: enriched.value, sources, warnings, calls };
}

function fromOpenApi(e: ListingEndpoint, op: (EndpointFacts & { noParameters: boolean }) | undefined, openapiUrl: string): ListingEndpoint {
  if (!op) return e;
  const requestSchema = e.requestSchema ?? op.requestSchema;
  return {
    ...e,
    description: e.description ?? op.description,
    requestSchema,
    noParameters: e.noParameters || (op.noParameters && requestSchema === null),
    responseSchema: e.responseSchema ?? op.responseSchema,
    requestExample: e.requestExample ?? op.requestExample ?? null,
    docsUrl: e.docsUrl ?? openapiUrl,
  };
}

function takesNoInput(doc: unknown, method: string, path: string): boolean {
  const item = isObject(doc) && isObject(doc.paths) ? doc.paths[path] : undefined;
  const op = isObject(item) ? item[method.toLowerCase()] : undefined;
  if (!isObject(op)) return false;
  const params = [...(Array.isArray(item && (item as Record<string, unknown>).parameters) ? ((item as Record<string, unknown>).parameters as unknown[]) : []), ...(Array.isArray(op.parameters) ? op.parameters : [])];
  return params.length === 0 && op.requestBody === undefined;
}

function withChallenge(e: ListingEndpoint, seen: Partial<EndpointFacts>, warnings: string[]): ListingEndpoint {
  let pricing = e.pricing;
  const quoted = seen.pricing ?? null;
  if (quoted?.machine) {
    if (!pricing) pricing = quoted;
    else {
      if (pricing.usd && quoted.usd && Number(pricing.usd) !== Number(quoted.usd)) warnings.push(`${e.method} ${e.path}: the document states $${pricing.usd}, the 402 quotes $${quoted.usd}; the machine price is the 402's.`);
      pricing = { ...pricing, machine: quoted.machine, usd: pricing.usd ?? (pricing.mode === "dynamic" ? null : quoted.usd) };
    }
  }
  return {
    ...e,
    requestSchema: e.requestSchema ?? seen.requestSchema ?? null,
    responseSchema: e.responseSchema ?? seen.responseSchema ?? null,
    requestExample: e.requestExample ?? seen.requestExample ?? null,
    pricing,
  };
}

function baseOf(url: URL): string {
  let path = url.pathname;
  for (const suffix of DISCOVERY_SUFFIXES) if (path.endsWith(suffix)) path = path.slice(0, -suffix.length);
  return url.origin + path.replace(/\/+$/, "");
}

function resolveOn(ref: string, base: URL): string | null {
  try {
    return new URL(ref, base).href;
  } catch {
    return null;
  }
}

function relativePath(abs: string, baseUrl: string): string | null {
  const b = baseUrl.replace(/\/+$/, "");
  if (abs === b) return "/";
  if (!abs.startsWith(b + "/")) return null;
  const rest = abs.slice(b.length);
  return rest.includes("?") || rest.includes("#") ? null : rest;
}

function shortFrom(description: string | null): string | null {
  if (!description) return null;
  const sentence = description.split(/(?<=[.!?])\s/)[0];
  return sentence.length <= 280 ? sentence : description.slice(0, 277) + "…";
}

function networkLabel(network: string): string {
  const name = networkName(network);
  return name === network ? network : `${name} (${network})`;
}

export { baseOf, relativePath, machinePrice, pricingFromMachine };
