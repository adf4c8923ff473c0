import { describe, expect, it } from "vitest";
import { actionLabel, diffSentence, fieldLabel, readableDiff } from "./labels";

describe("human labels for the moderators", () => {
  it("names fields and actions in words, and falls back to spaced words for new ones", () => {
    expect(fieldLabel("featuredLevel")).toBe("Featured level");
    expect(fieldLabel("sortWeight")).toBe("Sort weight");
    expect(fieldLabel("someNewField")).toBe("Some New Field");
    expect(actionLabel("curation.set")).toBe("Curation changed (tier, sort weight)");
    expect(actionLabel("unknown.action")).toBe("unknown.action");
  });

  it("diffs before and after, changed fields first, values in words", () => {
    const d = readableDiff({ tier: 0, sortWeight: 10 }, { tier: 0, sortWeight: 25 });
    expect(d).toEqual([
      { field: "sortWeight", label: "Sort weight", before: "10", after: "25", changed: true },
      { field: "tier", label: "Tier", before: "0", after: "0", changed: false },
    ]);
    expect(diffSentence({ featuredLevel: 0 }, { featuredLevel: 3 })).toBe("Featured level 0 → 3");
    expect(diffSentence({ canarySuspendedAt: null }, { canarySuspendedAt: "2026-12-03T10:20:30.000Z" })).toBe("Canary suspended none → 2026-12-03 10:20 UTC");
    expect(diffSentence(null, { runId: "r1", queued: true })).toBe("Canary run — → r1, Run queued — → yes");
    expect(diffSentence({ tier: 1 }, { tier: 1 })).toBe("nothing changed");
  });
});
