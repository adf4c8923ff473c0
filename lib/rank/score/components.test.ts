import { describe, expect, it } from "vitest";
import { liveness, settleGate, settlementUnproven, type SettleFacts } from "@/lib/scoring/signals";
import { MIN_DISTINCT_PAYERS, QUOTE_MAX_AGE_DAYS } from "./constants";
import { featured, priceIntegrity, publicSettledPrice, quality, rank, to100, traction, verification } from "./components";
import { computeRank } from "./compute";
import { FIXTURE_NOW, RANK_FIXTURES } from "@/test/rank-shapes";

const now = FIXTURE_NOW;
const daysAgo = (d: number) => new Date(now.getTime() - d * 86_400_000).toISOString();

describe("traction", () => {
  it.each([
    [0, 0],
    [1, 0], // one wallet, possibly the owner's
    [2, 0.04],
    [44, 0.88],
    [50, 1],
    [60, 1],
  ])("%i distinct payers → %d", (payers, value) => {
    expect(traction({ distinctPayers30d: payers }).value).toBeCloseTo(value, 12);
  });

  it("names the floor when it applies", () => {
    const t = traction({ distinctPayers30d: 1 });
    expect(t.facts).toMatchObject({ floored: true, floor: MIN_DISTINCT_PAYERS });
    expect(t.reason).toMatch(/MIN_DISTINCT_PAYERS/);
  });

  it("rejects a count that is not a whole number ≥ 0", () => {
    expect(() => traction({ distinctPayers30d: -1 })).toThrow(RangeError);
    expect(() => traction({ distinctPayers30d: 2.5 })).toThrow(/distinctPayers30d/);
  });
});

describe("self-pay resistance: one wallet paying itself", () => {
  // The owner's wallet pays its own listing 200 times at a price it chose.
  const selfPay = { distinctPayers30d: 1, medianSettledPrice: 0.01 };

  it("yields traction 0", () => {
    expect(traction(selfPay).value).toBe(0);
  });

  it("hides the public settled price", () => {
    expect(publicSettledPrice(selfPay)).toBeNull();
    expect(publicSettledPrice({ distinctPayers30d: 2, medianSettledPrice: 0.01 })).toBe(0.01);
  });

  it("cannot certify its price: price integrity falls back to the advertised reading", () => {
    const p = priceIntegrity({ ...selfPay, advertisedPrice: 0.01, quote: null, priceLabel: null, now });
    expect(p.value).toBe(0.7);
    expect(p.facts.basis).toBe("advertised");
  });
});

