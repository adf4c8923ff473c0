/** Hour and day rollups as the sufficient statistics `aggregate` reads, scoring exactly like the rows (docs/TRUST.md "Bounded history"). */
import type { Observation, Outcome, RollupBucket, RollupCheck, RollupOrder, RollupRevision } from "../observation";
export type { RollupBucket, RollupCheck, RollupOrder, RollupRevision };
import type { TrustRubric } from "../rubric";
import { DAY_MS, HOUR_MS, instant } from "./aggregate";

export const ROLLUP_HOUR_MS = HOUR_MS;
export const ROLLUP_DAY_MS = DAY_MS;

const lambdaOf = (h: number) => Math.LN2 / (h * DAY_MS);
const min = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.min(a, b));
const max = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.max(a, b));

function emptyRevision(): RollupRevision {
  return { all: 0, seen: null, passes: 0, fails: 0, na: 0, unmeasured: 0, pw: 0, fw: 0, first: null, last: null, lastPass: null, lastFail: null, latest: null, latestOutcome: null };
}
function emptyOrder(): RollupOrder {
  return { passes: 0, first: null, firstFail: null, lastPass: null, lastFail: null, passAfterFail: 0, failAfterPass: null };
}

/** `b` after `a` (time-disjoint). */
export function concatOrder(a: RollupOrder, b: RollupOrder): RollupOrder {
  return {
    passes: a.passes + b.passes,
    first: min(a.first, b.first),
    firstFail: min(a.firstFail, b.firstFail),
    lastPass: max(a.lastPass, b.lastPass),
    lastFail: max(a.lastFail, b.lastFail),
    passAfterFail: b.lastFail !== null ? b.passAfterFail : a.passAfterFail + b.passes,
    failAfterPass: b.lastPass !== null ? b.failAfterPass : (a.failAfterPass ?? b.firstFail),
  };
}

/** The rollup of [start, end); throws on an observation outside it or naming no check, failing the write. */
export function rollupOf(rubric: TrustRubric, observations: Observation[], start: number, end: number): RollupBucket {
  const checks: Record<string, RollupCheck> = {};
  const sorted = observations.map((o, i) => ({ o, t: instant(o.observedAt), i })).sort((a, b) => a.t - b.t || a.i - b.i);
  for (const { o, t } of sorted) {
    const c = rubric.checkById.get(o.check);
    if (!c) throw new Error(`rollup: observation names no check of ${rubric.ref}: ${o.check}`);
    if (t < start || t >= end) throw new Error(`rollup: observation at ${o.observedAt} is outside [${new Date(start).toISOString()}, ${new Date(end).toISOString()})`);
    const rc = (checks[o.check] ??= { h: c.halfLifeDays });
    if (c.kind === "paid") {
      (rc.paid ??= []).push([t, o.outcome, o.value ?? null, o.revision]);
      continue;
    }
    const r = ((rc.rev ??= {})[o.revision] ??= emptyRevision());
    r.all++;
    r.seen = min(r.seen, t);
    if (o.outcome === "unmeasured") {
      r.unmeasured++;
      continue;
    }
    if (r.latest === null || t >= r.latest) {
      r.latest = t;
      r.latestOutcome = o.outcome;
    }
    if (o.outcome === "na") {
      r.na++;
      continue;
    }
    const w = Math.exp(-lambdaOf(c.halfLifeDays) * (end - t));
    const pass = o.outcome === "pass";
    r.first = min(r.first, t);
    r.last = max(r.last, t);
    if (pass) {
      r.passes++;
      r.pw += w;
      r.lastPass = max(r.lastPass, t);
    } else {
      r.fails++;
      r.fw += w;
      r.lastFail = max(r.lastFail, t);
    }
    if (c.metric === "curve") {
      const v = o.value === null || o.value === undefined ? (pass ? NaN : null) : o.value;
      if (Number.isNaN(v)) throw new Error(`rollup: ${o.check} (a curve check) passes with no value at ${o.observedAt}`);
      const curve = (r.curve ??= []);
      const at = curve.findIndex((x) => x[0] === v);
      if (at >= 0) {
        curve[at][1]++;
        curve[at][2] += w;
      } else curve.push([v, 1, w]);
    }
    const one: RollupOrder = pass
      ? { passes: 1, first: t, firstFail: null, lastPass: t, lastFail: null, passAfterFail: 1, failAfterPass: null }
      : { passes: 0, first: t, firstFail: t, lastPass: null, lastFail: t, passAfterFail: 0, failAfterPass: t };
    rc.order = concatOrder(rc.order ?? emptyOrder(), one);
  }
  for (const rc of Object.values(checks)) for (const r of Object.values(rc.rev ?? {})) r.curve?.sort(byValue);
  return { start, end, checks };
}

const byValue = (a: [number | null, number, number], b: [number | null, number, number]) => (a[0] === null ? 1 : b[0] === null ? -1 : a[0] - b[0]);

