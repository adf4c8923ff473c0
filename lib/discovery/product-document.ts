/** Drafts a listing from a seller's product document, each field only from one that says it (docs/SEED-IMPORT.md). */
import type { EndpointPricing, HttpMethod, ListingDocument, ListingEndpoint, ListingOperations, PaymentProtocol } from "@/lib/listing-document/document";
import { slugify, validateListingDocument, type ListingValidationError } from "@/lib/listing-document/validate";

export type ProductDocumentFormat = "arbiter-product" | "criteria-document";

export interface FieldMapping {
  source: string;
  target: string;
  note: string;
}

export interface UnmappedField {
  source: string;
  reason: string;
}

export type ProductImport =
  | { ok: true; format: ProductDocumentFormat; listing: ListingDocument; mapping: FieldMapping[]; unmapped: UnmappedField[] }
  | { ok: false; errors: ListingValidationError[] };

export interface ImportOptions {
  sourceUrl?: string;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === "string" && v.trim() !== "" ? v : null);
const METHODS = new Set<HttpMethod>(["GET", "POST", "PUT", "PATCH", "DELETE"]);

class Recorder {
  mapping: FieldMapping[] = [];
  unmapped: UnmappedField[] = [];
  map(source: string, target: string, note: string) {
    this.mapping.push({ source, target, note });
  }
  skip(source: string, reason: string) {
    this.unmapped.push({ source, reason });
  }
}

function emptyOperations(): ListingOperations {
  return { authPreconditions: null, networkRequirements: null, fundingRequirements: null, limits: null, timeouts: null, syncMode: null, errors: null, idempotency: null, supportChannel: null };
}

function originOf(url: string): { origin: string; path: string } | null {
  try {
    const u = new URL(url);
    if (u.protocol !== "https:" && u.protocol !== "http:") return null;
    return { origin: u.origin, path: u.pathname || "/" };
  } catch {
    return null;
  }
}

function usdString(n: unknown): string | null {
  if (typeof n !== "number" || !Number.isFinite(n) || n < 0) return null;
  return String(Number(n.toFixed(6)));
}

export function extractJsonObject(text: string, from: number): { value: unknown; start: number; end: number } | null {
  const start = text.indexOf("{", from);
  if (start < 0) return null;
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === "\\") i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    else if (ch === "{") depth++;
    else if (ch === "}" && --depth === 0) {
      try {
        return { value: JSON.parse(text.slice(start, i + 1)), start, end: i + 1 };
      } catch {
        return null;
      }
    }
  }
  return null;
}

function firstSentence(text: string): string {
  const m = /^(.+?[.?!])(?:\s|$)/s.exec(text.trim());
  return (m ? m[1] : text).trim();
}

type StatedFields = Pick<ListingDocument, "slug" | "title" | "shortDescription" | "description" | "docsUrl" | "protocols" | "networks" | "operations" | "endpoints">;

function finish(format: ProductDocumentFormat, origin: string, f: StatedFields, rec: Recorder): ProductImport {
  const draft: ListingDocument = {
    slug: f.slug,
    title: f.title,
    shortDescription: f.shortDescription,
    description: f.description,
    logoUrl: null,
    category: null,
    homepageUrl: null,
    baseUrl: origin,
    docsUrl: f.docsUrl,
    walkthrough: null,
    discoveryUrl: null,
    protocols: f.protocols,
    networks: f.networks,
    operations: f.operations,
    endpoints: f.endpoints,
  };
  const v = validateListingDocument(draft);
  if (!v.ok) return { ok: false, errors: v.errors };
  return { ok: true, format, listing: v.value, mapping: rec.mapping, unmapped: rec.unmapped };
}

// ──────────────────────── Arbiter product JSON (docs/spec/products.md) ────────────────────────

function isArbiterProduct(d: Obj): boolean {
  return typeof d.productId === "string" && typeof d.resourceUrl === "string" && typeof d.method === "string";
}

