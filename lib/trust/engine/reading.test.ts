/**
 * The engine's reading 2 of x402-endpoint/1.0.0-draft.1 against reading 1, as tables: each row holds
 * what the current engine must give and what reading 1 gave (kept loadable, so a score made under it
 * is reproducible). Both tables fail on an engine that still reads the seed as reading 1 did.
 */
import { describe, expect, it } from "vitest";
import { simulateHistory, type HistoryOptions } from "@/test/trust-histories";
import type { Observation, Outcome, TrustSubject } from "../observation";
import { CURRENT_RUBRIC_REF, loadRubric, scoreSubject, type TrustResult } from "./index";

const current = loadRubric();
const reading1 = loadRubric(CURRENT_RUBRIC_REF, 1);
const now = "2026-12-01T12:00:00.000Z";
const NOW = Date.parse(now);
const D = 86_400_000;
const at = (ageMs: number) => new Date(NOW - ageMs).toISOString();
const check = (r: TrustResult, id: string) => r.checks.find((c) => c.id === id)!;

function paid(check: string, outcome: Outcome, ageMs: number, value: number | null = null): Observation {
  return { endpointId: "sim", check, kind: "paid", outcome, value, observedAt: at(ageMs), vantage: "canary", revision: 1, receipt: {} };
}

/** A month of hourly probes and daily paid samples whose output is wrong (R6 fails every day; a reference exists). */
function monthOfWrongOutput(): TrustSubject {
  return simulateHistory(current, { now, days: 30, freeEveryHours: 1, paidEveryDays: 1, na: ["C4", "H4", "H9"], pass: { R6: 0 } });
}

/** One paid call that answered 500 before settlement, as lib/trust/observe/paid.ts writes it. */
function failedBeforeSettlement(ageMs: number): Observation[] {
  return [
    paid("R4", "fail", ageMs),
    paid("R5", "fail", ageMs),
    paid("R7", "pass", ageMs, 300),
    paid("C6", "fail", ageMs),
    paid("H5", "na", ageMs), // nothing transferred
    paid("H6", "na", ageMs),
    paid("H7", "unmeasured", ageMs), // no replay sent
    paid("H8", "na", ageMs), // nothing charged
    paid("H9", "na", ageMs),
    paid("R6", "na", ageMs), // an error body: nothing for the reference to check
    paid("S3", "na", ageMs), // no output text
  ];
}

