/**
 * Every check of the criteria menu (docs/AGENT-VERDICT.md "Criteria menu") with passing and failing
 * deliverables, through the same path a paid request takes: prepareRequest, then judge.
 */
import { createHash } from "node:crypto";
import { keccak256, toBytes } from "viem";
import { describe, expect, it } from "vitest";
import { CHECKS, lineCount } from "./checks";
import { prepareRequest } from "./request";
import { judge } from "./verdict";

type Deliverable = { kind: "text" | "json" | "bytes"; value: unknown };
const text = (value: string): Deliverable => ({ kind: "text", value });
const json = (value: unknown): Deliverable => ({ kind: "json", value });
const bytes = (b: Uint8Array | string): Deliverable => ({ kind: "bytes", value: Buffer.from(b).toString("base64") });

/** Every result each check gave in this file: each must be seen passing and failing (statement: only INCONCLUSIVE). */
const seen = new Map<string, Set<string>>();

function one(deliverable: Deliverable, criterion: Record<string, unknown>) {
  const out = judge(prepareRequest({ deliverable, criteria: [{ id: "c1", ...criterion }] }));
  const c = out.criteria[0];
  const results = seen.get(String(criterion.check)) ?? new Set<string>();
  seen.set(String(criterion.check), results.add(c.result));
  return { result: c.result, reason: c.evidence.reason, detail: c.evidence.detail };
}

const covered = new Set<string>();
function check(name: string, fn: () => void) {
  covered.add(name);
  it(name, fn);
}

const REPORT = { status: "done", tests: { passed: 12, failed: 0, total: 12 }, files: ["a.ts", "b.ts"], items: [{ sku: "x", n: 1 }, { sku: "y", n: 1 }], score: 0.8 };