function importArbiterProduct(d: Obj): ProductImport {
  const rec = new Recorder();
  const at = originOf(d.resourceUrl as string);
  if (!at) return { ok: false, errors: [{ pointer: "/resourceUrl", message: "must be an absolute http(s) URL" }] };
  const method = String(d.method).toUpperCase() as HttpMethod;
  if (!METHODS.has(method)) return { ok: false, errors: [{ pointer: "/method", message: `must be one of ${[...METHODS].join(", ")}` }] };
  rec.map("/resourceUrl", "/baseUrl", "the origin of the resource URL");
  rec.map("/resourceUrl", "/endpoints/0/path", "the path of the resource URL; the product is one endpoint");
  rec.map("/method", "/endpoints/0/method", "verbatim");

  const title = str(d.title) ?? String(d.productId);
  rec.map("/title", "/title", "verbatim");
  rec.map("/productId", "/slug", "lower-cased, underscores as hyphens");

  const summary = str(d.summary) ?? "";
  let description: string | null = summary || null;
  let requestExample: unknown = null;
  const exAt = summary.indexOf("Example request:");
  if (exAt >= 0) {
    const ex = extractJsonObject(summary, exAt);
    const required = isObj(d.inputSchema) && Array.isArray(d.inputSchema.required) ? (d.inputSchema.required as unknown[]).filter((k): k is string => typeof k === "string") : [];
    if (ex && isObj(ex.value) && required.every((k) => k in (ex.value as Obj))) {
      requestExample = ex.value;
      description = (summary.slice(0, exAt) + summary.slice(ex.end).replace(/^\s*\.?/, "")).trim();
      rec.map("/summary", "/endpoints/0/requestExample", `the "Example request:" JSON in the summary: the seller's own published request, and it carries every field inputSchema requires (${required.join(", ")}). /examples withholds settled deliverables, not this request`);
      rec.map("/summary", "/description", 'the summary without its "Example request:" sentence, which moved to requestExample');
    } else {
      rec.skip("/summary", 'the "Example request:" in the summary does not parse, or lacks a field inputSchema requires; left in the description');
      rec.map("/summary", "/description", "verbatim");
    }
  } else if (description) rec.map("/summary", "/description", "verbatim");
  const shortDescription = summary ? firstSentence(summary) : null;
  if (shortDescription) rec.map("/summary", "/shortDescription", "the summary's first sentence");

  const docsPath = str(d.docsPath);
  const docsUrl = docsPath && docsPath.startsWith("/") ? `${at.origin}${docsPath}` : null;
  if (docsUrl) {
    rec.map("/docsPath", "/docsUrl", "resolved against the resource URL's origin");
    rec.map("/docsPath", "/endpoints/0/docsUrl", "the docs document is this product document (it carries inputSchema, outputSchema and the summary's example request)");
  }

  const p = isObj(d.pricing) ? d.pricing : {};
  let pricing: EndpointPricing | null = null;
  const floor = usdString(p.floorUsd);
  const start = usdString(p.publicStartingPriceUsd) ?? floor;
  if (p.mode === "DYNAMIC_QUOTE") {
    pricing = {
      label: start ? `from $${start}` : null,
      usd: null,
      machine: null,
      mode: "dynamic",
      dynamic: { min: floor, max: usdString(p.ownerCeilingUsd), driver: null, unit: null },
    };
    rec.map("/pricing/mode", "/endpoints/0/pricing/mode", 'DYNAMIC_QUOTE → "dynamic"');
    rec.map("/pricing/publicStartingPriceUsd", "/endpoints/0/pricing/label", `"from $${start}"`);
    rec.map("/pricing/floorUsd", "/endpoints/0/pricing/dynamic/min", "verbatim, as a decimal string");
    rec.map("/pricing/ownerCeilingUsd", "/endpoints/0/pricing/dynamic/max", "null in the document, so null");
    rec.skip("/pricing/pricingClass", `"${String(p.pricingClass)}" is a pricing class name, not a price driver or unit; P4's driver and unit stay null`);
    rec.skip("/pricing/floorUsd", "no machine price: the floor is a USD number, not an atomic amount of a named asset on a network; the amount and asset are chosen per quote in the 402 challenge");
  } else if (start) {
    pricing = { label: `$${start}`, usd: start, machine: null, mode: p.mode === "FIXED" ? "fixed" : null, dynamic: null };
    rec.map("/pricing/publicStartingPriceUsd", "/endpoints/0/pricing/usd", "verbatim");
  }
  rec.skip("/pricing/currency", "USD is implied by every listing USD field");

  const pay = isObj(d.payment) ? d.payment : {};
  const dest = isObj(pay.destination) ? pay.destination : {};
  const protocols: PaymentProtocol[] = typeof pay.protocol === "string" && pay.protocol.startsWith("X402") ? ["x402"] : [];
  if (protocols.length) rec.map("/payment/protocol", "/protocols", `${String(pay.protocol)} → "x402"`);
  const networks = Array.isArray(dest.networks) ? (dest.networks as unknown[]).filter((n): n is string => typeof n === "string") : [];
  if (networks.length) rec.map("/payment/destination/networks", "/networks", "verbatim (CAIP-2)");
  const payable = pay.admitted === true || protocols.length > 0;
  rec.map("/payment/admitted", "/endpoints/0/payable", "admitted x402 payment: the endpoint answers 402 and charges per call");

  const ops = emptyOperations();
  if (networks.length) {
    ops.networkRequirements = `x402 v${String(pay.protocolVersion ?? 2)}, scheme ${String(pay.scheme ?? "exact")}, on ${networks.join(", ")}.`;
    rec.map("/payment/destination/networks", "/operations/networkRequirements", "composed from payment.protocolVersion, payment.scheme and payment.destination.networks");
  }
  const assets = Array.isArray(dest.assetContracts) ? (dest.assetContracts as unknown[]).filter((a): a is string => typeof a === "string") : [];
  if (assets.length) {
    ops.fundingRequirements = `Hold the asset the 402 challenge names on its network; accepted asset contracts: ${assets.join(", ")}.`;
    rec.map("/payment/destination/assetContracts", "/operations/fundingRequirements", "the accepted asset contracts, listed; the document does not name the asset or say whether gas is needed");
  }
  if (str(pay.processingSemantics)) {
    ops.syncMode = "mixed";
    rec.map("/payment/processingSemantics", "/operations/syncMode", '"mixed": a call normally answers with its result, and answers 202 (retry with the same payment) while settlement is in progress');
  }
  const pid = isObj(pay.paymentIdentifier) ? pay.paymentIdentifier : null;
  if (pid && pid.supported === true && str(pid.semantics)) {
    ops.idempotency = pid.semantics as string;
    rec.map("/payment/paymentIdentifier/semantics", "/operations/idempotency", "verbatim");
  }
  if (Array.isArray(d.errors) && d.errors.length) {
    ops.errors = (d.errors as Obj[]).map((e) => `${String(e.status)}${e.code ? ` ${String(e.code)}` : ""}: ${String(e.description ?? "")}`).join(" ");
    rec.map("/errors", "/operations/errors", '"status: description" per entry');
  }

  rec.skip("/examples", `state ${String(isObj(d.examples) ? d.examples.state : "?")}: the seller withholds example deliverables until real settled evidence exists; nothing to map, and nothing is invented`);
  rec.skip("/inputSchema (size limits)", "the deliverable size (45,056 bytes) and criteria count (1–64) limits are stated inside inputSchema descriptions, which the listing carries; no rate limit or timeout is stated, so operations.limits and timeouts stay null");
  rec.skip("/payment/destination/address", "the payTo address has no listing field; the probe reads it from the live challenge");
  for (const k of ["challengeHeader", "signatureHeader", "quoteHeader", "logicalPaymentHeader", "payToSource", "bindingVersion", "scheme", "protocolVersion"]) {
    if (k in pay) rec.skip(`/payment/${k}`, k === "scheme" || k === "protocolVersion" ? "folded into operations.networkRequirements" : "protocol wiring for the seller's own headers; no listing field");
  }
  for (const k of ["definitionRoot", "family", "familyTitle", "operationId", "productVersion", "schemaVersion", "freshness", "provenance"]) {
    if (k in d) rec.skip(`/${k}`, k === "family" || k === "familyTitle" ? "a product family of the seller, not a catalog category; category stays null" : "product identity or provenance metadata; no listing field");
  }
  rec.skip("(absent)", "no logo, category, homepage, walkthrough, discovery document, auth preconditions, timeouts or support channel is stated");

  const endpoint: ListingEndpoint = {
    method,
    path: at.path,
    description: title,
    requestSchema: isObj(d.inputSchema) ? d.inputSchema : null,
    noParameters: false,
    responseSchema: isObj(d.outputSchema) ? d.outputSchema : null,
    requestExample,
    payable,
    pricing,
    docsUrl,
  };
  rec.map("/title", "/endpoints/0/description", "the title names the one operation");
  if (endpoint.requestSchema) rec.map("/inputSchema", "/endpoints/0/requestSchema", "verbatim (JSON Schema 2020-12)");
  if (endpoint.responseSchema) rec.map("/outputSchema", "/endpoints/0/responseSchema", "verbatim (JSON Schema 2020-12)");

  const stated = { slug: slugify(String(d.productId)), title, shortDescription, description, docsUrl, protocols, networks, operations: ops, endpoints: [endpoint] };
  return finish("arbiter-product", at.origin, stated, rec);
}

