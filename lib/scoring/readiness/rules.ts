/**
 * The 25 readiness rules of docs/spec/scoring-system.md as small pure functions. Points, scope and effort live in the
 * rubric file; these functions only decide pass/fail (per endpoint, or for the listing) and say why in
 * plain words. The readings each function implements are written out in the rubric's `readings`.
 */
import type { EndpointDocsEvidence, ProbeEvidence } from "@/lib/evidence";
import type { ListingDocument, ListingEndpoint } from "@/lib/listing-document/document";
import { schemaBranchNames, schemaPropertyNames } from "@/lib/listing-document/schema-names";
import { findSecretValues, hasSecretValue, type SecretValue } from "@/lib/screen/secrets";
import type { LivenessResult, SettleGateResult } from "../signals";
import type { CompiledRubric } from "./compile";
import { titlePlaceholderReason } from "./compile";
import type { RuleId, SchemePolicy } from "./rubric";
import { validByPolicy } from "./scheme-policy";
import { hasText, isHttpUrl, isHttpsUrl, sameWords, trimmedLength } from "./text";
import type { ReadinessEvidence, RuleResult, RuleStatus } from "./types";

export interface RuleContext {
  listing: ListingDocument;
  /** De-duplicated on method + path (first kept). */
  endpoints: ListingEndpoint[];
  keys: string[];
  /** Index into listing.endpoints, for evidence pointers. */
  sourceIndex: number[];
  evidence: ReadinessEvidence | null;
  c: CompiledRubric;
  /** Computed once per run; null in provisional mode. */
  gate: SettleGateResult | null;
  live: LivenessResult | null;
  /** The docs observations' upper-cased methods, filled on first use by D3 (endpointDocsFor). */
  docsMethods?: string[];
  /** On a long list of docs observations, the first one of each "METHOD path", built on first use by D3. */
  docsByKey?: Map<string, EndpointDocsEvidence>;
  /** D3's last endpoint and answer (its test and its explanation ask for the same endpoint in turn). */
  d3Endpoint?: ListingEndpoint;
  d3Problem?: string | null;
}

/**
 * A rule's result, built in the shape of the RuleResult it becomes (the same keys in the same order):
 * the engine fills in id, dimension and max, so no second object is made per rule.
 */
export type Outcome = RuleResult;

export function outcome(earned: number, status: RuleStatus, reason: string, endpoints: string[], evidence: string | null): Outcome {
  return { id: "M1", dimension: "metadata", earned, max: 0, status, reason, endpoints, evidence };
}

export type ListingRule = (ctx: RuleContext, points: number) => Outcome;

/** Paid pro rata over the rubric's scope. */
export interface EndpointRule {
  test: (ep: ListingEndpoint, ctx: RuleContext) => boolean;
  phrase: string;
  field: string;
  explain?: (ep: ListingEndpoint, ctx: RuleContext) => string;
}

const WHITESPACE = /\s/;

/**
 * Lists up to this long are searched in place; longer ones through a Set or Map of "METHOD path" keys,
 * which only pays for itself there (dedupe, H1, D3). H1's bit mask holds this many endpoints.
 */
export const SHORT_LIST = 16;

function pass(points: number, reason: string, evidence: string | null): Outcome {
  return outcome(points, "pass", reason, [], evidence);
}
function fail(reason: string, evidence: string | null, endpoints: string[] = []): Outcome {
  return outcome(0, "fail", reason, endpoints, evidence);
}

/** Say nothing about a value's shape (reading "schema"). */
const ANNOTATIONS = new Set(["$schema", "$id", "$comment", "title", "description"]);

export function schemaSaysSomething(schema: unknown): boolean {
  if (schema === null || typeof schema !== "object" || Array.isArray(schema)) return false;
  for (const k in schema) {
    if (!ANNOTATIONS.has(k)) return true;
  }
  return false;
}

