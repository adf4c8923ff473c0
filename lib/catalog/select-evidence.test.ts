import { describe, expect, it } from "vitest";
import { askedAboveStated } from "@/lib/amounts";
import { ago, categoryOutliers, evidenceTier, exclusionReasons, exclusionWhy, LOW_UPTIME_PERCENT, lowUptime, monitorUptime, priceOutliers, tooFewPriced, whyLine, type CandidateEvidence } from "./select-evidence";

const NOW = Date.parse("2026-12-05T12:00:00Z");
const e = (over: Partial<CandidateEvidence> = {}): CandidateEvidence => ({ verdict: "ok", grade: "A", provisional: false, verification: "verified", canaryAt: "2026-12-05T10:00:00Z", canaryReason: null, ...over });

describe("the evidence rules (pure)", () => {
  it("canary_failed reads the verification, trust_avoid the verdict; both can hold", () => {
    expect(exclusionReasons(e())).toEqual([]);
    expect(exclusionReasons(e({ verification: "degraded" }))).toEqual(["canary_failed"]);
    expect(exclusionReasons(e({ verdict: "avoid" }))).toEqual(["trust_avoid"]);
    expect(exclusionReasons(e({ verification: "degraded", verdict: "avoid" }))).toEqual(["canary_failed", "trust_avoid"]);
    expect(exclusionReasons(e({ verification: "unverified", verdict: null }))).toEqual([]);
  });

  it("charges and the wash ring are rules of their own, read whatever the verification says", () => {
    expect(exclusionReasons(e({ charges: { aboveListing: { charged: "30000", listed: "10000" }, withoutDelivery: null } }))).toEqual(["charged_above_listing"]);
    expect(exclusionReasons(e({ charges: { aboveListing: null, withoutDelivery: "500" } }))).toEqual(["charged_without_delivery"]);
    expect(exclusionReasons(e({ charges: { aboveListing: null, withoutDelivery: null }, washRing: null }))).toEqual([]);
    expect(exclusionReasons(e({ verification: "degraded", washRing: { why: "3 of its 4 payers …" } }))).toEqual(["canary_failed", "wash_ring"]);
    expect(exclusionWhy(["charged_without_delivery", "wash_ring"], e({ charges: { aboveListing: null, withoutDelivery: "invalid_output" }, washRing: { why: "3 of its 4 payers …" } }), NOW)).toBe(
      "the canary's payment settled and the output broke the declared schema 2 h ago; wash ring: 3 of its 4 payers …",
    );
  });

  it("verdict_tier: ok, insufficient evidence and ungraded share tier 0; caution 1; down 2; included exclusions 3", () => {
    expect([e(), e({ verdict: "insufficient_evidence" }), e({ verdict: null })].map((x) => evidenceTier(x, []))).toEqual([0, 0, 0]);
    expect(evidenceTier(e({ verdict: "caution" }), [])).toBe(1);
    expect(evidenceTier(e({ verdict: "down" }), [])).toBe(2);
    expect(evidenceTier(e({ verdict: "ok" }), ["canary_failed"])).toBe(3);
  });

  it("low_uptime: the rank's 7-day monitor uptime, else its 30-day, below 95 % orders a pick in tier 1 and says so; never left out", () => {
    expect(LOW_UPTIME_PERCENT).toBe(95);
    expect(lowUptime({ uptime7d: 81.25, uptime30d: 99 })).toEqual({ percent: 81.25, window: "7 days" });
    expect(lowUptime({ uptime7d: null, uptime30d: 90 })).toEqual({ percent: 90, window: "30 days" });
    // At the bar, above it, a good 7-day figure over a bad 30-day one, and fewer probes than the rank reads (null): no rule.
    expect([lowUptime({ uptime7d: 95, uptime30d: null }), lowUptime({ uptime7d: 99.5, uptime30d: 50 }), lowUptime({ uptime7d: null, uptime30d: null }), lowUptime(null)]).toEqual([null, null, null, null]);
    // The reading itself, above the threshold too (the selection bench's replay orders by it).
    expect([monitorUptime({ uptime7d: 99.5, uptime30d: 50 }), monitorUptime({ uptime7d: null, uptime30d: 97 }), monitorUptime({ uptime7d: null, uptime30d: null }), monitorUptime(null)]).toEqual([{ percent: 99.5, window: "7 days" }, { percent: 97, window: "30 days" }, null, null]);
    const low = e({ lowUptime: { percent: 81.25, window: "7 days" } });
    expect(exclusionReasons(low)).toEqual([]);
    expect(evidenceTier(low, [])).toBe(1);
    expect(evidenceTier(e({ ...low, verdict: "down" }), [])).toBe(2);
    expect(whyLine({ matched: [], semantic: null, evidence: low, price: { usd: "0.002", label: null }, now: NOW })).toBe(
      "Matches the task; grade A (ok); canary paid and passed 2 h ago, up for 81.3% of monitor probes in 7 days; $0.002 a call",
    );
  });

  it("the why is one line of what matched, the grade, the canary and the price", () => {
    const line = whyLine({ matched: [{ word: "geocode", how: "word" }, { word: "adress", how: "typo" }, { word: "coordinates", how: "synonym" }], semantic: null, evidence: e(), price: { usd: "0.002", label: null }, now: NOW });
    expect(line).toBe("Matches 'geocode', 'adress' (near spelling), 'coordinates' (synonym); grade A (ok); canary paid and passed 2 h ago; $0.002 a call");
    expect(whyLine({ semantic: 0.823, evidence: e({ verdict: null, grade: null, verification: "unverified", canaryAt: null }), price: { usd: null, label: "$0.01–$1 per call" }, now: NOW })).toBe(
      "Close in meaning to the task (similarity 0.82); not graded yet; not verified by a paid canary call; $0.01–$1 per call",
    );
    expect(whyLine({ matched: [], semantic: null, evidence: e({ verdict: "insufficient_evidence", grade: "B", provisional: true }), price: { usd: null, label: null }, now: NOW })).toBe(
      "Matches the task; provisional grade B (insufficient evidence); canary paid and passed 2 h ago; price not stated",
    );
    expect(exclusionWhy(["canary_failed", "trust_avoid"], e({ verification: "degraded", canaryReason: "charged_without_delivery", verdict: "avoid", grade: "F" }), NOW)).toBe(
      "canary test call failed 2 h ago (charged_without_delivery); trust verdict avoid (grade F)",
    );
  });

  it("price_outlier: above 10× the median USD price of the relevant candidates (relevance ≥ half the best, at least 3 priced, else every candidate); tier 2", () => {
    const c = (id: string, relevance: number, usd: string | null) => ({ id, relevance, usd });
    expect(priceOutliers([c("a", 1, "0.01"), c("b", 0.9, "0.02"), c("d", 0.8, "0.45")])).toEqual(new Map([["d", 0.02]]));
    // At exactly 10× it is not; two priced are too few; irrelevant ones neither set the median nor escape it.
    expect(priceOutliers([c("a", 1, "0.01"), c("b", 0.9, "0.01"), c("d", 0.8, "0.1")]).size).toBe(0);
    expect(priceOutliers([c("a", 1, "0.01"), c("d", 0.8, "0.45"), c("x", 0.9, null)]).size).toBe(0);
    expect(priceOutliers([c("a", 1, "0.01"), c("b", 0.9, "0.01"), c("e", 0.95, "0.01"), c("far", 0.1, "5"), c("cheap", 0.1, "0.0001")])).toEqual(new Map([["far", 0.01]]));
    // A decoy alone in the top half of relevance: its weaker neighbours set the median.
    expect(priceOutliers([c("decoy", 1, "0.45"), c("s1", 0.4, "0.005"), c("s2", 0.4, "0.006"), c("s3", 0.35, "0.004")])).toEqual(new Map([["decoy", 0.0055]]));
    expect(priceOutliers([c("decoy", 1, "0.45"), c("s1", 0.4, "0.005")]).size).toBe(0);
    expect(evidenceTier(e({ priceOutlier: { usd: "0.45", median: 0.02 } }), [])).toBe(2);
    expect(whyLine({ matched: [], semantic: null, evidence: e({ priceOutlier: { usd: "0.45", median: 0.02 } }), price: { usd: "0.45", label: null }, now: NOW })).toMatch(/; \$0\.45 a call, 23× the median of the relevant listings \(\$0\.02\)$/);
  });

  it("price_outlier among its category: with too few priced to set a bar, the category's near matches set it and join beside an outlier", () => {
    const near = (id: string, usd: string | null, category: string | null = "finance") => ({ id, usd, category });
    expect(tooFewPriced([near("a", "0.4")])).toBe(true);
    expect(tooFewPriced([near("a", "0.4"), near("b", null)])).toBe(true);
    expect(tooFewPriced([near("a", null)])).toBe(false); // nothing priced: nothing to measure
    expect(tooFewPriced([near("a", "1"), near("b", "1"), near("c", "1")])).toBe(false); // priceOutliers' own bar
    const peers = [near("p1", "0.008"), near("p2", "0.01"), near("p3", "0.012"), near("x", "0.001", "logistics"), near("u", null)];
    // 45× the finance median: an outlier, and the three finance peers join; the other category does not.
    const found = categoryOutliers([near("decoy", "0.45")], peers);
    expect(found.outliers).toEqual(new Map([["decoy", 0.01]]));
    expect([...found.joined].sort()).toEqual(["p1", "p2", "p3"]);
    // 10× is not above 10×; two peers are too few; no category, or no price, measures nothing.
    expect(categoryOutliers([near("lone", "0.1")], peers).outliers.size).toBe(0);
    expect(categoryOutliers([near("decoy", "0.45")], peers.slice(1)).outliers.size).toBe(0);
    expect(categoryOutliers([near("decoy", "0.45", null)], peers).outliers.size).toBe(0);
    expect(categoryOutliers([near("decoy", null)], peers).outliers.size).toBe(0);
    // A second kept listing of the category counts among the peers, but never the listing itself.
    expect(categoryOutliers([near("decoy", "0.45"), near("k", "0.009")], peers.slice(1)).outliers).toEqual(new Map([["decoy", 0.01]]));
    // Nothing joins when no kept listing stands out.
    expect(categoryOutliers([near("fair", "0.011")], peers).joined.size).toBe(0);
  });

  it("asks_above_stated: exact in atomic units, the stated price rounded up to the token's places; dynamic prices and other tokens never", () => {
    const p = (usd: string | null, amount: string | null, over: Partial<Parameters<typeof askedAboveStated>[0]> = {}) => askedAboveStated({ usd, amount, decimals: 6, mode: "fixed", usdToken: true, ...over });
    expect(p("0.001", "3000")).toEqual({ asked: "0.003", stated: "0.001" });
    expect(p("0.001", "1000")).toBeNull();
    expect(p("0.0010001", "1001")).toBeNull();
    expect(p("0.0010001", "1002")).toEqual({ asked: "0.001002", stated: "0.0010001" });
    expect(p("2", "2000001")).toEqual({ asked: "2.000001", stated: "2" });
    expect(p("0.001", "3000", { mode: "dynamic" })).toBeNull();
    expect(p("0.001", "3000", { usdToken: false })).toBeNull();
    expect(p(null, "3000")).toBeNull();
    expect(p("0.001", null)).toBeNull();
    expect(p("0.001", "1e9")).toBeNull();
    expect(exclusionReasons(e({ askedAbove: { asked: "0.003", stated: "0.001" } }))).toEqual(["asks_above_stated"]);
  });

  it("ages in plain words", () => {
    expect([0, 30_000, 5 * 60_000, 90 * 60_000, 47 * 3_600_000, 72 * 3_600_000].map((ms) => ago(new Date(NOW - ms).toISOString(), NOW))).toEqual(["just now", "1 min ago", "5 min ago", "2 h ago", "47 h ago", "3 d ago"]);
  });
});
