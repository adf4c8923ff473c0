/**
 * What the service refuses before any quote (400, "The request field is invalid."): the product's
 * input schema exactly as published, then what its descriptions state, each problem with a pointer.
 */
import { describe, expect, it } from "vitest";
import { AppError } from "@/lib/errors";
import { EXAMPLE_REQUEST, INPUT_SCHEMA, MAX_DELIVERABLE_BYTES } from "./product";
import { prepareRequest, validatePublishedInput } from "./request";

function refused(body: unknown): Array<{ pointer?: string; message: string }> {
  try {
    prepareRequest(body);
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    expect((e as AppError).status).toBe(400);
    expect((e as AppError).message).toBe("The request field is invalid.");
    return (e as AppError).details;
  }
  throw new Error("expected the request to be refused");
}

const ok = { deliverable: { kind: "text", value: "hello" }, criteria: [{ id: "c1", check: "contains", value: "hell" }] };

describe("the published input schema, exactly", () => {
  it("is the product document's own, and the example request passes it", () => {
    expect(INPUT_SCHEMA.additionalProperties).toBe(false);
    expect(INPUT_SCHEMA.required).toEqual(["deliverable", "criteria"]);
    expect(validatePublishedInput(EXAMPLE_REQUEST)).toBe(true);
    expect(prepareRequest(structuredClone(EXAMPLE_REQUEST)).criteria.map((c) => c.check)).toEqual(["json_path_equals", "numeric_range"]);
  });

  it("refuses unknown top-level fields, missing required ones and wrong types", () => {
    expect(refused({ ...ok, extra: 1 })).toContainEqual({ pointer: "/extra", message: "is not a field here (additionalProperties is false)" });
    expect(refused({ deliverable: ok.deliverable })).toContainEqual({ pointer: "", message: 'is missing its required field "criteria"' });
    expect(refused({ ...ok, jobRef: 7 })).toContainEqual({ pointer: "/jobRef", message: "must be string" });
    expect(refused([ok])).toEqual([{ pointer: "", message: "the request must be a JSON object" }]);
  });
});

describe("the deliverable", () => {
  it("must be {kind, value} with kind text, json or bytes", () => {
    expect(refused({ ...ok, deliverable: { kind: "pdf", value: "x" } })).toContainEqual({ pointer: "/deliverable/kind", message: 'must be one of "text", "json", "bytes"' });
    expect(refused({ ...ok, deliverable: { kind: "text" } })).toContainEqual({ pointer: "/deliverable", message: 'is missing its required field "value"' });
    expect(refused({ ...ok, deliverable: { kind: "text", value: 1 } })).toContainEqual({ pointer: "/deliverable/value", message: 'must be a string for kind "text"' });
  });

  it("bytes must be standard padded base64", () => {
    for (const bad of ["aGVsbG8", "aGVsbG8=\n", "aGVs bG8=", "aGVsbG8_", "aGVsbG9="]) {
      expect(refused({ ...ok, deliverable: { kind: "bytes", value: bad } })[0].pointer).toBe("/deliverable/value");
    }
    expect(prepareRequest({ ...ok, deliverable: { kind: "bytes", value: "aGVsbG8=" } }).deliverable.bytes.toString()).toBe("hello");
  });

  it("at most 45,056 bytes are judged, counted as the bytes evaluated", () => {
    expect(prepareRequest({ ...ok, deliverable: { kind: "text", value: "a".repeat(MAX_DELIVERABLE_BYTES) } }).deliverable.bytes.length).toBe(45_056);
    expect(refused({ ...ok, deliverable: { kind: "text", value: "a".repeat(MAX_DELIVERABLE_BYTES + 1) } })).toEqual([{ pointer: "/deliverable/value", message: "is 45057 bytes; at most 45056 bytes are judged" }]);
    // "é" is two UTF-8 bytes: 22,529 of them are 45,058 bytes
    expect(refused({ ...ok, deliverable: { kind: "text", value: "é".repeat(22_529) } })[0].message).toContain("45058 bytes");
    const raw = Buffer.alloc(MAX_DELIVERABLE_BYTES + 1).toString("base64");
    expect(refused({ ...ok, deliverable: { kind: "bytes", value: raw } })[0].message).toContain("45057 bytes");
  });

  it("a lone surrogate cannot be hashed canonically", () => {
    expect(refused({ ...ok, deliverable: { kind: "text", value: "a\ud800b" } })).toEqual([{ pointer: "/deliverable/value", message: "cannot be hashed canonically (RFC 8785): lone surrogate in string" }]);
  });

  it("nesting deeper than 128 levels is refused without recursion", () => {
    let deep: unknown = 1;
    for (let i = 0; i < 5000; i++) deep = [deep];
    const d = refused({ ...ok, deliverable: { kind: "json", value: deep } });
    expect(d[0].message).toBe("nesting deeper than 128 levels is not admitted");
  });

  it("is never quoted in an error", () => {
    const secret = "SECRET-IN-AN-ERROR-91c2";
    const details = JSON.stringify([
      refused({ ...ok, deliverable: { kind: "text", value: secret.repeat(3000) } }),
      refused({ ...ok, deliverable: { kind: "bytes", value: secret } }),
      refused({ ...ok, deliverable: { kind: "json", value: { [secret]: 1 } }, criteria: [] }),
    ]);
    expect(details).not.toContain(secret);
  });
});

