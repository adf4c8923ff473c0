/**
 * The 25 readiness rules of docs/spec/scoring-system.md as small pure functions. Points, scope and effort live in the
 * rubric file; these functions only decide pass/fail (per endpoint, or for the listing) and say why in
 * plain words. The readings each function implements are written out in the rubric's `readings`.
 */
import type { ListingDocument, ListingEndpoint } from "@/lib/listing-document/document";
import type { LivenessResult, SettleGateResult } from "../signals";
import type { CompiledRubric } from "./compile";
import { titlePlaceholderReason } from "./compile";
import type { RuleId } from "./rubric";
import { hasText, isHttpUrl, isHttpsUrl, normaliseWords, trimmedLength } from "./text";
import type { ReadinessEvidence, RuleStatus } from "./types";

export interface RuleContext {
  listing: ListingDocument;
  /** Endpoints after de-duplication on method + path (first occurrence kept). */
  endpoints: ListingEndpoint[];
  /** "METHOD path" for each entry of `endpoints`. */
  keys: string[];
  /** Index of each entry of `endpoints` in listing.endpoints, for evidence pointers. */
  sourceIndex: number[];
  /** Null in provisional mode. */
  evidence: ReadinessEvidence | null;
  c: CompiledRubric;
  /** Computed once per run, null in provisional mode. */
  gate: SettleGateResult | null;
  live: LivenessResult | null;
}

export interface Outcome {
  earned: number;
  status: RuleStatus;
  reason: string;
  endpoints: string[];
  evidence: string | null;
}

/** A rule decided for the listing as a whole; gets the rule's points. */
export type ListingRule = (ctx: RuleContext, points: number) => Outcome;

/** A rule decided per endpoint and paid pro rata over the rubric's scope. */
export interface EndpointRule {
  test: (ep: ListingEndpoint, ctx: RuleContext) => boolean;
  /** Completes "3 of 4 endpoints …". */
  phrase: string;
  /** The endpoint field a failing endpoint should fix, for the evidence pointer. */
  field: string;
}

const WHITESPACE = /\s/;

function pass(points: number, reason: string, evidence: string | null): Outcome {
  return { earned: points, status: "pass", reason, endpoints: [], evidence };
}
function fail(reason: string, evidence: string | null, endpoints: string[] = []): Outcome {
  return { earned: 0, status: "fail", reason, endpoints, evidence };
}

/** Annotation keywords that say nothing about the shape of a value (rubric reading "schema"). */
const ANNOTATIONS = new Set(["$schema", "$id", "$comment", "title", "description"]);

export function schemaSaysSomething(schema: unknown): boolean {
  if (schema === null || typeof schema !== "object" || Array.isArray(schema)) return false;
  for (const k in schema) {
    if (!ANNOTATIONS.has(k)) return true;
  }
  return false;
}

/** E5: an example exists and carries the object schema's required fields (rubric reading "example"). */
export function exampleIsUsable(ep: ListingEndpoint): boolean {
  if (ep.noParameters === true) return true;
  const ex = ep.requestExample;
  if (ex === null || ex === undefined) return false;
  const schema = ep.requestSchema;
  if (schema !== null && typeof schema === "object") {
    const required = (schema as { required?: unknown }).required;
    if (Array.isArray(required) && required.length > 0) {
      if (typeof ex !== "object" || ex === null || Array.isArray(ex)) return false;
      for (const k of required) {
        if (typeof k === "string" && !Object.prototype.hasOwnProperty.call(ex, k)) return false;
      }
    }
  }
  return true;
}

/**
 * The M4/D1/D4 pattern (rubric reading "declared-not-observed"): an observation decides when there is
 * one; otherwise a declared, well-formed https URL passes and says it has not been observed.
 */
