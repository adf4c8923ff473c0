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
      error: { code: "unknown_parameter", param: "stlye", message: 'unknown query parameter "stlye"; allowed: style, label, logo' },
    });
    expect(q("color=red")).toMatchObject({ ok: false, error: { code: "unknown_parameter", param: "color" } });
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

  it("refuses a label that could imitate a score, naming the rule (issue 20 item 2)", () => {
    for (const label of ["readiness 99 · Excellent", "readiness 99", "99", "٩٩", "Excellent", "READY", "almost ready", "Getting started", "a/b", "100%", "x·y", "lOO", "SO", "a  b:", "Ƽ"]) {
      const r = q(`${new URLSearchParams({ label })}`);
      expect(r, label).toMatchObject({ ok: false, error: { code: "invalid_label", param: "label" } });
      if (!r.ok) expect(r.error.message, label).toContain("label rule");
    }
    for (const label of ["readiness", "api", "quality check", "x-api", "Tollgate"]) expect(q(`${new URLSearchParams({ label })}`), label).toEqual({ ok: true, style: "flat", label });
  });

  it("cuts an absurd parameter name in the error", () => {
    const r = q(`${"x".repeat(100)}=1`);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.param).toBe("x".repeat(40) + "…");
  });
});

describe("parseBadgeQuery logo", () => {
  const q = (s: string) => parseBadgeQuery(new URLSearchParams(s));
  it("takes one of our own logos and refuses any other by name", () => {
    expect(q("logo=tollgate")).toEqual({ ok: true, style: "flat", logo: "tollgate" });
    expect(q("logo=bolt&label=api&style=plastic")).toEqual({ ok: true, style: "plastic", label: "api", logo: "bolt" });
    expect(q("logo=github")).toMatchObject({ ok: false, error: { code: "invalid_logo", param: "logo" } });
    expect(q("logo=data:image/svg+xml;base64,AAAA")).toMatchObject({ ok: false, error: { code: "invalid_logo" } });
    expect(q("logo=bolt&logo=shield")).toMatchObject({ ok: false, error: { code: "duplicate_parameter", param: "logo" } });
  });
});