// ──────────────────────── criteria document (docs/spec/products.md) ────────────────────────

function isCriteriaDocument(d: Obj): boolean {
  return typeof d.service === "string" && isObj(d.endpoints) && (isObj(d.price) || "criteria_id" in d);
}

const ENDPOINT_LINE = /^(GET|POST|PUT|PATCH|DELETE)\s+(\/\S*)\s*(?:\((.*)\))?\s*$/s;
const PRICE_IN_TEXT = /\$(\d+(?:\.\d+)?)(?:\s+per\s+([^:,)]+))?/;

export function parseEndpointLine(line: string): { method: HttpMethod; path: string; paid: boolean | null; priceUsd: string | null; per: string | null; description: string | null } | null {
  const m = ENDPOINT_LINE.exec(line.trim());
  if (!m) return null;
  const qual = (m[3] ?? "").trim();
  const head = qual.split(/[,:]/)[0].trim().toLowerCase();
  const paid = head === "paid" ? true : head === "free" ? false : null;
  const price = PRICE_IN_TEXT.exec(qual);
  let description: string | null = null;
  const colon = qual.indexOf(":");
  if (paid === true && colon >= 0) description = qual.slice(colon + 1).trim();
  else if (paid === false && qual.includes(",")) description = qual.slice(qual.indexOf(",") + 1).trim();
  return { method: m[1] as HttpMethod, path: m[2], paid, priceUsd: price ? price[1] : null, per: price?.[2]?.trim() ?? null, description: description || null };
}