function observedOrDeclared(
  points: number,
  what: string,
  declared: string | null | undefined,
  declaredPtr: string,
  obs: { ok: boolean; status: number | null; contentType: string | null; refusal?: string | null } | null | undefined,
  obsPtr: string,
  extraOk?: (o: NonNullable<typeof obs>) => string | null,
): Outcome {
  if (obs) {
    if (obs.ok) {
      const problem = extraOk ? extraOk(obs) : null;
      if (problem === null) return pass(points, `the ${what} was fetched and answered`, obsPtr);
      return fail(problem, obsPtr);
    }
    if (obs.status !== null && obs.status >= 200 && obs.status < 300) {
      return fail(`the ${what} URL answered HTTP ${obs.status}, but not with a usable ${what}`, obsPtr);
    }
    const why = obs.refusal
      ? `the probe refused the URL (${obs.refusal})`
      : obs.status !== null
        ? `it answered HTTP ${obs.status}`
        : "it did not answer";
    return fail(`the ${what} did not load: ${why}`, obsPtr);
  }
  if (declared === null || declared === undefined || declared === "") return fail(`no ${what} URL is declared`, declaredPtr);
  if (isHttpsUrl(declared)) return pass(points, `declared, not yet observed: the ${what} URL is a well-formed https URL`, declaredPtr);
  return fail(`the declared ${what} URL is not a well-formed https URL`, declaredPtr);
}

function notObserved(what: string, by: string): Outcome {
  return { earned: 0, status: "not_observed", reason: `not observed: ${what} comes from ${by}, and this run is provisional`, endpoints: [], evidence: null };
}

const okKey = (method: string, path: string) => `${method.toUpperCase()} ${path}`;