describe("the criteria", () => {
  it("1 to 64", () => {
    expect(refused({ ...ok, criteria: [] })).toEqual([{ pointer: "/criteria", message: "has 0 criteria; between 1 and 64 are required" }]);
    const many = Array.from({ length: 65 }, (_, i) => ({ id: `c${i}`, check: "is_json" }));
    expect(refused({ ...ok, criteria: many })).toEqual([{ pointer: "/criteria", message: "has 65 criteria; between 1 and 64 are required" }]);
    expect(prepareRequest({ ...ok, criteria: many.slice(0, 64) }).criteria).toHaveLength(64);
  });

  it("check from the closed menu only", () => {
    const d = refused({ ...ok, criteria: [{ id: "c1", check: "regex_match", value: ".*" }] });
    expect(d[0].pointer).toBe("/criteria/0/check");
    expect(d[0].message).toContain("sha256_equals, keccak256_equals");
  });

  it("each check's parameters, with no extra fields", () => {
    expect(refused({ ...ok, criteria: [{ id: "c1", check: "contains" }] })).toContainEqual({ pointer: "/criteria/0", message: 'is missing its required field "value"' });
    expect(refused({ ...ok, criteria: [{ id: "c1", check: "contains", value: "x", caseInsensitive: true }] })).toContainEqual({ pointer: "/criteria/0/caseInsensitive", message: "is not a field here (additionalProperties is false)" });
    expect(refused({ ...ok, criteria: [{ id: "c1", check: "sha256_equals", value: "abc" }] })[0].pointer).toBe("/criteria/0/value");
    expect(refused({ ...ok, criteria: [{ id: "c1", check: "byte_length" }] })[0].pointer).toBe("/criteria/0");
    expect(refused({ ...ok, criteria: [{ id: "c1", check: "byte_length", min: 5, max: 2 }] })).toEqual([{ pointer: "/criteria/0/min", message: "min (5) is greater than max (2); no value could pass" }]);
    expect(refused({ ...ok, criteria: [{ id: "c1", check: "statement" }] })).toContainEqual({ pointer: "/criteria/0", message: 'is missing its required field "requirement"' });
    expect(refused({ ...ok, criteria: [{ id: "c1", check: "claims_consistent", claims: { colour: "red" } }] })).toContainEqual({ pointer: "/criteria/0/claims/colour", message: "is not a field here (additionalProperties is false)" });
    expect(refused({ ...ok, criteria: [{ id: "c1", check: "x402_valid", artifact: "invoice" }] })[0].pointer).toBe("/criteria/0/artifact");
  });

  it("ids unique; weights integers 0 to 1000; requirement text", () => {
    expect(refused({ ...ok, criteria: [{ id: "a", check: "is_json" }, { id: "a", check: "is_json" }] })).toEqual([{ pointer: "/criteria/1/id", message: "repeats the id of /criteria/0; ids must be unique" }]);
    expect(refused({ ...ok, criteria: [{ id: "a", check: "is_json", weight: 0.5 }] })).toContainEqual({ pointer: "/criteria/0/weight", message: "must be integer" });
    expect(refused({ ...ok, criteria: [{ id: "a", check: "is_json", weight: 1001 }] })[0].pointer).toBe("/criteria/0/weight");
    expect(refused({ ...ok, criteria: [{ id: "a b", check: "is_json" }] })[0].pointer).toBe("/criteria/0/id");
    expect(prepareRequest({ ...ok, criteria: [{ id: "a", check: "is_json" }] }).criteria[0].weight).toBe(1);
  });

  it("paths must parse", () => {
    expect(refused({ ...ok, criteria: [{ id: "a", check: "json_path_present", path: "a..b" }] })[0].pointer).toBe("/criteria/0/path");
    expect(refused({ ...ok, criteria: [{ id: "a", check: "json_path_present", path: "a." }] })[0].pointer).toBe("/criteria/0/path");
    expect(refused({ ...ok, criteria: [{ id: "a", check: "json_path_present", path: "/a~2" }] })[0].pointer).toBe("/criteria/0/path");
    expect(refused({ ...ok, criteria: [{ id: "a", check: "claims_consistent", claims: { jsonPaths: { "x[": 1 } } }] })[0].pointer).toBe("/criteria/0/claims/jsonPaths/x[");
  });

  it("json_schema: 2020-12, compiles, no remote $ref, no regular expressions", () => {
    expect(refused({ ...ok, criteria: [{ id: "a", check: "json_schema", schema: { type: "strin" } }] })[0]).toMatchObject({ pointer: "/criteria/0/schema" });
    expect(refused({ ...ok, criteria: [{ id: "a", check: "json_schema", schema: { $ref: "https://schemas.example/x.json" } }] })[0].message).toContain("does not compile");
    expect(refused({ ...ok, criteria: [{ id: "a", check: "json_schema", schema: { type: "string", pattern: "^(a+)+$" } }] })[0].message).toContain("regular-expression keywords");
    expect(refused({ ...ok, criteria: [{ id: "a", check: "json_schema", schema: { patternProperties: { "^x": {} } } }] })[0].message).toContain("regular-expression keywords");
    expect(refused({ ...ok, criteria: [{ id: "a", check: "json_schema", schema: { $schema: "http://json-schema.org/draft-07/schema#" } }] })[0].pointer).toBe("/criteria/0/schema/$schema");
    expect(refused({ ...ok, criteria: [{ id: "a", check: "json_schema", schema: { format: "colour" } }] })[0].message).toContain("unknown format");
    // two criteria may both name the same $id: each compiles alone
    const s = { $id: "https://buyer.example/s", type: "object" };
    expect(prepareRequest({ ...ok, criteria: [{ id: "a", check: "json_schema", schema: s }, { id: "b", check: "json_schema", schema: s }] }).criteria).toHaveLength(2);
  });

  it("names every problem at once, each with its pointer", () => {
    const d = refused({ deliverable: { kind: "text", value: 1 }, criteria: [{ id: "a", check: "nope" }, { id: "b", check: "contains" }], grading: { scale: "STARS" }, jobRef: "" });
    expect(d.map((x) => x.pointer)).toEqual(["/deliverable/value", "/criteria/0/check", "/criteria/1", "/grading/scale", "/jobRef"]);
  });
});