/** E5 (readiness/1.1.0): by JSON pointer and kind, never the value. */
export function exampleSecrets(ep: ListingEndpoint): SecretValue[] {
  return ep.requestExample === null || ep.requestExample === undefined ? [] : findSecretValues(ep.requestExample);
}

/** E5: an example carrying the object schema's required fields (reading "example"). */
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

/** M4/D1/D4 (reading "declared-not-observed"): an observation decides; else a declared https URL passes as not observed. */
function observedOrDeclared(
  points: number,
  what: string,
  declared: string | null | undefined,
  declaredPtr: string,
  obs: { ok: boolean; status: number | null; contentType: string | null; refusal?: string | null } | null | undefined,
  obsPtr: string,
  extraOk?: (o: NonNullable<typeof obs>) => string | null,
  probedOnly = false,
): Outcome {
  if (!obs && probedOnly) {
    // In a probed run a declaration alone earns nothing.
    if (declared === null || declared === undefined || declared === "") return fail(`no ${what} URL is declared`, declaredPtr);
    return fail(`the probe did not observe the ${what}, and in a probed run only an observation counts`, obsPtr);
  }
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

function probedOnly(ctx: RuleContext): boolean {
  return ctx.evidence !== null && ctx.c.rubric.semantics?.observedOnlyWhenProbed === true;
}

function notObserved(what: string, by: string): Outcome {
  return outcome(0, "not_observed", `not observed: ${what} comes from ${by}, and this run is provisional`, [], null);
}

const NO_POLICIES: readonly SchemePolicy[] = [];

const okKey = (method: string, path: string) => `${method.toUpperCase()} ${path}`;

/** H1: an earlier valid probed endpoint (a bit of `validMask`) has the same "METHOD path" key as probed[i] (no key built). */
function sameEndpointBefore(probed: ProbeEvidence["endpoints"], i: number, validMask: number): boolean {
  const e = probed[i];
  for (let j = 0; j < i; j++) {
    if ((validMask & (1 << j)) !== 0 && sameKey(upperMethod(probed[j].method), probed[j].path, upperMethod(e.method), e.path)) return true;
  }
  return false;
}

/** The method upper-cased; the string itself when it already is (the usual case: no copy). */
export function upperMethod(method: unknown): string {
  const m = String(method);
  for (let i = 0; i < m.length; i++) {
    const ch = m.charCodeAt(i);
    if ((ch >= 97 && ch <= 122) || ch >= 128) return m.toUpperCase();
  }
  return m;
}

/**
 * Two endpoints' "METHOD path" keys are equal, given their upper-cased methods (upperMethod), without
 * building them: the same method and path; different methods only when a space in one lets the key
 * split elsewhere.
 */
export function sameKey(a: string, p1: unknown, b: string, p2: unknown): boolean {
  if (a === b) return `${p1}` === `${p2}`;
  if (!a.includes(" ") && !b.includes(" ")) return false;
  return `${a} ${p1}` === `${b} ${p2}`;
}

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
    if (sameWords(s as string, ctx.listing.title ?? "")) return fail("the short description repeats the title", "/listing/shortDescription");
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
      probedOnly(ctx),
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
    return observedOrDeclared(points, "docs", ctx.listing.docsUrl, "/listing/docsUrl", ctx.evidence?.probe.docs, "/probe/docs", undefined, probedOnly(ctx));
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
    return observedOrDeclared(points, "discovery document", ctx.listing.discoveryUrl, "/listing/discoveryUrl", obs, "/probe/discovery", undefined, probedOnly(ctx));
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
    // The valid endpoints' distinct "METHOD path"s: counted in place on a short list, by key on a long one.
    let validCount = 0;
    let validMask = 0; // which of the first SHORT_LIST probed endpoints were valid
    let validKeys: Set<string> | null = probed.length > SHORT_LIST ? new Set() : null;
    const policies = ctx.c.rubric.semantics?.schemePolicies ? ctx.c.rubric.schemePolicies ?? NO_POLICIES : NO_POLICIES;
    let policyIds: Set<string> | null = null;
    for (let i = 0; i < probed.length; i++) {
      const e = probed[i];
      if (!e.reachable) continue;
      reachable++;
      if (e.challenge && e.challenge.kind !== "none") challenged++;
      const byPolicy = policies.length > 0 ? validByPolicy(e, policies) : null;
      if (e.challenge?.valid || byPolicy) {
        if (firstValid < 0) firstValid = i;
        if (validKeys !== null) validKeys.add(okKey(e.method, e.path));
        else {
          if (!sameEndpointBefore(probed, i, validMask)) validCount++;
          validMask |= 1 << i;
        }
        if (byPolicy) (policyIds ??= new Set()).add(byPolicy);
      }
    }
    if (firstValid >= 0) {
      const under = policyIds !== null ? ` (read under the scheme polic${policyIds.size === 1 ? "y" : "ies"} ${[...policyIds].join(", ")})` : "";
      return pass(points, `${validKeys !== null ? validKeys.size : validCount} of ${probed.length} probed endpoint${probed.length === 1 ? "" : "s"} answered with a valid ${probed[firstValid].challenge.kind} payment challenge${under}`, `/probe/endpoints/${firstValid}/challenge`);
    }
    // The payable endpoints, or all when none is marked payable.
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
    return outcome(earned, l.value >= 1 ? "pass" : l.value > 0 ? "partial" : "fail", parts.join("; "), [], "/liveness");
  },

  H3(ctx) {
    if (!ctx.gate) return notObserved("settleability", "the settlement ledger");
    const g = ctx.gate.gate;
    const earned = ctx.c.rubric.settleability[g];
    return outcome(earned, g === "settleable" ? "pass" : g === "unknown" ? "partial" : "fail", `${g}: ${ctx.gate.reason}`, [], "/settle");
  },
};

