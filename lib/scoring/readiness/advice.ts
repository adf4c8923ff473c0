/** "What to fix next": each fix applied to a copy of the listing and re-scored; measured rules gain null ("up to"). Pure. */
import type { EndpointPricing, ListingDocument, ListingEndpoint } from "@/lib/listing-document/document";
import { scoreReadiness } from "./engine";
import type { Rubric, RuleId } from "./rubric";
import type { Improvement, ReadinessEvidence, ReadinessResult, RuleResult, ScoreOptions } from "./types";

export interface OpenedRule {
  ruleId: RuleId;
  points: number;
}

export interface FixOutcome {
  fix: string;
  /** Change in the total (0–100, after caps). */
  gain: number;
  /** Before caps: a capped listing gains raw points but not total ones. */
  rawGain: number;
  opens: OpenedRule[];
}

export interface AdvisedImprovement extends Improvement {
  gain: number | null;
  rawGain: number | null;
  fix: string | null;
  opens: OpenedRule[];
  /** Other fixes, each re-scored (P3: fixed or dynamic). */
  alternatives: FixOutcome[];
}

export type AdvisedResult = Omit<ReadinessResult, "improvements"> & { improvements: AdvisedImprovement[] };

type Fix = { fix: string; apply: (doc: ListingDocument) => ListingDocument };

const TEXT = {
  short: "Returns the answer to one paid call, in JSON.",
  long: "What the service does, for whom, and what a call returns: a stand-in of more than sixty characters.",
  walkthrough: "Send the request unpaid to receive the 402 challenge; sign the payment for one offer; send it again with the payment header.",
  endpoint: "What one call does and returns.",
  url: "https://docs.example.com/",
};

const mapEndpoints = (doc: ListingDocument, f: (e: ListingEndpoint) => ListingEndpoint): ListingDocument => ({ ...doc, endpoints: doc.endpoints.map(f) });
const pricingOf = (e: ListingEndpoint): EndpointPricing => e.pricing ?? { label: null, usd: null, machine: null, mode: null, dynamic: null };
const withPricing = (doc: ListingDocument, f: (p: EndpointPricing, e: ListingEndpoint) => Partial<EndpointPricing>): ListingDocument =>
  mapEndpoints(doc, (e) => (e.payable ? { ...e, pricing: { ...pricingOf(e), ...f(pricingOf(e), e) } } : e));
const orText = (v: string | null, t: string) => (v && v.trim() ? v : t);
const ops = (doc: ListingDocument, patch: Partial<ListingDocument["operations"]>): ListingDocument => {
  const o = { ...doc.operations };
  for (const [k, v] of Object.entries(patch) as Array<[keyof typeof o, string]>) if (!o[k] || !String(o[k]).trim()) (o as Record<string, string | null>)[k] = v;
  return { ...doc, operations: o };
};
/** Carries the request schema's required fields (E5). */
function exampleFor(e: ListingEndpoint): unknown {
  const req = (e.requestSchema as { required?: unknown } | null)?.required;
  const base = e.requestExample && typeof e.requestExample === "object" && !Array.isArray(e.requestExample) ? { ...(e.requestExample as object) } : {};
  if (Array.isArray(req)) for (const k of req) if (typeof k === "string" && !(k in base)) (base as Record<string, unknown>)[k] = "example";
  return base;
}

