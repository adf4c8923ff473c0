/** One pass over a subject's observations into per-check sufficient statistics (docs/TRUST.md "Readings"). */
import type { Observation, Outcome, Revision, RollupBucket, RollupOrder, TrustSubject } from "../observation";
import type { CompiledCheck, ReadingSemantics, TrustRubric } from "../rubric";

export const DAY_MS = 86_400_000;
export const HOUR_MS = 3_600_000;

const PASS = 0;
const FAIL = 1;
const NA = 2;
const UNMEASURED = 3;
const OUTCOME_CODE: Record<Outcome, number> = { pass: PASS, fail: FAIL, na: NA, unmeasured: UNMEASURED };
const CODE_OUTCOME: Outcome[] = ["pass", "fail", "na", "unmeasured"];

export interface WindowCounts {
  pass: number;
  fail: number;
  /** Curve checks: measured values (a timeout as +Infinity) and their revision weights. */
  values: number[];
  weights: number[];
}

export interface CheckStats {
  check: CompiledCheck;
  /** Decayed, revision-weighted. */
  passWeight: number;
  failWeight: number;
  /** Decayed only: what reading 3's gates read. */
  seenFailWeight: number;
  /** Counted: pass or fail, at or before now, not reset. */
  n: number;
  passes: number;
  fails: number;
  na: number;
  unmeasured: number;
  /** Dropped by `on_revision: reset`. */
  droppedByRevision: number;
  /** The newest counted-or-na observation (na decides applicability). */
  latestOutcome: Outcome | null;
  latestAt: number | null;
  firstAt: number | null;
  lastFailAt: number | null;
  lastPassAt: number | null;
  /** Null for a check no gate reads. */
  passesSinceLastFail: number | null;
  /** The first fail after the last pass; null when the latest is a pass. */
  failingSince: number | null;
  /** Curve checks: weighted samples (ms; a fail without a value is +Infinity). */
  values: number[];
  weights: number[];
  /** Paid checks: each counted observation's sample (index into SubjectStats.samples) and weight. */
  sampleOf: number[];
  sampleWeights: number[];
  recent: WindowCounts;
  baseline: WindowCounts;
}

export interface SubjectStats {
  now: number;
  currentRevision: number;
  checks: CheckStats[];
  recentRevisions: Revision[];
  probes: number;
  probeSpanDays: number;
  lastPaidAt: number | null;
  future: number;
  samples: number[];
}

function emptyWindow(): WindowCounts {
  return { pass: 0, fail: 0, values: [], weights: [] };
}

const UTC_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const d2 = (s: string, i: number) => (s.charCodeAt(i) - 48) * 10 + (s.charCodeAt(i + 1) - 48);

/** An ISO 8601 instant in ms; the toISOString shape is read digit by digit (Date.parse dominated a plain score). */
export function instant(s: string): number {
  if (UTC_MS.test(s)) {
    const year = d2(s, 0) * 100 + d2(s, 2);
    const ms = (s.charCodeAt(20) - 48) * 100 + d2(s, 21);
    const t = Date.UTC(year, d2(s, 5) - 1, d2(s, 8), d2(s, 11), d2(s, 14), d2(s, 17), ms);
    if (!Number.isNaN(t)) return t;
  }
  const t = Date.parse(s);
  if (Number.isNaN(t)) throw new Error(`not an ISO 8601 instant: ${JSON.stringify(s)}`);
  return t;
}