function hasMachinePrice(ep: ListingEndpoint): boolean {
  const m = ep.pricing?.machine;
  return !!m && hasText(m.amount) && hasText(m.asset) && hasText(m.network) && typeof m.decimals === "number";
}

const DECIMAL = /^\s*\d+(?:\.\d+)?\s*$/;

export function dynamicPriceProblems(ep: ListingEndpoint, ordered: boolean): string[] {
  const d = ep.pricing?.dynamic;
  if (!d) return ["pricing.dynamic is missing"];
  const out: string[] = [];
  const missing = (["min", "max", "driver", "unit"] as const).filter((k) => !hasText(d[k]));
  if (missing.length) out.push(`${missing.map((k) => `pricing.dynamic.${k}`).join(", ")} ${missing.length === 1 ? "is" : "are"} missing`);
  if (ordered) {
    const bad = (["min", "max"] as const).filter((k) => hasText(d[k]) && !DECIMAL.test(d[k] as string));
    if (bad.length) out.push(bad.map((k) => `pricing.dynamic.${k} "${d[k]}" is not a decimal number`).join(", "));
    else if (hasText(d.min) && hasText(d.max) && Number(d.min) > Number(d.max)) out.push(`pricing.dynamic.min ${(d.min as string).trim()} is above pricing.dynamic.max ${(d.max as string).trim()}`);
  }
  return out;
}

/** Reading "endpoint-docs": the required names, else every property. */
export function namesToShow(schema: unknown): string[] {
  const req = schemaPropertyNames(schema, true);
  return req.length > 0 ? req : schemaPropertyNames(schema, false);
}

function docsLinkDeclared(ep: ListingEndpoint, ctx: RuleContext): boolean {
  const u = ep.docsUrl;
  if (typeof u !== "string" || u.length === 0) return false;
  if (isHttpUrl(u)) return true;
  // A relative path or anchor only means something next to a listing docs URL.
  return (u.charCodeAt(0) === 47 || u.charCodeAt(0) === 35) && isHttpUrl(ctx.listing.docsUrl) && !WHITESPACE.test(u);
}

