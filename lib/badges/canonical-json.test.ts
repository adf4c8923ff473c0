import { describe, expect, it } from "vitest";
import { CanonicalJsonError, canonicalJson } from "./canonical-json";

describe("canonicalJson (RFC 8785 JCS)", () => {
  it("sorts members by UTF-16 code units (the RFC's §3.2.3 sorting example)", () => {
    const input = {
      "\u20ac": "Euro Sign",
      "\r": "Carriage Return",
      "\ufb33": "Hebrew Letter Dalet With Dagesh",
      "1": "One",
      "\ud83d\ude00": "Emoji: Grinning Face",
      "\u0080": "Control",
      "\u00f6": "Latin Small Letter O With Diaeresis",
    };
    // Order by first code unit: U+000D, U+0031, U+0080, U+00F6, U+20AC, U+D83D (the emoji's high
    // surrogate), U+FB33 — the emoji sorts before U+FB33 although its code point is higher.
    expect(canonicalJson(input)).toBe(
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis","\u20ac":"Euro Sign","\ud83d\ude00":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
    );
  });

  it("writes numbers in ECMAScript form", () => {
    expect(canonicalJson([0, -0, 1, -1.5, 1e21, 1e-7, 0.000001, 333333333.3333333, 4.5, 2 ** 53, 5e-324])).toBe(
      "[0,0,1,-1.5,1e+21,1e-7,0.000001,333333333.3333333,4.5,9007199254740992,5e-324]",
    );
  });

  it("has no whitespace and recurses into nested values", () => {
    expect(canonicalJson({ b: [true, null, { d: 1, c: "x" }], a: "é\n\u2028" })).toBe('{"a":"é\\n\u2028","b":[true,null,{"c":"x","d":1}]}');
  });

  it.each([NaN, Infinity, -Infinity])("refuses %s", (n) => {
    expect(() => canonicalJson({ a: [n] })).toThrow(CanonicalJsonError);
    expect(() => canonicalJson({ a: [n] })).toThrow("/a/0");
  });

  it.each([
    ["undefined", { a: undefined }],
    ["a function", { a: () => 1 }],
    ["a bigint", { a: 1n }],
    ["a Date", { a: new Date(0) }],
    ["a Map", new Map()],
    ["a lone surrogate", { a: "\ud800" }],
  ])("refuses %s", (_what, v) => {
    expect(() => canonicalJson(v)).toThrow(CanonicalJsonError);
  });

  it("refuses cycles but allows shared (acyclic) references", () => {
    const o: Record<string, unknown> = {};
    o.self = o;
    expect(() => canonicalJson(o)).toThrow(/cycle/);
    const shared = { x: 1 };
    expect(canonicalJson([shared, shared])).toBe('[{"x":1},{"x":1}]');
  });
});
