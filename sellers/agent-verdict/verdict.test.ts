/**
 * Grading scales with their withheld rule, the verdict rules, the envelope against the published
 * output schema, the roots, and the signature block unsigned and signed.
 */
import { generateKeyPairSync } from "node:crypto";
import Ajv2020 from "ajv/dist/2020";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "@/lib/badges/canonical-json";
import { sha256Hex } from "./digest";
import { countResults, gradeOf, verdictOf } from "./grade";
import { EXAMPLE_REQUEST, OUTPUT_SCHEMA } from "./product";
import { prepareRequest } from "./request";
import { receiptSigner, verifyStatement } from "./signer";
import { judge, outputRootOf, PROGRAM_ROOT, REGISTRY_ROOT, UNSIGNED } from "./verdict";

type R = "PASS" | "FAIL" | "INCONCLUSIVE";
const rows = (...r: Array<[R, number]>) => countResults(r.map(([result, weight]) => ({ result, weight })));

describe("verdict rules", () => {
  it("ACCEPT when every criterion passes, REJECT on any FAIL, NO_VERDICT when none fails and some are inconclusive", () => {
    expect(verdictOf(rows(["PASS", 1], ["PASS", 5]))).toBe("ACCEPT");
    expect(verdictOf(rows(["PASS", 9], ["FAIL", 1]))).toBe("REJECT");
    expect(verdictOf(rows(["FAIL", 1], ["INCONCLUSIVE", 1]))).toBe("REJECT");
    expect(verdictOf(rows(["PASS", 1], ["INCONCLUSIVE", 1]))).toBe("NO_VERDICT");
    expect(verdictOf(rows(["INCONCLUSIVE", 1]))).toBe("NO_VERDICT");
    // weight does not enter the verdict: a weight-0 failure still rejects
    expect(verdictOf(rows(["PASS", 10], ["FAIL", 0]))).toBe("REJECT");
  });

  it("through the whole program", () => {
    const base = { deliverable: { kind: "text", value: "done" } };
    const v = (criteria: unknown[]) => judge(prepareRequest({ ...base, criteria })).verdict;
    expect(v([{ id: "a", check: "contains", value: "done" }])).toBe("ACCEPT");
    expect(v([{ id: "a", check: "contains", value: "done" }, { id: "b", check: "is_json" }])).toBe("REJECT");
    expect(v([{ id: "a", check: "contains", value: "done" }, { id: "b", check: "statement", requirement: "well written" }])).toBe("NO_VERDICT");
  });
});

describe("counts", () => {
  it("by result and by weight", () => {
    expect(rows(["PASS", 3], ["FAIL", 2], ["INCONCLUSIVE", 1], ["PASS", 0])).toEqual({ total: 4, pass: 2, fail: 1, inconclusive: 1, weight: { total: 6, pass: 3, fail: 2, inconclusive: 1 } });
  });
});

