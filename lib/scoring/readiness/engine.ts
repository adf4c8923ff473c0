/** scoreReadiness: min(Σ rule points, lowest triggered cap), rounded and banded, for one rubric version. Pure. */
import type { ListingDocument, ListingEndpoint } from "@/lib/listing-document/document";
import { liveness, settleGate } from "../signals";
import { compileRubric, type CompiledRubric } from "./compile";
import type { CapId, Rubric, RubricRule, RuleId } from "./rubric";
import { add, addSmall, frac, fractionOf, min as fracMin, mul, nearGrid, roundHalfUpExact, setSmall, SMALL, smallFractionOf, truncate6, ZERO, type Fraction } from "./exact";
import { ENDPOINT_RULES, LISTING_RULES, outcome, phraseOf, sameKey, SHORT_LIST, upperMethod, type Outcome, type RuleContext } from "./rules";
import type { DimensionResult, Improvement, ReadinessEvidence, ReadinessResult, RuleResult, ScoreOptions, TriggeredCap } from "./types";

/** readiness/1.0.0 reading "total": fractional sums normalised to 6 decimals before rounding. */
export function normalise(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}

/** 95.5 → 96, 95.49 → 95. */
export function roundHalfUp(x: number): number {
  return Math.floor(normalise(x) + 0.5);
}

export function bandFor(total: number, rubric: Rubric): { id: string; label: string } {
  return bandIn(total, compileRubric(rubric));
}

function bandIn(total: number, c: CompiledRubric): { id: string; label: string } {
  for (const b of c.bandsAscending) if (total >= b.min && total <= b.max) return { id: b.id, label: b.label };
  throw new Error(`total ${total} falls in no band of ${c.version}`);
}

function dedupe(endpoints: ListingEndpoint[] | null | undefined): { endpoints: ListingEndpoint[]; keys: string[]; sourceIndex: number[] } {
  const out: ListingEndpoint[] = [];
  const keys: string[] = [];
  const sourceIndex: number[] = [];
  if (!endpoints) return { endpoints: out, keys, sourceIndex };
  const methods: string[] = new Array(endpoints.length);
  for (let i = 0; i < endpoints.length; i++) methods[i] = upperMethod(endpoints[i].method);
  // A short list is searched without building keys to compare; a Set of keys only pays for itself on long ones.
  const seen = endpoints.length > SHORT_LIST ? new Set<string>() : null;
  for (let i = 0; i < endpoints.length; i++) {
    const ep = endpoints[i];
    const key = `${methods[i]} ${ep.path}`;
    // docs/spec/scoring-system.md "Readiness score": "Duplicate endpoints (same method and path) count once"
    if (seen) {
      if (seen.has(key)) continue;
      seen.add(key);
    } else if (keptBefore(out, sourceIndex, methods, i, ep)) continue;
    out.push(ep);
    keys.push(key);
    sourceIndex.push(i);
  }
  return { endpoints: out, keys, sourceIndex };
}

/** An endpoint already kept has endpoints[i]'s key. */
function keptBefore(kept: ListingEndpoint[], keptIndex: number[], methods: string[], i: number, ep: ListingEndpoint): boolean {
  for (let j = 0; j < kept.length; j++) if (sameKey(methods[keptIndex[j]], kept[j].path, methods[i], ep.path)) return true;
  return false;
}

const EMPTY_SCOPE_REASON: Record<string, string> = {
  endpoint: "the listing publishes no endpoint, so there is nothing to score",
  payable: "no endpoint is marked payable, so nothing is priced",
  dynamic: "no endpoint is dynamically priced: full marks",
};

/** How many endpoints the last per-endpoint rule had in scope and how many passed (its exact share, read only when needed). */
const SHARE = { inScope: 0, passing: 0 };

