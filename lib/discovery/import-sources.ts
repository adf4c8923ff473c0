/** Readers for a draft's sources; none fetches. */
import { PaymentInfo, validate as validateOpenApiDiscovery } from "mppx/discovery";
import type { EndpointPricing, HttpMethod, JsonSchema, MachinePrice } from "@/lib/listing-document/document";
import type { NormalisedRequirement } from "@/lib/evidence";
import { findAsset, KNOWN_ASSETS } from "@/lib/x402/assets";
import { isObject } from "@/lib/x402/json";

export const HTTP_METHODS: readonly HttpMethod[] = ["GET", "POST", "PUT", "PATCH", "DELETE"];

export interface EndpointFacts {
  method: HttpMethod | null;
  path: string;
  description: string | null;
  requestSchema: JsonSchema | null;
  responseSchema: JsonSchema | null;
  requestExample: unknown;
  payable: boolean | null;
  pricing: EndpointPricing | null;
}

export interface ServiceFacts {
  title: string | null;
  description: string | null;
  category: string | null;
  homepageUrl: string | null;
  docsUrl: string | null;
  logoUrl: string | null;
  walkthrough: string | null;
  serverUrl: string | null;
}

export const emptyService = (): ServiceFacts => ({ title: null, description: null, category: null, homepageUrl: null, docsUrl: null, logoUrl: null, walkthrough: null, serverUrl: null });

export interface WellKnownResource {
  ref: string;
  method: HttpMethod | null;
}

const ENTRY_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

/** Anything else is refused, never resolved as a relative URL (docs/PROBE.md "Discovery import"). */
export function readWellKnownEntry(entry: string): { ok: true; resource: WellKnownResource } | { ok: false; reason: string } {
  const m = /^([A-Za-z]+)\s+(\S+)$/.exec(entry.trim());
  if (m) {
    const method = ENTRY_METHODS.find((x) => x === m[1].toUpperCase());
    if (!method) return { ok: false, reason: `"${m[1]}" is not an HTTP method the probe calls (${ENTRY_METHODS.join(", ")})` };
    const target = readWellKnownEntry(m[2]);
    return target.ok ? { ok: true, resource: { ref: target.resource.ref, method } } : target;
  }
  const ref = entry.trim();
  if (ref.startsWith("/") && !ref.startsWith("//")) return { ok: true, resource: { ref, method: null } };
  try {
    const u = new URL(ref);
    if (u.protocol === "http:" || u.protocol === "https:") return { ok: true, resource: { ref, method: null } };
  } catch {
  }
  return { ok: false, reason: "it is neither an http(s) URL, a path from the origin, nor \"METHOD /path\"" };
}

export function readWellKnown(doc: unknown): { resources: WellKnownResource[]; instructions: string | null; warnings: string[] } {
  const warnings: string[] = [];
  if (!isObject(doc)) return { resources: [], instructions: null, warnings: ["/.well-known/x402 is not a JSON object."] };
  let entries: string[] = [];
  if (Array.isArray(doc.resources)) {
    entries = doc.resources.filter((r): r is string => typeof r === "string");
    if (entries.length !== doc.resources.length) warnings.push("/.well-known/x402 lists resources that are not URL strings; they were skipped.");
  } else if (Array.isArray(doc.items)) {
    entries = doc.items.map((i) => (isObject(i) ? (i.resource ?? i.url) : null)).filter((r): r is string => typeof r === "string");
  } else warnings.push("/.well-known/x402 has no `resources` list.");
  if (doc.version !== undefined && doc.version !== 1) warnings.push(`/.well-known/x402 declares version ${JSON.stringify(doc.version)}; version 1 was expected.`);
  const resources: WellKnownResource[] = [];
  for (const entry of entries) {
    const r = readWellKnownEntry(entry);
    if (r.ok) resources.push(r.resource);
    else warnings.push(`well_known_entry_invalid: /.well-known/x402 lists ${JSON.stringify(entry)}, which was left out: ${r.reason}.`);
  }
  return { resources, instructions: typeof doc.instructions === "string" ? doc.instructions : null, warnings };
}