describe("reading 2, na: a per-call na never hides a paid check's history", () => {
  it("a month of wrong output followed by one 500 before settlement keeps its grade (reading 1 raised it from B to A)", () => {
    const s = monthOfWrongOutput();
    const before = scoreSubject(current, s, { now });
    expect(before).toMatchObject({ score: 89.8, grade: "B" });
    const after: TrustSubject = { ...s, observations: [...s.observations, ...failedBeforeSettlement(10 * 60_000)] };
    const r = scoreSubject(current, after, { now });
    expect(r.reading).toBe("x402-endpoint/1.0.0-draft.1/reading-3");
    expect(r.grade).toBe("B");
    expect(r.score!).toBeLessThan(before.score!); // one more failed call cannot raise the score
    expect(check(r, "R6")).toMatchObject({ status: "measured", rate: 0 });
    expect(r.dimensions.find((d) => d.id === "good")!.score).toBe(0);
    const old = scoreSubject(reading1, after, { now });
    expect(old).toMatchObject({ reading: "x402-endpoint/1.0.0-draft.1/reading-1", score: 98.8, grade: "A" });
    expect(check(old, "R6").status).toBe("na");
  });

  // check, why the paid observer writes na for one call, and the history before it (outcome, age in days).
  const rows: Array<[string, string, Array<[Outcome, number]>]> = [
    ["R6", "an error body", [["fail", 20], ["fail", 10], ["pass", 5], ["fail", 2]]],
    ["S3", "an empty output", [["pass", 12], ["pass", 6], ["pass", 3]]],
    ["H5", "nothing transferred", [["pass", 9], ["pass", 4]]],
    ["H6", "nothing transferred", [["pass", 15], ["fail", 8], ["pass", 1]]],
    ["H8", "nothing charged", [["pass", 7], ["pass", 3]]],
  ];
  it.each(rows)("%s: a pass/fail history, then na for one call (%s): the history stands", (id, _why, history) => {
    const base = [paid("R4", "pass", D), ...history.map(([outcome, days]) => paid(id, outcome, days * D))];
    const subject = (obs: Observation[]): TrustSubject => ({ endpointId: "sim", observations: obs, revisions: [{ revision: 1, startedAt: at(60 * D), changes: [], note: null }] });
    const withNa = subject([...base, paid(id, "na", 60_000)]);
    const without = scoreSubject(current, subject(base), { now });
    const r = scoreSubject(current, withNa, { now });
    expect(check(r, id).status).toBe("measured");
    expect(check(r, id).rate).toBe(check(without, id).rate);
    expect({ score: r.score, band: r.band, outlook: r.outlook }).toEqual({ score: without.score, band: without.band, outlook: without.outlook });
    expect(check(r, id).facts).toMatchObject({ na: 1, latestOutcome: "na" });
    expect(check(scoreSubject(reading1, withNa, { now }), id).status).toBe("na"); // reading 1 dropped it
  });

  it("a check that is na by the endpoint's nature is still na: every paid observation na (R6 with no reference, H9), or a free check's latest na (H4, C4)", () => {
    const s = simulateHistory(current, { now, days: 7, freeEveryHours: 6, paidEveryDays: 1 }); // C4, H4, H9, R6 na throughout
    for (const rb of [current, reading1]) {
      const r = scoreSubject(rb, s, { now, band: false });
      for (const id of ["R6", "H9", "H4", "C4"]) expect(check(r, id).status).toBe("na");
      expect(r.dimensions.find((d) => d.id === "good")!.score).toBeNull();
    }
    // A free check reads the endpoint as it stands: the operator unlinked its wallet, so H4 is na now.
    const h4 = (outcome: Outcome, ageMs: number): Observation => ({ endpointId: "sim", check: "H4", kind: "free", outcome, value: null, observedAt: at(ageMs), vantage: "monitor", revision: 1, receipt: {} });
    const unlinked = { ...s, observations: [...s.observations.filter((o) => o.check !== "H4"), h4("pass", 3 * D), h4("na", 60_000)] };
    expect(check(scoreSubject(current, unlinked, { now, band: false }), "H4").status).toBe("na");
    // A paid check with only unmeasured observations is unmeasured, not na.
    const onlyUnmeasured = { ...s, observations: [...s.observations.filter((o) => o.check !== "H7"), paid("H7", "unmeasured", D)] };
    expect(check(scoreSubject(current, onlyUnmeasured, { now, band: false }), "H7").status).toBe("unmeasured");
  });
});