function scoreEndpointRule(rule: RubricRule, ctx: RuleContext, c: CompiledRubric): Outcome {
  const impl = ENDPOINT_RULES[rule.id];
  if (!impl) throw new Error(`${c.version}: rule ${rule.id} has scope ${rule.scope} but no per-endpoint implementation`);
  let n = 0;
  let passing = 0;
  let firstFail = -1;
  let explained = 0;
  let why = "";
  const failing: string[] = [];
  const payableOnly = rule.scope === "payable";
  const dynamicOnly = rule.scope === "dynamic";
  for (let i = 0; i < ctx.endpoints.length; i++) {
    const ep = ctx.endpoints[i];
    if (payableOnly && !ep.payable) continue;
    if (dynamicOnly && !(ep.payable && ep.pricing?.mode === "dynamic")) continue;
    n++;
    if (impl.test(ep, ctx)) passing++;
    else {
      if (firstFail < 0) firstFail = i;
      failing.push(ctx.keys[i]);
      if (impl.explain && explained < MAX_EXPLAINED) {
        why += `${explained > 0 ? "; " : ""}${ctx.keys[i]}: ${impl.explain(ep, ctx)}`;
        explained++;
      }
    }
  }
  if (n === 0) {
    const full = c.rubric.scopes[rule.scope].whenEmpty === "full";
    SHARE.inScope = 0;
    SHARE.passing = full ? 1 : 0;
    return outcome(full ? rule.points : 0, full ? "pass" : "fail", EMPTY_SCOPE_REASON[rule.scope] ?? "nothing in scope", failing, "/listing/endpoints");
  }
  const scopeTitle = c.rubric.scopes[rule.scope].title;
  const more = failing.length > explained ? `; and ${failing.length - explained} more` : "";
  SHARE.inScope = n;
  SHARE.passing = passing;
  return outcome(
    // "If 3 of 4 endpoints carry a response schema, E4 earns 3.75 of 5."
    (rule.points * passing) / n,
    passing === n ? "pass" : passing === 0 ? "fail" : "partial",
    `${passing} of ${n} ${scopeTitle} ${phraseOf(rule.id, impl, ctx)}${explained ? `; ${why}${more}` : ""}`,
    failing,
    firstFail < 0 ? "/listing/endpoints" : `/listing/endpoints/${ctx.sourceIndex[firstFail]}/${impl.field}`,
  );
}

const TERM_KIND: number[] = [];
const TERM_NUM: number[] = [];
const TERM_DEN: number[] = [];

interface ExactTerms {
  kind: number[];
  num: number[];
  den: number[];
  rules: RuleResult[];
  live: number;
}

/**
 * The exact sum of the rules' terms (of one dimension, or all when `dimensionOf` is null). Whole terms
 * are added as numbers (exact below 2^53); only the others as fractions. `fraction` is null when every
 * term was whole, and then `whole` is the exact sum.
 */
function exactSum(t: ExactTerms, dimensionOf: number[] | null, dim: number): { whole: number; fraction: Fraction | null } {
  let whole = 0;
  let any = false;
  // The fractional terms summed in safe integers while they fit (exact.ts SMALL), else as BigInt fractions.
  let small = true;
  let n = 0;
  let d = 1;
  for (let i = 0; i < t.rules.length; i++) {
    if (dimensionOf !== null && dimensionOf[i] !== dim) continue;
    // A whole term's float is its exact value (points × passing ÷ in scope divides evenly; points × a liveness of 0 or 1).
    if (isWholeTerm(t, i)) whole += t.rules[i].earned;
    else {
      any = true;
      if (small && smallTerm(t, i) && addSmall(n, d, SMALL.n, SMALL.d)) {
        n = SMALL.n;
        d = SMALL.d;
      } else small = false;
    }
  }
  if (!any) return { whole, fraction: null };
  if (small && addSmall(n, d, whole, 1)) return { whole, fraction: frac(BigInt(SMALL.n), BigInt(SMALL.d)) };
  let fraction: Fraction = ZERO;
  for (let i = 0; i < t.rules.length; i++) {
    if (dimensionOf !== null && dimensionOf[i] !== dim) continue;
    if (!isWholeTerm(t, i)) fraction = add(fraction, exactTerm(t, i));
  }
  return { whole, fraction: add(fraction, frac(BigInt(whole))) };
}

