/** scoreReadiness: min(Σ rule points, lowest triggered cap), rounded and banded, for one rubric version. Pure. */
import type { ListingDocument, ListingEndpoint } from "@/lib/listing-document/document";
import { liveness, settleGate } from "../signals";
import { compileRubric, type CompiledRubric } from "./compile";
import type { CapId, Rubric, RubricRule } from "./rubric";
import { add, frac, fractionOf, min as fracMin, mul, nearGrid, roundHalfUpExact, truncate6, ZERO, type Fraction } from "./exact";
import { ENDPOINT_RULES, LISTING_RULES, phraseOf, type Outcome, type RuleContext } from "./rules";
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
  const c = compileRubric(rubric);
  for (const b of c.bandsAscending) if (total >= b.min && total <= b.max) return { id: b.id, label: b.label };
  throw new Error(`total ${total} falls in no band of ${c.version}`);
}

function dedupe(endpoints: ListingEndpoint[] | null | undefined): { endpoints: ListingEndpoint[]; keys: string[]; sourceIndex: number[] } {
  const out: ListingEndpoint[] = [];
  const keys: string[] = [];
  const sourceIndex: number[] = [];
  if (!endpoints) return { endpoints: out, keys, sourceIndex };
  const seen = new Set<string>();
  for (let i = 0; i < endpoints.length; i++) {
    const ep = endpoints[i];
    const key = `${String(ep.method).toUpperCase()} ${ep.path}`;
    if (seen.has(key)) continue; // "Duplicate endpoints (same method and path) count once"
    seen.add(key);
    out.push(ep);
    keys.push(key);
    sourceIndex.push(i);
  }
  return { endpoints: out, keys, sourceIndex };
}

const EMPTY_SCOPE_REASON: Record<string, string> = {
  endpoint: "the listing publishes no endpoint, so there is nothing to score",
  payable: "no endpoint is marked payable, so nothing is priced",
  dynamic: "no endpoint is dynamically priced: full marks",
};

function scoreEndpointRule(rule: RubricRule, ctx: RuleContext, c: CompiledRubric): Outcome & { inScope: number; exact: Fraction } {
  const impl = ENDPOINT_RULES[rule.id];
  if (!impl) throw new Error(`${c.version}: rule ${rule.id} has scope ${rule.scope} but no per-endpoint implementation`);
  let n = 0;
  let passing = 0;
  let firstFail = -1;
  const failing: string[] = [];
  const why: string[] = [];
  for (let i = 0; i < ctx.endpoints.length; i++) {
    const ep = ctx.endpoints[i];
    if (rule.scope === "payable" && !ep.payable) continue;
    if (rule.scope === "dynamic" && !(ep.payable && ep.pricing?.mode === "dynamic")) continue;
    n++;
    if (impl.test(ep, ctx)) passing++;
    else {
      if (firstFail < 0) firstFail = i;
      failing.push(ctx.keys[i]);
      if (impl.explain && why.length < MAX_EXPLAINED) why.push(`${ctx.keys[i]}: ${impl.explain(ep, ctx)}`);
    }
  }
  if (n === 0) {
    const full = c.rubric.scopes[rule.scope].whenEmpty === "full";
    return {
      earned: full ? rule.points : 0,
      status: full ? "pass" : "fail",
      reason: EMPTY_SCOPE_REASON[rule.scope] ?? "nothing in scope",
      endpoints: [],
      evidence: "/listing/endpoints",
      inScope: 0,
      exact: full ? frac(BigInt(rule.points)) : ZERO,
    };
  }
  const scopeTitle = c.rubric.scopes[rule.scope].title;
  const more = failing.length > why.length ? `; and ${failing.length - why.length} more` : "";
  return {
    // "If 3 of 4 endpoints carry a response schema, E4 earns 3.75 of 5."
    earned: (rule.points * passing) / n,
    exact: frac(BigInt(rule.points) * BigInt(passing), BigInt(n)),
    status: passing === n ? "pass" : passing === 0 ? "fail" : "partial",
    reason: `${passing} of ${n} ${scopeTitle} ${phraseOf(rule.id, impl, ctx)}${why.length ? `; ${why.join("; ")}${more}` : ""}`,
    endpoints: failing,
    evidence: firstFail < 0 ? "/listing/endpoints" : `/listing/endpoints/${ctx.sourceIndex[firstFail]}/${impl.field}`,
    inScope: n,
  };
}

/** Never in provisional mode; lowest value first. */
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

