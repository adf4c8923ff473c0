/**
 * What a worker does with a job: the real probe, or a no-network fixture for load and crash tests
 * (`--probe=noop-fixture`) whose evidence says "fixture:noop" so it is never mistaken for a probe.
 */
import { draftListingFromUrl } from "@/lib/discovery/import";
import type { ListingDocument } from "@/lib/listing-document/document";
import { endpointUrl, probeListing, type UnpaidCalls } from "@/lib/probe";
import type { Resolver } from "@/lib/net";
import { PROBE_EVIDENCE_VERSION, type EndpointEvidence, type ProbeEvidence } from "@/lib/evidence";
import { callsFromWire, type LeasedJob } from "@/lib/ops-wire";

export type ProbeOutcome =
  | { ok: true; evidence: ProbeEvidence; document: ListingDocument | null }
  | { ok: false; reason: string; retryable: boolean };

export type ProbeProgress = (done: number, total: number) => void;

export type ProbeFn = (job: LeasedJob, signal: AbortSignal, onProgress?: ProbeProgress) => Promise<ProbeOutcome>;

/**
 * Drafts the listing when the job is a bare URL, then probes it; the draft's unpaid calls are the probe's evidence,
 * so each endpoint is called once per submission.
 */
export function realProbe(opts: { vantage?: string; /** DNS for the draft and the probe; default the system resolver. */ resolver?: Resolver } = {}): ProbeFn {
  return async (job, _signal, onProgress) => {
    let document = job.document;
    let drafted: ListingDocument | null = null;
    let prefetched: UnpaidCalls | undefined = job.prefetched?.length ? callsFromWire(job.prefetched) : undefined;
    if (!document) {
      const draft = await draftListingFromUrl(job.targetUrl, { allowHosts: job.allowHosts, resolver: opts.resolver });
      if (!draft.ok) {
        // A refusal will not change on retry; a fetch error might.
        return "refusal" in draft
          ? { ok: false, reason: `refused_target: ${draft.refusal}: ${draft.detail}`, retryable: false }
          : { ok: false, reason: `draft failed: ${draft.error}: ${draft.detail}`, retryable: true };
      }
      document = drafted = draft.draft;
      prefetched = draft.calls;
    }
    const probed = await probeListing(document, { allowHosts: job.allowHosts, vantage: opts.vantage ?? "local", prefetched, resolver: opts.resolver, onEndpoint: onProgress });
    if (!probed.ok) return { ok: false, reason: `refused_target: ${probed.refusal}: ${probed.detail}`, retryable: false };
    return { ok: true, evidence: probed.evidence, document: drafted };
  };
}

/** Evidence as if every endpoint answered 402 with a valid x402 v2 challenge; delayMs simulates a slow probe. */
export function fixtureProbe(opts: { delayMs?: number } = {}): ProbeFn {
  return async (job, signal, onProgress) => {
    const document = job.document ?? fixtureDraft(job.targetUrl);
    const total = document.endpoints.length;
    onProgress?.(0, total);
    if (opts.delayMs) await abortableSleep(opts.delayMs, signal);
    onProgress?.(total, total);
    return { ok: true, evidence: fixtureEvidence(document), document: job.document ? null : document };
  };
}

export function fixtureEvidence(document: ListingDocument, now: Date = new Date()): ProbeEvidence {
  const finding = { check: "PROBE", severity: "info" as const, code: "fixture_probe", message: "Evidence from the noop fixture probe: no request was sent." };
  const endpoints: EndpointEvidence[] = document.endpoints.map((e) => ({
    method: e.method,
    path: e.path,
    url: endpointUrl(document.baseUrl, e.path),
    reachable: true,
    refusal: null,
    status: 402,
    ttfbMs: 1,
    tls: { valid: true, daysToExpiry: 90 },
    contentType: "application/json",
    headers: {},
    challenge: { kind: "x402-v2", valid: true },
    findings: [],
  }));
  const resource = (url: string | null) => (url ? { url, ok: true, status: 200, contentType: "text/html", findings: [] } : null);
  const logo = resource(document.logoUrl);
  const discovery = resource(document.discoveryUrl);
  return {
    version: PROBE_EVIDENCE_VERSION,
    probedAt: now.toISOString(),
    vantage: "fixture:noop",
    baseUrl: document.baseUrl,
    endpoints,
    logo: logo ? { ...logo, contentType: "image/png", isImage: true } : null,
    docs: resource(document.docsUrl),
    discovery: discovery ? { ...discovery, kind: "well-known-x402" } : null,
    // No docs page was fetched, so D3 observes none.
    endpointDocs: [],
    findings: [finding],
  };
}

function fixtureDraft(url: string): ListingDocument {
  const base = new URL(url);
  return {
    title: `Fixture service at ${base.hostname}`,
    shortDescription: null,
    description: null,
    logoUrl: null,
    category: null,
    homepageUrl: null,
    baseUrl: base.origin,
    docsUrl: null,
    walkthrough: null,
    discoveryUrl: null,
    protocols: ["x402"],
    networks: [],
    operations: { authPreconditions: null, networkRequirements: null, fundingRequirements: null, limits: null, timeouts: null, syncMode: null, errors: null, idempotency: null, supportChannel: null },
    endpoints: [
      { method: "GET", path: base.pathname || "/", description: null, requestSchema: null, noParameters: true, responseSchema: null, requestExample: null, payable: true, pricing: null, docsUrl: null },
    ],
  };
}

export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}
