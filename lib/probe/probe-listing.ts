/** Probes a listing unpaid: endpoints, logo (M4), docs (D1) and discovery document (D4). */
import { validateTarget, type Resolver, type SafeFetchResult } from "@/lib/net";
import type { ListingDocument } from "@/lib/listing-document/document";
import type { DeclaredToken } from "@/lib/x402/assets";
import { findSecretAsks } from "@/lib/x402/secret-asks";
import { bodyText, isObject } from "@/lib/x402/json";
import { mapBounded } from "./bounded";
import { MAX_OWNERSHIP_PROOFS, PROBE_EVIDENCE_VERSION, type EndpointEvidence, type Finding, type ProbeEvidence, type ResourceEvidence } from "@/lib/evidence";
import { probeEndpointDocs } from "./endpoint-docs";
import { DEFAULT_DEADLINE_MS, callEndpoint, evidenceFrom, type ProbeTarget } from "./probe-endpoint";
import { getResource, type Net, type UnpaidCalls } from "./request";
import { endpointUrl } from "@/lib/listing-document/endpoint-url";

export interface ProbeListingOptions {
  allowHosts?: string[];
  vantage?: string;
  concurrency?: number;
  now?: Date;
  resolver?: Resolver;
  deadlineMs?: number;
  declaredTokens?: readonly DeclaredToken[];
  /** An endpoint among these is not called again. */
  prefetched?: UnpaidCalls;
  onEndpoint?: (done: number, total: number) => void;
}

export { endpointUrl };

export type ProbeListingResult = { ok: true; evidence: ProbeEvidence } | { ok: false; refusal: string; detail: string };

const IMAGE_TYPES = new Set(["png", "jpeg", "gif", "webp", "svg", "ico"]);
const LOGO_MAX_BYTES = 512 * 1024;
const DOC_MAX_BYTES = 1024 * 1024;