/** Rule i's term is a whole number, added as a number (exact below 2^53). */
function isWholeTerm(t: ExactTerms, i: number): boolean {
  const points = t.rules[i].max;
  const kind = t.kind[i];
  if (kind === 1) return Number.isInteger(points) && (points * t.num[i]) % t.den[i] === 0;
  if (kind === 2) return Number.isInteger(points) && Number.isInteger(t.live);
  return Number.isInteger(t.rules[i].earned);
}

/** Rule i's earned points as the exact fraction it stands for. */
function exactTerm(t: ExactTerms, i: number): Fraction {
  const points = BigInt(t.rules[i].max);
  if (t.kind[i] === 1) return frac(points * BigInt(t.num[i]), BigInt(t.den[i]));
  if (t.kind[i] === 2) return mul(frac(points), fractionOf(t.live));
  return fractionOf(t.rules[i].earned);
}

/** exactTerm into SMALL in safe integers; false when only the BigInt path can give it. */
function smallTerm(t: ExactTerms, i: number): boolean {
  const points = t.rules[i].max;
  if (!Number.isInteger(points)) return false;
  if (t.kind[i] === 1) return setSmall(points * t.num[i], t.den[i]);
  if (t.kind[i] === 2) return smallFractionOf(t.live) && setSmall(points * SMALL.n, SMALL.d);
  return smallFractionOf(t.rules[i].earned);
}

/** Which caps the evidence triggers (never in provisional mode), lowest value first. */
function evaluateCaps(ctx: RuleContext, c: CompiledRubric): TriggeredCap[] {
  const ev = ctx.evidence;
  if (!ev) return [];
  const probed = ev.probe.endpoints ?? [];
  const out: TriggeredCap[] = [];
  for (const cap of c.capsAscending) {
    let reason: string | null = null;
    if (cap.id === "noReachableEndpoint") {
      if (ctx.endpoints.length === 0) reason = "the listing publishes no endpoint";
      else if (!probed.some((e) => e.reachable)) reason = `the probe reached none of the ${probed.length} endpoint${probed.length === 1 ? "" : "s"} it tried`;
    } else if (cap.id === "knownUnpayable") {
      if (ctx.gate?.gate === "unpayable") reason = `the settle gate is unpayable: ${ctx.gate.reason}`;
    } else if (cap.id === "noPaymentMechanism") {
      if (!probed.some((e) => e.reachable && e.challenge && e.challenge.kind !== "none")) reason = "no endpoint answered an unpaid request with an x402 or MPP challenge";
    }
    if (reason !== null) out.push({ id: cap.id, value: cap.value, reason });
  }
  return out;
}

/** Failing endpoints named in a rule's reason; the rest are counted. */
const MAX_EXPLAINED = 3;

const EFFORT_RANK = { low: 0, medium: 1, high: 2 } as const;

function listEndpoints(keys: string[]): string {
  if (keys.length <= 4) return keys.length <= 1 ? keys.join("") : `${keys.slice(0, -1).join(", ")} and ${keys[keys.length - 1]}`;
  return `${keys.slice(0, 3).join(", ")} and ${keys.length - 3} more`;
}

function compareImprovements(a: Improvement, b: Improvement, order: Map<RuleId, number>): number {
  return (
    Number(b.blocker) - Number(a.blocker) ||
    b.points - a.points ||
    b.endpoints.length - a.endpoints.length ||
    EFFORT_RANK[a.effort] - EFFORT_RANK[b.effort] ||
    order.get(a.ruleId)! - order.get(b.ruleId)!
  );
}

const NO_CAPS: CapId[] = [];