function d3Fetched(ctx: RuleContext): boolean {
  return ctx.evidence !== null && ctx.c.rubric.semantics?.endpointDocsFetched === true;
}

/**
 * The probe's first docs-page observation whose "METHOD path" is `key`. A short list is scanned,
 * comparing in place (length, method, space, path) instead of building every observation's key, with
 * the upper-cased methods computed once per scoring run; a long one is read through a map of keys.
 */
function endpointDocsFor(key: string, ctx: RuleContext): EndpointDocsEvidence | undefined {
  const docs = ctx.evidence?.probe.endpointDocs;
  if (!docs) return undefined;
  // A scan per endpoint would be quadratic in a large API.
  if (docs.length > SHORT_LIST) {
    let byKey = ctx.docsByKey;
    if (!byKey) {
      byKey = ctx.docsByKey = new Map();
      for (let i = 0; i < docs.length; i++) {
        const k = okKey(docs[i].method, docs[i].path);
        if (!byKey.has(k)) byKey.set(k, docs[i]);
      }
    }
    return byKey.get(key);
  }
  const methods = (ctx.docsMethods ??= []);
  for (let i = 0; i < docs.length; i++) {
    const m = i < methods.length ? methods[i] : (methods[i] = docs[i].method.toUpperCase());
    const p = docs[i].path;
    if (key.length === m.length + 1 + p.length && key.charCodeAt(m.length) === 32 && key.startsWith(m) && key.endsWith(p)) return docs[i];
  }
  return undefined;
}

const NO_NAMES: readonly string[] = [];

const fieldsMissing = (label: string, absent: string[]) => `the ${label} field${absent.length === 1 ? "" : "s"} ${absent.join(", ")}`;

/** D3: what one schema's names miss on a docs page, appended to `missing`. */
function docsNamesMissing(label: string, schema: unknown, names: readonly string[], fromBranches: boolean, missing: string[]): void {
  // The usual schema (required names, or else top-level properties) is read in place, as namesToShow reads it.
  const direct = absentDirectNames(schema, names);
  if (direct !== undefined) {
    if (direct !== null) missing.push(fieldsMissing(label, direct));
    return;
  }
  let need = namesToShow(schema);
  if (need.length === 0 && fromBranches) need = schemaBranchNames(schema);
  if (need.length === 0) {
    // readiness/1.2.0: a schema that names no property (a string, a bare type) asks for no names;
    // an endpoint with no schema at all still fails, as before.
    const declared = schema !== null && typeof schema === "object" && !Array.isArray(schema) && Object.keys(schema).length > 0;
    if (!fromBranches) missing.push(`the ${label} shape (the ${label} schema names no property to look for)`);
    else if (!declared) missing.push(`the ${label} shape (no ${label} schema is declared to check it against)`);
    return;
  }
  let absent: string[] | null = null;
  for (let i = 0; i < need.length; i++) if (!names.includes(need[i])) (absent ??= []).push(need[i]);
  if (absent) missing.push(fieldsMissing(label, absent));
}


/**
 * namesToShow(schema)'s names that `names` lacks (null when none), for a top-level object schema with a
 * required name or a property; undefined for anything else (arrays' items, branches, no names), which
 * the general path reads.
 */
function absentDirectNames(schema: unknown, names: readonly string[]): string[] | null | undefined {
  if (schema === null || typeof schema !== "object" || Array.isArray(schema)) return undefined;
  const s = schema as { properties?: unknown; required?: unknown };
  let absent: string[] | null = null;
  let any = false;
  if (Array.isArray(s.required)) {
    for (let i = 0; i < s.required.length; i++) {
      const k = s.required[i];
      if (typeof k !== "string") continue;
      any = true;
      if (!names.includes(k)) (absent ??= []).push(k);
    }
    if (any) return absent;
  }
  const props = s.properties;
  if (!props || typeof props !== "object" || Array.isArray(props)) return undefined;
  for (const k in props) {
    if (!Object.prototype.hasOwnProperty.call(props, k)) continue;
    any = true;
    if (!names.includes(k)) (absent ??= []).push(k);
  }
  return any ? absent : undefined;
}

