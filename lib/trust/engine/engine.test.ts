import { describe, expect, it } from "vitest";
import type { Observation, Outcome, Revision, TrustSubject } from "../observation";
import { curveScore } from "./aggregate";
import { loadRubric, pricePercentile, scoreSubject, usdPerValidKib, valueMetrics, type TrustResult } from "./index";
import { betaCdf, betaQuantile } from "./stats";

const rubric = loadRubric();
const NOW = Date.parse("2026-12-01T12:00:00.000Z");
const H = 3_600_000;
const D = 24 * H;
const at = (ageMs: number) => new Date(NOW - ageMs).toISOString();

function o(check: string, outcome: Outcome, ageMs: number, extra: Partial<Observation> = {}): Observation {
  const c = rubric.checkById.get(check)!;
  return { endpointId: "ep", check, kind: c.kind, outcome, value: null, observedAt: at(ageMs), vantage: c.kind === "free" ? "monitor" : "canary", revision: 1, receipt: {}, ...extra };
}

const REV1: Revision = { revision: 1, startedAt: at(400 * D), changes: [], note: null };
function subject(observations: Observation[], revisions: Revision[] = [REV1]): TrustSubject {
  return { endpointId: "ep", observations, revisions };
}
const score = (s: TrustSubject, opts: Parameters<typeof scoreSubject>[2] = {}) => scoreSubject(rubric, s, { now: NOW, band: false, ...opts });
const check = (r: TrustResult, id: string) => r.checks.find((c) => c.id === id)!;

/** Enough evidence for a verdict: 8 R1 probes over 3.5 days and a paid sample today, all passing. */
function enough(): Observation[] {
  const out: Observation[] = [];
  for (let i = 0; i < 8; i++) out.push(o("R1", "pass", i * 12 * H));
  out.push(o("R4", "pass", 2 * H));
  return out;
}

describe("decay: a check's rate is its decayed pass share", () => {
  it.each<[string, string, number, number, number]>([
    // check, what, age of a fail (days), expected fail weight, expected rate with one fresh pass
    ["R1", "free: half-life 14 d", 14, 0.5, 1 / 1.5],
    ["R1", "free: two half-lives", 28, 0.25, 1 / 1.25],
    ["R4", "paid: half-life 30 d", 30, 0.5, 1 / 1.5],
    ["S2", "S2's own half_life_days 30", 30, 0.5, 1 / 1.5],
    ["H9", "H9's own half_life_days 90", 90, 0.5, 1 / 1.5],
  ])("%s (%s)", (id, _what, days, failWeight, rate) => {
    const r = score(subject([o(id, "pass", 0), o(id, "fail", days * D)]));
    expect(check(r, id).failWeight).toBeCloseTo(failWeight, 9);
    expect(check(r, id).passWeight).toBeCloseTo(1, 9);
    expect(check(r, id).rate).toBeCloseTo(rate, 9);
  });

  it("ignores observations after now, and says how many", () => {
    const r = score(subject([o("R1", "pass", 0), o("R1", "fail", -H)]));
    expect(check(r, "R1").rate).toBe(1);
    expect(r.evidence.futureObservationsIgnored).toBe(1);
  });
});

