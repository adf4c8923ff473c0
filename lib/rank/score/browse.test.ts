import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { browseSeed, compareBrowse, decodeCursor, encodeCursor, isAfterCursor, orderForBrowse, shuffleKey, type BrowseKey } from "./browse";

const HOUR = 3_600_000;
// 2026-10-07T12:00:00Z is 1791374400 s, exactly on a 6-hour boundary (1791374400 ÷ 21600 = 82934).
const boundary = new Date("2026-10-07T12:00:00.000Z");

describe("browseSeed", () => {
  it("is floor(unix seconds ÷ 21600)", () => {
    expect(browseSeed(boundary)).toBe(Math.floor(boundary.getTime() / 1000 / 21600));
    expect(browseSeed(boundary)).toBe(82934);
    expect(browseSeed(new Date(0))).toBe(0);
  });

  it("holds for 6 hours and then moves by one", () => {
    const s = browseSeed(boundary);
    expect(browseSeed(new Date(boundary.getTime() + 6 * HOUR - 1))).toBe(s);
    expect(browseSeed(new Date(boundary.getTime() + 6 * HOUR))).toBe(s + 1);
    expect(browseSeed(new Date(boundary.getTime() - 1))).toBe(s - 1);
  });

  it("rejects an invalid date", () => {
    expect(() => browseSeed(new Date("nope"))).toThrow(RangeError);
  });
});

describe("shuffleKey", () => {
  it("is md5 of `${seed}:${id}` in lowercase hex", () => {
    expect(shuffleKey("abc", 1)).toBe("3560f4d3cdb576e61d20f9fa14062b0a");
    expect(shuffleKey("lst_42", 82934)).toBe(createHash("md5").update("82934:lst_42").digest("hex"));
  });

  it("depends on both seed and id", () => {
    expect(shuffleKey("a", 1)).not.toBe(shuffleKey("a", 2));
    expect(shuffleKey("a", 1)).not.toBe(shuffleKey("b", 1));
  });
});

const tied = (n: number): BrowseKey[] => Array.from({ length: n }, (_, i) => ({ id: `lst_${i}`, tier: 1, sortWeight: 0, rankScore: 0.5 }));
const ids = (rows: { id: string }[]) => rows.map((r) => r.id);

describe("browse order", () => {
  it("tier ascending, then sortWeight descending, then rankScore descending with unscored last", () => {
    const rows: BrowseKey[] = [
      { id: "unscored", tier: 1, sortWeight: 0, rankScore: null },
      { id: "tier2", tier: 2, sortWeight: 99, rankScore: 1.5 },
      { id: "low", tier: 1, sortWeight: 0, rankScore: 0.1 },
      { id: "weighted", tier: 1, sortWeight: 5, rankScore: 0 },
      { id: "high", tier: 1, sortWeight: 0, rankScore: 1.2 },
      { id: "zero", tier: 1, sortWeight: 0, rankScore: 0 },
      { id: "tier0", tier: 0, sortWeight: -3, rankScore: null },
    ];
    expect(ids(orderForBrowse(rows, 7))).toEqual(["tier0", "weighted", "high", "low", "zero", "unscored", "tier2"]);
  });

  it("ties are stable within a 6-hour seed", () => {
    const rows = tied(20);
    const a = orderForBrowse(rows, browseSeed(boundary));
    const b = orderForBrowse([...rows].reverse(), browseSeed(new Date(boundary.getTime() + 5 * HOUR)));
    expect(ids(a)).toEqual(ids(b));
  });

  it("ties rotate when the seed changes", () => {
    const rows = tied(20);
    const a = orderForBrowse(rows, browseSeed(boundary));
    const b = orderForBrowse(rows, browseSeed(new Date(boundary.getTime() + 6 * HOUR)));
    expect(ids(a)).not.toEqual(ids(b));
    expect([...ids(a)].sort()).toEqual([...ids(b)].sort());
  });

  it("the shuffle never overrides a real difference in rank", () => {
    const rows: BrowseKey[] = [...tied(10), { id: "best", tier: 1, sortWeight: 0, rankScore: 0.51 }];
    for (let seed = 0; seed < 50; seed++) expect(orderForBrowse(rows, seed)[0].id).toBe("best");
  });

  it("falls back to id when the shuffle keys are equal", () => {
    const a = { id: "a", tier: 0, sortWeight: 0, rankScore: null, shuffleKey: "00" };
    const b = { ...a, id: "b" };
    expect(compareBrowse(a, b)).toBeLessThan(0);
    expect(compareBrowse(b, a)).toBeGreaterThan(0);
    expect(compareBrowse(a, { ...a })).toBe(0);
  });
});