export function aggregate(rubric: TrustRubric, subject: TrustSubject, now: number): SubjectStats {
  const f = rubric.file;
  // A revision after `now` (of an as-of score) has not happened yet.
  let currentRevision = 1;
  const recentRevisions: Revision[] = [];
  for (const r of subject.revisions) {
    const at = instant(r.startedAt);
    if (at <= now && r.revision > currentRevision) currentRevision = r.revision;
    if (r.revision > 1 && at <= now && now - at <= f.watch.revision_days * DAY_MS) recentRevisions.push(r);
  }

  const stats: CheckStats[] = rubric.checks.map((check) => ({
    check,
    passWeight: 0,
    failWeight: 0,
    seenFailWeight: 0,
    n: 0,
    passes: 0,
    fails: 0,
    na: 0,
    unmeasured: 0,
    droppedByRevision: 0,
    latestOutcome: null,
    latestAt: null,
    firstAt: null,
    lastFailAt: null,
    lastPassAt: null,
    passesSinceLastFail: null,
    failingSince: null,
    values: [],
    weights: [],
    sampleOf: [],
    sampleWeights: [],
    recent: emptyWindow(),
    baseline: emptyWindow(),
  }));
  // weight = 2^(−age/halfLife); one exp per (instant, half-life), since a probe's checks share both.
  const halfLives = [...new Set(rubric.checks.map((c) => c.halfLifeDays))];
  const slotOf = rubric.checks.map((c) => halfLives.indexOf(c.halfLifeDays));
  const lambda = halfLives.map((h) => Math.LN2 / (h * DAY_MS));
  const slotT = new Float64Array(halfLives.length).fill(NaN);
  const slotW = new Float64Array(halfLives.length);
  const recentFrom = now - f.outlook.recent_days * DAY_MS;
  const baselineFrom = now - f.outlook.baseline_days * DAY_MS;
  const paidFrom = now - f.verdict.paid_within_days * DAY_MS;
  const probeIndex = rubric.checkById.get(f.verdict.probe_check)!.index;
  let probes = 0;
  let probeFirst = Infinity;
  let probeLast = -Infinity;
  let lastPaidAt: number | null = null;
  let future = 0;
  const sampleIndex = new Map<number, number>();
  const sampleAt: number[] = [];

  // Kept per check for the gates' second pass (time order is not assumed).
  const ts: number[][] = rubric.checks.map(() => []);
  const ocs: number[][] = rubric.checks.map(() => []);
  const gated = new Set(f.gates.map((g) => rubric.checkById.get(g.check)!.index));

  const obs: Observation[] = subject.observations;
  const lastObserved = (s: CheckStats, t: number, code: number) => {
    if (s.latestAt === null || t >= s.latestAt) {
      s.latestAt = t;
      s.latestOutcome = CODE_OUTCOME[code];
    }
  };

  const addOne = (i: number | string, check: CompiledCheck, t: number, outcome: Outcome, revision: number, value: number | null | undefined) => {
    const code = OUTCOME_CODE[outcome];
    if (code === undefined) throw new Error(`observation ${i} has no known outcome: ${outcome}`);
    const s = stats[check.index];
    const counted = code === PASS || code === FAIL;
    if (counted && check.index === probeIndex) {
      probes++;
      if (t < probeFirst) probeFirst = t;
      if (t > probeLast) probeLast = t;
    }
    if (counted && check.kind === "paid" && t >= paidFrom && (lastPaidAt === null || t > lastPaidAt)) lastPaidAt = t;

    // `reset` drops an older revision's observations; `half` halves them once per revision since.
    const behind = currentRevision - Math.min(revision, currentRevision);
    let revisionFactor = 1;
    if (behind > 0 && check.on_revision === "reset") {
      s.droppedByRevision++;
      return;
    }
    if (behind > 0 && check.on_revision === "half") revisionFactor = Math.pow(0.5, behind);

    if (code === UNMEASURED) {
      s.unmeasured++;
      return;
    }
    lastObserved(s, t, code);
    if (code === NA) {
      s.na++;
      return;
    }
    if (s.firstAt === null || t < s.firstAt) s.firstAt = t;
    const slot = slotOf[check.index];
    if (slotT[slot] !== t) {
      slotT[slot] = t;
      slotW[slot] = Math.exp(-lambda[slot] * (now - t));
    }
    const w = revisionFactor * slotW[slot];
    s.n++;
    if (check.kind === "paid") {
      let k = sampleIndex.get(t);
      if (k === undefined) {
        sampleIndex.set(t, (k = sampleAt.length));
        sampleAt.push(t);
      }
      s.sampleOf.push(k);
      s.sampleWeights.push(w);
    }
    const inRecent = t > recentFrom;
    const inBaseline = t > baselineFrom;
    if (check.metric === "curve") {
      // A fail without a value is a timeout: the worst value in the p95 (docs/TRUST.md "timeouts").
      const v = value === null || value === undefined ? (code === FAIL ? Infinity : NaN) : value;
      if (Number.isNaN(v)) throw new Error(`observation ${i} (${check.id}, a curve check) passes with no value`);
      s.values.push(v);
      s.weights.push(w);
      if (inRecent) {
        s.recent.values.push(v);
        s.recent.weights.push(revisionFactor);
      }
      if (inBaseline) {
        s.baseline.values.push(v);
        s.baseline.weights.push(revisionFactor);
      }
    }
    if (code === PASS) {
      s.passWeight += w;
      s.passes++;
      if (s.lastPassAt === null || t > s.lastPassAt) s.lastPassAt = t;
      if (inRecent) s.recent.pass += revisionFactor;
      if (inBaseline) s.baseline.pass += revisionFactor;
    } else {
      s.failWeight += w;
      s.seenFailWeight += slotW[slot];
      s.fails++;
      if (s.lastFailAt === null || t > s.lastFailAt) s.lastFailAt = t;
      if (inRecent) s.recent.fail += revisionFactor;
      if (inBaseline) s.baseline.fail += revisionFactor;
    }
    if (gated.has(check.index)) {
      ts[check.index].push(t);
      ocs[check.index].push(code);
    }
  };

  // Rollups (docs/TRUST.md "Bounded history"): the same statistics from hour and day buckets.
  const buckets = [...(subject.rollups ?? [])].sort((a, b) => a.start - b.start);
  const orders: RollupOrder[][] = rubric.checks.map(() => []);
  const straddles = (b: RollupBucket, edge: number) => b.start <= edge && b.end - 1 > edge;
  const addBucket = (b: RollupBucket) => {
    const where = `rollup [${new Date(b.start).toISOString()}, ${new Date(b.end).toISOString()})`;
    if (b.start > now) {
      for (const rc of Object.values(b.checks)) {
        future += rc.paid?.length ?? 0;
        for (const r of Object.values(rc.rev ?? {})) future += r.all;
      }
      return;
    }
    for (const edge of [now, recentFrom, baselineFrom]) if (straddles(b, edge)) throw new Error(`${where} straddles ${new Date(edge).toISOString()}: that hour must be read as rows`);
    const inRecent = b.start > recentFrom;
    const inBaseline = b.start > baselineFrom;
    for (const [id, rc] of Object.entries(b.checks)) {
      const check = rubric.checkById.get(id);
      if (!check) throw new Error(`${where} names no check of ${rubric.ref}: ${id}`);
      if (rc.h !== check.halfLifeDays) throw new Error(`${where}: ${id} was decayed with a half-life of ${rc.h} days, ${rubric.ref} says ${check.halfLifeDays}`);
      if (rc.paid) {
        for (const [t, outcome, value, revision] of rc.paid) addOne(`${id}@${new Date(t).toISOString()}`, check, t, outcome, revision, value);
        continue;
      }
      const s = stats[check.index];
      const scale = Math.exp(-(Math.LN2 / (check.halfLifeDays * DAY_MS)) * (now - b.end));
      let dropped = false;
      for (const [rev, r] of Object.entries(rc.rev ?? {})) {
        if (check.index === probeIndex && r.first !== null) {
          probes += r.passes + r.fails;
          if (r.first < probeFirst) probeFirst = r.first;
          if (r.last! > probeLast) probeLast = r.last!;
        }
        const behind = currentRevision - Math.min(Number(rev), currentRevision);
        if (behind > 0 && check.on_revision === "reset") {
          s.droppedByRevision += r.all;
          dropped = true;
          continue;
        }
        const rf = behind > 0 && check.on_revision === "half" ? Math.pow(0.5, behind) : 1;
        s.unmeasured += r.unmeasured;
        if (r.latest !== null) lastObserved(s, r.latest, OUTCOME_CODE[r.latestOutcome!]);
        s.na += r.na;
        if (r.first === null) continue;
        if (s.firstAt === null || r.first < s.firstAt) s.firstAt = r.first;
        s.n += r.passes + r.fails;
        s.passes += r.passes;
        s.fails += r.fails;
        s.passWeight += rf * scale * r.pw;
        s.failWeight += rf * scale * r.fw;
        s.seenFailWeight += scale * r.fw;
        if (r.lastPass !== null && (s.lastPassAt === null || r.lastPass > s.lastPassAt)) s.lastPassAt = r.lastPass;
        if (r.lastFail !== null && (s.lastFailAt === null || r.lastFail > s.lastFailAt)) s.lastFailAt = r.lastFail;
        for (const [win, on] of [[s.recent, inRecent], [s.baseline, inBaseline]] as const) {
          if (!on) continue;
          win.pass += rf * r.passes;
          win.fail += rf * r.fails;
        }
        for (const [v, count, w] of r.curve ?? []) {
          const value = v === null ? Infinity : v;
          s.values.push(value);
          s.weights.push(rf * scale * w);
          if (inRecent) {
            s.recent.values.push(value);
            s.recent.weights.push(rf * count);
          }
          if (inBaseline) {
            s.baseline.values.push(value);
            s.baseline.weights.push(rf * count);
          }
        }
      }
      if (gated.has(check.index) && rc.order) {
        if (dropped) throw new Error(`${where}: ${id} is gated and reset by a revision; its gates need its rows`);
        orders[check.index].push(rc.order);
      }
    }
  };

  let bi = 0;
  let lastIso = "";
  let lastT = 0;
  for (let i = 0; i < obs.length; i++) {
    const o = obs[i];
    const check = rubric.checkById.get(o.check);
    if (!check) throw new Error(`observation ${i} names no check of ${rubric.ref}: ${o.check}`);
    const t = o.observedAt === lastIso ? lastT : (lastT = instant((lastIso = o.observedAt)));
    while (bi < buckets.length && buckets[bi].start <= t) {
      if (bi > 0 && buckets[bi].start < buckets[bi - 1].end) throw new Error("rollups overlap");
      addBucket(buckets[bi++]);
    }
    if (bi > 0 && buckets[bi - 1].end > t) throw new Error(`observation ${i} (${o.observedAt}) lies inside a rollup`);
    if (t > now) {
      future++;
      continue;
    }
    addOne(i, check, t, o.outcome, o.revision, o.value);
  }
  for (; bi < buckets.length; bi++) {
    if (bi > 0 && buckets[bi].start < buckets[bi - 1].end) throw new Error("rollups overlap");
    addBucket(buckets[bi]);
  }

  for (const idx of gated) {
    const s = stats[idx];
    const t = ts[idx];
    const oc = ocs[idx];
    let since = 0;
    let failingSince = Infinity;
    for (let j = 0; j < t.length; j++) {
      if (oc[j] === PASS && (s.lastFailAt === null || t[j] > s.lastFailAt)) since++;
      if (oc[j] === FAIL && (s.lastPassAt === null || t[j] > s.lastPassAt) && t[j] < failingSince) failingSince = t[j];
    }
    const L = s.lastFailAt;
    const P = s.lastPassAt;
    for (const o of orders[idx]) {
      // A bucket holds the last fail (or pass), or lies wholly before or after it.
      since += L === null ? o.passes : o.lastFail === L ? o.passAfterFail : o.first !== null && o.first > L ? o.passes : 0;
      const f = P === null ? o.firstFail : o.lastPass === P ? o.failAfterPass : o.first !== null && o.first > P ? o.firstFail : null;
      if (f !== null && f < failingSince) failingSince = f;
    }
    s.passesSinceLastFail = since;
    s.failingSince = failingSince === Infinity ? null : failingSince;
  }

  // Newest first, so a subject's newest sample always reads the same luck of the seed.
  const order = sampleAt.map((_, k) => k).sort((a, b) => sampleAt[b] - sampleAt[a]);
  const rank = new Array<number>(order.length);
  order.forEach((k, r) => (rank[k] = r));
  for (const s of stats) for (let j = 0; j < s.sampleOf.length; j++) s.sampleOf[j] = rank[s.sampleOf[j]];

  return {
    now,
    currentRevision,
    checks: stats,
    recentRevisions,
    probes,
    probeSpanDays: probes > 0 ? (probeLast - probeFirst) / DAY_MS : 0,
    lastPaidAt,
    future,
    samples: order.map((k) => sampleAt[k]),
  };
}