describe("revisions: on_revision half, reset, or (absent) keep", () => {
  const rev = (n: number, ageMs: number): Revision => ({ revision: n, startedAt: at(ageMs), changes: ["price"], note: null });
  it.each<[string, number, number, number, number]>([
    // check, current revision, the old fail's revision → its weight, dropped count
    ["R1", 2, 1, 0.5, 0], // half, once
    ["R1", 3, 1, 0.25, 0], // half, twice
    ["R1", 3, 2, 0.5, 0],
    ["C1", 2, 1, 0, 1], // reset drops it
    ["S1", 3, 1, 1, 0], // no on_revision: kept whole
  ])("%s at revision %i, a fail of revision %i weighs %f", (id, current, of, weight, dropped) => {
    const revisions = [REV1, rev(2, 2 * D), rev(3, D)].filter((r) => r.revision <= current);
    const r = score(subject([o(id, "fail", 3 * H, { revision: of }), o(id, "pass", 0, { revision: current })], revisions));
    expect(check(r, id).failWeight).toBeCloseTo(weight * Math.pow(0.5, (3 * H) / (rubric.checkById.get(id)!.halfLifeDays * D)), 9);
    expect(check(r, id).facts.droppedByRevision).toBe(dropped);
    expect(r.evidence.currentRevision).toBe(current);
  });

  it("a revision that starts after now has not happened yet", () => {
    const r = score(subject([o("C1", "fail", 3 * H)], [REV1, rev(2, -D)]));
    expect(r.evidence.currentRevision).toBe(1);
    expect(check(r, "C1").failWeight).toBeGreaterThan(0.99);
  });
});

describe("na and unmeasured drop out; weights renormalise", () => {
  it("within a dimension, and a dimension with no measured check drops out", () => {
    const base = [o("R1", "pass", 0), o("R2", "fail", 0)];
    const works = (100 * 10) / 17;
    const r = score(subject([...base, o("C4", "na", 0), o("C3", "unmeasured", 0)]));
    expect(check(r, "C4").status).toBe("na");
    expect(check(r, "C3").status).toBe("unmeasured");
    expect(r.dimensions.find((d) => d.id === "works")!.score).toBeCloseTo(works, 1);
    expect(r.uncappedScore).toBeCloseTo(works, 1); // as_described, safe, good: nothing measured
    const r2 = score(subject([...base, o("H1", "pass", 0)]));
    expect(r2.uncappedScore).toBeCloseTo((45 * works + 30 * 100) / 75, 1);
  });

  it("a free check's latest na decides its applicability (the endpoint as it stands); an unmeasured never fails", () => {
    expect(check(score(subject([o("H4", "pass", 2 * D), o("H4", "na", D)])), "H4").status).toBe("na");
    expect(check(score(subject([o("H4", "na", 2 * D), o("H4", "pass", D)])), "H4").rate).toBe(1);
    const r = score(subject([o("C3", "pass", 2 * D), o("C3", "unmeasured", D)]));
    expect(check(r, "C3")).toMatchObject({ status: "measured", rate: 1, failWeight: 0 });
  });

  it("weight-0 checks (H8, H9) are shown, never weighted", () => {
    const a = score(subject([o("R1", "pass", 0), o("H8", "fail", 200 * D), o("H8", "pass", 0), o("H9", "fail", 0)]));
    expect(check(a, "H9").rate).toBe(0);
    expect(a.uncappedScore).toBe(100);
  });

  it("nothing measured: no score, no grade, insufficient evidence", () => {
    const r = score(subject([o("C4", "na", 0)]), { band: true });
    expect(r).toMatchObject({ score: null, grade: null, band: null, verdict: "insufficient_evidence" });
  });
});

