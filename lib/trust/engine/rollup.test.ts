import { describe, expect, it } from "vitest";
import type { Observation, Outcome, Revision } from "../observation";
import { loadRubric, scoreSubject, type TrustResult } from "./index";
import { historyPlan, hourRollups, mergeRollups, rolledUp, rollupOf } from "./rollup";

const rubric = loadRubric();
const MIN = 60_000;
const H = 60 * MIN;
const D = 24 * H;
const FREE = ["R1", "R2", "R3", "C1", "C2", "C3", "C4", "C5", "H1", "H2", "H3", "H4", "S1", "S2", "S4", "S5"];
const PAID = ["R4", "R5", "R6", "R7", "C6", "H5", "H6", "H7", "H8", "H9", "S3"];

/** A seeded stream (mulberry32), so each history is the same every run. */
function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * `days` of history up to `end` at the sweep's real rate (16 free checks every 5 minutes), a paid
 * sample every `paidEveryH` hours, failures, outages (R1 down for hours, R3 timeouts), na and
 * unmeasured outcomes, and a price revision (`half`, `reset`) a third of the way in.
 */
function history(days: number, end: number, seed: number, paidEveryH = 6): { observations: Observation[]; revisions: Revision[] } {
  const r = rng(seed);
  const start = end - days * D;
  const revAt = start + Math.floor((days * D) / 3 / (5 * MIN)) * 5 * MIN + 7;
  const revisions: Revision[] = [{ revision: 1, startedAt: new Date(start - D).toISOString(), changes: [], note: null }];
  if (days > 1) revisions.push({ revision: 2, startedAt: new Date(revAt).toISOString(), changes: ["price"], note: null });
  const outages: Array<[number, number]> = [];
  for (let k = 0; k < Math.max(1, days / 10); k++) {
    const s = start + r() * days * D;
    outages.push([s, s + (1 + r() * 80) * H]);
  }
  const flaky = 0.02 + r() * 0.1;
  const obs: Observation[] = [];
  const o = (check: string, outcome: Outcome, t: number, value: number | null = null): Observation => ({
    endpointId: "ep",
    check,
    kind: PAID.includes(check) ? "paid" : "free",
    outcome,
    value,
    observedAt: new Date(t).toISOString(),
    vantage: PAID.includes(check) ? "canary" : "monitor",
    revision: days > 1 && t >= revAt ? 2 : 1,
    receipt: {},
  });
  for (let t = start + Math.floor(r() * 5 * MIN); t < end; t += 5 * MIN) {
    const down = outages.some(([a, b]) => t >= a && t < b);
    for (const c of FREE) {
      if (down && (c === "R1" || c === "R3")) {
        obs.push(o(c, "fail", t));
        continue;
      }
      if (down) {
        obs.push(o(c, "unmeasured", t));
        continue;
      }
      if (c === "R3") {
        obs.push(r() < 0.01 ? o(c, "fail", t) : o(c, "pass", t, Math.round((80 + r() * r() * 3000) * 10) / 10));
        continue;
      }
      if (c === "C4" || c === "H4") {
        obs.push(o(c, r() < 0.3 ? "na" : r() < flaky ? "fail" : "pass", t));
        continue;
      }
      if (c === "C3" && r() < 0.05) {
        obs.push(o(c, "unmeasured", t));
        continue;
      }
      obs.push(o(c, r() < flaky ? "fail" : "pass", t));
    }
    if (Math.floor(t / (paidEveryH * H)) !== Math.floor((t - 5 * MIN) / (paidEveryH * H))) {
      const at = t + 1234;
      if (at >= end) continue;
      const charged = r() > 0.05;
      for (const c of PAID) {
        if (c === "R7") obs.push(r() < 0.03 ? o(c, "fail", at) : o(c, "pass", at, Math.round(300 + r() * 4000)));
        else if (c === "H9" || c === "R6") obs.push(o(c, "na", at));
        else if (!charged && (c === "H5" || c === "H6" || c === "H8")) obs.push(o(c, "na", at));
        else obs.push(o(c, r() < flaky ? "fail" : "pass", at));
      }
    }
  }
  return { observations: obs, revisions };
}

/** Everything a result says at the digits it says it, floats of the checks to 1e-9 relative. */
function expectSame(a: TrustResult, b: TrustResult) {
  const strip = (r: TrustResult) => ({ ...r, checks: r.checks.map(({ passWeight: _p, failWeight: _f, rate: _r, p95: _q, ...c }) => c) });
  expect(strip(b)).toEqual(strip(a));
  for (let i = 0; i < a.checks.length; i++) {
    const x = a.checks[i];
    const y = b.checks[i];
    for (const k of ["passWeight", "failWeight", "rate", "p95"] as const) {
      const u = x[k] ?? null;
      const v = y[k] ?? null;
      if (u === null || v === null || !Number.isFinite(u)) expect([x.id, k, v]).toEqual([x.id, k, u]);
      else expect(Math.abs(u - v)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(u)));
    }
  }
}

const END = Date.parse("2026-12-01T12:00:00.000Z");

