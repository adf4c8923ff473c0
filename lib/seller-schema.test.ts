import { describe, expect, it } from "vitest";
import { createSchemaCompiler, SchemaRefused, SELLER_SCHEMA_LIMITS, sellerSchemas } from "./seller-schema";
import { checkOutput } from "@/lib/canary/judge";
import { infoMatchesSchema } from "@/lib/x402/bazaar";

const limits = (over: Partial<typeof SELLER_SCHEMA_LIMITS>) => ({ ...SELLER_SCHEMA_LIMITS, ...over });
const refusal = (fn: () => unknown): SchemaRefused => {
  try {
    fn();
  } catch (e) {
    if (e instanceof SchemaRefused) return e;
    throw e;
  }
  throw new Error("was not refused");
};

describe("one compiler for sellers' schemas", () => {
  const schema = { type: "object", required: ["city"], properties: { city: { type: "string", minLength: 2 }, when: { type: "string", format: "date-time" }, n: { type: "string", format: "int64" } } };
  const values: unknown[] = [{ city: "Oslo" }, { city: "O" }, { town: "Oslo" }, { city: "Oslo", when: "yesterday" }, { city: "Oslo", when: "2026-12-05T04:00:00Z", n: "12" }, [], "x"];

  it("the bazaar's info check and the canary's output check give the same verdict, from one compiled validator", () => {
    for (const v of values) {
      const bazaar = infoMatchesSchema(schema, v);
      const canary = checkOutput(schema, Buffer.from(JSON.stringify(v)), "application/json");
      expect(canary.valid, JSON.stringify(v)).toBe(bazaar.valid);
      expect(((canary.errors as Array<{ message: string }> | null) ?? []).length, JSON.stringify(v)).toBe(bazaar.errors.length);
    }
    expect(sellerSchemas.compile(schema)).toBe(sellerSchemas.compile(JSON.parse(JSON.stringify(schema))));
  });

  it("a schema both refuse is refused by name at both callers", () => {
    const deep = JSON.parse(`${'{"items":'.repeat(80)}{}${"}".repeat(80)}`);
    expect(() => infoMatchesSchema(deep, [])).toThrow(/schema_too_deep/);
    expect(checkOutput(deep, Buffer.from("[]"), "application/json")).toMatchObject({ valid: null, errors: [{ code: "schema_too_deep" }] });
  });

  it("the cache is bounded: the N+1st schema evicts the least recently used", () => {
    const c = createSchemaCompiler(limits({ maxEntries: 3 }));
    const s = (i: number) => ({ type: "object", properties: { [`f${i}`]: { type: "integer" } } });
    c.compile(s(1));
    c.compile(s(2));
    c.compile(s(3));
    const [k1, k2, k3] = c.keys();
    c.compile(s(1)); // used again: now the most recent
    c.compile(s(4));
    expect(c.keys()).toHaveLength(3);
    expect(c.keys()).not.toContain(k2);
    expect(c.keys().slice(0, 2)).toEqual([k3, k1]);
  });

  it("two sellers' schemas with the same $id both compile, each with its own rules", () => {
    const c = createSchemaCompiler();
    const a = c.compile({ $id: "https://example.com/s.json", type: "string" });
    const b = c.compile({ $id: "https://example.com/s.json", type: "integer" });
    expect([a("x"), a(1), b("x"), b(1)]).toEqual([true, false, false, true]);
  });

  it("hostile schemas are refused with a named error, and a refusal is remembered", () => {
    const small = createSchemaCompiler(limits({ maxBytes: 1000 }));
    expect(refusal(() => small.compile({ type: "string", description: "x".repeat(2000) })).code).toBe("schema_too_large");
    expect(refusal(() => createSchemaCompiler().compile(JSON.parse(`${'{"not":'.repeat(65)}{}${"}".repeat(65)}`))).code).toBe("schema_too_deep");
    expect(refusal(() => createSchemaCompiler().compile({ type: "object", properties: { a: { $ref: "#/$defs/missing" } } })).code).toBe("schema_does_not_compile");
    // Hundreds of patterned properties: within the size cap, but over a tight compile budget.
    const slow = { type: "object", properties: Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`p${i}`, { type: "string", pattern: `^a{${i % 7}}b$`, minLength: 1 }])) };
    const tight = createSchemaCompiler(limits({ compileBudgetMs: 1 }));
    const first = refusal(() => tight.compile(slow));
    expect(first.code).toBe("schema_compile_too_slow");
    expect(first.message).toMatch(/^schema_compile_too_slow: compiling took \d+ ms, over 1 ms$/);
    expect(refusal(() => tight.compile(slow))).toBe(first);
  });

  it("within the limits a legitimate schema compiles (a 20 KB description, 30 levels of nesting)", () => {
    const c = createSchemaCompiler();
    expect(c.compile({ type: "object", description: "y".repeat(20_000) })({})).toBe(true);
    const nested = JSON.parse(`${'{"items":'.repeat(30)}{"type":"integer"}${"}".repeat(30)}`);
    expect(c.compile(nested)([[[[]]]])).toBe(true);
  });
});