describe("curves: the p95 through log-space points, clamped outside", () => {
  const R3 = rubric.checkById.get("R3")!.curve!;
  const R7 = rubric.checkById.get("R7")!.curve!;
  it.each<[string, number, number]>([
    ["R3", 100, 100],
    ["R3", 300, 100],
    ["R3", Math.sqrt(300 * 1000), 95],
    ["R3", 1000, 90],
    ["R3", Math.sqrt(1000 * 3000), 70],
    ["R3", 3000, 50],
    ["R3", Math.sqrt(3000 * 10000), 25],
    ["R3", 10000, 0],
    ["R3", 60000, 0],
    ["R3", Infinity, 0],
    ["R7", 500, 100],
    ["R7", 1000, 100 - 10 * (Math.log(2) / Math.log(4))],
    ["R7", 2000, 90],
    ["R7", 6000, 50],
    ["R7", Math.sqrt(6000 * 20000), 25],
    ["R7", 20000, 0],
  ])("%s at %f ms scores %f", (id, x, expected) => {
    const curve = id === "R3" ? R3 : R7;
    expect(curveScore(curve.points, curve.space, x)).toBeCloseTo(expected, 9);
  });

  it("p95 is the weighted nearest rank; a timeout counts as the worst value", () => {
    const obs = Array.from({ length: 20 }, (_, i) => o("R3", "pass", i * 60_000, { value: 100 * (i + 1) }));
    const r = score(subject(obs));
    expect(check(r, "R3").p95).toBe(1900);
    expect(check(r, "R3").rate).toBeCloseTo(curveScore(R3.points, "log", 1900) / 100, 9);
    const timeouts = score(subject([...obs.slice(0, 18), o("R3", "fail", 0), o("R3", "fail", 0)]));
    expect(check(timeouts, "R3").p95).toBe(Infinity);
    expect(check(timeouts, "R3").rate).toBe(0);
  });

  it("older samples weigh less in the p95 (the same decay as rates)", () => {
    // Slow samples a month old against fast ones today: the p95 reads today's.
    // Unweighted, 5 of 45 (11%) would put the p95 at 5000; decayed, they weigh 5 × 2^(-30/14) of 41.1 (2.7%).
    const obs = [...Array.from({ length: 5 }, () => o("R3", "pass", 30 * D, { value: 5000 })), ...Array.from({ length: 40 }, () => o("R3", "pass", 0, { value: 200 }))];
    expect(check(score(subject(obs)), "R3").p95).toBe(200);
    expect(check(score(subject(obs), { now: NOW - 29 * D }), "R3").p95).toBe(5000);
  });
});

describe("gates", () => {
  it("fail_weight_gte: an overcharge caps 39 and says avoid; old enough, it lapses", () => {
    const r = score(subject([...enough(), o("H5", "fail", D), o("H5", "pass", 0)]));
    expect(r).toMatchObject({ score: 39, verdict: "avoid", flags: ["overcharge"] });
    expect(r.uncappedScore).toBeGreaterThan(39);
    // 2^(-61/30) < 0.25: the fail has decayed below the gate.
    const old = score(subject([...enough(), o("H5", "fail", 61 * D)]));
    expect(old.flags).toEqual([]);
    expect(old.gates.find((g) => g.flag === "overcharge")!.fired).toBe(false);
  });

  it("fail_weight_gte with clear_after_passes: charged_without_delivery clears after 2 passes", () => {
    const one = score(subject([...enough(), o("H8", "fail", 3 * D), o("H8", "pass", 2 * D)]));
    expect(one).toMatchObject({ score: 59, verdict: "avoid", flags: ["charged_without_delivery"] });
    const two = score(subject([...enough(), o("H8", "fail", 3 * D), o("H8", "pass", 2 * D), o("H8", "pass", D)]));
    expect(two.flags).toEqual([]);
    expect(two.gates.find((g) => g.flag === "charged_without_delivery")).toMatchObject({ fired: false, cleared: true });
  });

  it("injection (S2, S3): caution and a 69 cap, cleared by one pass", () => {
    const r = score(subject([...enough(), o("S3", "fail", D)]));
    expect(r).toMatchObject({ score: 69, verdict: "caution", flags: ["injection"] });
    expect(score(subject([...enough(), o("S3", "fail", D), o("S3", "pass", 0)])).flags).toEqual([]);
    expect(score(subject([...enough(), o("S2", "fail", D), o("S3", "fail", D)])).flags).toEqual(["injection"]);
  });

  it("failing_for_hours: down after 72 h of R1 failing, stale; one pass ends the run", () => {
    const run = (since: number) => [o("R1", "pass", since + H), ...[since, since / 2, H].map((a) => o("R1", "fail", a)), o("R4", "pass", H)];
    const down = score(subject(run(73 * H)));
    expect(down).toMatchObject({ verdict: "down", stale: true, flags: ["down"] });
    expect(score(subject(run(71 * H)))).toMatchObject({ stale: false, flags: [] });
    expect(score(subject([...run(73 * H), o("R1", "pass", 0)])).flags).toEqual([]);
  });

  it("failed_within_hours: payto_changed for 168 h after an H3 fail, with caution and watch", () => {
    const r = score(subject([...enough(), o("H3", "fail", 100 * H), o("H3", "pass", 0)]));
    expect(r).toMatchObject({ verdict: "caution", flags: ["payto_changed"], watch: true });
    expect(r.watchBecause).toEqual(["gate payto_changed (H3) fired"]);
    expect(score(subject([...enough(), o("H3", "fail", 170 * H)]))).toMatchObject({ flags: [], watch: false });
  });

  it("the most severe gate verdict wins, the lowest cap applies", () => {
    const r = score(subject([...enough(), o("S3", "fail", D), o("H6", "fail", D), o("H8", "fail", D)]));
    expect(r.flags).toEqual(["charged_without_delivery", "wrong_payee", "injection"]);
    expect(r).toMatchObject({ score: 39, verdict: "avoid" });
  });
});