describe("the criteria menu", () => {
  check("sha256_equals", () => {
    const digest = createHash("sha256").update("hello").digest("hex");
    expect(one(text("hello"), { check: "sha256_equals", value: digest })).toMatchObject({ result: "PASS", reason: "DIGEST_MATCH" });
    expect(one(text("hello"), { check: "sha256_equals", value: `0x${digest.toUpperCase()}` })).toMatchObject({ result: "PASS" });
    expect(one(text("hello!"), { check: "sha256_equals", value: digest })).toMatchObject({ result: "FAIL", reason: "DIGEST_MISMATCH" });
    // a json deliverable's bytes are its canonical JSON
    const canon = createHash("sha256").update('{"a":1,"b":[true,null]}').digest("hex");
    expect(one(json({ b: [true, null], a: 1 }), { check: "sha256_equals", value: canon })).toMatchObject({ result: "PASS" });
  });

  check("keccak256_equals", () => {
    const raw = new Uint8Array([0, 1, 2, 255]);
    const k = keccak256(raw);
    expect(one(bytes(raw), { check: "keccak256_equals", value: k })).toMatchObject({ result: "PASS", reason: "DIGEST_MATCH" });
    expect(one(bytes(raw), { check: "keccak256_equals", value: k.slice(2) })).toMatchObject({ result: "PASS" });
    expect(one(bytes(new Uint8Array([0, 1, 2])), { check: "keccak256_equals", value: k })).toMatchObject({ result: "FAIL", reason: "DIGEST_MISMATCH" });
    expect(one(text("abc"), { check: "keccak256_equals", value: keccak256(toBytes("abc")) })).toMatchObject({ result: "PASS" });
  });

  check("byte_length", () => {
    // "é" is two bytes in UTF-8
    expect(one(text("héllo"), { check: "byte_length", equals: 6 })).toMatchObject({ result: "PASS", reason: "LENGTH_IN_RANGE", detail: "byteLength 6; required equals 6" });
    expect(one(text("héllo"), { check: "byte_length", equals: 5 })).toMatchObject({ result: "FAIL", reason: "LENGTH_NOT_EQUAL" });
    expect(one(text("héllo"), { check: "byte_length", min: 7 })).toMatchObject({ result: "FAIL", reason: "LENGTH_BELOW_MIN" });
    expect(one(text("héllo"), { check: "byte_length", max: 5 })).toMatchObject({ result: "FAIL", reason: "LENGTH_ABOVE_MAX" });
    expect(one(bytes(new Uint8Array(10)), { check: "byte_length", min: 10, max: 10 })).toMatchObject({ result: "PASS" });
  });

  check("char_length", () => {
    // one astral code point (two UTF-16 units, four bytes) counts once
    expect(one(text("a😀b"), { check: "char_length", equals: 3 })).toMatchObject({ result: "PASS", reason: "LENGTH_IN_RANGE" });
    expect(one(text("a😀b"), { check: "char_length", max: 2 })).toMatchObject({ result: "FAIL", reason: "LENGTH_ABOVE_MAX" });
    expect(one(text(""), { check: "char_length", min: 1 })).toMatchObject({ result: "FAIL", reason: "LENGTH_BELOW_MIN" });
    expect(one(bytes(new Uint8Array([0xff, 0xfe])), { check: "char_length", min: 0 })).toMatchObject({ result: "FAIL", reason: "NOT_TEXT" });
  });

  check("line_count", () => {
    expect(lineCount("")).toBe(0);
    expect(lineCount("a")).toBe(1);
    expect(lineCount("a\n")).toBe(1);
    expect(lineCount("a\nb")).toBe(2);
    expect(lineCount("a\r\nb\rc\n\n")).toBe(4);
    expect(one(text("one\ntwo\nthree\n"), { check: "line_count", equals: 3 })).toMatchObject({ result: "PASS", reason: "LENGTH_IN_RANGE" });
    expect(one(text("one\ntwo\nthree\n"), { check: "line_count", max: 2 })).toMatchObject({ result: "FAIL", reason: "LENGTH_ABOVE_MAX" });
    expect(one(bytes(new Uint8Array([0xc3])), { check: "line_count", min: 0 })).toMatchObject({ result: "FAIL", reason: "NOT_TEXT" });
  });

  check("contains", () => {
    expect(one(text("the quick brown fox"), { check: "contains", value: "brown" })).toMatchObject({ result: "PASS", reason: "FOUND", detail: "first occurrence at byte 10" });
    expect(one(text("the quick brown fox"), { check: "contains", value: "Brown" })).toMatchObject({ result: "FAIL", reason: "NOT_FOUND" });
    expect(one(bytes(Buffer.concat([Buffer.from([0xff]), Buffer.from("héllo")])), { check: "contains", value: "héllo" })).toMatchObject({ result: "PASS" });
    expect(one(json({ a: "x" }), { check: "contains", value: '{"a":"x"}' })).toMatchObject({ result: "PASS" });
  });

  check("not_contains", () => {
    expect(one(text("all tests pass"), { check: "not_contains", value: "TODO" })).toMatchObject({ result: "PASS", reason: "ABSENT" });
    expect(one(text("done // TODO: tests"), { check: "not_contains", value: "TODO" })).toMatchObject({ result: "FAIL", reason: "PRESENT", detail: "first occurrence at byte 8" });
  });

  check("starts_with", () => {
    expect(one(text("# Report\nbody"), { check: "starts_with", value: "# Report" })).toMatchObject({ result: "PASS", reason: "PREFIX_MATCH" });
    expect(one(text("Report"), { check: "starts_with", value: "# Report" })).toMatchObject({ result: "FAIL", reason: "PREFIX_MISMATCH" });
    expect(one(text("ab"), { check: "starts_with", value: "abc" })).toMatchObject({ result: "FAIL", reason: "PREFIX_MISMATCH" });
  });

  check("ends_with", () => {
    expect(one(text("body\n-- end"), { check: "ends_with", value: "-- end" })).toMatchObject({ result: "PASS", reason: "SUFFIX_MATCH" });
    expect(one(text("body\n-- end\n"), { check: "ends_with", value: "-- end" })).toMatchObject({ result: "FAIL", reason: "SUFFIX_MISMATCH" });
  });

  check("is_json", () => {
    expect(one(text(' {"a": [1, 2]} '), { check: "is_json" })).toMatchObject({ result: "PASS", reason: "VALID_JSON", detail: "top-level object" });
    expect(one(json([1]), { check: "is_json" })).toMatchObject({ result: "PASS" });
    expect(one(bytes('"s"'), { check: "is_json" })).toMatchObject({ result: "PASS", detail: "top-level string" });
    expect(one(text("{a: 1}"), { check: "is_json" })).toMatchObject({ result: "FAIL", reason: "NOT_JSON" });
    expect(one(bytes(new Uint8Array([0x7b, 0xff, 0x7d])), { check: "is_json" })).toMatchObject({ result: "FAIL", reason: "NOT_JSON" });
  });

  check("json_schema", () => {
    const schema = { type: "object", required: ["status", "tests"], properties: { status: { enum: ["done"] }, tests: { type: "object", properties: { failed: { type: "integer", maximum: 0 } } } } };
    expect(one(json(REPORT), { check: "json_schema", schema })).toMatchObject({ result: "PASS", reason: "SCHEMA_VALID" });
    const bad = one(json({ ...REPORT, tests: { failed: 2 } }), { check: "json_schema", schema });
    expect(bad).toMatchObject({ result: "FAIL", reason: "SCHEMA_INVALID" });
    expect(bad.detail).toBe('failed keyword "maximum" at schema location #/properties/tests/properties/failed/maximum');
    // at a path, with formats checked
    expect(one(json({ meta: { at: "2025-01-02T03:04:05Z" } }), { check: "json_schema", path: "meta.at", schema: { type: "string", format: "date-time" } })).toMatchObject({ result: "PASS" });
    expect(one(json({ meta: { at: "yesterday" } }), { check: "json_schema", path: "meta.at", schema: { type: "string", format: "date-time" } })).toMatchObject({ result: "FAIL", reason: "SCHEMA_INVALID" });
    expect(one(json({}), { check: "json_schema", path: "meta", schema: true })).toMatchObject({ result: "FAIL", reason: "PATH_NOT_FOUND" });
    expect(one(text("not json"), { check: "json_schema", schema: true })).toMatchObject({ result: "FAIL", reason: "NOT_JSON" });
  });

  check("json_path_equals", () => {
    expect(one(json(REPORT), { check: "json_path_equals", path: "status", value: "done" })).toMatchObject({ result: "PASS", reason: "VALUE_EQUAL" });
    expect(one(json(REPORT), { check: "json_path_equals", path: "/tests", value: { total: 12, failed: 0, passed: 12 } })).toMatchObject({ result: "PASS" });
    expect(one(json(REPORT), { check: "json_path_equals", path: "files[1]", value: "b.ts" })).toMatchObject({ result: "PASS" });
    expect(one(json(REPORT), { check: "json_path_equals", path: "$.items.0.sku", value: "x" })).toMatchObject({ result: "PASS" });
    expect(one(json(REPORT), { check: "json_path_equals", path: "status", value: "Done" })).toMatchObject({ result: "FAIL", reason: "VALUE_NOT_EQUAL", detail: "found a string" });
    expect(one(json(REPORT), { check: "json_path_equals", path: "tests.passed", value: "12" })).toMatchObject({ result: "FAIL", reason: "VALUE_NOT_EQUAL" });
    expect(one(json(REPORT), { check: "json_path_equals", path: "missing", value: 1 })).toMatchObject({ result: "FAIL", reason: "PATH_NOT_FOUND" });
    expect(one(text('{"status":"done"}'), { check: "json_path_equals", path: "status", value: "done" })).toMatchObject({ result: "PASS" });
    expect(one(text("status: done"), { check: "json_path_equals", path: "status", value: "done" })).toMatchObject({ result: "FAIL", reason: "NOT_JSON" });
  });

  check("json_path_present", () => {
    expect(one(json({ a: null }), { check: "json_path_present", path: "a" })).toMatchObject({ result: "PASS", reason: "PATH_PRESENT", detail: "found a null" });
    expect(one(json({ "a.b": 1 }), { check: "json_path_present", path: "/a.b" })).toMatchObject({ result: "PASS" });
    expect(one(json({ "a.b": 1 }), { check: "json_path_present", path: "a.b" })).toMatchObject({ result: "FAIL", reason: "PATH_NOT_FOUND" });
    expect(one(json([1, 2]), { check: "json_path_present", path: "[2]" })).toMatchObject({ result: "FAIL", reason: "PATH_NOT_FOUND" });
    // inherited names are not present
    expect(one(json({}), { check: "json_path_present", path: "constructor" })).toMatchObject({ result: "FAIL", reason: "PATH_NOT_FOUND" });
  });

  check("numeric_range", () => {
    expect(one(json(REPORT), { check: "numeric_range", path: "tests.failed", max: 0 })).toMatchObject({ result: "PASS", reason: "IN_RANGE" });
    expect(one(json(REPORT), { check: "numeric_range", path: "score", min: 0.8, max: 1 })).toMatchObject({ result: "PASS" });
    expect(one(json(REPORT), { check: "numeric_range", path: "score", min: 0.9 })).toMatchObject({ result: "FAIL", reason: "BELOW_MIN" });
    expect(one(json(REPORT), { check: "numeric_range", path: "tests.passed", max: 10 })).toMatchObject({ result: "FAIL", reason: "ABOVE_MAX" });
    expect(one(json({ n: "5" }), { check: "numeric_range", path: "n", min: 0 })).toMatchObject({ result: "FAIL", reason: "NOT_A_NUMBER", detail: "found a string" });
    expect(one(text("42"), { check: "numeric_range", min: 42, max: 42 })).toMatchObject({ result: "PASS" });
  });

  check("numeric_close", () => {
    expect(one(json({ pi: 3.14159 }), { check: "numeric_close", path: "pi", value: 3.1416, tolerance: 0.001 })).toMatchObject({ result: "PASS", reason: "WITHIN_TOLERANCE" });
    expect(one(json({ pi: 3.14159 }), { check: "numeric_close", path: "pi", value: 3.1416 })).toMatchObject({ result: "FAIL", reason: "OUTSIDE_TOLERANCE" });
    expect(one(json({ v: 1010 }), { check: "numeric_close", path: "v", value: 1000, relativeTolerance: 0.01 })).toMatchObject({ result: "PASS" });
    expect(one(json({ v: 1011 }), { check: "numeric_close", path: "v", value: 1000, relativeTolerance: 0.01 })).toMatchObject({ result: "FAIL" });
    expect(one(json({ v: 0.1 + 0.2 }), { check: "numeric_close", path: "v", value: 0.3 })).toMatchObject({ result: "PASS" });
    expect(one(json({ v: [1] }), { check: "numeric_close", path: "v", value: 1 })).toMatchObject({ result: "FAIL", reason: "NOT_A_NUMBER" });
  });

  check("array_length", () => {
    expect(one(json(REPORT), { check: "array_length", path: "files", equals: 2 })).toMatchObject({ result: "PASS", reason: "LENGTH_IN_RANGE" });
    expect(one(json(REPORT), { check: "array_length", path: "files", min: 3 })).toMatchObject({ result: "FAIL", reason: "LENGTH_BELOW_MIN" });
    expect(one(json([]), { check: "array_length", max: 0 })).toMatchObject({ result: "PASS" });
    expect(one(json(REPORT), { check: "array_length", path: "status", min: 0 })).toMatchObject({ result: "FAIL", reason: "NOT_AN_ARRAY" });
  });

  check("unique_values", () => {
    expect(one(json(REPORT), { check: "unique_values", path: "files" })).toMatchObject({ result: "PASS", reason: "ALL_UNIQUE", detail: "2 elements" });
    expect(one(json(REPORT), { check: "unique_values", path: "items", key: "sku" })).toMatchObject({ result: "PASS" });
    expect(one(json(REPORT), { check: "unique_values", path: "items", key: "n" })).toMatchObject({ result: "FAIL", reason: "DUPLICATE_FOUND", detail: "element 1 repeats element 0" });
    // JSON equality, not identity: key order does not make two objects differ
    expect(one(json([{ a: 1, b: 2 }, { b: 2, a: 1 }]), { check: "unique_values" })).toMatchObject({ result: "FAIL", reason: "DUPLICATE_FOUND" });
    expect(one(json(REPORT), { check: "unique_values", path: "items", key: "price" })).toMatchObject({ result: "FAIL", reason: "ELEMENT_KEY_MISSING" });
    expect(one(json(REPORT), { check: "unique_values", path: "tests" })).toMatchObject({ result: "FAIL", reason: "NOT_AN_ARRAY" });
  });

  check("x402_valid", () => {
    const requirement = { scheme: "exact", network: "eip155:8453", amount: "40000", asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", payTo: "0x63aA5960943865e7d57FDdF0D899eE36B6D2046E", maxTimeoutSeconds: 300, extra: { name: "USD Coin", version: "2" } };
    const challenge = { x402Version: 2, resource: { url: "https://seller.example/api", description: "d", mimeType: "application/json" }, accepts: [requirement] };
    expect(one(json(challenge), { check: "x402_valid" })).toMatchObject({ result: "PASS", reason: "X402_VALID", detail: "payment_required" });
    // the header form: base64 of the JSON, at a path
    const header = Buffer.from(JSON.stringify(challenge)).toString("base64");
    expect(one(json({ headers: { "payment-required": header } }), { check: "x402_valid", path: "/headers/payment-required" })).toMatchObject({ result: "PASS" });
    const decimal = one(json({ ...challenge, accepts: [{ ...requirement, amount: "0.04" }] }), { check: "x402_valid" });
    expect(decimal).toMatchObject({ result: "FAIL", reason: "X402_INVALID" });
    expect(decimal.detail).toContain("amount_not_integer at /accepts/0/amount");
    expect(one(json({ x402Version: 2, accepts: [] }), { check: "x402_valid" })).toMatchObject({ result: "FAIL", reason: "X402_INVALID" });
    expect(one(json(requirement), { check: "x402_valid", artifact: "payment_requirements" })).toMatchObject({ result: "PASS" });
    expect(one(json({ ...requirement, maxTimeoutSeconds: -1 }), { check: "x402_valid", artifact: "payment_requirements" })).toMatchObject({ result: "FAIL", reason: "X402_INVALID" });
    const payload = { x402Version: 2, accepted: requirement, payload: { signature: "0x00", authorization: {} } };
    expect(one(json(payload), { check: "x402_valid", artifact: "payment_payload" })).toMatchObject({ result: "PASS" });
    expect(one(json({ x402Version: 2, payload: {} }), { check: "x402_valid", artifact: "payment_payload" })).toMatchObject({ result: "FAIL", reason: "X402_INVALID" });
    expect(one(json({ h: "not base64!" }), { check: "x402_valid", path: "h" })).toMatchObject({ result: "FAIL", reason: "X402_INVALID" });
  });

  check("claims_consistent", () => {
    const body = "line one\nline two\n";
    const sha = createHash("sha256").update(body).digest("hex");
    const claims = { kind: "text", byteLength: 18, charLength: 18, lineCount: 2, sha256: sha, keccak256: keccak256(toBytes(body)), isJson: false };
    expect(one(text(body), { check: "claims_consistent", claims })).toMatchObject({ result: "PASS", reason: "CLAIMS_CONSISTENT", detail: "7 claims checked" });
    expect(one(text(body), { check: "claims_consistent", claims: { ...claims, lineCount: 3, isJson: true } })).toMatchObject({
      result: "FAIL",
      reason: "CLAIMS_INCONSISTENT",
      detail: "2 of 7 claims disagree: lineCount, isJson",
    });
    expect(one(json(REPORT), { check: "claims_consistent", claims: { jsonPaths: { "tests.passed": 12, "/tests/total": 12 } } })).toMatchObject({ result: "PASS" });
    expect(one(json(REPORT), { check: "claims_consistent", claims: { jsonPaths: { "tests.passed": 13 } } })).toMatchObject({ result: "FAIL", detail: "1 of 1 claims disagree: jsonPaths[0]" });
  });

  check("statement", () => {
    expect(one(text("anything"), { check: "statement", requirement: "The tone is friendly" })).toMatchObject({ result: "INCONCLUSIVE", reason: "STATEMENT_NOT_MACHINE_CHECKABLE" });
  });

  it("covers the whole menu, each check with a passing and a failing case (statement: always INCONCLUSIVE)", () => {
    expect([...covered].sort()).toEqual([...CHECKS].sort());
    for (const name of CHECKS) {
      const results = seen.get(name) ?? new Set();
      if (name === "statement") expect([...results], name).toEqual(["INCONCLUSIVE"]);
      else expect([results.has("PASS"), results.has("FAIL")], name).toEqual([true, true]);
    }
  });
});

describe("evidence", () => {
  it("names the fixed rule and the digest of the exact bytes judged, and never quotes the deliverable", () => {
    const secret = "SECRET-DELIVERABLE-CONTENT-7f3a";
    const out = judge(
      prepareRequest({
        deliverable: json({ token: secret, list: [secret, secret], n: 3 }),
        criteria: [
          { id: "a", check: "json_path_equals", path: "token", value: "other" },
          { id: "b", check: "unique_values", path: "list" },
          { id: "c", check: "json_schema", schema: { type: "object", additionalProperties: false, properties: { n: {} } } },
          { id: "d", check: "numeric_range", path: "n", max: 1 },
          { id: "e", check: "contains", value: "SECRET" },
        ],
      }),
    );
    const text = JSON.stringify(out);
    expect(text).not.toContain(secret);
    expect(text).not.toContain("token");
    for (const c of out.criteria) {
      expect(c.evidence.deliverableSha256).toBe(out.deliverableDigest.sha256);
      expect(c.evidence.rule.startsWith(`${c.check}: `)).toBe(true);
    }
  });
});