/** The check's state under the reading's `na` (docs/TRUST.md "na and unmeasured"). */
export function checkStatus(s: CheckStats, na: ReadingSemantics["na"]): "measured" | "na" | "unmeasured" {
  const weighed = s.passWeight + s.failWeight > 0;
  if (na === "latest" || s.check.kind === "free") {
    if (s.latestOutcome === "na") return "na";
    return weighed ? "measured" : "unmeasured";
  }
  if (weighed) return "measured";
  return s.na > 0 ? "na" : "unmeasured";
}

/** Weighted nearest-rank q-quantile; `order` is the ascending index order of `values`. */
export function weightedQuantile(values: number[], weights: number[], order: Uint32Array, total: number, q: number): number {
  const target = q * total;
  let acc = 0;
  for (let k = 0; k < order.length; k++) {
    acc += weights[order[k]];
    if (acc >= target - 1e-12 * total) return values[order[k]];
  }
  return values[order[order.length - 1]];
}

export function ascendingOrder(values: number[]): Uint32Array {
  const order = new Uint32Array(values.length);
  for (let i = 0; i < order.length; i++) order[i] = i;
  order.sort((a, b) => values[a] - values[b]);
  return order;
}

/** A curve's 0–100 score at x: interpolated (in log space for `log`), clamped outside its points. */
export function curveScore(points: Array<[number, number]>, space: "log" | "linear", x: number): number {
  if (!(x > points[0][0])) return points[0][1];
  const last = points[points.length - 1];
  if (!(x < last[0])) return last[1];
  const tr = space === "log" ? Math.log : (v: number) => v;
  for (let j = 1; j < points.length; j++) {
    const [x1, s1] = points[j];
    if (x <= x1) {
      const [x0, s0] = points[j - 1];
      const u = (tr(x) - tr(x0)) / (tr(x1) - tr(x0));
      return s0 + u * (s1 - s0);
    }
  }
  return last[1];
}