/** D3 in a probed readiness/1.1.0 run: why this endpoint's docs page does not pass, or null when it does. */
export function endpointDocsProblem(ep: ListingEndpoint, ctx: RuleContext): string | null {
  if (ctx.d3Endpoint === ep) return ctx.d3Problem ?? null;
  const problem = docsProblemOf(ep, ctx);
  ctx.d3Endpoint = ep;
  ctx.d3Problem = problem;
  return problem;
}

function docsProblemOf(ep: ListingEndpoint, ctx: RuleContext): string | null {
  if (!ep.docsUrl) return "no docsUrl is declared";
  const obs = endpointDocsFor(okKey(ep.method, ep.path), ctx);
  if (!obs) return "the probe did not fetch its docs page";
  if (!obs.ok) return `its docs page did not load (${obs.refusal ? `refused: ${obs.refusal}` : obs.status !== null ? `HTTP ${obs.status}` : "no answer"})`;
  const missing: string[] = [];
  if (!obs.pathShown) missing.push(`the path ${ep.path}`);
  const fromBranches = ctx.c.rubric.semantics?.schemaShapeFromBranches === true;
  const names = obs.names ?? NO_NAMES;
  if (ep.noParameters !== true) docsNamesMissing("request", ep.requestSchema, names, fromBranches, missing);
  docsNamesMissing("response", ep.responseSchema, names, fromBranches, missing);
  if (!obs.example) missing.push("an example (a code block or a curl command)");
  return missing.length ? `its docs page does not show ${missing.join("; ")}` : null;
}

function exampleProblem(ep: ListingEndpoint): string {
  const ex = ep.requestExample;
  if (ex === null || ex === undefined) return "no request example (and noParameters is not set)";
  const required = (ep.requestSchema as { required?: unknown } | null)?.required;
  if (typeof ex !== "object" || Array.isArray(ex)) return "the request example is not an object, but the request schema requires fields";
  const absent = Array.isArray(required) ? required.filter((k) => typeof k === "string" && !Object.prototype.hasOwnProperty.call(ex, k)) : [];
  return `the request example lacks the required field${absent.length === 1 ? "" : "s"} ${absent.join(", ")}`;
}

function schemaProblem(schema: unknown, what: string): string {
  if (schema === null || schema === undefined) return `no ${what} schema`;
  if (schema === true || schema === false) return `the ${what} schema is \`${schema}\`, which JSON Schema allows but which says nothing about the shape and earns nothing`;
  if (typeof schema === "object" && !Array.isArray(schema) && Object.keys(schema).length === 0) return `the ${what} schema is \`{}\`, which JSON Schema allows but which says nothing about the shape and earns nothing`;
  return `the ${what} schema has only annotations (title, description, $schema, $id, $comment), which say nothing about the shape and earn nothing`;
}