/** Disjoint buckets into one [start, end) (default: first start to last end). */
export function mergeRollups(buckets: RollupBucket[], span?: { start: number; end: number }): RollupBucket {
  const list = [...buckets].sort((a, b) => a.start - b.start);
  if (list.length === 0) throw new Error("rollup: nothing to merge");
  for (let i = 1; i < list.length; i++) if (list[i].start < list[i - 1].end) throw new Error("rollup: merged buckets overlap");
  const start = span?.start ?? list[0].start;
  const end = span?.end ?? list[list.length - 1].end;
  if (list[0].start < start || list[list.length - 1].end > end) throw new Error("rollup: a merged bucket lies outside the span");
  const checks: Record<string, RollupCheck> = {};
  for (const b of list) {
    for (const [id, bc] of Object.entries(b.checks)) {
      const rc = (checks[id] ??= { h: bc.h });
      if (rc.h !== bc.h) throw new Error(`rollup: ${id} decayed with half-lives ${rc.h} and ${bc.h}`);
      if (bc.paid) rc.paid = [...(rc.paid ?? []), ...bc.paid];
      if (bc.order) rc.order = concatOrder(rc.order ?? emptyOrder(), bc.order);
      const scale = Math.exp(-lambdaOf(bc.h) * (end - b.end));
      for (const [rev, x] of Object.entries(bc.rev ?? {})) {
        const r = ((rc.rev ??= {})[rev] ??= emptyRevision());
        r.all += x.all;
        r.seen = min(r.seen, x.seen);
        r.passes += x.passes;
        r.fails += x.fails;
        r.na += x.na;
        r.unmeasured += x.unmeasured;
        r.pw += x.pw * scale;
        r.fw += x.fw * scale;
        r.first = min(r.first, x.first);
        r.last = max(r.last, x.last);
        r.lastPass = max(r.lastPass, x.lastPass);
        r.lastFail = max(r.lastFail, x.lastFail);
        if (x.latest !== null && (r.latest === null || x.latest >= r.latest)) {
          r.latest = x.latest;
          r.latestOutcome = x.latestOutcome;
        }
        if (x.curve) {
          const curve = (r.curve ??= []);
          for (const [v, n, w] of x.curve) {
            const at = curve.findIndex((y) => y[0] === v);
            if (at >= 0) {
              curve[at][1] += n;
              curve[at][2] += w * scale;
            } else curve.push([v, n, w * scale]);
          }
          curve.sort(byValue);
        }
      }
    }
  }
  return { start, end, checks };
}

export const hourOf = (t: number) => Math.floor(t / HOUR_MS) * HOUR_MS;
export const dayOf = (t: number) => Math.floor(t / DAY_MS) * DAY_MS;

/** Instants a bucket may not straddle at `now` (window edges and `now`); their hours are read raw. */
export function rollupEdges(rubric: TrustRubric, now: number): number[] {
  const f = rubric.file;
  return [...new Set([now - f.outlook.recent_days * DAY_MS, now - f.outlook.baseline_days * DAY_MS, now - f.verdict.paid_within_days * DAY_MS, now])];
}

/** Which history a score at `now` reads: raw rows (rawHours, from tailFrom on), hour rollups of hourDays, day rollups of the rest. */
export function historyPlan(rubric: TrustRubric, now: number): { tailFrom: number; rawHours: number[]; hourDays: number[] } {
  const tailFrom = hourOf(now) - HOUR_MS;
  const rawHours = [...new Set(rollupEdges(rubric, now).map(hourOf))].filter((h) => h < tailFrom).sort((a, b) => a - b);
  const hourDays = [...new Set([...rawHours.map(dayOf), dayOf(tailFrom)])].sort((a, b) => a - b);
  return { tailFrom, rawHours, hourDays };
}

export function hourRollups(rubric: TrustRubric, observations: Observation[]): Map<number, RollupBucket> {
  const byHour = new Map<number, Observation[]>();
  for (const o of observations) {
    const h = hourOf(instant(o.observedAt));
    let list = byHour.get(h);
    if (!list) byHour.set(h, (list = []));
    list.push(o);
  }
  return new Map([...byHour].sort((a, b) => a[0] - b[0]).map(([h, list]) => [h, rollupOf(rubric, list, h, h + HOUR_MS)]));
}

/** A subject as the reader serves it at `now`; the tests compare its score with the rows' own. */
export function rolledUp(rubric: TrustRubric, observations: Observation[], now: number): { observations: Observation[]; rollups: RollupBucket[] } {
  const plan = historyPlan(rubric, now);
  const raw = new Set(plan.rawHours);
  const hourDays = new Set(plan.hourDays);
  const kept: Observation[] = [];
  const rolled: Observation[] = [];
  for (const o of observations) {
    const t = instant(o.observedAt);
    (t >= plan.tailFrom || raw.has(hourOf(t)) ? kept : rolled).push(o);
  }
  const hours = hourRollups(rubric, rolled);
  const days = new Map<number, RollupBucket[]>();
  const rollups: RollupBucket[] = [];
  for (const [h, b] of hours) {
    if (hourDays.has(dayOf(h))) rollups.push(b);
    else {
      let list = days.get(dayOf(h));
      if (!list) days.set(dayOf(h), (list = []));
      list.push(b);
    }
  }
  for (const [d, list] of days) rollups.push(mergeRollups(list, { start: d, end: d + DAY_MS }));
  return { observations: kept, rollups: rollups.sort((a, b) => a.start - b.start) };
}

/** The first observation of `check` at or before `now`, any outcome, from the rollups and the rows. */
export function firstObservedAt(subject: { observations: Observation[]; rollups?: RollupBucket[] }, check: string, now: number): number | null {
  let first: number | null = null;
  for (const b of subject.rollups ?? []) {
    if (b.start > now) continue;
    for (const r of Object.values(b.checks[check]?.rev ?? {})) first = min(first, r.seen);
    for (const p of b.checks[check]?.paid ?? []) first = min(first, p[0]);
  }
  for (const o of subject.observations) {
    const t = instant(o.observedAt);
    if (o.check === check && t <= now) first = min(first, t);
  }
  return first;
}
