import { describe, expect, it } from "vitest";
import { simulateHistory, trueScore, type HistoryOptions } from "@/test/trust-histories";
import type { Revision } from "../observation";
import { CURRENT_RUBRIC_REF, loadRubric, scoreSubject } from "./index";

const rubric = loadRubric();
const now = "2026-12-01T12:00:00.000Z";
const band = (o: HistoryOptions, opts: Parameters<typeof scoreSubject>[2] = {}) => scoreSubject(rubric, simulateHistory(rubric, o), { now, ...opts });

/** The histories the seed's promise names, from a new endpoint to a month of hourly probes and daily samples. */
const NEW: HistoryOptions = { now, days: 3.01, freeEveryHours: 72 / 7, paidEveryDays: 30 }; // 8 probes over 3 days, one paid sample
const WEEK: HistoryOptions = { now, days: 7, freeEveryHours: 6, paidEveryDays: 2 };
const FORTNIGHT: HistoryOptions = { now, days: 14, freeEveryHours: 3, paidEveryDays: 1 };
const MONTH: HistoryOptions = { now, days: 30, freeEveryHours: 1, paidEveryDays: 1 };

describe("the Monte-Carlo band", () => {
  it("is deterministic given a seed", () => {
    const a = band(WEEK, { seed: 11 });
    const b = band(WEEK, { seed: 11 });
    const c = band(WEEK, { seed: 12 });
    expect(b.band).toEqual(a.band);
    expect(c.band).not.toEqual(a.band);
    expect(Math.abs(c.band!.low - a.band!.low)).toBeLessThan(1.5); // 4,000 draws: seeds differ by Monte-Carlo noise only
    expect(a.seed).toBe(11);
  });

  it("narrows as observations grow", () => {
    const widths = [NEW, WEEK, FORTNIGHT, MONTH].map((o) => band({ ...o, outage: 0.03, badCall: 0.05, pass: { H1: 0.9, R5: 0.9 } }).band!.width);
    for (let i = 1; i < widths.length; i++) expect(widths[i]).toBeLessThan(widths[i - 1]);
  });

  it("reaches low, medium and high confidence from the histories that should reach them", () => {
    const n = band(NEW);
    expect(n.evidence).toMatchObject({ probes: 8, probeSpanDays: 3 });
    expect(n.checks.find((c) => c.id === "R4")!.n).toBe(1);
    expect(n).toMatchObject({ confidence: "low" });
    expect(n.band!.width).toBeGreaterThan(25);
    expect(band(WEEK).confidence).toBe("medium");
    const m = band(MONTH);
    expect(m.confidence).toBe("high");
    expect(m.band!.width).toBeLessThanOrEqual(10);
    // A flaky endpoint with a month of evidence is known well too: high confidence is about evidence, not quality.
    expect(band({ ...MONTH, outage: 0.05, badCall: 0.1, pass: { H1: 0.9 } }).confidence).toBe("high");
  });

  it("needs shared luck: with every check drawn on its own (reading 1 at rho 0) the new endpoint would look certain", () => {
    const reading1 = loadRubric(CURRENT_RUBRIC_REF, 1);
    const alone = (rho: number) => scoreSubject(reading1, simulateHistory(reading1, NEW), { now, bandOptions: { rho } });
    expect(alone(0).band!.width).toBeLessThan(15);
    expect(alone(0.5).band!.width).toBeGreaterThan(alone(0).band!.width * 2);
    // Reading 2: the paid checks share their one sample's luck, so even at rho 0 one paid call shows.
    expect(band(NEW, { bandOptions: { rho: 0 } }).band!.width).toBeGreaterThan(25);
    expect(band(NEW).band!.width).toBeGreaterThan(alone(0.5).band!.width);
  });

  it("covers the true score of a simulated endpoint in about 80% of seeded trials", () => {
    const pass = { R1: 0.97, R2: 0.9, C2: 0.8, C5: 0.7, H1: 0.85, R4: 0.9, R5: 0.8, S1: 0.95, S4: 0.9, C6: 0.9, H7: 0.9 };
    const base: HistoryOptions = { ...WEEK, pass, outage: 0.03, badCall: 0.05 };
    const truth = trueScore(rubric, base);
    const trials = 200;
    let covered = 0;
    for (let t = 0; t < trials; t++) {
      const r = scoreSubject(rubric, simulateHistory(rubric, { ...base, seed: 100 + t }), { now });
      if (r.band!.low <= truth && truth <= r.band!.high) covered++;
    }
    expect(covered / trials).toBeGreaterThanOrEqual(0.7);
    expect(covered / trials).toBeLessThanOrEqual(0.9);
  });

  it("does not re-check gates per draw: a fired cap caps every draw", () => {
    const s = simulateHistory(rubric, MONTH);
    const h5 = s.observations.findLast((o) => o.check === "H5")!;
    h5.outcome = "fail";
    const r = scoreSubject(rubric, s, { now });
    expect(r.flags).toEqual(["overcharge"]);
    expect(r).toMatchObject({ score: 39, band: { low: 39, high: 39, width: 0 }, confidence: "high", verdict: "avoid" });
  });

  it("with little evidence, the band sits below a perfect point score (Jeffreys' prior)", () => {
    const r = band(NEW);
    expect(r.score).toBeGreaterThan(99);
    expect(r.band!.high).toBeLessThan(r.score!);
  });
});

describe("any subject scores without error, inside 0–100", () => {
  it("seeded random subjects: mixed outcomes, curve values and timeouts, revisions, observations out of order", async () => {
    const { mulberry32 } = await import("./stats");
    const outcomes = ["pass", "fail", "na", "unmeasured"] as const;
    for (let t = 0; t < 150; t++) {
      const r = mulberry32(9000 + t);
      const ids = rubric.checks.filter(() => r() < 0.5);
      const revisions: Revision[] = [{ revision: 1, startedAt: "2026-10-01T00:00:00.000Z", changes: [], note: null }];
      if (r() < 0.5) revisions.push({ revision: 2, startedAt: new Date(Date.parse(now) - r() * 20 * 86_400_000).toISOString(), changes: ["price"], note: null });
      const observations = Array.from({ length: Math.floor(r() * 60) }, () => {
        const c = ids[Math.floor(r() * ids.length)] ?? rubric.checks[0];
        const outcome = outcomes[Math.floor(r() * 4)];
        const value = c.metric === "curve" && (outcome === "pass" || (outcome === "fail" && r() < 0.5)) ? Math.round(50 + r() * 30_000) : null;
        return { endpointId: "x", check: c.id, kind: c.kind, outcome, value, observedAt: new Date(Date.parse(now) - r() * 40 * 86_400_000).toISOString(), vantage: "t", revision: 1 + Math.floor(r() * revisions.length), receipt: {} };
      });
      const res = scoreSubject(rubric, { endpointId: "x", observations, revisions }, { now });
      if (res.score === null) {
        expect(res.band).toBeNull();
        continue;
      }
      expect(res.score).toBeGreaterThanOrEqual(0);
      expect(res.score).toBeLessThanOrEqual(100);
      expect(res.band!.low).toBeGreaterThanOrEqual(0);
      expect(res.band!.low).toBeLessThanOrEqual(res.band!.high);
      expect(res.band!.high).toBeLessThanOrEqual(100);
      expect(["high", "medium", "low"]).toContain(res.confidence);
      for (const c of res.checks) if (c.rate !== null) expect(c.rate >= 0 && c.rate <= 1).toBe(true);
    }
  });
});