describe("grading scales", () => {
  it("PASS_FAIL: PASS only when no weighted criterion failed", () => {
    expect(gradeOf("PASS_FAIL", rows(["PASS", 3], ["PASS", 1]))).toMatchObject({ value: "PASS", scorePercentOfDecidedWeight: 100, withheldReason: null });
    expect(gradeOf("PASS_FAIL", rows(["PASS", 99], ["FAIL", 1]))).toMatchObject({ value: "FAIL", scorePercentOfDecidedWeight: 99 });
    expect(gradeOf("PASS_FAIL", rows(["PASS", 4], ["FAIL", 0]))).toMatchObject({ value: "PASS" });
  });

  it("A_F: bands at 90, 80, 70, 60, exactly at the edges", () => {
    const at = (pass: number, fail: number) => gradeOf("A_F", rows(["PASS", pass], ["FAIL", fail])).value;
    expect(at(9, 1)).toBe("A");
    expect(at(89, 11)).toBe("B");
    expect(at(8, 2)).toBe("B");
    expect(at(79, 21)).toBe("C");
    expect(at(7, 3)).toBe("C");
    expect(at(6, 4)).toBe("D");
    expect(at(59, 41)).toBe("F");
    expect(at(0, 1)).toBe("F");
    // 2 of 3 is 66.67%: D, and the percent is rounded half up to two decimals
    expect(gradeOf("A_F", rows(["PASS", 2], ["FAIL", 1]))).toMatchObject({ value: "D", scorePercentOfDecidedWeight: 66.67 });
  });

  it("SCORE_0_100: the percent of decided weight, rounded half up", () => {
    expect(gradeOf("SCORE_0_100", rows(["PASS", 2], ["FAIL", 1])).value).toBe(67);
    expect(gradeOf("SCORE_0_100", rows(["PASS", 1], ["FAIL", 7])).value).toBe(13); // 12.5 → 13
    expect(gradeOf("SCORE_0_100", rows(["PASS", 1], ["FAIL", 0])).value).toBe(100);
    expect(gradeOf("SCORE_0_100", rows(["FAIL", 5])).value).toBe(0);
  });

  it("inconclusive weight is left out of the score", () => {
    // 3 passed of 4 decided (1 inconclusive of 5 total = 20%): 75
    expect(gradeOf("SCORE_0_100", rows(["PASS", 3], ["FAIL", 1], ["INCONCLUSIVE", 1]))).toMatchObject({ value: 75, withheldReason: null });
  });

  for (const scale of ["PASS_FAIL", "A_F", "SCORE_0_100"] as const) {
    it(`${scale}: withheld when more than 25% of the weight is inconclusive, or there is no weight`, () => {
      expect(gradeOf(scale, rows(["PASS", 3], ["INCONCLUSIVE", 1]))).toMatchObject({ withheldReason: null }); // exactly 25%
      expect(gradeOf(scale, rows(["PASS", 3], ["INCONCLUSIVE", 1])).value).not.toBeNull();
      const over = gradeOf(scale, rows(["PASS", 74], ["INCONCLUSIVE", 26]));
      expect(over).toMatchObject({ value: null, withheldReason: "TOO_MUCH_INCONCLUSIVE_WEIGHT", scorePercentOfDecidedWeight: 100 });
      expect(gradeOf(scale, rows(["INCONCLUSIVE", 1]))).toMatchObject({ value: null, withheldReason: "TOO_MUCH_INCONCLUSIVE_WEIGHT", scorePercentOfDecidedWeight: null });
      expect(gradeOf(scale, rows(["PASS", 0], ["FAIL", 0]))).toMatchObject({ value: null, withheldReason: "NO_WEIGHT" });
      // weight, not count: one heavy statement withholds, many light ones do not
      expect(gradeOf(scale, rows(["PASS", 1], ["PASS", 1], ["PASS", 1], ["INCONCLUSIVE", 2])).withheldReason).toBe("TOO_MUCH_INCONCLUSIVE_WEIGHT");
      expect(gradeOf(scale, rows(["PASS", 10], ["INCONCLUSIVE", 1], ["INCONCLUSIVE", 1])).withheldReason).toBeNull();
      expect(over.rule).toContain("more than 25%");
    });
  }

  it("default scale is PASS_FAIL; the request's scale is used", () => {
    const req = { deliverable: { kind: "text", value: "x" }, criteria: [{ id: "a", check: "contains", value: "x" }] };
    expect(judge(prepareRequest(req)).grade).toMatchObject({ scale: "PASS_FAIL", value: "PASS" });
    expect(judge(prepareRequest({ ...req, grading: { scale: "SCORE_0_100" } })).grade).toMatchObject({ scale: "SCORE_0_100", value: 100 });
    expect(judge(prepareRequest({ ...req, grading: {} })).grade.scale).toBe("PASS_FAIL");
  });
});

const ajv = new Ajv2020({ strict: false });
const validateOutput = ajv.compile(OUTPUT_SCHEMA);