describe("verdict minimums and grades", () => {
  const probes = (n: number, spanDays: number) => Array.from({ length: n }, (_, i) => o("R1", "pass", (i * spanDays * D) / Math.max(1, n - 1)));
  const failsBeside = (obs: Observation[], id: string) => obs.map((x) => o(id, "fail", NOW - Date.parse(x.observedAt)));
  const rows: Array<[string, Observation[], string]> = [
    ["8 probes over 3 days and a paid sample within 30 days", [...probes(8, 3), o("R4", "pass", 29 * D)], "ok"],
    ["7 probes", [...probes(7, 3), o("R4", "pass", D)], "insufficient_evidence"],
    ["8 probes over 2.9 days", [...probes(8, 2.9), o("R4", "pass", D)], "insufficient_evidence"],
    ["no paid sample within 30 days", [...probes(8, 3), o("R4", "pass", 31 * D)], "insufficient_evidence"],
    ["a failed paid sample still counts as a sample", [...probes(8, 3), o("H9", "fail", D), o("R4", "pass", 40 * D)], "ok"],
    // works = 10 / (10 + 7 + 21) = 26: F.
    ["F: avoid", [...probes(8, 3), ...failsBeside(probes(8, 3), "R2"), o("R4", "fail", D)], "avoid"],
    // works = (10 + 21) / (10 + 7 + 21 + 11) = 63: D.
    ["D: caution", [...probes(8, 3), ...failsBeside(probes(8, 3), "R2"), ...failsBeside(probes(8, 3), "C1"), o("R4", "pass", D)], "caution"],
  ];
  it.each(rows.map(([what, obs, verdict]) => [what, verdict, obs] as [string, string, Observation[]]))("%s → %s", (_what, verdict, obs) => {
    expect(score(subject(obs)).verdict).toBe(verdict);
  });

  it("grades from the file's minimums", () => {
    const withRate = (passes: number, fails: number) => score(subject([...Array.from({ length: passes }, () => o("R1", "pass", 0)), ...Array.from({ length: fails }, () => o("R1", "fail", 0))]));
    expect([withRate(9, 1), withRate(8, 2), withRate(7, 3), withRate(6, 4), withRate(5, 5)].map((r) => [r.score, r.grade])).toEqual([
      [90, "A"], [80, "B"], [70, "C"], [60, "D"], [50, "F"],
    ]);
  });

  it("low confidence alone gives caution (only when the band was drawn)", () => {
    const obs = [...probes(8, 3), o("R4", "pass", D), o("R5", "pass", D)];
    expect(score(subject(obs), { band: true })).toMatchObject({ confidence: "low", verdict: "caution", verdictBecause: ["low confidence"] });
    expect(score(subject(obs))).toMatchObject({ confidence: null, verdict: "ok" });
  });

  it("a fired gate speaks even without enough evidence", () => {
    expect(score(subject([o("R1", "pass", 0), o("H5", "fail", 0)])).verdict).toBe("avoid");
  });
});