function importCriteriaDocument(d: Obj, opts: ImportOptions): ProductImport {
  const rec = new Recorder();
  const at = opts.sourceUrl ? originOf(opts.sourceUrl) : null;
  if (!at) {
    return { ok: false, errors: [{ pointer: "/baseUrl", message: "the criteria document names no origin; pass sourceUrl, the http(s) URL it was fetched from" }] };
  }
  rec.map("(sourceUrl)", "/baseUrl", "the origin the document was fetched from; the document itself names none");

  const service = String(d.service);
  rec.map("/service", "/title", "verbatim");
  rec.map("/service", "/slug", "verbatim");

  const price = isObj(d.price) ? d.price : {};
  const units = typeof price.usdc_units_per_call === "number" ? price.usdc_units_per_call : null;
  const usdFromUnits = units !== null ? String(units / 1_000_000) : null;

  const endpoints: ListingEndpoint[] = [];
  let docsUrl: string | null = null;
  for (const [key, value] of Object.entries(d.endpoints as Obj)) {
    const src = `/endpoints/${key}`;
    const line = typeof value === "string" ? parseEndpointLine(value) : null;
    if (!line) {
      rec.skip(src, "not an endpoint line (METHOD /path): it describes what is not offered");
      continue;
    }
    const i = endpoints.length;
    const payable = line.paid === true;
    const usd = line.priceUsd ?? (payable ? usdFromUnits : null);
    endpoints.push({
      method: line.method,
      path: line.path,
      description: line.description,
      requestSchema: null,
      noParameters: false,
      responseSchema: null,
      requestExample: null,
      payable,
      pricing: payable
        ? { label: usd ? `$${usd}${line.per ? ` per ${line.per}` : " per call"}` : null, usd, machine: null, mode: "fixed", dynamic: null }
        : null,
      docsUrl: null,
    });
    rec.map(src, `/endpoints/${i}`, `method and path from "${String(value)}"`);
    if (line.description) rec.map(src, `/endpoints/${i}/description`, "the text after the price (paid) or after \"free,\"");
    if (payable) {
      rec.map(src, `/endpoints/${i}/pricing`, `"paid, $${usd}${line.per ? ` per ${line.per}` : ""}": payable, mode "fixed" (one stated amount per call), usd from the line and /price/usdc_units_per_call (${units} units of 6-decimal USDC = $${usdFromUnits})`);
    } else {
      rec.map(src, `/endpoints/${i}/payable`, line.paid === false ? '"free"' : "no price or \"paid\" stated, so not payable");
    }
    if (key === "criteria" && line.method === "GET") docsUrl = `${at.origin}${line.path}`;
  }
  if (docsUrl) rec.map("/endpoints/criteria", "/docsUrl", "GET /criteria serves this published criteria document: the contract, pricing and error rules");
  rec.skip("/price/usdc_units_per_call", "no machine price: the units are USDC's, but no network or asset contract is named, and a machine price needs both");
  rec.skip("/input_contract, /input_contract_text", "the request contract is prose, not a JSON Schema; writing a schema from it would be ours, not the seller's, so requestSchema stays null");

  const ops = emptyOperations();
  const ft = isObj(d.free_tier) ? d.free_tier : null;
  const caps = isObj(d.input_contract) && isObj((d.input_contract as Obj).caps) ? ((d.input_contract as Obj).caps as Obj) : null;
  const limitParts: string[] = [];
  if (ft) limitParts.push(`Free pre-check: ${String(ft.per_day)} per day per caller wallet, at least ${String(ft.min_interval_ms)} ms apart, ${String(ft.on_exhaustion)} when exhausted.`);
  if (caps && typeof caps.body_bytes === "number") limitParts.push(`Request bodies at most ${caps.body_bytes} bytes.`);
  if (limitParts.length) {
    ops.limits = limitParts.join(" ");
    rec.map("/free_tier, /input_contract/caps/body_bytes", "/operations/limits", "composed from the free allowance and the body-size cap");
  }
  const custody = isObj(d.custody) ? d.custody : null;
  if (custody && typeof custody.construction === "string" && /single request lifetime/i.test(custody.construction)) {
    ops.syncMode = "sync";
    rec.map("/custody/construction", "/operations/syncMode", '"sync": processing happens within a single request lifetime');
  }
  if (str(d.malformed_rule)) {
    ops.errors = d.malformed_rule as string;
    rec.map("/malformed_rule", "/operations/errors", "verbatim: the named free refusals");
  }
  const description = str(d.boundary_statement);
  if (description) rec.map("/boundary_statement", "/description", "verbatim: what the service reads and what it does not do");

  rec.skip("(absent)", "no short summary, logo, category, homepage, walkthrough, discovery document, payment protocol, network, auth preconditions, timeouts, idempotency or support channel is stated");
  rec.skip("/retention", "says a paid retry re-submits the artefact, not whether it pays again: not an idempotency statement");
  for (const k of [
    "criteria_id", "criteria_revision", "family", "family_note", "ops", "ops_not_offered", "corpus", "corpus_pin_definition", "tight_thresholds", "guidance",
    "verdicts", "machinery_statuses", "rails", "computation_rule", "evaluation_instant", "free_precheck", "custody", "forbidden", "honesty_line",
    "payment_includes", "kill_line", "never", "version",
  ]) {
    if (k in d) rec.skip(`/${k}`, k === "family" ? "a product family id, not a catalog category" : k === "rails" ? "the rails the service analyses, not the networks it is paid on" : "the service's own contract and policy text; no listing field");
  }

  const stated = { slug: slugify(service), title: service, shortDescription: null, description, docsUrl, protocols: [], networks: [], operations: ops, endpoints };
  return finish("criteria-document", at.origin, stated, rec);
}

export function importProductDocument(raw: string | object, opts: ImportOptions = {}): ProductImport {
  let doc: unknown = raw;
  if (typeof raw === "string") {
    try {
      doc = JSON.parse(raw);
    } catch (e) {
      return { ok: false, errors: [{ pointer: "", message: `not JSON: ${(e as Error).message}` }] };
    }
  }
  if (!isObj(doc)) return { ok: false, errors: [{ pointer: "", message: "a product document is a JSON object" }] };
  if (isArbiterProduct(doc)) return importArbiterProduct(doc);
  if (isCriteriaDocument(doc)) return importCriteriaDocument(doc, opts);
  return { ok: false, errors: [{ pointer: "", message: "not a recognised product document (expected an Arbiter product with productId/resourceUrl/method, or a criteria document with service/endpoints/price)" }] };
}