export const LISTING_RULES: Partial<Record<RuleId, ListingRule>> = {
  M1(ctx, points) {
    const why = titlePlaceholderReason(ctx.listing.title, ctx.listing.baseUrl, ctx.c);
    return why === null ? pass(points, "the title is specific", "/listing/title") : fail(why, "/listing/title");
  },

  M2(ctx, points) {
    const s = ctx.listing.shortDescription;
    const min = ctx.c.rubric.thresholds.shortDescriptionMinChars;
    const len = trimmedLength(s);
    if (len === 0) return fail("there is no short description", "/listing/shortDescription");
    if (len < min) return fail(`the short description has ${len} characters, fewer than ${min}`, "/listing/shortDescription");
    if (normaliseWords(s as string) === normaliseWords(ctx.listing.title ?? "")) return fail("the short description repeats the title", "/listing/shortDescription");
    return pass(points, `the short description has ${len} characters and is not the title`, "/listing/shortDescription");
  },

  M3(ctx, points) {
    const min = ctx.c.rubric.thresholds.descriptionMinChars;
    const len = trimmedLength(ctx.listing.description);
    if (len === 0) return fail("there is no detailed description", "/listing/description");
    if (len < min) return fail(`the detailed description has ${len} characters, fewer than ${min}`, "/listing/description");
    return pass(points, `the detailed description has ${len} characters`, "/listing/description");
  },

  M4(ctx, points) {
    if (!ctx.listing.logoUrl) return fail("no logo URL is declared", "/listing/logoUrl");
    return observedOrDeclared(points, "logo", ctx.listing.logoUrl, "/listing/logoUrl", ctx.evidence?.probe.logo, "/probe/logo", (o) =>
      (o as { isImage?: boolean }).isImage === true ? null : `the logo URL answered, but not with an image (content type ${o.contentType ?? "unknown"})`,
    );
  },

  M5(ctx, points) {
    const cat = hasText(ctx.listing.category);
    const home = isHttpUrl(ctx.listing.homepageUrl);
    if (cat && home) return pass(points, "a category and a homepage URL are set", "/listing/category");
    if (!cat && !home) return fail("neither a category nor a homepage URL is set", "/listing/category");
    if (!cat) return fail("the homepage URL is set but the category is missing", "/listing/category");
    return fail(ctx.listing.homepageUrl ? "the homepage URL is not a well-formed http(s) URL" : "the category is set but the homepage URL is missing", "/listing/homepageUrl");
  },

  E1(ctx, points) {
    const n = ctx.endpoints.length;
    if (n === 0) return fail("the listing publishes no endpoint", "/listing/endpoints");
    const dupes = (ctx.listing.endpoints?.length ?? 0) - n;
    return pass(points, `${n} endpoint${n === 1 ? "" : "s"} published${dupes > 0 ? ` (${dupes} duplicate${dupes === 1 ? "" : "s"} counted once)` : ""}`, "/listing/endpoints");
  },

  D1(ctx, points) {
    // An observation only counts for the docs the listing points callers at.
    if (!ctx.listing.docsUrl) return fail("no docs URL is declared", "/listing/docsUrl");
    return observedOrDeclared(points, "docs", ctx.listing.docsUrl, "/listing/docsUrl", ctx.evidence?.probe.docs, "/probe/docs");
  },

  D2(ctx, points) {
    const w = ctx.listing.walkthrough;
    const min = ctx.c.rubric.thresholds.walkthroughMinChars;
    if (!hasText(w)) return fail("there is no setup, auth and payment walkthrough", "/listing/walkthrough");
    const t = (w as string).trim();
    if (isHttpsUrl(t)) return pass(points, "the walkthrough is linked at an https URL", "/listing/walkthrough");
    if (t.length >= min) return pass(points, `the walkthrough has ${t.length} characters`, "/listing/walkthrough");
    return fail(`the walkthrough has ${t.length} characters, fewer than ${min}, and is not a link`, "/listing/walkthrough");
  },

  D4(ctx, points) {
    const obs = ctx.evidence?.probe.discovery;
    // A discovery document the probe found counts even when the listing did not declare one.
    if (obs && obs.ok) return pass(points, `the probe found a ${obs.kind ?? "machine-readable"} discovery document`, "/probe/discovery");
    return observedOrDeclared(points, "discovery document", ctx.listing.discoveryUrl, "/listing/discoveryUrl", obs, "/probe/discovery");
  },

  O1(ctx, points) {
    return hasText(ctx.listing.operations?.authPreconditions)
      ? pass(points, "auth preconditions are declared", "/listing/operations/authPreconditions")
      : fail("auth preconditions are not declared", "/listing/operations/authPreconditions");
  },

  O2(ctx, points) {
    const ops = ctx.listing.operations;
    const network = hasText(ops?.networkRequirements) || (ctx.listing.networks?.length ?? 0) > 0;
    const funding = hasText(ops?.fundingRequirements);
    if (network && funding) return pass(points, "network and funding requirements are declared", "/listing/operations/fundingRequirements");
    if (!network && !funding) return fail("neither the accepted networks nor the funding requirements are declared", "/listing/operations/networkRequirements");
    return network
      ? fail("the networks are declared, the funding requirements (asset, gas) are not", "/listing/operations/fundingRequirements")
      : fail("the funding requirements are declared, the accepted networks are not", "/listing/operations/networkRequirements");
  },

  O3(ctx, points) {
    const ops = ctx.listing.operations;
    const missing: string[] = [];
    if (!hasText(ops?.limits)) missing.push("limits");
    if (!hasText(ops?.timeouts)) missing.push("timeouts");
    if (!ops?.syncMode) missing.push("sync/async behaviour");
    return missing.length === 0
      ? pass(points, "limits, timeouts and sync/async behaviour are declared", "/listing/operations/limits")
      : fail(`not declared: ${missing.join(", ")}`, `/listing/operations/${missing[0] === "sync/async behaviour" ? "syncMode" : missing[0]}`);
  },

  O4(ctx, points) {
    const ops = ctx.listing.operations;
    const missing: string[] = [];
    if (!hasText(ops?.errors)) missing.push("errors");
    if (!hasText(ops?.idempotency)) missing.push("idempotency");
    if (!hasText(ops?.supportChannel)) missing.push("supportChannel");
    return missing.length === 0
      ? pass(points, "errors, idempotency and a support channel are declared", "/listing/operations/errors")
      : fail(`not declared: ${missing.join(", ")}`, `/listing/operations/${missing[0]}`);
  },

  H1(ctx, points) {
    if (!ctx.evidence) return notObserved("reachability with a valid payment challenge", "the probe");
    const probed = ctx.evidence.probe.endpoints ?? [];
    let firstValid = -1;
    let reachable = 0;
    let challenged = 0;
    const validKeys = new Set<string>();
    for (let i = 0; i < probed.length; i++) {
      const e = probed[i];
      if (!e.reachable) continue;
      reachable++;
      if (e.challenge && e.challenge.kind !== "none") challenged++;
      if (e.challenge?.valid) {
        if (firstValid < 0) firstValid = i;
        validKeys.add(okKey(e.method, e.path));
      }
    }
    if (firstValid >= 0) {
      return pass(points, `${validKeys.size} of ${probed.length} probed endpoint${probed.length === 1 ? "" : "s"} answered with a valid ${probed[firstValid].challenge.kind} payment challenge`, `/probe/endpoints/${firstValid}/challenge`);
    }
    // Name the endpoints that should carry a challenge: the payable ones, or all when none is marked payable.
    const affected: string[] = [];
    for (let i = 0; i < ctx.endpoints.length; i++) if (ctx.endpoints[i].payable) affected.push(ctx.keys[i]);
    const named = affected.length > 0 ? affected : ctx.keys;
    if (probed.length === 0) return fail("the probe has no endpoint observation", "/probe/endpoints", named);
    if (reachable === 0) return fail(`the probe reached none of the ${probed.length} endpoints it tried`, "/probe/endpoints", named);
    if (challenged === 0) return fail("no reachable endpoint answered an unpaid request with a payment challenge", "/probe/endpoints", named);
    return fail("payment challenges were found, but none is valid enough to pay", "/probe/endpoints", named);
  },

  H2(ctx, points) {
    if (!ctx.live) return notObserved("liveness", "the monitor's health samples");
    const l = ctx.live;
    const earned = points * l.value;
    const parts = [`liveness ${l.value.toFixed(2)} from ${l.source === "baseline" ? `the ${l.facts.healthStatus} health baseline` : l.source === "uptime7d" ? "7-day uptime" : "30-day uptime"}`];
    if (l.cappedByConfidence) parts.push(`capped at the monitor's health confidence ${l.facts.healthConfidence}`);
    if (l.uptimeWithheld) parts.push("uptime withheld because buyers tried to pay and none settled");
    return { earned, status: l.value >= 1 ? "pass" : l.value > 0 ? "partial" : "fail", reason: parts.join("; "), endpoints: [], evidence: "/liveness" };
  },

  H3(ctx) {
    if (!ctx.gate) return notObserved("settleability", "the settlement ledger");
    const g = ctx.gate.gate;
    const earned = ctx.c.rubric.settleability[g];
    return { earned, status: g === "settleable" ? "pass" : g === "unknown" ? "partial" : "fail", reason: `${g}: ${ctx.gate.reason}`, endpoints: [], evidence: "/settle" };
  },
};

