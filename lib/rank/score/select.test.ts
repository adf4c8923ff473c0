import { describe, expect, it } from "vitest";
import { apiVersionAtLeast, parseApiVersion, rankScoresForApiVersion } from "./api-version";
import { selectShortlist, type SelectCandidate } from "./select";

const c = (id: string, relevance: number, rankScore: number | null, extra: Partial<SelectCandidate> = {}): SelectCandidate => ({
  id,
  relevance,
  rankScore,
  semantic: true,
  payable: true,
  ...extra,
});

describe("selectShortlist", () => {
  it("score = relevance × (1 + 0.25·q), q = rankScore ÷ best in set", () => {
    const out = selectShortlist([c("a", 0.8, 1.2), c("b", 0.8, 0.6), c("c", 0.8, null)], { limit: 10 });
    const by = Object.fromEntries(out.map((i) => [i.id, i]));
    expect(by.a.score).toBeCloseTo(0.8 * 1.25, 12); // q = 1: the best
    expect(by.b.score).toBeCloseTo(0.8 * 1.125, 12); // q = 0.5
    expect(by.c.score).toBe(0.8); // unscored: q = 0
    expect(out.map((i) => i.id)).toEqual(["a", "b", "c"]);
    expect(by.a).toMatchObject({ relevance: 0.8, rankScore: 1.2 });
  });

  it("q is relative: scaling every rankScore leaves the scores unchanged", () => {
    const one = selectShortlist([c("a", 0.5, 0.4), c("b", 0.7, 0.1)], { limit: 5 });
    const ten = selectShortlist([c("a", 0.5, 4), c("b", 0.7, 1)], { limit: 5 });
    expect(ten.map((i) => i.score)).toEqual(one.map((i) => i.score));
  });

  it("a best rankScore of 0 gives q = 0 for everyone, not NaN", () => {
    const out = selectShortlist([c("a", 0.6, 0), c("b", 0.5, 0)], { limit: 5 });
    expect(out.map((i) => i.score)).toEqual([0.6, 0.5]);
  });

  it("rank lifts by at most 25%: it breaks near-ties, it does not override relevance", () => {
    const out = selectShortlist([c("relevant", 0.9, 0.01), c("popular", 0.7, 1.5)], { limit: 5 });
    expect(out[0].id).toBe("relevant"); // 0.7 × 1.25 = 0.875 < 0.9 × 1.0017
    const near = selectShortlist([c("relevant", 0.8, 0.01), c("popular", 0.7, 1.5)], { limit: 5 });
    expect(near[0].id).toBe("popular"); // 0.875 > 0.8 × 1.0017
  });

  it("semantic matches stay ahead of keyword-only ones", () => {
    const out = selectShortlist([c("kw", 1, 1.5, { semantic: false }), c("sem", 0.2, null)], { limit: 5 });
    expect(out.map((i) => i.id)).toEqual(["sem", "kw"]);
  });

  it("non-payable matches are excluded and do not set the best", () => {
    const out = selectShortlist([c("unpaid", 1, 10, { payable: false }), c("a", 0.5, 1), c("b", 0.5, 0.5)], { limit: 5 });
    expect(out.map((i) => i.id)).toEqual(["a", "b"]);
    expect(out[0].score).toBeCloseTo(0.625, 12); // q = 1, because the best payable is a
  });

  it("cuts to the limit after ordering and keeps the caller's fields", () => {
    const out = selectShortlist([c("a", 0.1, null), c("b", 0.9, null), { ...c("c", 0.5, null), name: "C" }], { limit: 2 });
    expect(out.map((i) => i.id)).toEqual(["b", "c"]);
    expect(out[1]).toHaveProperty("name", "C");
  });

  it("equal scores fall back to relevance, then id, so the order is deterministic", () => {
    const out = selectShortlist([c("z", 0.5, null), c("a", 0.5, null)], { limit: 5 });
    expect(out.map((i) => i.id)).toEqual(["a", "z"]);
  });

  it("rejects bad inputs by name", () => {
    expect(() => selectShortlist([c("a", 1.2, null)], { limit: 1 })).toThrow(/candidate a: relevance/);
    expect(() => selectShortlist([c("a", 0.5, -1)], { limit: 1 })).toThrow(/rankScore/);
    expect(() => selectShortlist([], { limit: 0 })).toThrow(/limit/);
  });
});

describe("Catalog-Api-Version", () => {
  it.each([
    ["1.55", true],
    ["1.56", true],
    ["2.0", true],
    ["1.54", false],
    ["1.6", false], // MINOR is an integer: 6 < 55
    ["0.99", false],
    [" 1.55 ", true],
  ])("%s ≥ 1.55 → %s", (header, atLeast) => {
    expect(apiVersionAtLeast(header, "1.55")).toMatchObject({ ok: true, atLeast });
  });

  it("a missing header is treated as current", () => {
    expect(apiVersionAtLeast(null, "1.55")).toEqual({ ok: true, atLeast: true, version: null });
    expect(apiVersionAtLeast(undefined, "1.55")).toMatchObject({ ok: true, atLeast: true });
  });

  it.each(["", "1", "1.55.0", "v1.55", "1.055", "01.55", "-1.55", "1.55, 1.60", "abc"])("%j is malformed and names the header", (header) => {
    const r = apiVersionAtLeast(header, "1.55");
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.header).toBe("Catalog-Api-Version");
      expect(r.message).toMatch(/Catalog-Api-Version/);
    }
  });

  it("parses MAJOR.MINOR", () => {
    expect(parseApiVersion("3.12")).toEqual({ major: 3, minor: 12 });
    expect(() => apiVersionAtLeast("1.55", "x")).toThrow(RangeError);
  });

  it("nulls rankScore for clients below 1.55, and only for them", () => {
    const items = [{ id: "a", rankScore: 0.92 }, { id: "b", rankScore: null }];
    expect(rankScoresForApiVersion(items, "1.54")).toEqual({ ok: true, items: [{ id: "a", rankScore: null }, { id: "b", rankScore: null }] });
    expect(rankScoresForApiVersion(items, "1.55")).toEqual({ ok: true, items });
    expect(rankScoresForApiVersion(items, null)).toEqual({ ok: true, items });
    expect(rankScoresForApiVersion(items, "latest")).toMatchObject({ ok: false, header: "Catalog-Api-Version" });
    expect(items[0].rankScore).toBe(0.92); // the input is not mutated
  });
});
