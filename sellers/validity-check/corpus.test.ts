/**
 * validity-corpus/v1 (test/validity-corpus.json; docs/spec/products.md "Validity-check corpus pin"):
 * its pin reproduced from its canonical serialisation, its expected answers reproduced by the
 * independent reference (test/validity-reference.ts), and every case answered identically by the
 * service's own code path (answers.ts: the contract, then the computation).
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { canonicalJson } from "@/lib/badges/canonical-json";
import criteria from "./criteria.json";
import { describe, expect, it } from "vitest";
import { buildCorpus, CORPUS_FILE, corpusPin, type Corpus } from "@/test/validity-corpus";
import { checkPaid, deliveryFor, precheckAnswer, type Answer } from "./answers";

/** The pin of the corpus this build ships. Changing a case changes it: a new pin is a new corpus. */
const PINNED = "8685aa7fd614d9bcced80baa4376ea9b0766af0afa1bc2e9e3e20bd0b0900bb3";

const corpus = JSON.parse(readFileSync(CORPUS_FILE, "utf8")) as Corpus;

function serviceAnswer(endpoint: string, body: unknown, instantUnix: number): Answer {
  if (endpoint === "POST /precheck") {
    const { status, body: b } = precheckAnswer(body);
    return { status, body: b };
  }
  const op = endpoint === "POST /upto" ? "upto" : "validity";
  const checked = checkPaid(op, body);
  if ("refused" in checked) return { status: checked.refused.status, body: checked.refused.body };
  return { status: 200, body: { ...deliveryFor(op, checked.input, instantUnix) } };
}

describe("validity-corpus/v1", () => {
  it("its pin is the SHA-256 of its canonical serialisation, and the pinned one", () => {
    expect(corpus.id).toBe("validity-corpus/v1");
    expect(corpusPin(corpus)).toBe(corpus.sha256);
    expect(corpus.sha256).toBe(PINNED);
  });

  it("the pin moves when any case does", () => {
    const changed = structuredClone(corpus);
    (changed.cases[0].expected.body as { pointer: string }).pointer = "/x";
    expect(corpusPin(changed)).not.toBe(PINNED);
  });

  it("the seed's pin is none of the serialisations of what the seed publishes or of our corpus (docs/VALIDITY-CHECK.md \"The pin\")", () => {
    const seedPin = criteria.corpus.sha256;
    expect(seedPin).toBe("84517be97c1376a0bc7767a96e9d55acc6d6e640c0ee3cb9b817205da7706099");
    const sha = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");
    const { sha256: _seedPin, ...seedObject } = criteria.corpus;
    const { sha256: _ours, ...ours } = corpus;
    const sorted = JSON.parse(canonicalJson(ours)) as unknown;
    const candidates: Record<string, string> = {
      "the seed's corpus object without sha256, RFC 8785": canonicalJson(seedObject),
      "the same with a final newline": canonicalJson(seedObject) + "\n",
      "ours, RFC 8785": canonicalJson(ours),
      "ours, insertion order": JSON.stringify(ours),
      "ours, two-space indent": JSON.stringify(ours, null, 2),
      "ours, two-space indent, final newline": JSON.stringify(ours, null, 2) + "\n",
      "ours, sorted keys, two-space indent": JSON.stringify(sorted, null, 2),
      "ours, sorted keys, two-space indent, final newline": JSON.stringify(sorted, null, 2) + "\n",
      "the corpus file's bytes": readFileSync(CORPUS_FILE, "utf8"),
    };
    const hashes = Object.fromEntries(Object.entries(candidates).map(([k, v]) => [k, sha(v)]));
    for (const [k, h] of Object.entries(hashes)) expect(h, k).not.toBe(seedPin);
    // Ours is reproduced under RFC 8785 only.
    expect(Object.entries(hashes).filter(([, h]) => h === PINNED).map(([k]) => k)).toEqual(["ours, RFC 8785"]);
  });

  it("the reference implementation reproduces the file, expected answers and all", () => {
    expect(buildCorpus()).toEqual(corpus);
  });

  it("covers every refusal code of the malformed rule, every verdict on both rails, and every machinery status", () => {
    const bodies = corpus.cases.map((c) => c.expected.body);
    const refusals = new Set(bodies.map((b) => b.refusal).filter(Boolean));
    for (const code of ["challenge_required", "scheme_required", "scheme_not_upto", "network_required", "payto_required", "asset_required", "ceiling_required", "ceiling_malformed", "decimals_malformed", "machinery_flag_malformed", "payload_required", "rail_required", "rail_unsupported", "evaluation_at_malformed", "valid_before_required", "valid_before_malformed", "block_height_required", "block_height_malformed", "op_required", "op_unsupported"]) {
      expect(refusals.has(code), code).toBe(true);
    }
    const verdicts = new Set(bodies.filter((b) => b.verdict).map((b) => `${b.rail} ${b.verdict}`));
    expect([...verdicts].sort()).toEqual(["evm OK", "evm STALE", "evm TIGHT", "svm OK", "svm STALE", "svm TIGHT"]);
    const statuses = new Set(bodies.map((b) => b.machinery_status).filter(Boolean));
    expect(statuses.size).toBe(5);
  });

  it.each(corpus.cases.map((c) => [c.id, c] as const))("%s: the service answers as the reference does", (_id, c) => {
    expect(serviceAnswer(c.endpoint, c.body, c.instant_unix)).toEqual(c.expected);
  });
});