/** Document fixes per rule (several where more than one is honest); absent rules are measured. */
const FIXES: Partial<Record<RuleId, (doc: ListingDocument) => Fix[]>> = {
  M1: () => [{ fix: "give the listing a specific title", apply: (d) => ({ ...d, title: "Hourly weather forecasts by coordinates" }) }],
  M2: () => [{ fix: "write a short description", apply: (d) => ({ ...d, shortDescription: TEXT.short }) }],
  M3: () => [{ fix: "write a detailed description", apply: (d) => ({ ...d, description: TEXT.long }) }],
  M4: () => [{ fix: "declare a logo URL", apply: (d) => ({ ...d, logoUrl: "https://docs.example.com/logo.png" }) }],
  M5: () => [{ fix: "set a category and a homepage URL", apply: (d) => ({ ...d, category: orText(d.category, "Data"), homepageUrl: d.homepageUrl ?? TEXT.url }) }],
  E1: () => [
    {
      fix: "publish an endpoint",
      apply: (d) => ({ ...d, endpoints: [...d.endpoints, { method: "GET", path: "/", description: null, requestSchema: null, noParameters: false, responseSchema: null, requestExample: null, payable: true, pricing: null, docsUrl: null }] }),
    },
  ],
  E2: () => [
    {
      fix: "describe each endpoint",
      apply: (d) => mapEndpoints(d, (e) => ({ ...e, path: e.path.startsWith("/") ? e.path : `/${e.path}`, description: (e.description ?? "").trim().length >= 10 ? e.description : TEXT.endpoint })),
    },
  ],
  E3: () => [{ fix: "add a request schema", apply: (d) => mapEndpoints(d, (e) => (e.noParameters || hasShape(e.requestSchema) ? e : { ...e, requestSchema: { type: "object" } })) }],
  E4: () => [{ fix: "add a response schema", apply: (d) => mapEndpoints(d, (e) => (hasShape(e.responseSchema) ? e : { ...e, responseSchema: { type: "object" } })) }],
  E5: () => [{ fix: "add a safe request example", apply: (d) => mapEndpoints(d, (e) => (e.noParameters ? e : { ...e, requestExample: exampleFor(e) })) }],
  P1: () => [{ fix: "publish a price", apply: (d) => withPricing(d, (p) => (p.label?.trim() || p.usd?.trim() ? {} : { usd: "0.01" })) }],
  P2: (doc) => [
    {
      fix: "add the machine-readable price",
      apply: (d) =>
        withPricing(d, (p) =>
          p.machine && p.machine.amount && p.machine.asset && p.machine.network ? {} : { machine: { amount: "10000", asset: "USDC", network: doc.networks[0] ?? "eip155:8453", decimals: 6 } },
        ),
    },
  ],
  P3: () => [
    { fix: "declare the price fixed", apply: (d) => withPricing(d, (p) => (p.mode ? {} : { mode: "fixed" })) },
    { fix: "declare the price dynamic", apply: (d) => withPricing(d, (p) => (p.mode ? {} : { mode: "dynamic" })) },
  ],
  P4: () => [
    {
      fix: "publish the dynamic price's range, driver and unit",
      apply: (d) =>
        withPricing(d, (p) =>
          p.mode !== "dynamic"
            ? {}
            : { dynamic: { min: p.dynamic?.min || "0.01", max: p.dynamic?.max || "0.10", driver: p.dynamic?.driver || "input size", unit: p.dynamic?.unit || "per call" } },
        ),
    },
  ],
  D1: () => [{ fix: "declare a docs URL", apply: (d) => ({ ...d, docsUrl: TEXT.url }) }],
  D2: () => [{ fix: "write a setup, auth and payment walkthrough", apply: (d) => ({ ...d, walkthrough: TEXT.walkthrough }) }],
  D3: () => [{ fix: "link each endpoint's docs", apply: (d) => mapEndpoints(d, (e) => (e.docsUrl ? e : { ...e, docsUrl: `${TEXT.url}#endpoint` })) }],
  D4: () => [{ fix: "declare a discovery document URL", apply: (d) => ({ ...d, discoveryUrl: "https://docs.example.com/.well-known/x402" }) }],
  O1: () => [{ fix: "state the auth preconditions", apply: (d) => ops(d, { authPreconditions: "None: payment is the only credential." }) }],
  O2: () => [{ fix: "state the network and funding requirements", apply: (d) => ops(d, { networkRequirements: "Base mainnet (eip155:8453).", fundingRequirements: "USDC on Base; no gas needed." }) }],
  O3: () => [
    {
      fix: "state limits, timeouts and sync or async",
      apply: (d) => {
        const x = ops(d, { limits: "60 calls a minute.", timeouts: "Answers within 10 seconds." });
        return { ...x, operations: { ...x.operations, syncMode: x.operations.syncMode ?? "sync" } };
      },
    },
  ],
  O4: () => [{ fix: "document errors, idempotency and support", apply: (d) => ops(d, { errors: "JSON errors with a code and a message.", idempotency: "Calls are idempotent.", supportChannel: "support@example.com" }) }],
};

function hasShape(s: unknown): boolean {
  if (s === null || typeof s !== "object" || Array.isArray(s)) return false;
  return Object.keys(s).some((k) => !["$schema", "$id", "$comment", "title", "description"].includes(k));
}

/** Decided by an observation (logo, docs, discovery document): a document change does not decide it. */
function observed(r: RuleResult): boolean {
  return r.evidence !== null && r.evidence.startsWith("/probe");
}

const round6 = (x: number) => Math.round(x * 1e6) / 1e6;

