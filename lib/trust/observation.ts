/** What the trust grade is scored from: immutable observations. The contract between lib/trust/observe and the engine; imports nothing. */

/** R1…R7, C1…C6, H1…H9, S1…S5; the rubric file is the list. */
export type CheckId = string;

export type CheckKind = "free" | "paid";

/** na and unmeasured carry no weight; unmeasured is never a fail (docs/TRUST.md "na and unmeasured"). */
export type Outcome = "pass" | "fail" | "na" | "unmeasured";

export interface Observation {
  endpointId: string;
  check: CheckId;
  kind: CheckKind;
  outcome: Outcome;
  /** Curve checks (R3, R7): ms; null for rate checks. */
  value: number | null;
  observedAt: string;
  /** "monitor", "analysis", "canary", … */
  vantage: string;
  revision: number;
  receipt: Record<string, unknown>;
}

/** Revision 1 starts with the endpoint; a change of price, payTo, description, schemas or URL starts the next. */
export interface Revision {
  revision: number;
  startedAt: string;
  /** Empty for revision 1. */
  changes: string[];
  /** H2: a noted price change passes. */
  note: string | null;
}

export interface TrustSubject {
  endpointId: string;
  /** All the raw rows, or (with `rollups`) those no rollup holds. */
  observations: Observation[];
  revisions: Revision[];
  rollups?: RollupBucket[];
}

export interface RollupRevision {
  all: number;
  seen: number | null;
  passes: number;
  fails: number;
  na: number;
  unmeasured: number;
  /** Σ 2^(−(end − t)/half-life) over passes and over fails. */
  pw: number;
  fw: number;
  /** A tie: the later row. */
  first: number | null;
  last: number | null;
  lastPass: number | null;
  lastFail: number | null;
  latest: number | null;
  latestOutcome: Outcome | null;
  /** [value (null: a timeout), count, Σ decay to the end], ascending by value. */
  curve?: Array<[number | null, number, number]>;
}

/** Over a check's passes and fails, all revisions. */
export interface RollupOrder {
  passes: number;
  first: number | null;
  firstFail: number | null;
  lastPass: number | null;
  lastFail: number | null;
  /** Every pass when none failed. */
  passAfterFail: number;
  /** The first fail when none passed. */
  failAfterPass: number | null;
}

export interface RollupCheck {
  /** Days; a rubric with another refuses the rollup. */
  h: number;
  rev?: Record<string, RollupRevision>;
  order?: RollupOrder;
  /** [t, outcome, value, revision], in time order. */
  paid?: Array<[number, Outcome, number | null, number]>;
}

/** [start, end) in ms, UTC hours or days. */
export interface RollupBucket {
  start: number;
  end: number;
  checks: Record<string, RollupCheck>;
}