function improvementFor(rule: RubricRule, r: RuleResult, blockingCaps: Set<CapId>, c: CompiledRubric, scopeEmpty: boolean): Improvement {
  let action = scopeEmpty && rule.actionWhenEmpty ? rule.actionWhenEmpty : rule.action;
  if (action.includes("{endpoints}")) action = action.replace("{endpoints}", r.endpoints.length > 0 ? listEndpoints(r.endpoints) : "your endpoints");
  const fixes = c.capsFixedBy.get(rule.id);
  return {
    ruleId: rule.id,
    points: normalise(r.max - r.earned),
    endpoints: r.endpoints,
    effort: rule.effort,
    blocker: !!fixes && fixes.some((id) => blockingCaps.has(id)),
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

  const rules: RuleResult[] = new Array(c.rules.length);
  const scopeEmpty: boolean[] = new Array(c.rules.length);
  const dims = new Map<string, DimensionResult>();
  for (const d of rubric.dimensions) dims.set(d.id, { id: d.id, earned: 0, max: d.points });
  let sum = 0;
  const exactTerms: Array<Fraction | null> = new Array(c.rules.length).fill(null);
  for (let i = 0; i < c.rules.length; i++) {
    const rule = c.rules[i];
    let o: Outcome;
    if (rule.scope === "listing" || rule.scope === "measured") {
      const impl = LISTING_RULES[rule.id];
      if (!impl) throw new Error(`${c.version}: rule ${rule.id} has scope ${rule.scope} but no listing-level implementation`);
      o = impl(ctx, rule.points);
      scopeEmpty[i] = rule.scope === "measured" && endpoints.length === 0;
    } else {
      const eo = scoreEndpointRule(rule, ctx, c);
      scopeEmpty[i] = eo.inScope === 0;
      exactTerms[i] = eo.exact;
      o = eo;
    }
    // H2 = points × liveness: the exact fraction is the liveness share (exact.ts).
    if (rule.id === "H2" && ctx.live && o.earned > 0) exactTerms[i] = mul(frac(BigInt(rule.points)), fractionOf(ctx.live.value));
    rules[i] = { id: rule.id, dimension: rule.dimension, earned: o.earned, max: rule.points, status: o.status, reason: o.reason, endpoints: o.endpoints, evidence: o.evidence };
    sum += o.earned;
    const d = dims.get(rule.dimension)!;
    d.earned += o.earned;
  }
  const exact = c.rubric.semantics?.arithmetic === "exact";
  const caps = provisional ? [] : evaluateCaps(ctx, c);
  const dimensions: DimensionResult[] = [];
  let rawTotal: number;
  let total: number;
  if (!exact) {
    for (const d of dims.values()) dimensions.push({ id: d.id, earned: normalise(d.earned), max: d.max });
    rawTotal = normalise(sum);
    const capped = caps.length > 0 ? Math.min(rawTotal, caps[0].value) : rawTotal;
    total = roundHalfUp(capped);
  } else {
    // readiness/1.1.0 "total": exact; rawTotal truncated, so it never shows a half the total did not round up.
    const term = (i: number) => exactTerms[i] ?? fractionOf(rules[i].earned);
    for (const d of dims.values()) {
      if (!nearGrid(d.earned)) dimensions.push({ id: d.id, earned: Math.floor(d.earned * 1e6) / 1e6, max: d.max });
      else {
        let f = ZERO;
        for (let i = 0; i < rules.length; i++) if (rules[i].dimension === d.id) f = add(f, term(i));
        dimensions.push({ id: d.id, earned: truncate6(f), max: d.max });
      }
    }
    if (!nearGrid(sum) && !(caps.length > 0 && caps[0].value < sum)) {
      rawTotal = Math.floor(sum * 1e6) / 1e6;
      total = Math.floor(sum + 0.5);
    } else {
      let f = ZERO;
      for (let i = 0; i < rules.length; i++) f = add(f, term(i));
      rawTotal = truncate6(f);
      total = roundHalfUpExact(caps.length > 0 ? fracMin(f, frac(BigInt(caps[0].value))) : f);
    }
  }

  const blocking = new Set<CapId>(caps.map((x) => x.id));
  const improvements: Improvement[] = [];
  const order = new Map<string, number>();
  for (let i = 0; i < rules.length; i++) {
    const r = rules[i];
    order.set(r.id, i);
    if (r.status === "not_observed" || r.earned >= r.max - 1e-9) continue;
    improvements.push(improvementFor(c.rules[i], r, blocking, c, scopeEmpty[i]));
  }
  // Blockers first, most recoverable points, most endpoints, lowest effort, then rubric order (M1 … H3).
  improvements.sort(
    (a, b) =>
      Number(b.blocker) - Number(a.blocker) ||
      b.points - a.points ||
      b.endpoints.length - a.endpoints.length ||
      EFFORT_RANK[a.effort] - EFFORT_RANK[b.effort] ||
      order.get(a.ruleId)! - order.get(b.ruleId)!,
  );

  return {
    rubricVersion: c.version,
    total,
    rawTotal,
    band: bandFor(total, rubric),
    provisional,
    caps,
    dimensions,
    rules,
    improvements,
  };
}
