/** An endpoint's outcome from its evidence (docs/CANARY.md "Outcomes"), and the declared timeout read from a listing's text. */
import { describe, expect, it } from "vitest";
import { declaredTimeoutMs } from "./choose";
import { checkOutput, judge, verificationOf } from "./judge";

const settled = { id: "p", status: "settled", reason: null, transactionId: "0x1", chainAmount: "1000", chainTo: "0xpay", network: "eip155:31337", asset: "0xusdc", blockNumber: null, httpStatus: 200, latencyMs: 50, house: true };
const base = { row: settled, httpStatus: 200, quoted: { quotedAmount: "1000", quotedPayTo: "0xpay" }, schemaValid: true, ttlbMs: 50, slowMs: 30_000, replay: "refused" as const, relayError: null };

describe("judge", () => {
  it("passes a settled, delivered, valid, fast call whose replay was refused", () => {
    expect(judge(base)).toEqual({ outcome: "pass", reason: "pass" });
  });
  it.each([
    [{ schemaValid: false }, "degraded", "invalid_output"],
    [{ ttlbMs: 2000, slowMs: 1000 }, "degraded", "slow"],
    [{ row: { ...settled, chainAmount: "2000" } }, "degraded", "charged_other_amount"],
    [{ row: { ...settled, chainTo: "0xother" } }, "degraded", "paid_other_payto"],
    [{ httpStatus: 500 }, "broken", "charged_without_delivery"],
    [{ row: { ...settled, status: "failed", reason: "unproven", chainAmount: null, chainTo: null } }, "broken", "unproven"],
    [{ row: { ...settled, status: "failed", reason: "not_settled", chainAmount: null, chainTo: null } }, "broken", "not_settled"],
    [{ replay: "charged_twice" as const }, "broken", "charged_twice"],
    [{ httpStatus: 502, relayError: "seller_timeout", row: { ...settled, status: "failed", reason: "seller_timeout", chainAmount: null, chainTo: null } }, "broken", "timeout,not_settled"],
    [{ row: { ...settled, status: "unconfirmed", chainAmount: null, chainTo: null } }, null, "chain_unreadable"],
    [{ row: { ...settled, status: "rejected", reason: "payer_insufficient_funds" } }, null, "house_payer_insufficient_funds"],
    [{ row: null }, "broken", "unrecorded"],
  ])("case %#", (change, outcome, reason) => {
    expect(judge({ ...base, ...change } as Parameters<typeof judge>[0])).toEqual({ outcome, reason });
  });
});

describe("verificationOf", () => {
  it("verified only when every sample passed; degraded when any is degraded or broken; else unverified", () => {
    expect(verificationOf(["pass", "pass"])).toBe("verified");
    expect(verificationOf(["pass", "broken"])).toBe("degraded");
    expect(verificationOf(["degraded", null])).toBe("degraded");
    expect(verificationOf(["pass", null])).toBe("unverified");
    expect(verificationOf([])).toBe("unverified");
  });
});

describe("declaredTimeoutMs", () => {
  it("reads the longest duration the text states, capped at the relay's 30 s", () => {
    expect(declaredTimeoutMs(null)).toBe(30_000);
    expect(declaredTimeoutMs("Answers within 5 s.")).toBe(5000);
    expect(declaredTimeoutMs("Single lookups answer within 1 s (p99 400 ms); batches within 30 s.")).toBe(30_000);
    expect(declaredTimeoutMs("p99 800 ms, worst 2.5 seconds")).toBe(2500);
    expect(declaredTimeoutMs("up to 2 minutes")).toBe(30_000);
  });
});

describe("checkOutput", () => {
  const schema = { type: "object", properties: { n: { type: "integer" } }, required: ["n"] };
  it("validates JSON against the declared schema (2020-12) and names what is wrong", () => {
    expect(checkOutput(schema, Buffer.from('{"n":1}'), "application/json").valid).toBe(true);
    const bad = checkOutput(schema, Buffer.from('{"n":"x"}'), "application/json");
    expect(bad.valid).toBe(false);
    expect(bad.errors).toEqual([{ instancePath: "/n", keyword: "type", message: "must be integer" }]);
    expect(checkOutput(schema, Buffer.from("not json"), "application/json")).toMatchObject({ valid: false, errors: [{ message: "the body is not JSON" }] });
    expect(checkOutput(schema, Buffer.from("<p>"), "text/html").valid).toBe(false);
    expect(checkOutput(null, Buffer.from("{}"), "application/json").valid).toBeNull();
  });
});