describe("the envelope", () => {
  it("the published example: ACCEPT, grade A, valid against the published output schema", () => {
    const out = judge(prepareRequest(structuredClone(EXAMPLE_REQUEST)));
    expect(validateOutput(out)).toBe(true);
    expect(out).toMatchObject({ verdict: "ACCEPT", grade: { scale: "A_F", value: "A" }, counts: { total: 2, pass: 2 } });
    expect(out.criteria.map((c) => [c.id, c.requirement, c.result, c.points])).toEqual([
      ["r1", "Status is done", "PASS", 1],
      ["r2", "No failing tests", "PASS", 1],
    ]);
  });

  it("per criterion in the request's order, with points earned", () => {
    const out = judge(
      prepareRequest({
        deliverable: { kind: "text", value: "abc" },
        criteria: [
          { id: "z", check: "contains", value: "a", weight: 3 },
          { id: "a", check: "contains", value: "q", weight: 2 },
          { id: "m", check: "statement", requirement: "good", weight: 0 },
        ],
      }),
    );
    expect(out.criteria.map((c) => [c.index, c.id, c.result, c.weight, c.points])).toEqual([
      [0, "z", "PASS", 3, 3],
      [1, "a", "FAIL", 2, 0],
      [2, "m", "INCONCLUSIVE", 0, 0],
    ]);
  });

  it("deliverable digest and jobRef hash", () => {
    const out = judge(prepareRequest({ deliverable: { kind: "bytes", value: "AAEC" }, criteria: [{ id: "a", check: "is_json" }], jobRef: "erc8183:job/42" }));
    expect(out.deliverableDigest).toEqual({
      kind: "bytes",
      byteLength: 3,
      sha256: sha256Hex(Buffer.from([0, 1, 2])),
      keccak256: "0x" + "f84a97f1f0a956e738abd85c2e0a5026f8874e3ec09c8f012159dfeeaab2b156",
      isJson: false,
    });
    expect(out.jobRefSha256).toBe(sha256Hex("erc8183:job/42"));
    expect(JSON.stringify(out)).not.toContain("erc8183:job/42");
  });

  it("roots: inputRoot is hashCanonical of the exact request; outputRoot of the output without provenance and signature", () => {
    const req = structuredClone(EXAMPLE_REQUEST);
    const out = judge(prepareRequest(req));
    expect(out.provenance).toMatchObject({ basis: "BUYER_SUPPLIED_INPUT_AND_ARBITER_AUTHORED_CODE", thirdPartyData: false, networkAccess: false });
    expect(out.provenance.inputRoot).toBe(sha256Hex(canonicalJson(req)));
    // key order does not change the root; a byte of a string does
    const reordered = { grading: req.grading, criteria: req.criteria, deliverable: req.deliverable };
    expect(judge(prepareRequest(reordered)).provenance.inputRoot).toBe(out.provenance.inputRoot);
    const changed = structuredClone(req) as { criteria: Array<{ requirement: string }> };
    changed.criteria[0].requirement = "Status is done ";
    expect(judge(prepareRequest(changed)).provenance.inputRoot).not.toBe(out.provenance.inputRoot);
    expect(out.provenance.outputRoot).toBe(outputRootOf(out as unknown as Record<string, unknown>));
    expect(out.provenance.programRoot).toBe(PROGRAM_ROOT);
    expect(out.program).toEqual({ id: "AGENT_VERDICT", version: "1.0.0", programRoot: PROGRAM_ROOT, registryRoot: REGISTRY_ROOT });
  });

  it("is deterministic: the same request gives the same bytes", () => {
    expect(canonicalJson(judge(prepareRequest(structuredClone(EXAMPLE_REQUEST))))).toBe(canonicalJson(judge(prepareRequest(structuredClone(EXAMPLE_REQUEST)))));
  });

  it("the program root is pinned: changing any rule, band or reason is a new programRoot (and should be a new version)", () => {
    expect(REGISTRY_ROOT).toBe("3380f800780cda6cfbf5ae447c2a5d83aa1fc42ffc13720da680d6cbe04991fa");
    expect(PROGRAM_ROOT).toBe("a78f6c07fc358d20caddd91547df0e2bed17629f5f0cc50fda442d63afa5203d");
  });
});

describe("signature block", () => {
  it("unsigned until a receipt key is configured, still carrying every root", () => {
    const out = judge(prepareRequest(structuredClone(EXAMPLE_REQUEST)));
    expect(out.signature).toMatchObject({ state: UNSIGNED, statementKind: "AGENT_VERDICT_STATEMENT_V1", keyRef: null, algorithm: null, signature: null });
    expect(out.signature.state).toBe("UNSIGNED_SIGNER_NOT_COMMISSIONED");
    expect(out.signature.verify.statement).toEqual({
      statementKind: "AGENT_VERDICT_STATEMENT_V1",
      productId: "AGENT_VERDICT",
      productVersion: "1.0.0",
      programRoot: PROGRAM_ROOT,
      inputRoot: out.provenance.inputRoot,
      outputRoot: out.provenance.outputRoot,
      verdict: "ACCEPT",
    });
    expect(out.signature.verdictRoot).toBe(sha256Hex(canonicalJson(out.signature.verify.statement)));
  });

  it("signed with Ed25519 once a key is configured, verifiable with the published key alone", () => {
    const { privateKey } = generateKeyPairSync("ed25519");
    const signer = receiptSigner(privateKey);
    const out = judge(prepareRequest(structuredClone(EXAMPLE_REQUEST)), { signer, keysUrl: "http://127.0.0.1:1/.well-known/agent-verdict-keys.json" });
    expect(validateOutput(out)).toBe(true);
    expect(out.signature).toMatchObject({ state: "SIGNED", algorithm: "Ed25519", keyRef: signer.keyRef, verify: { keys: "http://127.0.0.1:1/.well-known/agent-verdict-keys.json" } });
    expect(signer.keyRef).toBe(`ed25519:${sha256Hex(Buffer.from(signer.published.publicKey, "base64url"))}`);
    // A third party rebuilds the statement from the roots it recomputes, then checks the signature.
    const statement = { ...out.signature.verify.statement, outputRoot: outputRootOf(out as unknown as Record<string, unknown>), inputRoot: sha256Hex(canonicalJson(EXAMPLE_REQUEST)) };
    expect(verifyStatement(statement, out.signature.signature!, signer.published)).toBe(true);
    expect(verifyStatement({ ...statement, verdict: "REJECT" }, out.signature.signature!, signer.published)).toBe(false);
    const other = receiptSigner(generateKeyPairSync("ed25519").privateKey);
    expect(verifyStatement(statement, out.signature.signature!, other.published)).toBe(false);
  });

  it("refuses a key that is not Ed25519", () => {
    expect(() => receiptSigner(generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey)).toThrow(/Ed25519/);
  });
});
