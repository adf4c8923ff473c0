import { describe, expect, it } from "vitest";
import { replay } from "./replay";

const why = (extra = "") => `Matches 'geocode'; grade A (ok); canary paid and passed 2 h ago${extra}; $0.001 a call`;
const dump = {
  listings: {
    g1: { slug: "g1", kind: "honest", capability: "geocode", expected: 0.95, uptime: 97 },
    g2: { slug: "g2", kind: "honest", capability: "geocode", expected: 0.99, uptime: 99.9 },
    r1: { slug: "r1", kind: "honest", capability: "reverse-geocode", expected: 1, uptime: 100 },
    low: { slug: "low", kind: "mediocre", capability: "geocode", expected: 0.5, uptime: 80 },
  },
  tasks: [
    // As selected: g1 leads; g2 is equally relevant and up more; r1 (another capability) as relevant and up most; low in tier 1.
    { capability: "geocode", text: "geocode an address", items: [
      { id: "g1", relevance: 1, rankScore: 1, why: why() },
      { id: "g2", relevance: 0.9, rankScore: 0.5, why: why() },
      { id: "r1", relevance: 0.85, rankScore: 0.2, why: why() },
      { id: "low", relevance: 1, rankScore: 1, why: why(", up for 80% of monitor probes in 7 days") },
    ] },
    { capability: "geocode", text: "nothing found", items: [] },
  ],
};

describe("bench:select-replay", () => {
  it("scores each order's pick by ground truth, another capability's seller as 0, over every task", () => {
    const r = Object.fromEntries(replay(dump).map((x) => [x.order, x]));
    expect(r["as selected: tiers, then relevance × (1 + 0.25·q)"]).toEqual({ order: "as selected: tiers, then relevance × (1 + 0.25·q)", successPct: 47.5, wrongCapability: 0, changed: 0 });
    // Highest uptime in the band picks the reverse geocoder: 0 for this task, counted as another capability.
    expect(r["relevance ≥ 0.8 of the best, then highest uptime"]).toMatchObject({ successPct: 0, wrongCapability: 1, changed: 1 });
    // The ceilings never pick another capability's seller, and the tier-1 listing never leads.
    expect(r["ceiling: the best by ground truth, relevance ≥ 0.8"]).toMatchObject({ successPct: 49.5, wrongCapability: 0 });
    expect(r["ceiling: the best by ground truth of all returned"]).toMatchObject({ successPct: 49.5, wrongCapability: 0 });
  });
});
