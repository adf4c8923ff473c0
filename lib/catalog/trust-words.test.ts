/**
 * The trust grade in plain words: the early reading as a provisional grade with its band, how much was
 * checked and what a grade needs, no rule ids, free endpoints not held back for a paid call, and a
 * listing's glance taken from its least reassuring endpoint.
 */
import { describe, expect, it } from "vitest";
import { loadRubric, scoreSubject, type TrustResult } from "@/lib/trust/engine";
import { simulateHistory } from "@/test/trust-histories";
import type { EndpointTrustSummary } from "./trust-view";
import { checkedWords, listingGlance, scoreOutsideBand, sinceWords, trustReading } from "./trust-words";
import { freeVerdict } from "./trust";

const NOW = Date.parse("2026-12-05T12:00:00.000Z");

function summary(over: Partial<EndpointTrustSummary> = {}): EndpointTrustSummary {
  return {
    endpointId: "ep1",
    method: "POST",
    path: "/verdict",
    score: 81.2,
    grade: "B",
    band: { low: 78.4, high: 86.1, width: 7.7 },
    confidence: "medium",
    verdict: "insufficient_evidence",
    verdictBecause: ["3 R1 probe(s), fewer than 8", "R1 probes span 0.2 days, less than 3"],
    flags: [],
    outlook: { trend: null, recent: null, baseline: null },
    watch: false,
    watchBecause: [],
    label: "B, 78–86, medium confidence",
    probes: 3,
    probeSpanDays: 0.2,
    firstProbeAt: "2026-12-05T08:00:00.000Z",
    lastPaidAt: "2026-12-05T09:00:00.000Z",
    free: false,
    needs: { probes: 8, spanDays: 3, paidWithinDays: 30 },
    value: { priceUsd: 0.01, category: null, pricePercentile: null, peers: 0, usdPerValidKib: null, samples: 0, validSamples: 0, unpriced: 0, peerRule: { checks: ["R4", "R5"], minRate: 0.8 } },
    ...over,
  };
}

const RULE_ID = /\b[RCHS]\d\b|insufficient_evidence|probe\(s\)/;

describe("trustReading", () => {
  it("says the early reading as a provisional grade with its band, and what a grade needs, in words", () => {
    const r = trustReading(summary(), NOW);
    expect(r.provisional).toBe(true);
    expect(r.headline).toBe("Provisional grade B (78–86)");
    expect(r.detail).toContain("Checked 3 times today; a grade needs a few days of checks (at least 8 over 3 days)");
    expect(`${r.headline} ${r.detail} ${r.verdictWords}`).not.toMatch(RULE_ID);
  });

  it("names a missing paid test call for a paid endpoint, never for a free one", () => {
    expect(trustReading(summary({ lastPaidAt: null }), NOW).detail).toContain("a paid test call by the catalog within 30 days");
    expect(trustReading(summary({ lastPaidAt: null, free: true }), NOW).detail).not.toContain("paid");
  });

  it("says nothing was checked yet, with no grade, before the first probe", () => {
    const r = trustReading(summary({ probes: 0, firstProbeAt: null, score: null, grade: null, band: null, label: null, lastPaidAt: null }), NOW);
    expect(r.headline).toBe("Not checked yet");
    expect(r.grade).toBeNull();
    expect(r.provisional).toBe(false);
    expect(r.detail).toBe("A grade needs a few days of checks (at least 8 over 3 days) and a paid test call by the catalog within 30 days.");
  });

  it("gives a graded endpoint its grade, band and confidence, and a gate's reason in words", () => {
    const ok = trustReading(summary({ verdict: "ok", verdictBecause: [], probes: 20, probeSpanDays: 6, firstProbeAt: "2026-11-29T10:00:00.000Z" }), NOW);
    expect(ok.headline).toBe("Grade B (78–86), medium confidence");
    expect(ok.detail).toBe("Looks reliable: checked 20 times since 29 Nov, last paid test call 2026-12-05.");
    const avoid = trustReading(summary({ verdict: "avoid", grade: "F", flags: ["overcharge"], verdictBecause: ["gate overcharge (H5): …"], probes: 20, probeSpanDays: 6 }), NOW);
    expect(avoid.detail).toContain("Because it charged more than it quoted.");
    expect(avoid.detail).not.toMatch(RULE_ID);
  });

  it("counts days by UTC date", () => {
    expect(sinceWords("2026-12-05T00:00:01.000Z", NOW)).toBe("today");
    expect(sinceWords("2026-12-04T23:59:59.000Z", NOW)).toBe("since yesterday");
    expect(checkedWords({ probes: 1, firstProbeAt: "2026-12-05T01:00:00.000Z" }, NOW)).toBe("checked once today");
  });
});

