/**
 * What the trust grade is scored from (docs/spec/trust-rubric.md): one immutable observation per
 * check outcome of one endpoint. The engine (lib/trust/engine) reads these and nothing else; the
 * producers (lib/trust/observe: free checks from the probes, paid checks from the canary's samples)
 * write them. This file is the contract between the two: it imports nothing.
 */

/** A check id of the rubric (R1…R7, C1…C6, H1…H9, S1…S5). The rubric file is the list. */
export type CheckId = string;

/** The rubric's `kind` of a check: free probes of the unpaid 402, or paid samples. */
export type CheckKind = "free" | "paid";

/**
 * - `pass` / `fail`: the check's `measure` held or did not.
 * - `na`: the check does not apply (C4 with only a header, H4 with no operator wallet, R6 with no
 *   reference; for a paid check, to this one call: nothing charged, an error body). It carries no
 *   weight; the engine's reading says when the check drops out (docs/TRUST.md "na and unmeasured").
 * - `unmeasured`: the check applies but could not be read this time (C3 or C6 while the RPC is
 *   down): it carries no weight either way, never a fail.
 */
export type Outcome = "pass" | "fail" | "na" | "unmeasured";

export interface Observation {
  /** The catalog's endpoint id. */
  endpointId: string;
  check: CheckId;
  kind: CheckKind;
  outcome: Outcome;
  /** Curve checks (R3, R7): the measured milliseconds of this observation; null for rate checks. */
  value: number | null;
  /** ISO 8601 instant. */
  observedAt: string;
  /** Where it was seen from: "monitor" (the health sweep), "analysis", "canary", … */
  vantage: string;
  /** The endpoint's revision when it was observed (see Revision). */
  revision: number;
  /** What was seen: the decoded 402, the matched text, the transaction. Shown to people as is. */
  receipt: Record<string, unknown>;
}

/**
 * An endpoint's revisions. Revision 1 starts with the endpoint; a change of its listed price, payTo,
 * description or schemas starts the next one. The rubric's `on_revision` (`half`, `reset`) says what
 * older observations of a check are worth after one.
 */
export interface Revision {
  revision: number;
  startedAt: string;
  /** What changed to start it: "price", "payTo", "description", "schemas". Empty for revision 1. */
  changes: string[];
  /** The seller's note on the change, if any (H2: a noted price change passes). */
  note: string | null;
}

/** Everything the engine needs to score one endpoint. */
export interface TrustSubject {
  endpointId: string;
  /** The raw rows: all of them, or (with `rollups`) those no rollup holds. */
  observations: Observation[];
  revisions: Revision[];
  /** Hour and day rollups of the rest of the history (lib/trust/engine/rollup.ts), disjoint from the rows. */
  rollups?: RollupBucket[];
}

/** One check's free observations of one revision in the bucket. */
export interface RollupRevision {
  /** Every observation, any outcome, and the first of them. */
  all: number;
  seen: number | null;
  passes: number;
  fails: number;
  na: number;
  unmeasured: number;
  /** Σ 2^(−(end − t)/half-life) over passes and over fails. */
  pw: number;
  fw: number;
  /** The first and last pass or fail; the newest pass, fail or na and its outcome (a tie: the later row). */
  first: number | null;
  last: number | null;
  lastPass: number | null;
  lastFail: number | null;
  latest: number | null;
  latestOutcome: Outcome | null;
  /** Curve checks: [value (null: a timeout), count, Σ decay to the end], ascending by value. */
  curve?: Array<[number | null, number, number]>;
}

/** The gates' time-order facts over a check's passes and fails (all revisions). */
export interface RollupOrder {
  passes: number;
  first: number | null;
  firstFail: number | null;
  lastPass: number | null;
  lastFail: number | null;
  /** Passes after the last fail (every pass when none failed). */
  passAfterFail: number;
  /** The first fail after the last pass (the first fail when none passed). */
  failAfterPass: number | null;
}

export interface RollupCheck {
  /** The half-life the sums were decayed with (days): a rubric with another refuses the rollup. */
  h: number;
  rev?: Record<string, RollupRevision>;
  order?: RollupOrder;
  /** Paid checks: each observation as [t, outcome, value, revision], in time order. */
  paid?: Array<[number, Outcome, number | null, number]>;
}

/** [start, end) in ms since the epoch, UTC hours or days. */
export interface RollupBucket {
  start: number;
  end: number;
  checks: Record<string, RollupCheck>;
}