export async function probeListing(listing: ListingDocument, opts: ProbeListingOptions = {}): Promise<ProbeListingResult> {
  const checked = validateTarget(listing.baseUrl, { allowHosts: opts.allowHosts });
  if (!checked.ok) return { ok: false, refusal: checked.refusal, detail: checked.detail };
  const now = opts.now ?? new Date();
  const net = { allowHosts: opts.allowHosts, resolver: opts.resolver, deadlineMs: opts.deadlineMs ?? DEFAULT_DEADLINE_MS, now, declaredTokens: opts.declaredTokens };

  const unique = new Map<string, ProbeTarget>();
  for (const e of listing.endpoints) {
    const key = `${e.method.toUpperCase()} ${e.path}`;
    if (!unique.has(key)) unique.set(key, { method: e.method, path: e.path, url: endpointUrl(listing.baseUrl, e.path), requestExample: e.requestExample, payable: e.payable });
  }

  let endpointsDone = 0;
  opts.onEndpoint?.(0, unique.size);
  const targets = [...unique.values()];
  const judged = new Array<Promise<EndpointEvidence>>(targets.length);
  const [endpoints, logo, docs, discovery, endpointDocs] = await Promise.all([
    // A slot is free for its next call once an answer is read; judging the answer waits for the event loop's next
    // turn, so when a wave of answers arrives together every slot sends its next request before any is judged
    // (docs/PROBE.md "Concurrency"). The evidence is the same; only when the CPU is spent moves.
    mapBounded(targets, opts.concurrency ?? 8, async (t, i) => {
      const answer = await callEndpoint(t, net, opts.prefetched);
      judged[i] = nextTurn().then(() => {
        const ev = evidenceFrom(t, answer, net);
        opts.onEndpoint?.(++endpointsDone, unique.size);
        return ev;
      });
      // Awaited below, once every call is made; a failure before then is that await's, not an unhandled rejection.
      judged[i].catch(() => undefined);
    }).then(() => Promise.all(judged)),
    listing.logoUrl ? probeLogo(listing.logoUrl, net) : Promise.resolve(null),
    listing.docsUrl ? probeDocs(listing.docsUrl, net) : Promise.resolve(null),
    probeDiscovery(listing, net),
    probeEndpointDocs(listing, net),
  ]);

  // The base host resolved to a forbidden address: nothing this run saw is the seller's evidence.
  const refusedHere = [...endpoints, discovery, docs, logo].find((r) => r?.refusal === "address_forbidden" && sameHost(r.url, listing.baseUrl));
  if (refusedHere) {
    const detail = refusedHere.findings.find((f) => f.severity === "fail")?.message;
    return { ok: false, refusal: "address_forbidden", detail: detail ?? `${new URL(listing.baseUrl).hostname} resolved to an address the probe refuses (${refusedHere.url})` };
  }

  const findings: Finding[] = [];
  if (!logo) findings.push({ check: "M4", severity: "fail", code: "logo_missing", message: "The listing has no logo URL." });
  else findings.push(...logo.findings);
  if (!docs) findings.push({ check: "D1", severity: "fail", code: "docs_missing", message: "The listing has no docs URL." });
  else findings.push(...docs.findings);
  findings.push(...discovery.findings);
  if (listing.endpoints.length === 0) findings.push({ check: "R1", severity: "fail", code: "no_endpoints", message: "The listing has no endpoints to probe." });

  const evidence: ProbeEvidence = {
    version: PROBE_EVIDENCE_VERSION,
    probedAt: now.toISOString(),
    vantage: opts.vantage ?? "local",
    baseUrl: listing.baseUrl,
    endpoints: endpoints satisfies EndpointEvidence[],
    logo,
    docs,
    discovery,
    endpointDocs,
    findings,
  };
  return { ok: true, evidence };
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

function sameHost(a: string, b: string): boolean {
  try {
    return new URL(a).host.toLowerCase().replace(/\.$/, "") === new URL(b).host.toLowerCase().replace(/\.$/, "");
  } catch {
    return false;
  }
}

function get(url: string, net: Net, maxBodyBytes: number): Promise<SafeFetchResult> {
  return getResource(url, net, { maxBodyBytes });
}

function resourceBase(url: string, r: SafeFetchResult): Omit<ResourceEvidence, "findings"> {
  if (r.ok) return { url, ok: r.status >= 200 && r.status < 300, status: r.status, contentType: r.contentType, refusal: null };
  if ("refusal" in r) return { url, ok: false, status: null, contentType: null, refusal: r.refusal };
  return { url, ok: false, status: r.status ?? null, contentType: r.headers?.["content-type"] ?? null, refusal: null };
}

function why(r: SafeFetchResult): string {
  if (r.ok) return `it answered ${r.status}`;
  if ("refusal" in r) return `the probe refused it (${r.refusal}: ${r.detail})`;
  return `${r.error}: ${r.detail}`;
}

async function probeLogo(url: string, net: Net): Promise<ResourceEvidence & { isImage: boolean }> {
  const r = await get(url, net, LOGO_MAX_BYTES);
  const base = resourceBase(url, r);
  const isImage = r.ok && base.ok && IMAGE_TYPES.has(r.sniffedType);
  const findings: Finding[] = isImage
    ? [{ check: "M4", severity: "pass", code: "ok", message: `The logo loads as ${r.ok ? r.sniffedType : "an image"}.` }]
    : base.ok && r.ok
      ? [{ check: "M4", severity: "fail", code: "logo_not_image", message: `The logo URL answers, but its bytes are ${r.sniffedType}, not an image.` }]
      : [{ check: "M4", severity: "fail", code: "logo_unreachable", message: `The logo did not load: ${why(r)}.` }];
  return { ...base, isImage, findings };
}

async function probeDocs(url: string, net: Net): Promise<ResourceEvidence> {
  const r = await get(url, net, DOC_MAX_BYTES);
  const base = resourceBase(url, r);
  const findings: Finding[] = [];
  if (base.ok) {
    findings.push({ check: "D1", severity: "pass", code: "ok", message: "The docs page answers." });
    const text = r.ok ? bodyText(r.body).replace(/<script[\s\S]*?<\/script>|<style[\s\S]*?<\/style>/gi, " ").replace(/<[^>]+>/g, " ") : "";
    const asks = findSecretAsks([{ text, label: "docs page" }]);
    findings.push(...(asks.length ? asks : [{ check: "S4", severity: "pass" as const, code: "ok", message: "The docs ask for no secret." }]));
  } else {
    findings.push({ check: "D1", severity: "fail", code: "docs_unreachable", message: `The docs URL did not answer with a page: ${why(r)}.` });
  }
  return { ...base, findings };
}

type Discovery = ResourceEvidence & { kind: "well-known-x402" | "openapi" | null };

async function probeDiscovery(listing: ListingDocument, net: Net): Promise<Discovery> {
  const candidates = [...new Set([listing.discoveryUrl, endpointUrl(listing.baseUrl, "/.well-known/x402"), endpointUrl(listing.baseUrl, "/openapi.json")].filter((u): u is string => !!u))];
  let last: Discovery | null = null;
  for (const url of candidates) {
    const r = await get(url, net, DOC_MAX_BYTES);
    const base = resourceBase(url, r);
    const kind = r.ok && base.ok ? discoveryKind(r.body) : null;
    if (kind) {
      const proofs = kind === "well-known-x402" && r.ok ? ownershipProofsOf(r.body, url, listing.baseUrl) : null;
      return {
        ...base,
        kind,
        ...(proofs ? { ownershipProofs: proofs } : {}),
        findings: [{ check: "D4", severity: "pass", code: "ok", message: `A ${kind === "openapi" ? "OpenAPI" : "/.well-known/x402"} discovery document is published at ${url}.` }],
      };
    }
    last ??= { ...base, ok: false, kind: null, findings: [] };
  }
  return {
    ...(last ?? { url: candidates[0] ?? listing.baseUrl, ok: false, status: null, contentType: null, refusal: null }),
    kind: null,
    findings: [{ check: "D4", severity: "fail", code: "discovery_missing", message: `No machine-readable discovery document at ${candidates.join(", ")}.` }],
  };
}

const SIGNATURE = /^0x(?:[0-9a-fA-F]{128}|[0-9a-fA-F]{130})$/;

/** Trust H4: only from the operator's own `/.well-known/x402` (docs/TRUST.md "H4"); the probe only records. */
export function ownershipProofsOf(body: Uint8Array, url: string, baseUrl: string): string[] | null {
  let at: URL;
  let base: URL;
  try {
    at = new URL(url);
    base = new URL(baseUrl);
  } catch {
    return null;
  }
  if (at.origin !== base.origin || at.pathname !== "/.well-known/x402") return null;
  const doc = jsonObject(body);
  if (!doc) return null;
  const proofs = Array.isArray(doc.ownershipProofs) ? doc.ownershipProofs : [];
  return proofs.filter((p): p is string => typeof p === "string" && SIGNATURE.test(p.trim())).map((p) => p.trim()).slice(0, MAX_OWNERSHIP_PROOFS);
}

function jsonObject(body: Uint8Array): Record<string, unknown> | null {
  try {
    const doc: unknown = JSON.parse(bodyText(body));
    return isObject(doc) ? doc : null;
  } catch {
    return null;
  }
}

export function discoveryKind(body: Uint8Array): "well-known-x402" | "openapi" | null {
  const doc = jsonObject(body);
  if (!doc) return null;
  if (typeof doc.openapi === "string" && isObject(doc.paths)) return "openapi";
  if (Array.isArray(doc.resources) || Array.isArray(doc.items)) return "well-known-x402";
  return null;
}