describe("listingGlance", () => {
  it("reads the least reassuring endpoint, and is null with no endpoint", () => {
    const g = listingGlance([summary({ verdict: "ok", endpointId: "a" }), summary({ verdict: "caution", grade: "C", endpointId: "b" })], NOW);
    expect(g?.verdict).toBe("caution");
    expect(listingGlance([], NOW)).toBeNull();
  });
});

describe("freeVerdict", () => {
  const rb = loadRubric();
  const result = (over: Partial<TrustResult>) => ({ verdict: "insufficient_evidence", verdictBecause: ["no paid sample within 30 days"], grade: "B", confidence: "high", ...over }) as TrustResult;

  it("grades a free endpoint whose only shortfall is a paid sample, as the rubric's grade rule says", () => {
    expect(freeVerdict(rb, result({}))).toEqual({ verdict: "ok", verdictBecause: [] });
    expect(freeVerdict(rb, result({ grade: "D" })).verdict).toBe("caution");
    expect(freeVerdict(rb, result({ grade: "F" })).verdict).toBe("avoid");
    expect(freeVerdict(rb, result({ confidence: "low" })).verdict).toBe("caution");
  });

  it("keeps it too early when probes are short too, and leaves a gate's verdict alone", () => {
    const short = freeVerdict(rb, result({ verdictBecause: ["3 R1 probe(s), fewer than 8", "no paid sample within 30 days"] }));
    expect(short).toEqual({ verdict: "insufficient_evidence", verdictBecause: ["3 R1 probe(s), fewer than 8"] });
    expect(freeVerdict(rb, result({ verdict: "avoid", verdictBecause: ["gate overcharge"] })).verdict).toBe("avoid");
  });
});

describe("scoreOutsideBand", () => {
  it("explains a score above or below its own band, and says nothing when the band holds it", () => {
    const band = (low: number, high: number) => ({ low, high, width: high - low });
    expect(scoreOutsideBand({ score: 94.6, band: band(49.2, 90.6) })).toBe("The score is what the checks saw; the band (49–91) lies below it: so few observations fit an endpoint that passes less often just as well.");
    expect(scoreOutsideBand({ score: 12, band: band(20.4, 61) })).toContain("the band (20–61) lies above it");
    expect(scoreOutsideBand({ score: 85, band: band(80, 90) })).toBeNull();
    expect(scoreOutsideBand({ score: 85, band: null })).toBeNull();
    expect(scoreOutsideBand({ score: null, band: band(80, 90) })).toBeNull();
  });

  it("one passing paid call and one probe put the engine's score above its band (the case it explains)", () => {
    const r = scoreSubject(loadRubric(), simulateHistory(loadRubric(), { now: "2026-12-01T12:00:00.000Z", days: 0.01, freeEveryHours: 1, paidEveryDays: 1 }), { now: "2026-12-01T12:00:00.000Z" });
    expect(r.band).not.toBeNull();
    expect(r.score).toBeGreaterThan(r.band!.high);
    expect(scoreOutsideBand(r)).toContain("lies below it");
  });
});