describe("price integrity", () => {
  const base = { distinctPayers30d: 10, medianSettledPrice: 0.012, advertisedPrice: 0.01, quote: null, priceLabel: null, now };

  it("with ≥ 2 payers: 1 − |median − advertised| ÷ advertised", () => {
    expect(priceIntegrity(base).value).toBeCloseTo(0.8, 12);
    expect(priceIntegrity({ ...base, medianSettledPrice: 0.008 }).value).toBeCloseTo(0.8, 12);
    expect(priceIntegrity({ ...base, medianSettledPrice: 0.01 }).value).toBe(1);
  });

  it("divergence is clamped to 0–1: a tripled price scores 0, not below", () => {
    const p = priceIntegrity({ ...base, medianSettledPrice: 0.03 });
    expect(p.value).toBe(0);
    expect(p.facts.divergence).toBe(1);
  });

  it("below the floor: 0.7 with a price advertised, 0.3 with none", () => {
    expect(priceIntegrity({ ...base, distinctPayers30d: 1 }).value).toBe(0.7);
    expect(priceIntegrity({ ...base, distinctPayers30d: 0, advertisedPrice: null, medianSettledPrice: null }).value).toBe(0.3);
  });

  it("the seller's price label alone counts as advertised; a blank one does not", () => {
    const none = { ...base, distinctPayers30d: 0, advertisedPrice: null, medianSettledPrice: null };
    expect(priceIntegrity({ ...none, priceLabel: "$0.01 per call" }).value).toBe(0.7);
    expect(priceIntegrity({ ...none, priceLabel: "   " }).value).toBe(0.3);
  });

  it("a quote under 30 days old counts as advertised", () => {
    const p = priceIntegrity({ ...base, distinctPayers30d: 0, advertisedPrice: null, medianSettledPrice: null, quote: { price: 0.04, quotedAt: daysAgo(29) } });
    expect(p.value).toBe(0.7);
    expect(p.facts.quoteFresh).toBe(true);
  });

  it("a 31-day-old quote does not feed price integrity", () => {
    const p = priceIntegrity({ ...base, distinctPayers30d: 0, advertisedPrice: null, medianSettledPrice: null, quote: { price: 0.04, quotedAt: daysAgo(31) } });
    expect(p.value).toBe(0.3);
    expect(p.facts.quoteFresh).toBe(false);
    expect(p.reason).toMatch(/31 days old/);
  });

  it("a quote exactly 30 days old is not 'under 30 days'", () => {
    const p = priceIntegrity({ ...base, distinctPayers30d: 0, advertisedPrice: null, medianSettledPrice: null, quote: { price: 0.04, quotedAt: daysAgo(QUOTE_MAX_AGE_DAYS) } });
    expect(p.facts.quoteFresh).toBe(false);
  });

  it("a stale quote is never the reference, so a re-price is not read as drift", () => {
    // Re-priced from $0.02 to $0.04 a month ago; buyers now pay $0.04; the only quote is the old one.
    const stale = { ...base, advertisedPrice: null, medianSettledPrice: 0.04, quote: { price: 0.02, quotedAt: daysAgo(31) } };
    const p = priceIntegrity(stale);
    expect(p.facts.referencePrice).toBeNull();
    expect(p.value).toBe(0.3); // not 1 − 100% = 0
    // The same quote, fresh, is compared.
    expect(priceIntegrity({ ...stale, quote: { price: 0.02, quotedAt: daysAgo(2) } }).value).toBe(0);
  });

  it("the seller's advertised price is the reference even when a fresh quote differs", () => {
    const p = priceIntegrity({ ...base, medianSettledPrice: 0.02, quote: { price: 0.02, quotedAt: daysAgo(1) } });
    expect(p.facts.referenceSource).toBe("advertisedPrice");
    expect(p.value).toBe(0);
  });

  it("a quote stamped in the future or unparsable is not fresh", () => {
    const none = { ...base, distinctPayers30d: 0, advertisedPrice: null, medianSettledPrice: null };
    expect(priceIntegrity({ ...none, quote: { price: 0.04, quotedAt: daysAgo(-1) } }).value).toBe(0.3);
    expect(priceIntegrity({ ...none, quote: { price: 0.04, quotedAt: "yesterday" } }).value).toBe(0.3);
  });
});

describe("featured", () => {
  it.each([
    [0, 1.0],
    [1, 1.1],
    [3, 1.3],
    [5, 1.5],
  ])("level %i → ×%d", (level, value) => {
    expect(featured({ level, gate: "settleable" }).value).toBeCloseTo(value, 12);
    expect(featured({ level, gate: "unknown" }).value).toBeCloseTo(value, 12);
  });

  it("is forced to 1.00 when the gate is unpayable", () => {
    const f = featured({ level: 5, gate: "unpayable" });
    expect(f.value).toBe(1);
    expect(f.facts.forced).toBe(true);
    expect(f.reason).toMatch(/unpayable/);
  });

  it.each([-1, 6, 2.5, Number.NaN])("rejects level %d", (level) => {
    expect(() => featured({ level, gate: "settleable" })).toThrow(RangeError);
  });
});

describe("verification", () => {
  it("verified 1.00, unverified 0.85, degraded 0.50", () => {
    expect(verification("verified").value).toBe(1);
    expect(verification("unverified").value).toBe(0.85);
    expect(verification("degraded").value).toBe(0.5);
    expect(() => verification("bogus" as never)).toThrow(RangeError);
  });
});