export function readOpenApi(doc: unknown): { service: ServiceFacts; endpoints: EndpointFacts[]; warnings: string[] } {
  const service = emptyService();
  const endpoints: EndpointFacts[] = [];
  const warnings: string[] = [];
  if (!isObject(doc) || typeof doc.openapi !== "string") return { service, endpoints, warnings: ["The OpenAPI document has no `openapi` version field."] };
  for (const issue of validateOpenApiDiscovery(doc)) warnings.push(`OpenAPI ${issue.path}: ${issue.message} (${issue.severity}).`);

  const info = isObject(doc.info) ? doc.info : {};
  service.title = str(info.title);
  service.description = str(info.description);
  service.logoUrl = isObject(info["x-logo"]) ? str(info["x-logo"].url) : null;
  const si = isObject(doc["x-service-info"]) ? doc["x-service-info"] : {};
  service.category = Array.isArray(si.categories) && typeof si.categories[0] === "string" ? si.categories[0] : null;
  const docs = isObject(si.docs) ? si.docs : {};
  service.homepageUrl = str(docs.homepage);
  service.docsUrl = str(docs.apiReference) ?? str(docs.llms);
  const servers = Array.isArray(doc.servers) ? doc.servers : [];
  service.serverUrl = isObject(servers[0]) ? str(servers[0].url) : null;

  const paths = isObject(doc.paths) ? doc.paths : {};
  for (const [path, item] of Object.entries(paths)) {
    if (!isObject(item) || !path.startsWith("/")) continue;
    for (const method of HTTP_METHODS) {
      const op = item[method.toLowerCase()];
      if (!isObject(op)) continue;
      const json = jsonContent(isObject(op.requestBody) ? op.requestBody.content : undefined);
      const responses = isObject(op.responses) ? op.responses : {};
      const ok = Object.keys(responses).find((code) => /^2\d\d$/.test(code));
      const okJson = ok && isObject(responses[ok]) ? jsonContent((responses[ok] as Record<string, unknown>).content) : null;
      const paymentInfo = op["x-payment-info"];
      endpoints.push({
        method,
        path,
        description: str(op.description) ?? str(op.summary),
        requestSchema: asSchema(json?.schema),
        responseSchema: asSchema(okJson?.schema),
        requestExample: json?.example ?? firstExample(json?.examples),
        payable: paymentInfo !== undefined || "402" in responses ? true : null,
        pricing: paymentInfo !== undefined ? pricingFromPaymentInfo(paymentInfo, `${method} ${path}`, warnings) : null,
      });
    }
  }
  return { service, endpoints, warnings };
}

function pricingFromPaymentInfo(raw: unknown, where: string, warnings: string[]): EndpointPricing | null {
  const parsed = PaymentInfo.safeParse(raw);
  if (!parsed.success) {
    warnings.push(`${where}: x-payment-info does not parse (${parsed.error.issues.map((i) => i.message).join("; ")}).`);
    return null;
  }
  for (const offer of parsed.data.offers) {
    const o = offer as Record<string, unknown>;
    const amount = typeof o.amount === "string" ? o.amount : null;
    const currency = typeof o.currency === "string" ? o.currency : null;
    const network = typeof o.network === "string" ? o.network : null;
    if (!amount || !currency) continue;
    const priced = machinePrice(amount, currency, network);
    if (!priced) {
      warnings.push(`${where}: x-payment-info prices in ${currency}${network ? ` on ${network}` : ""}, whose decimals are not in the asset table; the price was left for you to fill in.`);
      continue;
    }
    return pricingFromMachine(priced, typeof o.description === "string" ? o.description : null);
  }
  return null;
}

export function machinePrice(amount: string, asset: string, network: string | null): MachinePrice | null {
  if (!/^\d+$/.test(amount)) return null;
  if (asset.toLowerCase() === "usd") return null; // fiat: no on-chain asset
  const known = network ? findAsset(network, asset) : KNOWN_ASSETS.find((a) => a.address.toLowerCase() === asset.toLowerCase()) ?? null;
  if (!known) return null;
  return { amount, asset: known.address, network: known.network, decimals: known.decimals };
}

/** Exact, no floating point. */
export function atomicToDecimal(amount: string, decimals: number): string {
  const padded = amount.replace(/^0+(?=\d)/, "").padStart(decimals + 1, "0");
  const whole = padded.slice(0, padded.length - decimals) || "0";
  const frac = decimals > 0 ? padded.slice(padded.length - decimals).replace(/0+$/, "") : "";
  return frac ? `${whole}.${frac}` : whole;
}

export function pricingFromMachine(machine: MachinePrice, label: string | null): EndpointPricing {
  const symbol = KNOWN_ASSETS.find((a) => a.network === machine.network && a.address.toLowerCase() === machine.asset.toLowerCase())?.symbol ?? null;
  const decimal = atomicToDecimal(machine.amount, machine.decimals);
  // Only a USD stablecoin's amount is a USD price.
  const usd = symbol === "USDC" ? decimal : null;
  return {
    label: label ?? (usd ? `$${usd} per call` : `${decimal} ${symbol ?? machine.asset} per call`),
    usd,
    machine,
    mode: null,
    dynamic: null,
  };
}

export function pricingFromRequirements(reqs: readonly NormalisedRequirement[]): EndpointPricing | null {
  for (const r of reqs) {
    const m = machinePrice(r.amount, r.asset, r.network.includes(":") ? r.network : null);
    if (m) return pricingFromMachine(m, null);
  }
  return null;
}

function jsonContent(content: unknown): Record<string, unknown> | null {
  if (!isObject(content)) return null;
  const key = Object.keys(content).find((k) => /json/i.test(k));
  return key && isObject(content[key]) ? (content[key] as Record<string, unknown>) : null;
}

function firstExample(examples: unknown): unknown {
  if (!isObject(examples)) return undefined;
  const first = Object.values(examples)[0];
  return isObject(first) && "value" in first ? first.value : undefined;
}

function asSchema(v: unknown): JsonSchema | null {
  return isObject(v) || typeof v === "boolean" ? (v as JsonSchema) : null;
}

function str(v: unknown): string | null {
  return typeof v === "string" && v.trim() !== "" ? v.trim() : null;
}