describe("outlook and watch", () => {
  /** Daily R4 samples: `old` rate before 14 days ago, `recent` rate since. */
  function trend(old: boolean, recent: boolean) {
    return subject(Array.from({ length: 30 }, (_, i) => o("R4", (i < 14 ? recent : old) ? "pass" : "fail", i * D + H)));
  }
  it.each<[boolean, boolean, string]>([
    [false, true, "improving"],
    [true, false, "declining"],
    [true, true, "steady"],
  ])("old %s, recent %s → %s", (old, recent, expected) => {
    expect(score(trend(old, recent)).outlook.trend).toBe(expected);
  });

  it("reads the 14-day window against the 30-day one, flat, with delta 5", () => {
    // 30 days of R1: the last 14 pass 13 of 14, the 16 before pass 16 of 16.
    const obs = Array.from({ length: 30 }, (_, i) => o("R1", i === 3 ? "fail" : "pass", i * D + H));
    const r = score(subject(obs));
    expect(r.outlook).toEqual({ trend: "steady", recent: Math.round((1000 * 13) / 14) / 10, baseline: Math.round((1000 * 29) / 30) / 10 });
    const worse = score(subject(obs.map((x, i) => (i === 5 ? { ...x, outcome: "fail" as const } : x))));
    expect(worse.outlook.trend).toBe("declining"); // 12/14 = 85.7 against 28/30 = 93.3
  });

  it("watch: a revision within 7 days (not the first)", () => {
    const rev2 = (ageDays: number): Revision => ({ revision: 2, startedAt: at(ageDays * D), changes: ["payTo"], note: null });
    const r = score(subject(enough(), [REV1, rev2(6.9)]));
    expect(r.watch).toBe(true);
    expect(r.watchBecause[0]).toMatch(/^revision 2 \(payTo\) started/);
    expect(score(subject(enough(), [REV1, rev2(7.1)])).watch).toBe(false);
    expect(score(subject(enough(), [{ ...REV1, startedAt: at(D) }])).watch).toBe(false);
  });
});