describe("reading 2, band-draws: the paid checks of one sample share its luck", () => {
  // history (free probes, one paid sample), the current engine's confidence, reading 1's.
  const rows: Array<[string, Partial<HistoryOptions>, "low", "low" | "medium"]> = [
    ["8 probes over 3 days", { days: 3.01, freeEveryHours: 72 / 7 }, "low", "low"],
    ["hourly for 3 days", { days: 3, freeEveryHours: 1 }, "low", "medium"],
    ["hourly for 7 days", { days: 7, freeEveryHours: 1 }, "low", "medium"],
    ["hourly for 14 days", { days: 14, freeEveryHours: 1 }, "low", "medium"],
    ["every 3 h for 14 days, a flaky endpoint", { days: 14, freeEveryHours: 3, outage: 0.05, pass: { H1: 0.9 } }, "low", "medium"],
  ];
  it.each(rows)("one paid sample, probed %s: low confidence", (_name, h, want, was) => {
    const o: HistoryOptions = { now, paidEveryDays: 60, ...h } as HistoryOptions;
    const r = scoreSubject(current, simulateHistory(current, o), { now });
    expect(check(r, "R4").n).toBe(1);
    expect(r.confidence).toBe(want);
    expect(r.band!.width).toBeGreaterThan(25);
    expect(r.verdict).not.toBe("ok"); // low confidence: caution, unless the evidence is still too thin for a verdict
    expect(scoreSubject(reading1, simulateHistory(reading1, o), { now }).confidence).toBe(was);
  });

  const HOURLY3: HistoryOptions = { now, days: 3, freeEveryHours: 1, paidEveryDays: 60 };
  it("the draws go per sample: the same paid outcomes spread over separate instants (separate samples) draw a narrower band", () => {
    const s = simulateHistory(current, HOURLY3);
    const one = scoreSubject(current, s, { now });
    let k = 0;
    const spread = { ...s, observations: s.observations.map((o) => (o.kind === "paid" ? { ...o, observedAt: new Date(Date.parse(o.observedAt) - 1000 * k++).toISOString() } : o)) };
    const separate = scoreSubject(current, spread, { now });
    expect(one.score).toBe(separate.score);
    expect(separate.band!.width).toBeLessThan(one.band!.width - 3);
  });

  it("is deterministic: the same subject draws the same band whatever was scored before, in any input order", () => {
    const s = simulateHistory(current, HOURLY3);
    const first = scoreSubject(current, s, { now, seed: 9 });
    scoreSubject(current, simulateHistory(current, { now, days: 30, freeEveryHours: 6, paidEveryDays: 0.5 }), { now, seed: 9 }); // 60 samples' lucks drawn
    expect(scoreSubject(current, s, { now, seed: 9 }).band).toEqual(first.band);
    const reversed = { ...s, observations: [...s.observations].reverse() };
    expect(scoreSubject(current, reversed, { now, seed: 9 }).band).toEqual(first.band);
    expect(scoreSubject(current, s, { now, seed: 10 }).band).not.toEqual(first.band);
  });

  it("a month of hourly probes and daily samples still reads high confidence", () => {
    const r = scoreSubject(current, simulateHistory(current, { now, days: 30, freeEveryHours: 1, paidEveryDays: 1, outage: 0.05, badCall: 0.1, pass: { H1: 0.9 } }), { now });
    expect(r.confidence).toBe("high");
  });
});

describe("reading 3, gates: a gate reads the fails that were seen, whatever revision came after", () => {
  const reading2 = loadRubric(CURRENT_RUBRIC_REF, 2);
  // Two weeks of hourly probes and daily paid samples, all passing; then a paid call charged and not delivered
  // (settled, 500) 12 hours ago; then the seller rewords the endpoint's description 6 hours ago, which starts
  // a revision (lib/trust/observe/store.ts) and halves every H check's history under on_revision: half.
  function chargedThenReworded(): TrustSubject {
    const revisions = [
      { revision: 1, startedAt: at(60 * D), changes: [], note: null },
      { revision: 2, startedAt: at(6 * 3_600_000), changes: ["description"], note: null },
    ];
    const s = simulateHistory(current, { now, days: 14, freeEveryHours: 1, paidEveryDays: 1, revisions });
    const t = 12 * 3_600_000;
    return { ...s, revisions, observations: [...s.observations, paid("R4", "fail", t), paid("R5", "fail", t), paid("H5", "pass", t), paid("H6", "pass", t), paid("H8", "fail", t)] };
  }

  it("charged without delivery, then a reworded description: avoid under reading 3; reading 2 let the revision halve it under the gate (caution or better)", () => {
    const s = chargedThenReworded();
    const r = scoreSubject(current, s, { now, band: false });
    expect(r.reading).toBe("x402-endpoint/1.0.0-draft.1/reading-3");
    const gate = r.gates.find((g) => g.flag === "charged_without_delivery")!;
    expect(gate).toMatchObject({ fired: true });
    expect(gate.reason).toMatch(/^H8 fail weight 0\.9\d\d ≥ 0\.5/);
    expect(r.verdict).toBe("avoid");
    const old = scoreSubject(reading2, s, { now, band: false });
    expect(old.gates.find((g) => g.flag === "charged_without_delivery")).toMatchObject({ fired: false });
    expect(old.verdict).not.toBe("avoid");
    // The rate still halves the older fail's weight, as in reading 2: only the gate reads it whole.
    expect(check(r, "H8").rate).toBe(check(old, "H8").rate);
  });

  it("the same history without the revision gives the same verdict under both readings", () => {
    const s = chargedThenReworded();
    const plain: TrustSubject = { ...s, revisions: [s.revisions[0]], observations: s.observations.map((o) => ({ ...o, revision: 1 })) };
    expect(scoreSubject(current, plain, { now, band: false }).verdict).toBe("avoid");
    expect(scoreSubject(reading2, plain, { now, band: false }).verdict).toBe("avoid");
  });
});
