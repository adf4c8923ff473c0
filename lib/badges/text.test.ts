import { describe, expect, it } from "vitest";
import { ELLIPSIS, MAX_VISIBLE_CHARS, visibleText } from "./text";

describe("visibleText", () => {
  it("keeps ordinary text as it is", () => {
    expect(visibleText("readiness")).toBe("readiness");
    expect(visibleText("Acme Weather API")).toBe("Acme Weather API");
  });

  it("strips bidi controls, so a name cannot reorder the score beside it", () => {
    expect(visibleText("\u202E69 ssenidaer")).toBe("69 ssenidaer");
    expect(visibleText("a\u2066b\u2067c\u2068d\u2069e\u200Ef\u200Fg\u061Ch")).toBe("abcdefgh");
  });

  it("strips zero-width and control characters and collapses whitespace", () => {
    expect(visibleText("  a\u200Bb\uFEFF\u00AD\t\n  c\u0085d \u0007 ")).toBe("ab c d");
  });

  it(`truncates to ${MAX_VISIBLE_CHARS} characters with an ellipsis`, () => {
    const long = "x".repeat(500);
    const out = visibleText(long);
    expect([...out]).toHaveLength(MAX_VISIBLE_CHARS);
    expect(out.endsWith(ELLIPSIS)).toBe(true);
    expect(visibleText("y".repeat(MAX_VISIBLE_CHARS))).toBe("y".repeat(MAX_VISIBLE_CHARS)); // exactly max: no cut
  });

  it("never splits an emoji or a combining sequence", () => {
    const family = "👨‍👩‍👧"; // one grapheme of 8 UTF-16 units
    const out = visibleText(family.repeat(45));
    expect(out).toBe(family.repeat(MAX_VISIBLE_CHARS - 1) + ELLIPSIS);
    expect(visibleText("e\u0301".repeat(41))).toBe("\u00e9".repeat(39) + ELLIPSIS); // NFC first
  });

  it("drops lone surrogates", () => {
    expect(visibleText("a\uD800b")).toBe("ab");
  });
});
