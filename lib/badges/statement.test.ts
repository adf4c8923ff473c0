import { describe, expect, it } from "vitest";
import { bandFor, buildStatement, statementShapeError, type StatementInput } from "./statement";
import { NOW, PUBLISHED, STATEMENT } from "@/test/badges";

const build = (over: { listing?: Partial<StatementInput["listing"]>; result?: Partial<NonNullable<StatementInput["result"]>> | null } = {}, now = NOW) =>
  buildStatement(
    { listing: { ...PUBLISHED.listing, ...over.listing }, result: over.result === null ? null : { ...PUBLISHED.result!, ...over.result } },
    { now },
  );

describe("bandFor at every band edge", () => {
  it.each([
    [0, "Getting started"],
    [59, "Getting started"],
    [60, "Almost ready"],
    [79, "Almost ready"],
    [80, "Ready"],
    [89, "Ready"],
    [90, "Excellent"],
    [100, "Excellent"],
  ] as const)("%i → %s", (score, band) => expect(bandFor(score)).toBe(band));
});

describe("buildStatement", () => {
  it("builds the fixture statement from a published, non-provisional result", () => {
    expect(build()).toEqual({ ok: true, statement: STATEMENT });
  });

  it("never states a provisional score", () => {
    expect(build({ result: { provisional: true } })).toEqual({ ok: false, error: { code: "result_provisional", message: "provisional scores are never shown on a badge" } });
    // Even when the listing is also unpublished, the provisional reason comes first.
    expect(build({ result: { provisional: true }, listing: { published: false } })).toMatchObject({ ok: false, error: { code: "result_provisional" } });
  });

  it("refuses unpublished listings, missing results and results of another listing", () => {
    expect(build({ listing: { published: false } })).toMatchObject({ ok: false, error: { code: "listing_unpublished" } });
    expect(build({ result: null })).toMatchObject({ ok: false, error: { code: "no_result" } });
    expect(build({ result: { listingId: "lst_02" } })).toMatchObject({ ok: false, error: { code: "result_other_listing" } });
  });

  it.each([-1, 101, 95.5, NaN])("refuses score %s", (score) => {
    expect(build({ result: { score } })).toMatchObject({ ok: false, error: { code: "score_invalid" } });
  });

  it("derives the band and refuses a contradicting one", () => {
    expect(build({ result: { score: 80, band: "Ready" } })).toMatchObject({ ok: true, statement: { result: { band: "Ready" } } });
    expect(build({ result: { score: 79, band: "Ready" } })).toMatchObject({ ok: false, error: { code: "band_mismatch" } });
  });

  it("refuses a non-https listing URL", () => {
    expect(build({ listing: { url: "javascript:alert(1)" } })).toMatchObject({ ok: false, error: { code: "field_invalid" } });
  });

  it("floors issuedAt to the hour so one window gives the same bytes", () => {
    const a = build({}, new Date("2026-12-02T10:00:01Z"));
    const b = build({}, new Date("2026-12-02T10:59:59Z"));
    expect(a).toEqual(b);
    expect(build({}, new Date("2026-12-02T11:00:00Z"))).toMatchObject({ ok: true, statement: { issuedAt: "2026-12-02T11:00:00Z", expiresAt: "2026-12-09T11:00:00Z" } });
  });

  it("never issues before the signing key's notBefore (just after a rotation)", () => {
    const r = buildStatement(PUBLISHED, { now: new Date("2026-12-02T10:20:00Z"), notBefore: "2026-12-02T10:15:30Z" });
    expect(r).toMatchObject({ ok: true, statement: { issuedAt: "2026-12-02T10:15:30Z" } });
  });

  it("bounds the lifetime", () => {
    expect(buildStatement(PUBLISHED, { now: NOW, ttlSeconds: 31 * 86_400 })).toMatchObject({ ok: false, error: { code: "ttl_invalid" } });
  });
});

describe("statementShapeError", () => {
  it("accepts a statement and names the first bad field otherwise", () => {
    expect(statementShapeError(STATEMENT)).toBeNull();
    expect(statementShapeError({ ...STATEMENT, extra: 1 })).toBe("unexpected field /extra");
    expect(statementShapeError({ ...STATEMENT, result: { ...STATEMENT.result, band: "Ready" } })).toBe('/result/band must be "Excellent" for score 96');
    expect(statementShapeError({ ...STATEMENT, issuedAt: "2026-12-02" })).toMatch(/^\/issuedAt/);
  });
});

describe("the signed label (issue 20 item 2)", () => {
  it("is in the statement when it is not the default, held to the label rule", () => {
    const at = { now: NOW };
    expect(buildStatement({ ...PUBLISHED, label: "api" }, at)).toMatchObject({ ok: true, statement: { label: "api" } });
    for (const label of [undefined, "readiness"]) {
      const r = buildStatement({ ...PUBLISHED, label }, at);
      expect(r.ok && "label" in r.statement).toBe(false);
    }
    expect(buildStatement({ ...PUBLISHED, label: "readiness 99 · Excellent" }, at)).toMatchObject({ ok: false, error: { code: "label_invalid" } });
  });

  it("a statement read back with a score-like, default or non-string label is malformed", () => {
    expect(statementShapeError({ ...STATEMENT, label: "api" })).toBeNull();
    expect(statementShapeError({ ...STATEMENT, label: "99 · Excellent" })).toMatch(/label rule/);
    expect(statementShapeError({ ...STATEMENT, label: "readiness" })).toMatch(/left out/);
    expect(statementShapeError({ ...STATEMENT, label: 7 })).toMatch(/must be a string/);
  });
});