describe("value metrics: beside the score, never inside it", () => {
  const peer = (id: string, category: string, priceUsd: number, r4: number | null, r5: number | null) => ({ endpointId: id, category, priceUsd, rates: { R4: r4, R5: r5 } });
  it("price percentile among same-category peers whose R4 and R5 rates are ≥ 0.8", () => {
    const peers = [peer("a", "llm", 0.01, 0.9, 0.9), peer("b", "llm", 0.02, 0.8, 0.8), peer("c", "llm", 0.03, 1, 1), peer("d", "llm", 0.001, 0.79, 1), peer("e", "img", 0.001, 1, 1), peer("f", "llm", 0.001, 1, null)];
    expect(valueMetrics(rubric, { priceUsd: 0.02, category: "llm", peers })).toEqual({ price_percentile: 50, peers: 3, usd_per_valid_kib: null });
    expect(pricePercentile(0.05, [0.01, 0.02])).toBe(100);
    expect(pricePercentile(0.001, [0.01, 0.02])).toBe(0);
    expect(pricePercentile(0.01, [])).toBeNull();
  });

  it("USD per valid KiB: every sample's cost over the valid bytes", () => {
    expect(usdPerValidKib([{ usd: 0.01, validBytes: 2048 }, { usd: 0.01, validBytes: null }])).toBeCloseTo(0.01, 12);
    expect(usdPerValidKib([{ usd: 0.01, validBytes: null }])).toBeNull();
  });

  // Mid-rank: (peers priced lower + half of those priced the same) ÷ peers, to one decimal. The rubric
  // sets no minimum number of peers: one peer gives a figure (the page says "among 1"), none gives null.
  it.each<[string, number, number[], number | null]>([
    ["no peer", 0.02, [], null],
    ["one cheaper peer", 0.02, [0.01], 100],
    ["one peer at the same price", 0.02, [0.02], 50],
    ["one dearer peer", 0.02, [0.03], 0],
    ["one below, one tie, one above", 0.02, [0.01, 0.02, 0.03], 50],
    ["every peer ties", 0.02, [0.02, 0.02, 0.02], 50],
    ["two below, one tie", 0.02, [0.01, 0.01, 0.02], 83.3],
    ["ties count half, with the rest", 0.02, [0.01, 0.02, 0.02, 0.03], 50],
    ["a third, rounded to one decimal", 0.02, [0.01, 0.03, 0.04], 33.3],
    ["cheaper than all", 0.001, [0.01, 0.02], 0],
    ["dearer than all", 0.05, [0.01, 0.02], 100],
  ])("price percentile: %s", (_, price, peers, want) => expect(pricePercentile(price, peers)).toBe(want));

  it.each<[string, Array<{ usd: number; validBytes: number | null }>, number | null]>([
    ["no sample", [], null],
    ["one valid KiB for a cent", [{ usd: 0.01, validBytes: 1024 }], 0.01],
    ["an invalid output still costs", [{ usd: 0.01, validBytes: 1024 }, { usd: 0.01, validBytes: null }], 0.02],
    ["only invalid outputs: no valid KiB", [{ usd: 0.01, validBytes: null }, { usd: 0.01, validBytes: null }], null],
    ["an empty valid output adds no KiB", [{ usd: 0.01, validBytes: 0 }], null],
    ["half a KiB", [{ usd: 0.01, validBytes: 512 }], 0.02],
    ["nothing charged", [{ usd: 0, validBytes: 2048 }], 0],
  ])("USD per valid KiB: %s", (_, samples, want) => {
    const got = usdPerValidKib(samples);
    if (want === null) expect(got).toBeNull();
    else expect(got).toBeCloseTo(want, 12);
  });

  it("the peer rule is the rubric's: same category, each named check at least the named rate; the endpoint is never its own peer", () => {
    expect(rubric.pricePeers).toEqual({ sameCategory: true, checks: ["R4", "R5"], minRate: 0.8 });
    const peers = [peer("self", "llm", 0.01, 1, 1), peer("edge", "llm", 0.01, 0.8, 0.8), peer("low", "llm", 0.01, 0.8, 0.7999)];
    expect(valueMetrics(rubric, { priceUsd: 0.02, category: "llm", peers }, "self")).toEqual({ price_percentile: 100, peers: 1, usd_per_valid_kib: null });
    expect(valueMetrics(rubric, { priceUsd: 0.02, category: null, peers })).toEqual({ price_percentile: null, peers: 0, usd_per_valid_kib: null });
    expect(valueMetrics(rubric, { priceUsd: null, category: "llm", peers })).toMatchObject({ price_percentile: null, peers: 2 });
  });

  it("giving value inputs changes no score, grade, band or verdict", () => {
    const s = subject(enough());
    const without = scoreSubject(rubric, s, { now: NOW });
    const withValue = scoreSubject(rubric, s, { now: NOW, value: { priceUsd: 0.5, category: "llm", peers: [peer("a", "llm", 0.01, 1, 1)], paidSamples: [{ usd: 0.5, validBytes: 10 }] } });
    expect({ ...withValue, value: null }).toEqual(without);
    expect(withValue.value!.price_percentile).toBe(100);
  });
});

describe("stats", () => {
  it("betaQuantile inverts betaCdf", () => {
    for (const [a, b] of [[0.5, 0.5], [1.5, 0.5], [8.5, 0.5], [375.5, 0.5], [40.5, 2.5], [2.5, 30.5], [100, 100]]) {
      for (const p of [0.001, 0.1, 0.5, 0.9, 0.999]) expect(Math.abs(betaCdf(betaQuantile(p, a, b), a, b) - p)).toBeLessThan(1e-6);
    }
    // Known values: Beta(1,1) is uniform; Beta(2,1) has CDF x².
    expect(betaQuantile(0.3, 1, 1)).toBeCloseTo(0.3, 9);
    expect(betaQuantile(0.25, 2, 1)).toBeCloseTo(0.5, 9);
  });
});
