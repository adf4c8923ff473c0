/**
 * The OpenAPI document the service serves at /openapi.json (openapi.ts): every example it publishes
 * is accepted by the service's own contract (a catalog that calls a paid op with it reaches the
 * 402, not a free refusal) and validates against the request schema printed beside it, and every
 * route the service answers is in it.
 */
import Ajv2020 from "ajv/dist/2020";
import { describe, expect, it } from "vitest";
import { checkPaid, precheckAnswer } from "./answers";
import { UPTO_EXAMPLE_INPUT, VALIDITY_EXAMPLE_INPUT } from "./examples";
import { openApiDocument } from "./openapi";

type Op = { requestBody?: { content: Record<string, { schema: object; example?: unknown }> } };
const doc = openApiDocument() as { openapi: string; paths: Record<string, Record<string, Op>> };
const body = (path: string, method: string) => doc.paths[path][method].requestBody!.content["application/json"];

describe("GET /openapi.json", () => {
  it("lists every route the service answers, and no other", () => {
    expect(doc.openapi).toBe("3.1.0");
    const routes = Object.entries(doc.paths).flatMap(([p, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${p}`));
    expect(routes).toEqual(["GET /criteria", "POST /precheck", "POST /upto", "POST /validity", "GET /metrics"]);
  });

  it("the paid ops' examples are the ones the 402's bazaar publishes, and the contract accepts them", () => {
    expect(body("/upto", "post").example).toEqual(UPTO_EXAMPLE_INPUT);
    expect(body("/validity", "post").example).toEqual(VALIDITY_EXAMPLE_INPUT);
    expect("input" in checkPaid("upto", body("/upto", "post").example)).toBe(true);
    expect("input" in checkPaid("validity", body("/validity", "post").example)).toBe(true);
    expect(precheckAnswer(body("/precheck", "post").example)).toMatchObject({ status: 200, code: null });
  });

  it("each example validates against the request schema printed beside it", () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    for (const path of ["/precheck", "/upto", "/validity"]) {
      const { schema, example } = body(path, "post");
      const validate = ajv.compile(schema);
      expect(validate(example), `${path}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
  });
});