export const ENDPOINT_RULES: Partial<Record<RuleId, EndpointRule>> = {
  E2: {
    // The listing schema enforces method and path; descriptions are what sellers leave out.
    test: (ep, ctx) =>
      typeof ep.method === "string" &&
      typeof ep.path === "string" &&
      ep.path.charCodeAt(0) === 47 /* "/" */ &&
      trimmedLength(ep.description) >= ctx.c.rubric.thresholds.endpointDescriptionMinChars,
    phrase: "have a method, a path and a description",
    field: "description",
    explain: (ep, ctx) => {
      const min = ctx.c.rubric.thresholds.endpointDescriptionMinChars;
      if (typeof ep.path !== "string" || ep.path.charCodeAt(0) !== 47) return `the path does not start with "/"`;
      const len = trimmedLength(ep.description);
      return len === 0 ? `no description (at least ${min} characters needed)` : `the description has ${len} characters, fewer than ${min}`;
    },
  },
  E3: {
    test: (ep) => ep.noParameters === true || schemaSaysSomething(ep.requestSchema),
    phrase: "have a request schema or declare no parameters",
    field: "requestSchema",
    explain: (ep) => (ep.requestSchema === null || ep.requestSchema === undefined ? "no request schema, and noParameters is not set" : schemaProblem(ep.requestSchema, "request")),
  },
  E4: {
    test: (ep) => schemaSaysSomething(ep.responseSchema),
    phrase: "have a response schema",
    field: "responseSchema",
    explain: (ep) => schemaProblem(ep.responseSchema, "response"),
  },
  E5: {
    // readiness/1.1.0 (reading "unsafe-example") also fails an example that carries a secret; 1.0.0 checks presence and required fields only.
    test: (ep, ctx) => exampleIsUsable(ep) && !(ctx.c.rubric.semantics?.unsafeExampleFails === true && ep.requestExample != null && hasSecretValue(ep.requestExample)),
    phrase: "have a request example with the fields the request schema requires (and, from readiness/1.1.0, no secret in it)",
    field: "requestExample",
    explain: (ep, ctx) => {
      const secrets = ctx.c.rubric.semantics?.unsafeExampleFails === true && exampleIsUsable(ep) ? exampleSecrets(ep) : [];
      if (secrets.length === 0) return exampleProblem(ep);
      const named = secrets.map((s) => `${s.kind.replace(/_/g, " ")} at requestExample${s.pointer}`).join(", ");
      return `the request example carries what looks like a secret (${named}): anyone who reads the listing can use it; replace it with a placeholder and revoke the real one`;
    },
  },
  P1: {
    test: (ep, ctx) => hasText(ep.pricing?.label) || hasText(ep.pricing?.usd) || (ctx.c.rubric.semantics?.machinePricePublishes === true && hasMachinePrice(ep)),
    phrase: "publish a price or quote",
    field: "pricing",
    explain: (_ep, ctx) =>
      ctx.c.rubric.semantics?.machinePricePublishes === true
        ? "no price label, USD amount or complete machine-readable price"
        : "no price label or USD amount (readiness/1.0.0 does not count a machine-readable price here)",
  },
  P2: {
    test: hasMachinePrice,
    phrase: "publish a machine-readable price",
    field: "pricing/machine",
    explain: () => "no complete machine-readable price (amount, asset, network and decimals)",
  },
  P3: {
    test: (ep) => ep.pricing?.mode === "fixed" || ep.pricing?.mode === "dynamic",
    phrase: "declare a fixed or dynamic price",
    field: "pricing/mode",
    explain: () => "pricing.mode is not set",
  },
  P4: {
    test: (ep, ctx) => dynamicPriceProblems(ep, ctx.c.rubric.semantics?.orderedRange === true).length === 0,
    phrase: "publish a price range, driver and unit",
    field: "pricing/dynamic",
    explain: (ep, ctx) => dynamicPriceProblems(ep, ctx.c.rubric.semantics?.orderedRange === true).join("; "),
  },
  D3: {
    test: (ep, ctx) => (d3Fetched(ctx) ? endpointDocsProblem(ep, ctx) === null : docsLinkDeclared(ep, ctx)),
    phrase: "",
    field: "docsUrl",
    explain: (ep, ctx) => (d3Fetched(ctx) ? endpointDocsProblem(ep, ctx) ?? "" : ep.docsUrl ? "the docsUrl is neither an absolute http(s) URL nor a path or anchor next to a listing docsUrl" : "no docsUrl is declared"),
  },
};

export function phraseOf(id: RuleId, impl: EndpointRule, ctx: RuleContext): string {
  if (id !== "D3") return impl.phrase;
  if (d3Fetched(ctx)) return "have a docs page that shows their path, request and response fields and an example";
  return ctx.c.rubric.semantics?.endpointDocsFetched === true
    ? "link a docs page (declared, not yet observed)"
    : "link a docs page (readiness/1.0.0 checks the link only, not the page)";
}
