import { describe, expect, it } from "vitest";
import { parseBadgeQuery } from "./query";

const q = (s: string) => parseBadgeQuery(new URLSearchParams(s));

describe("parseBadgeQuery", () => {
  it("defaults to flat with no label", () => {
    expect(q("")).toEqual({ ok: true, style: "flat" });
  });

  it.each(["flat", "flat-square", "plastic", "for-the-badge"])("accepts style=%s", (style) => {
    expect(q(`style=${style}`)).toEqual({ ok: true, style });
  });

  it("refuses an unknown parameter by name", () => {
    expect(q("style=plastic&stlye=flat")).toEqual({
      ok: false,
      error: { code: "unknown_parameter", param: "stlye", message: 'unknown query parameter "stlye"; allowed: style, label' },
    });
    expect(q("logo=github")).toMatchObject({ ok: false, error: { code: "unknown_parameter", param: "logo" } });
  });

  it("refuses an unknown style, listing the allowed ones", () => {
    expect(q("style=social")).toEqual({ ok: false, error: { code: "invalid_style", param: "style", message: "style must be one of flat, flat-square, plastic, for-the-badge" } });
  });

  it("refuses a repeated parameter", () => {
    expect(q("style=flat&style=plastic")).toMatchObject({ ok: false, error: { code: "duplicate_parameter", param: "style" } });
  });

  it("sanitises the label: bidi controls stripped, long labels cut", () => {
    expect(q("label=%E2%80%AEevil")).toEqual({ ok: true, style: "flat", label: "evil" });
    expect(q(`label=${"a".repeat(60)}`)).toMatchObject({ ok: true, label: "a".repeat(39) + "…" });
  });

  it("refuses an empty or absurd label", () => {
    expect(q("label=%E2%80%8B%20")).toMatchObject({ ok: false, error: { code: "invalid_label" } });
    expect(q(`label=${"a".repeat(500)}`)).toMatchObject({ ok: false, error: { code: "invalid_label" } });
  });

  it("cuts an absurd parameter name in the error", () => {
    const r = q(`${"x".repeat(100)}=1`);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.param).toBe("x".repeat(40) + "…");
  });
});