describe("keyset cursor", () => {
  it("round-trips and recomputes the shuffle key", () => {
    const c = encodeCursor({ seed: 82934, tier: 1, sortWeight: 2.5, rankScore: 0.9215, id: "lst_1" });
    expect(c).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(c)).toEqual({
      ok: true,
      cursor: { seed: 82934, tier: 1, sortWeight: 2.5, rankScore: 0.9215, id: "lst_1", shuffleKey: shuffleKey("lst_1", 82934) },
    });
    const unscored = decodeCursor(encodeCursor({ seed: 1, tier: 0, sortWeight: 0, rankScore: null, id: "x" }));
    expect(unscored.ok && unscored.cursor.rankScore).toBeNull();
  });

  it("pages through the order without OFFSET, keeping its seed across a rotation", () => {
    const rows: BrowseKey[] = [
      ...tied(17),
      ...Array.from({ length: 9 }, (_, i) => ({ id: `u_${i}`, tier: 1, sortWeight: 0, rankScore: null })),
      { id: "t0", tier: 0, sortWeight: 0, rankScore: null },
      { id: "t2", tier: 2, sortWeight: 1, rankScore: 3 },
    ];
    const seed = browseSeed(boundary);
    const expected = ids(orderForBrowse(rows, seed));
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 20; page++) {
      // Each request comes later; the chain keeps using the cursor's seed.
      let pageSeed = browseSeed(new Date(boundary.getTime() + page * 4 * HOUR));
      let after: ReturnType<typeof decodeCursor> | null = null;
      if (cursor) {
        after = decodeCursor(cursor);
        if (!after.ok) throw new Error(after.message);
        pageSeed = after.cursor.seed;
      }
      const ordered = orderForBrowse(rows, pageSeed).filter((r) => !after || (after.ok && isAfterCursor(r, after.cursor)));
      const slice = ordered.slice(0, 4);
      if (slice.length === 0) break;
      seen.push(...ids(slice));
      const last = slice[slice.length - 1];
      cursor = encodeCursor({ ...last, seed: pageSeed });
    }
    expect(seen).toEqual(expected);
  });

  const b64 = (x: unknown) => Buffer.from(JSON.stringify(x), "utf8").toString("base64url");
  const good = { v: 1, seed: 5, tier: 0, sortWeight: 0, rankScore: 0.3, id: "lst" };

  it.each([
    ["", "cursor"],
    ["not base64!", "cursor"],
    [Buffer.from("{oops", "utf8").toString("base64url"), "cursor"],
    [b64([1, 2]), "cursor"],
    [b64({ ...good, v: 2 }), "v"],
    [b64({ ...good, seed: -1 }), "seed"],
    [b64({ ...good, seed: 1.5 }), "seed"],
    [b64({ ...good, tier: "1" }), "tier"],
    [b64({ ...good, sortWeight: null }), "sortWeight"],
    [b64({ ...good, rankScore: -0.1 }), "rankScore"],
    [b64((({ rankScore: _r, ...rest }) => rest)(good)), "rankScore"],
    [b64({ ...good, id: "" }), "id"],
    [b64({ ...good, offset: 40 }), "offset"],
    ["A".repeat(2000), "cursor"],
  ])("rejects %s naming %s", (str, field) => {
    const r = decodeCursor(str);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.field).toBe(field);
  });

  it("refuses to encode a row it could not decode", () => {
    expect(() => encodeCursor({ seed: 1, tier: Number.NaN, sortWeight: 0, rankScore: null, id: "x" })).toThrow(/tier/);
  });
});