describe("rollups plus the raw tail score exactly as every row", () => {
  it.each([
    [1, 11],
    [30, 12],
    [90, 13],
  ])("%i day(s) at 16 observations every 5 minutes, band included", (days, seed) => {
    const { observations, revisions } = history(days, END, seed);
    // Read at several instants: on the hour, mid-hour, and an as-of read a day back.
    for (const now of [END, END - 17 * MIN - 3, END - D + 29 * MIN]) {
      const rows = scoreSubject(rubric, { endpointId: "ep", observations, revisions }, { now, band: true });
      const served = rolledUp(rubric, observations, now);
      if (days > 1) expect(served.observations.length).toBeLessThan(observations.length / 8);
      const rolled = scoreSubject(rubric, { endpointId: "ep", revisions, ...served }, { now, band: true });
      expectSame(rows, rolled);
      if (days === 90 && now === END) {
        // What the test is worth: one day's rollup left out changes the result.
        const less = scoreSubject(rubric, { endpointId: "ep", revisions, observations: served.observations, rollups: served.rollups.filter((b) => b.start !== served.rollups[served.rollups.length - 30].start) }, { now, band: true });
        expect(less.checks.map((c) => c.n)).not.toEqual(rows.checks.map((c) => c.n));
      }
    }
  }, 120_000);

  it("a history with gates firing (an outage past 72 h, an overcharge, a new payTo) reads the same", () => {
    const { observations, revisions } = history(20, END, 99, 24);
    const t0 = END - 5 * D;
    const extra: Observation[] = [];
    for (let t = t0; t < t0 + 4 * D; t += H) extra.push({ endpointId: "ep", check: "R1", kind: "free", outcome: "fail", value: null, observedAt: new Date(t + 17).toISOString(), vantage: "monitor", revision: 2, receipt: {} });
    extra.push({ endpointId: "ep", check: "H5", kind: "paid", outcome: "fail", value: null, observedAt: new Date(END - 3 * D + 5).toISOString(), vantage: "canary", revision: 2, receipt: {} });
    extra.push({ endpointId: "ep", check: "H3", kind: "free", outcome: "fail", value: null, observedAt: new Date(END - 2 * D + 9).toISOString(), vantage: "monitor", revision: 2, receipt: {} });
    const all = [...observations, ...extra].sort((a, b) => a.observedAt.localeCompare(b.observedAt));
    for (const now of [END, t0 + 3.5 * D]) {
      const rows = scoreSubject(rubric, { endpointId: "ep", observations: all, revisions }, { now, band: true });
      expect(rows.gates.some((g) => g.fired)).toBe(true);
      expectSame(rows, scoreSubject(rubric, { endpointId: "ep", revisions, ...rolledUp(rubric, all, now) }, { now, band: true }));
    }
  });

  it("a day merged from its hours equals the day rolled up from its rows", () => {
    const { observations } = history(2, END, 5);
    const d0 = Date.parse("2026-11-30T00:00:00.000Z");
    const day = observations.filter((o) => o.observedAt.startsWith("2026-11-30"));
    const direct = rollupOf(rubric, day, d0, d0 + D);
    const merged = mergeRollups([...hourRollups(rubric, day).values()], { start: d0, end: d0 + D });
    for (const [id, c] of Object.entries(direct.checks)) {
      expect(merged.checks[id].order).toEqual(c.order);
      expect(merged.checks[id].paid).toEqual(c.paid);
      for (const [rev, r] of Object.entries(c.rev ?? {})) {
        const m = merged.checks[id].rev![rev];
        expect({ ...m, pw: 0, fw: 0, curve: m.curve?.map((x) => [x[0], x[1]]) }).toEqual({ ...r, pw: 0, fw: 0, curve: r.curve?.map((x) => [x[0], x[1]]) });
        expect(m.pw).toBeCloseTo(r.pw, 9);
        expect(m.fw).toBeCloseTo(r.fw, 9);
      }
    }
  });

  it("refuses a rollup that straddles a window's edge, a row inside a rollup, and another half-life", () => {
    const { observations, revisions } = history(20, END, 7);
    const served = rolledUp(rubric, observations, END);
    const later = END + 2 * H;
    expect(() => scoreSubject(rubric, { endpointId: "ep", revisions, ...served }, { now: later + 14 * D - 14 * D + 3 * H, band: false })).toThrow(/straddles|inside a rollup/);
    const inside = { ...served, observations: [...served.observations, { ...observations[100] }].sort((a, b) => a.observedAt.localeCompare(b.observedAt)) };
    expect(() => scoreSubject(rubric, { endpointId: "ep", revisions, ...inside }, { now: END, band: false })).toThrow(/inside a rollup/);
    const b = served.rollups[0];
    const forged = { ...b, checks: { ...b.checks, R1: { ...b.checks.R1, h: 7 } } };
    expect(() => scoreSubject(rubric, { endpointId: "ep", revisions, observations: served.observations, rollups: [forged, ...served.rollups.slice(1)] }, { now: END, band: false })).toThrow(/half-life of 7 days/);
    expect(historyPlan(rubric, END).rawHours.length).toBe(2);
  });
});
