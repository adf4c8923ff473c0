/**
 * A seeded generator of varied listings and evidence, for the benchmark (bench/score.ts) and for the
 * patch-governance check (a PATCH must move no score over a broad corpus). Deterministic for a seed:
 * the same seed always yields the same documents, so a failing comparison can be replayed.
 */
import type { HttpMethod, ListingDocument, ListingEndpoint } from "@/lib/listing-document/document";
import { mulberry32 } from "@/lib/trust/engine/stats";
import type { EndpointEvidence } from "@/lib/evidence";
import type { HealthStatus } from "@/lib/scoring/signals";
import type { ReadinessEvidence } from "@/lib/scoring/readiness/types";

/** mulberry32 (the trust engine's seeded generator): small, fast, good enough to vary test data. */
export const prng: (seed: number) => () => number = mulberry32;

const NOUNS = ["weather", "geocoding", "translation", "search", "prices", "transcription", "OCR", "embeddings", "sanctions screening", "company data", "flight status", "DNS lookup", "image resize", "PDF extraction", "email validation", "sentiment"];
const TITLES = ["{Brand} {noun} API", "{noun} by {Brand}", "{Brand}: {noun} for agents", "{Brand} {noun}", "My API", "Untitled", "test", "api.{host}", "Demo", "{Brand}"];
const BRANDS = ["Weatherly", "Geocodr", "Lingo", "Serpwire", "Tickr", "Scribe", "Optica", "Vectorly", "Clearlist", "Firmo", "Skyline", "Resolvd", "Pixlr", "Parsewell", "Mailcheck", "Moodmeter"];
const METHODS: HttpMethod[] = ["GET", "POST", "GET", "POST", "PUT", "DELETE"];
const STATUSES: HealthStatus[] = ["operational", "operational", "operational", "unverified", "degraded", "unavailable"];
const USDC_BASE = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";

export interface GeneratedListing {
  listing: ListingDocument;
  evidence: ReadinessEvidence;
}