describe("quality and rank", () => {
  it("quality = SettleGate × (0.25·L + 0.45·T + 0.30·P): each weight shows on its own", () => {
    expect(quality({ gate: "settleable", liveness: 1, traction: 0, priceIntegrity: 0 }).value).toBe(0.25);
    expect(quality({ gate: "settleable", liveness: 0, traction: 1, priceIntegrity: 0 }).value).toBe(0.45);
    expect(quality({ gate: "settleable", liveness: 0, traction: 0, priceIntegrity: 1 }).value).toBe(0.3);
    expect(quality({ gate: "unknown", liveness: 1, traction: 1, priceIntegrity: 1 }).value).toBeCloseTo(0.85, 12);
    expect(quality({ gate: "unpayable", liveness: 1, traction: 1, priceIntegrity: 1 }).value).toBeCloseTo(0.25, 12);
  });

  it("rejects components outside 0–1", () => {
    expect(() => quality({ gate: "settleable", liveness: 1.2, traction: 0, priceIntegrity: 0 })).toThrow(/liveness/);
    expect(() => quality({ gate: "nope" as never, liveness: 1, traction: 0, priceIntegrity: 0 })).toThrow(/gate/);
  });

  it("rank multiplies and may exceed 1", () => {
    expect(rank({ quality: 1, featured: 1.5, verification: 1 }).value).toBe(1.5);
  });

  it("to100 rounds half-up despite binary noise", () => {
    expect(to100(0.128125)).toBe(13); // 12.812499999999998 in binary
    expect(to100(0.125)).toBe(13);
    expect(to100(0.12499)).toBe(12);
    expect(to100(0.005)).toBe(1);
    expect(to100(1.19795)).toBe(120);
  });
});

describe("floors through the shared signals", () => {
  const failing = (attempts: number, buyers: number): SettleFacts => ({
    lastSettledAt: null,
    failedAttemptsSinceLastSettle: attempts,
    distinctFailingBuyersSinceLastSettle: buyers,
  });

  it("two failing buyers with 2 attempts is not unpayable; with 3 it is", () => {
    expect(settleGate(failing(2, 2), now).gate).toBe("unknown");
    expect(settleGate(failing(3, 2), now).gate).toBe("unpayable");
  });

  it("one broken wallet failing many times cannot sink a listing", () => {
    expect(settleGate(failing(40, 1), now).gate).toBe("unknown");
  });

  it("through computeRank: 3 attempts from 2 buyers gates the score at ×0.25 and unfeatures it", () => {
    const inputs = { ...RANK_FIXTURES.matureAndHonestFeatured.inputs, settle: { lastSettledAt: daysAgo(3), failedAttemptsSinceLastSettle: 3, distinctFailingBuyersSinceLastSettle: 2 } };
    const r = computeRank(inputs);
    expect(r.components.gate.gate).toBe("unpayable");
    expect(r.components.featured.value).toBe(1);
    const justBelow = computeRank({ ...inputs, settle: { ...inputs.settle, failedAttemptsSinceLastSettle: 2 } });
    expect(justBelow.components.gate.gate).toBe("settleable");
  });

  it("buyers trying and none settling withholds uptime", () => {
    expect(settlementUnproven(2, 0)).toBe(true);
    const monitor = { uptime7d: 100, uptime30d: 100, healthStatus: "degraded" as const, healthConfidence: 1 };
    const l = liveness({ ...monitor, settlementUnproven: settlementUnproven(2, 0) });
    expect(l).toMatchObject({ value: 0.5, source: "baseline", uptimeWithheld: true });

    // End to end: the probe says 100% up, but 4 buyers tried and none settled.
    const r = computeRank({
      ...RANK_FIXTURES.wellBuiltBrandNew.inputs,
      monitor,
      ledger: { distinctPayers30d: 0, distinctAttemptingBuyers30d: 4, settled30d: 0, medianSettledPrice30d: null },
    });
    expect(r.components.liveness.value).toBe(0.5);
    expect(r.components.liveness.reason).toMatch(/withheld/);
  });

  it("one buyer trying and failing does not withhold uptime", () => {
    const r = computeRank({
      ...RANK_FIXTURES.wellBuiltBrandNew.inputs,
      monitor: { uptime7d: 100, uptime30d: 100, healthStatus: "degraded", healthConfidence: 1 },
      ledger: { distinctPayers30d: 0, distinctAttemptingBuyers30d: 1, settled30d: 0, medianSettledPrice30d: null },
    });
    expect(r.components.liveness.value).toBe(1);
  });

  it("liveness is capped at the monitor's health confidence", () => {
    const r = computeRank({ ...RANK_FIXTURES.matureAndHonest.inputs, monitor: { uptime7d: 95, uptime30d: 97, healthStatus: "operational", healthConfidence: 0.6 } });
    expect(r.components.liveness.value).toBe(0.6);
    expect(r.components.liveness.reason).toMatch(/capped at health confidence 0.6/);
  });
});