function outcome(base: ReadinessResult, after: ReadinessResult, fix: string, self: RuleId): FixOutcome {
  const before = new Map(base.rules.map((r) => [r.id, r.earned]));
  const opens: OpenedRule[] = [];
  for (const r of after.rules) {
    const lost = (before.get(r.id) ?? 0) - r.earned;
    if (r.id !== self && lost > 1e-9) opens.push({ ruleId: r.id, points: round6(lost) });
  }
  return { fix, gain: after.total - base.total, rawGain: round6(after.rawTotal - base.rawTotal), opens };
}

/** scoreReadiness, with each improvement's gain re-scored; the engine's order rule with the gain as points. */
export function scoreWithAdvice(listing: ListingDocument, evidence: ReadinessEvidence | null, rubric: Rubric, opts: ScoreOptions = {}): AdvisedResult {
  const pinned: ScoreOptions = { ...opts, now: opts.now ?? new Date() };
  const base = scoreReadiness(listing, evidence, rubric, pinned);
  return { ...base, improvements: adviseImprovements(base, listing, evidence, rubric, pinned) };
}

/** "METHOD path" of endpoints the probe could not read because they validate input before 402 (R2 `unprobeable`). */
export function unprobeableEndpoints(evidence: ReadinessEvidence | null): string[] {
  return (evidence?.probe.endpoints ?? []).filter((e) => e.findings.some((f) => f.code === "unprobeable")).map((e) => `${e.method} ${e.path}`);
}

export function unprobeableAdvice(endpoints: string[]): string {
  return `Make ${endpoints.join(", ")} probeable: ${endpoints.length === 1 ? "it validates" : "they validate"} the request before answering 402, so the unpaid probe gets 400/422 and never sees the payment challenge. Answer 402 before validating the input, or publish a request example (the endpoint's requestExample) that passes validation, which the probe then sends.`;
}

export function adviseImprovements(base: ReadinessResult, listing: ListingDocument, evidence: ReadinessEvidence | null, rubric: Rubric, opts: ScoreOptions): AdvisedImprovement[] {
  const ruleById = new Map(base.rules.map((r) => [r.id, r]));
  const engineOrder = new Map(base.improvements.map((i, n) => [i.ruleId, n]));
  const advised = base.improvements.map((imp): AdvisedImprovement => {
    const rule = ruleById.get(imp.ruleId);
    const fixes = FIXES[imp.ruleId]?.(listing) ?? [];
    if (!rule || fixes.length === 0 || observed(rule)) return { ...imp, gain: null, rawGain: null, fix: null, opens: [], alternatives: [] };
    const outcomes = fixes.map((f) => outcome(base, scoreReadiness(f.apply(listing), evidence, rubric, opts), f.fix, imp.ruleId));
    // Most raw points wins; ties keep the first (the simpler fix).
    let best = outcomes[0]!;
    for (const o of outcomes) if (o.rawGain > best.rawGain + 1e-9) best = o;
    return { ...imp, gain: best.gain, rawGain: best.rawGain, fix: best.fix, opens: best.opens, alternatives: outcomes.filter((o) => o !== best) };
  });
  const unprobeable = unprobeableEndpoints(evidence);
  if (unprobeable.length > 0) {
    for (const a of advised) if (a.ruleId === "H1") a.action = unprobeableAdvice(unprobeable);
  }
  const worth = (i: AdvisedImprovement) => (i.rawGain === null ? i.points : i.rawGain);
  return advised.sort((a, b) => Number(b.blocker) - Number(a.blocker) || worth(b) - worth(a) || engineOrder.get(a.ruleId)! - engineOrder.get(b.ruleId)!);
}

/** The gain as the report says it: "+4 pts", "up to +5", "up to +5 pts, needs a probe", … */
export function gainWords(i: Pick<AdvisedImprovement, "gain" | "rawGain" | "points">): string {
  const n = (x: number) => (Number.isInteger(x) ? String(x) : x.toFixed(2).replace(/0$/, ""));
  if (i.gain === null || i.rawGain === null) return `up to +${n(i.points)} pts`;
  // Nothing moved with the evidence at hand: the next probe measures it.
  if (i.gain === 0 && Math.abs(i.rawGain) < 1e-9 && i.points > 0) return `up to +${n(i.points)} pts, needs a probe`;
  if (i.gain === 0 && i.rawGain > 0) return `+0 pts now (+${n(i.rawGain)} before rounding and caps)`;
  return `${i.gain >= 0 ? "+" : ""}${i.gain} pts`;
}
