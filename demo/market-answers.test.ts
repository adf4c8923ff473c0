/**
 * Every seller of the demo market answers like the service it claims to be: for each endpoint, the
 * answer to its documented request example (or, where the document gives none, the call its buyers
 * make) validates against the endpoint's declared response schema and is not the structural
 * placeholder (`instanceOf`).
 */
import { describe, expect, it } from "vitest";
import { marketExtras, marketPlan } from "@/demo/market";
import { shapeDocument, SHAPES } from "@/demo/seed-demo";
import { sellerAjv } from "@/lib/seller-schema";
import { answer } from "@/sellers/market/answers";
import { instanceOf } from "@/sellers/market";

const documents = { ...Object.fromEntries(SHAPES.map((s) => [s.key, shapeDocument(s.key)])), ...marketExtras() };
/** Where a document publishes no request example: the call a buyer makes (Tickr's buyers send none; Serpwire's other verticals take a query). */
const UNDOCUMENTED: Record<string, unknown> = { "GET /price": {}, "GET /prices": {}, "GET /ohlc": {}, "GET /v1/news": { q: "espresso grinder" }, "GET /v1/images": { q: "espresso grinder" }, "GET /v1/shopping": { q: "espresso grinder" } };
const ajv = sellerAjv();
const NOW = new Date("2026-12-05T06:00:00.000Z");

describe("the demo market's answers", () => {
  it("covers every seller the market plays", () => {
    expect(Object.keys(documents).sort()).toEqual(marketPlan().map((p) => p.key).sort());
  });

  for (const [key, doc] of Object.entries(documents)) {
    for (const e of doc.endpoints) {
      it(`${key} ${e.method} ${e.path}: a real answer to its example, valid against its response schema`, () => {
        const request = e.requestExample ?? UNDOCUMENTED[`${e.method} ${e.path}`] ?? (e.noParameters ? {} : undefined);
        expect(request, "a request to try").toBeDefined();
        const a = answer(e, request, NOW);
        expect(a, "a handler").not.toBeNull();
        expect(a!.status).toBe(200);
        if (e.responseSchema) {
          const validate = ajv.compile(e.responseSchema);
          expect(validate(a!.body), JSON.stringify(validate.errors)).toBe(true);
        }
        expect(a!.body).not.toEqual(instanceOf(e.responseSchema));
        expect(JSON.stringify(a!.body)).not.toMatch(/"example"/);
        // Deterministic: the same request at the same time answers the same.
        expect(answer(e, request, NOW)).toEqual(a);
      });
    }
  }
});
