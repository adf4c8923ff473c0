import { describe, expect, it } from "vitest";
import { parseJsonStrict } from "./strict-json";

describe("parseJsonStrict", () => {
  it("gives what JSON.parse gives for JSON without repeated names", () => {
    for (const s of ['{"a":1,"b":[1,2.5e3,{"c":"x\\u0041\\n"}],"d":null,"e":true,"f":false}', "[]", "{}", ' "s" ', "-0", '{"__proto__":{"x":1}}']) {
      expect(parseJsonStrict(s), s).toEqual(JSON.parse(s));
    }
    expect(Object.keys(parseJsonStrict('{"__proto__":1}') as object)).toEqual(["__proto__"]);
  });

  it("refuses a repeated member name, at any depth", () => {
    expect(() => parseJsonStrict('{"a":1,"a":2}')).toThrow(/duplicate key "a"/);
    expect(() => parseJsonStrict('[{"x":{"b":1,"\\u0062":2}}]')).toThrow(/duplicate key "b"/);
  });

  it("refuses what JSON.parse refuses", () => {
    for (const s of ["", "[1,]", "{'a':1}", '{"a":1}x', "01", "NaN", '"\u0001"', "[1 2]", '{"a"}']) {
      expect(() => JSON.parse(s), s).toThrow();
      expect(() => parseJsonStrict(s), s).toThrow();
    }
  });
});