function improvementFor(rule: RubricRule, r: RuleResult, blockingCaps: readonly CapId[], c: CompiledRubric, scopeEmpty: boolean): Improvement {
  let action = scopeEmpty && rule.actionWhenEmpty ? rule.actionWhenEmpty : rule.action;
  if (c.actionsNamingEndpoints.has(action)) action = action.replace("{endpoints}", r.endpoints.length > 0 ? listEndpoints(r.endpoints) : "your endpoints");
  const fixes = c.capsFixedBy.get(rule.id);
  return {
    ruleId: rule.id,
    points: normalise(r.max - r.earned),
    endpoints: r.endpoints,
    effort: rule.effort,
    blocker: !!fixes && blockingCaps.length > 0 && fixes.some((id) => blockingCaps.includes(id)),
    action,
  };
}

export function scoreReadiness(listing: ListingDocument, evidence: ReadinessEvidence | null, rubric: Rubric, opts: ScoreOptions = {}): ReadinessResult {
  const c = compileRubric(rubric);
  const provisional = evidence === null || opts.provisional === true;
  const ev = provisional ? null : evidence;
  const now = opts.now ?? new Date();
  const { endpoints, keys, sourceIndex } = dedupe(listing.endpoints);
  const ctx: RuleContext = {
    listing,
    endpoints,
    keys,
    sourceIndex,
    evidence: ev,
    c,
    // The very functions rank uses (lib/scoring/signals.ts).
    gate: ev ? settleGate(ev.settle, now) : null,
    live: ev ? liveness(ev.liveness) : null,
  };

  const nRules = c.rules.length;
  const rules: RuleResult[] = new Array(nRules);
  const scopeEmpty: boolean[] = new Array(nRules);
  const dimEarned: number[] = new Array(c.dimensions.length).fill(0);
  let sum = 0;
  // Each rule's exact term, read only when a float sum lies too near a rounding point (exact.ts):
  // 0 = the float it earned, 1 = points × passing ÷ in scope, 2 = points × liveness.
  // Scratch shared by every call (scoring is synchronous and never re-entered); each slot is written below.
  const termKind = TERM_KIND;
  const termNum = TERM_NUM;
  const termDen = TERM_DEN;
  const terms: ExactTerms = { kind: termKind, num: termNum, den: termDen, rules, live: ctx.live?.value ?? 0 };
  // Per dimension: is every rule's term a whole number? Then the float sum is the exact sum (integers
  // below 2^53 add exactly) and no fraction is needed.
  const dimWhole: boolean[] = new Array(c.dimensions.length).fill(true);
  let allWhole = true;
  for (let i = 0; i < nRules; i++) {
    const rule = c.rules[i];
    let o: Outcome;
    if (rule.scope === "listing" || rule.scope === "measured") {
      const impl = LISTING_RULES[rule.id];
      if (!impl) throw new Error(`${c.version}: rule ${rule.id} has scope ${rule.scope} but no listing-level implementation`);
      o = impl(ctx, rule.points);
      scopeEmpty[i] = rule.scope === "measured" && endpoints.length === 0;
      termKind[i] = 0;
      termNum[i] = 0;
      termDen[i] = 1;
    } else {
      o = scoreEndpointRule(rule, ctx, c);
      scopeEmpty[i] = SHARE.inScope === 0;
      termKind[i] = 1;
      termNum[i] = SHARE.passing;
      termDen[i] = SHARE.inScope || 1;
    }
    // H2 = points × liveness: the liveness share is the fraction to read (exact.ts), not the product.
    if (rule.id === "H2" && ctx.live && o.earned > 0) termKind[i] = 2;
    o.id = rule.id;
    o.dimension = rule.dimension;
    o.max = rule.points;
    rules[i] = o;
    sum += o.earned;
    const d = c.ruleDimension[i];
    if (d < 0) throw new Error(`${c.version}: rule ${rule.id} names dimension ${rule.dimension}, which the rubric does not define`);
    dimEarned[d] += o.earned;
    if (!isWholeTerm(terms, i)) {
      dimWhole[d] = false;
      allWhole = false;
    }
  }
  const exact = c.rubric.semantics?.arithmetic === "exact";
  const caps = provisional ? [] : evaluateCaps(ctx, c);
  const dimensions: DimensionResult[] = new Array(c.dimensions.length);
  let rawTotal: number;
  let total: number;
  if (!exact) {
    for (let k = 0; k < c.dimensions.length; k++) dimensions[k] = { id: c.dimensions[k].id, earned: normalise(dimEarned[k]), max: c.dimensions[k].points };
    rawTotal = normalise(sum);
    const capped = caps.length > 0 ? Math.min(rawTotal, caps[0].value) : rawTotal;
    total = roundHalfUp(capped);
  } else {
    // readiness/1.1.0 reading "total": exact, and rawTotal truncated so it never shows a half the total did not round up.
    for (let k = 0; k < c.dimensions.length; k++) {
      const earned = dimEarned[k];
      if (dimWhole[k]) dimensions[k] = { id: c.dimensions[k].id, earned, max: c.dimensions[k].points };
      else if (!nearGrid(earned)) dimensions[k] = { id: c.dimensions[k].id, earned: Math.floor(earned * 1e6) / 1e6, max: c.dimensions[k].points };
      else {
        const f = exactSum(terms, c.ruleDimension, k);
        dimensions[k] = { id: c.dimensions[k].id, earned: f.fraction ? truncate6(f.fraction) : f.whole, max: c.dimensions[k].points };
      }
    }
    if (allWhole && (caps.length === 0 || Number.isInteger(caps[0].value))) {
      rawTotal = sum;
      total = caps.length > 0 ? Math.min(sum, caps[0].value) : sum;
    } else if (!nearGrid(sum) && !(caps.length > 0 && caps[0].value < sum)) {
      rawTotal = Math.floor(sum * 1e6) / 1e6;
      total = Math.floor(sum + 0.5);
    } else {
      const f = exactSum(terms, null, -1);
      const cap = caps.length > 0 ? caps[0].value : null;
      if (f.fraction === null && (cap === null || Number.isInteger(cap))) {
        rawTotal = f.whole;
        total = cap === null ? f.whole : Math.min(f.whole, cap);
      } else {
        const x = f.fraction ?? frac(BigInt(f.whole));
        rawTotal = truncate6(x);
        total = roundHalfUpExact(cap !== null ? fracMin(x, frac(BigInt(cap))) : x);
      }
    }
  }

  const blocking: CapId[] = caps.length === 0 ? NO_CAPS : caps.map((x) => x.id);
  const improvements: Improvement[] = [];
  const order = c.ruleOrder;
  for (let i = 0; i < rules.length; i++) {
    const r = rules[i];
    // Not-observed rules have nothing for the seller to change until the probe runs.
    if (r.status === "not_observed" || r.earned >= r.max - 1e-9) continue;
    improvements.push(improvementFor(c.rules[i], r, blocking, c, scopeEmpty[i]));
  }
  // docs/spec/scoring-system.md "Caps and bands": blockers first, then most recoverable points, then most endpoints, then lowest effort;
  // ties end on the rubric's own rule order (M1 … H3).
  // An insertion sort: a dozen entries, and the order is total (it ends on the rule's index), so any sort gives this order.
  for (let i = 1; i < improvements.length; i++) {
    const x = improvements[i];
    let j = i - 1;
    while (j >= 0 && compareImprovements(improvements[j], x, order) > 0) {
      improvements[j + 1] = improvements[j];
      j--;
    }
    improvements[j + 1] = x;
  }

  return {
    rubricVersion: c.version,
    total,
    rawTotal,
    band: bandIn(total, c),
    provisional,
    caps,
    dimensions,
    rules,
    improvements,
  };
}
