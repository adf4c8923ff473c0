import { describe, expect, it } from "vitest";
import { AppError } from "@/lib/errors";
import { errorBadge, errorBadgeResponse } from "./error-badge";
import { verifyBadge } from "./verify";

describe("error badges", () => {
  it("answers each refusal with its status and a badge that says it in words", () => {
    const cases: [unknown, number, string, string][] = [
      [new AppError("not_found", 'no listing "x"'), 404, "listing not found", "not_found"],
      [new AppError("bad_request", "style must be one of …", [], { param: "style", reason: "invalid_style" }), 400, "invalid style", "bad_request:invalid_style"],
      [new AppError("unavailable", "badge signing is not configured", [], { reason: "signing_key_missing" }), 503, "badge unavailable", "unavailable:signing_key_missing"],
      [new Error("boom"), 500, "server error", "internal"],
    ];
    for (const [e, status, value, error] of cases) {
      const b = errorBadge(e, null);
      expect(b.status, value).toBe(status);
      expect(b.error, value).toBe(error);
      expect(b.svg, value).toContain(`readiness: ${value}</title>`);
      expect(b.svg, value).toMatch(/^<svg [^>]*role="img"/);
    }
  });

  it("keeps a valid style, falls back to flat for anything else", () => {
    const e = new AppError("not_found", "nope");
    expect(errorBadge(e, "for-the-badge").svg).toContain('height="28"');
    expect(errorBadge(e, "plastic").svg).toContain('height="18"');
    expect(errorBadge(e, "round").svg).toContain('height="20"');
    expect(errorBadge(e, "<script>").svg).not.toContain("<script>");
  });

  it("is an SVG response with no-cache and the error header, and no verifier takes it for a signed badge", async () => {
    const res = errorBadgeResponse(new AppError("not_found", "nope"), null, { "x-content-type-options": "nosniff" });
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toBe("image/svg+xml; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe("no-cache, max-age=0");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    const v = await verifyBadge(await res.text(), { keys: { keys: [] }, now: new Date() });
    expect(v).toMatchObject({ ok: false, reason: "envelope_missing" });
  });
});