export const ENDPOINT_RULES: Partial<Record<RuleId, EndpointRule>> = {
  E2: {
    // Method and path are enforced by the listing schema; the description is what sellers leave out.
    test: (ep, ctx) =>
      typeof ep.method === "string" &&
      typeof ep.path === "string" &&
      ep.path.charCodeAt(0) === 47 /* "/" */ &&
      trimmedLength(ep.description) >= ctx.c.rubric.thresholds.endpointDescriptionMinChars,
    phrase: "have a method, a path and a description",
    field: "description",
  },
  E3: {
    test: (ep) => ep.noParameters === true || schemaSaysSomething(ep.requestSchema),
    phrase: "have a request schema or declare no parameters",
    field: "requestSchema",
  },
  E4: {
    test: (ep) => schemaSaysSomething(ep.responseSchema),
    phrase: "have a response schema",
    field: "responseSchema",
  },
  E5: {
    test: exampleIsUsable,
    phrase: "have a safe request example",
    field: "requestExample",
  },
  P1: {
    test: (ep) => hasText(ep.pricing?.label) || hasText(ep.pricing?.usd),
    phrase: "publish a price or quote",
    field: "pricing",
  },
  P2: {
    test: (ep) => {
      const m = ep.pricing?.machine;
      return !!m && hasText(m.amount) && hasText(m.asset) && hasText(m.network) && typeof m.decimals === "number";
    },
    phrase: "publish a machine-readable price",
    field: "pricing/machine",
  },
  P3: {
    test: (ep) => ep.pricing?.mode === "fixed" || ep.pricing?.mode === "dynamic",
    phrase: "declare a fixed or dynamic price",
    field: "pricing/mode",
  },
  P4: {
    test: (ep) => {
      const d = ep.pricing?.dynamic;
      return !!d && hasText(d.min) && hasText(d.max) && hasText(d.driver) && hasText(d.unit);
    },
    phrase: "publish a price range, driver and unit",
    field: "pricing/dynamic",
  },
  D3: {
    test: (ep, ctx) => {
      const u = ep.docsUrl;
      if (typeof u !== "string" || u.length === 0) return false;
      if (isHttpUrl(u)) return true;
      // A relative path or anchor only means something next to a listing docs URL.
      return (u.charCodeAt(0) === 47 || u.charCodeAt(0) === 35) && isHttpUrl(ctx.listing.docsUrl) && !WHITESPACE.test(u);
    },
    phrase: "link docs that show their schemas and examples",
    field: "docsUrl",
  },
};