export function generateListing(rand: () => number, i: number): GeneratedListing {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)];
  const chance = (p: number) => rand() < p;
  const brand = pick(BRANDS);
  const noun = pick(NOUNS);
  const host = `${brand.toLowerCase()}${i % 97}.dev`;
  const baseUrl = `https://api.${host}`;
  const title = pick(TITLES).replace("{Brand}", brand).replace("{noun}", noun).replace("{host}", host);
  const n = Math.floor(rand() * 13); // 0–12 endpoints
  const endpoints: ListingEndpoint[] = [];
  for (let k = 0; k < n; k++) {
    // Now and then a duplicate of the previous endpoint, which must count once.
    if (k > 0 && chance(0.05)) {
      endpoints.push({ ...endpoints[k - 1] });
      continue;
    }
    const payable = chance(0.8);
    const dynamic = payable && chance(0.25);
    const amount = String(1000 * (1 + Math.floor(rand() * 50)));
    const hasReq = chance(0.7);
    endpoints.push({
      method: pick(METHODS),
      path: `/v${1 + (k % 2)}/${noun.replace(/\s+/g, "-").toLowerCase()}/${k}`,
      description: chance(0.85) ? `${noun} operation ${k}: returns ${pick(["JSON results", "a ranked list", "one record", "a signed verdict"])} for the input` : chance(0.5) ? "short" : null,
      requestSchema: hasReq
        ? { type: "object", required: ["q"], properties: { q: { type: "string", maxLength: 512 }, limit: { type: "integer", minimum: 1, maximum: 100 }, lang: { type: "string" } } }
        : chance(0.2) ? {} : null,
      noParameters: !hasReq && chance(0.3),
      responseSchema: chance(0.6) ? { type: "object", required: ["results"], properties: { results: { type: "array", items: { type: "object", properties: { id: { type: "string" }, score: { type: "number" }, text: { type: "string" } } } } } } : null,
      requestExample: chance(0.55) ? (chance(0.9) ? { q: `${noun} example`, limit: 5 } : { limit: 5 }) : null,
      payable,
      pricing: payable
        ? {
            label: chance(0.9) ? `$${(Number(amount) / 1e6).toFixed(4)} per call` : null,
            usd: chance(0.7) ? (Number(amount) / 1e6).toFixed(4) : null,
            machine: chance(0.6) ? { amount, asset: USDC_BASE, network: "eip155:8453", decimals: 6 } : null,
            mode: chance(0.85) ? (dynamic ? "dynamic" : "fixed") : null,
            dynamic: dynamic ? { min: "0.001", max: chance(0.6) ? "1.00" : null, driver: chance(0.6) ? "input size" : null, unit: chance(0.6) ? "per 1,000 tokens" : null } : null,
          }
        : null,
      docsUrl: chance(0.5) ? `https://docs.${host}/api#op-${k}` : chance(0.2) ? `#op-${k}` : null,
    });
  }
  const text = (p: number, s: string) => (chance(p) ? s : null);
  const listing: ListingDocument = {
    slug: `${brand.toLowerCase()}-${i}`,
    title,
    shortDescription: chance(0.8) ? `${brand} ${noun} for agents, paid per call` : chance(0.5) ? title : null,
    description: text(0.7, `${brand} provides ${noun} over plain HTTPS. Every call is priced up front with an HTTP 402 challenge, settled in USDC on Base, and answered synchronously.`),
    logoUrl: text(0.6, `https://${host}/logo.${pick(["png", "svg"])}`),
    category: text(0.7, noun),
    homepageUrl: text(0.75, `https://${host}`),
    baseUrl,
    docsUrl: text(0.55, `https://docs.${host}/api`),
    walkthrough: chance(0.35) ? (chance(0.5) ? `https://docs.${host}/start` : `Pay with x402: call ${baseUrl} unpaid to receive a 402, sign the quoted USDC authorisation on Base and retry with PAYMENT-SIGNATURE.`) : null,
    discoveryUrl: text(0.4, `${baseUrl}/.well-known/x402`),
    protocols: chance(0.9) ? ["x402"] : chance(0.5) ? ["x402", "mpp"] : [],
    networks: chance(0.7) ? ["eip155:8453"] : [],
    operations: {
      authPreconditions: text(0.5, "None: any x402-capable wallet."),
      networkRequirements: text(0.4, "Base mainnet."),
      fundingRequirements: text(0.45, "USDC on Base; no gas needed."),
      limits: text(0.35, "100 requests per second per wallet."),
      timeouts: text(0.4, "10 s."),
      syncMode: chance(0.5) ? pick(["sync", "async", "mixed"] as const) : null,
      errors: text(0.45, "400 invalid input; 402 payment required; 503 busy."),
      idempotency: text(0.3, "Same payment identifier replays the result."),
      supportChannel: text(0.4, `support@${host}`),
    },
    endpoints,
  };

  const probed: EndpointEvidence[] = [];
  const up = chance(0.9);
  for (const e of endpoints) {
    const reachable = up && chance(0.95);
    const challenged = reachable && e.payable && chance(0.9);
    probed.push({
      method: e.method,
      path: e.path,
      url: baseUrl + e.path,
      reachable,
      status: reachable ? (challenged ? 402 : 200) : null,
      ttfbMs: reachable ? Math.floor(50 + rand() * 900) : null,
      tls: reachable ? { valid: true, daysToExpiry: 30 } : null,
      contentType: reachable ? "application/json" : null,
      headers: {},
      challenge: challenged ? { kind: chance(0.8) ? "x402-v2" : chance(0.5) ? "x402-v1" : "mpp", valid: chance(0.9) } : { kind: "none", valid: false },
      findings: [],
    });
  }
  const uptime = chance(0.8) ? Math.round(50 + rand() * 50) : null;
  const failing = chance(0.1);
  const evidence: ReadinessEvidence = {
    probe: {
      version: 1,
      probedAt: "2026-12-02T11:00:00Z",
      vantage: "local",
      baseUrl,
      endpoints: probed,
      logo: listing.logoUrl ? { url: listing.logoUrl, ok: chance(0.9), status: 200, contentType: "image/png", findings: [], isImage: chance(0.9) } : null,
      docs: listing.docsUrl ? { url: listing.docsUrl, ok: chance(0.85), status: 200, contentType: "text/html", findings: [] } : null,
      discovery: { url: listing.discoveryUrl ?? `${baseUrl}/.well-known/x402`, ok: chance(0.4), status: 200, contentType: "application/json", findings: [], kind: "well-known-x402" },
      findings: [],
    },
    settle: {
      lastSettledAt: chance(0.6) ? `2026-11-${String(1 + Math.floor(rand() * 30)).padStart(2, "0")}T10:00:00Z` : null,
      failedAttemptsSinceLastSettle: failing ? 3 + Math.floor(rand() * 20) : Math.floor(rand() * 3),
      distinctFailingBuyersSinceLastSettle: failing ? 2 + Math.floor(rand() * 5) : Math.floor(rand() * 2),
    },
    liveness: {
      uptime7d: uptime,
      uptime30d: uptime === null ? null : Math.min(100, uptime + 1),
      healthStatus: pick(STATUSES),
      healthConfidence: pick([1, 1, 1, 0.6, 0.3, 0]),
      settlementUnproven: failing && chance(0.5),
    },
  };
  return { listing, evidence };
}

export function generateListingCorpus(seed: number, count: number): GeneratedListing[] {
  const rand = prng(seed);
  const out: GeneratedListing[] = new Array(count);
  for (let i = 0; i < count; i++) out[i] = generateListing(rand, i);
  return out;
}
