/**
 * The computation (docs/spec/products.md "Validity-check computation rule"), the thresholds at
 * their edges, the published examples proven, and the free allowance's arithmetic.
 */
import Ajv2020 from "ajv/dist/2020";
import { describe, expect, it } from "vitest";
import { checkUpto, checkValidity, type UptoInput, type ValidityInput } from "./contract";
import { UPTO_EXAMPLE_INPUT, UPTO_EXAMPLE_ISSUED_AT_UNIX, UPTO_EXAMPLE_OUTPUT, UPTO_OUTPUT_SCHEMA, VALIDITY_EXAMPLE_INPUT, VALIDITY_EXAMPLE_OUTPUT, VALIDITY_OUTPUT_SCHEMA } from "./examples";
import { FreeAllowance } from "./free-tier";
import { approximateSeconds, decimalRendering, GUIDANCE, MACHINERY_STATUSES, machineryStatus, VERDICTS, NOT_ESTABLISHABLE, precheckFacts, uptoStatement, validityAnalysis, verdictLine } from "./logic";
import criteria from "./criteria.json";

const upto = (c: Record<string, unknown>): UptoInput => {
  const r = checkUpto({ challenge: { scheme: "upto", network: "eip155:8453", payTo: "0xpay", asset: "0xusdc", max_amount_required: "1000000", ...c } });
  if (!r.ok) throw new Error(r.refusal);
  return r.value;
};
const validity = (body: Record<string, unknown>): ValidityInput => {
  const r = checkValidity(body);
  if (!r.ok) throw new Error(r.refusal);
  return r.value;
};

describe("decimal rendering", () => {
  it("is exact, zero-padded and never trimmed", () => {
    expect(decimalRendering(1_000_000n, 6)).toBe("1.000000");
    expect(decimalRendering(5n, 6)).toBe("0.000005");
    expect(decimalRendering(0n, 6)).toBe("0.000000");
    expect(decimalRendering(1_230_000n, 6)).toBe("1.230000");
    expect(decimalRendering(10n ** 18n, 18)).toBe("1.000000000000000000");
    expect(decimalRendering(10n ** 18n - 1n, 18)).toBe("0.999999999999999999");
    expect(decimalRendering(123n, 0)).toBe("123");
    expect(decimalRendering(10n ** 18n, 1)).toBe("100000000000000000.0");
  });
});

describe("the upto statement", () => {
  it("prints the ceiling exactly as submitted, leading zeros and all; a number as its integer digits", () => {
    expect(uptoStatement(upto({ max_amount_required: "0001500", asset_decimals: 3 }), 0)).toMatchObject({ maximum_signable_atomic: "0001500", maximum_signable_decimal: "1.500" });
    expect(uptoStatement(upto({ max_amount_required: 2500, asset_decimals: 2 }), 0)).toMatchObject({ maximum_signable_atomic: "2500", maximum_signable_decimal: "25.00" });
  });

  it("without asset_decimals the rendering is NOT-ESTABLISHABLE-FROM-ARTEFACT, and named so", () => {
    const s = uptoStatement(upto({}), 0);
    expect(s.asset_decimals).toBe(NOT_ESTABLISHABLE);
    expect(s.maximum_signable_decimal).toBe(NOT_ESTABLISHABLE);
    expect(s.not_establishable).toEqual(["asset_decimals", "maximum_signable_decimal", "permit2_allowance_sufficient", "facilitator_sponsors_approval", "machinery_status"]);
    expect(s.machinery_status).toBe("NOT-ESTABLISHABLE-FROM-ARTEFACT");
  });

  it("machinery status: the network first, then what the flags establish", () => {
    const st = (network: string, a?: boolean, s?: boolean) => machineryStatus({ network, permit2_allowance_sufficient: a, facilitator_sponsors_approval: s });
    expect(st("solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp", true, true)).toBe("NO-UPTO-MACHINERY-FOR-NETWORK-IN-RECORD");
    expect(st("base", true)).toBe("NO-UPTO-MACHINERY-FOR-NETWORK-IN-RECORD");
    expect(st("eip155:8453", true, false)).toBe("ALLOWANCE-ALREADY-SUFFICIENT");
    expect(st("eip155:8453", true)).toBe("ALLOWANCE-ALREADY-SUFFICIENT");
    expect(st("eip155:8453", false, true)).toBe("APPROVAL-SPONSORED-BY-FACILITATOR");
    expect(st("eip155:8453", undefined, true)).toBe("APPROVAL-SPONSORED-BY-FACILITATOR");
    expect(st("eip155:8453", false, false)).toBe("APPROVAL-TRANSACTION-REQUIRED");
    expect(st("eip155:8453", false)).toBe("NOT-ESTABLISHABLE-FROM-ARTEFACT");
    expect(st("eip155:8453", undefined, false)).toBe("NOT-ESTABLISHABLE-FROM-ARTEFACT");
    expect(st("eip155:8453")).toBe("NOT-ESTABLISHABLE-FROM-ARTEFACT");
  });

  it("carries the one-signature-one-settlement property and no score of any kind", () => {
    const s = uptoStatement(upto({ asset_decimals: 6, permit2_allowance_sufficient: true }), 1);
    expect(s.settlement_property).toMatch(/^ONE-SIGNATURE-ONE-SETTLEMENT: /);
    expect(Object.keys(s).filter((k) => /score|grade|rating/i.test(k))).toEqual([]);
    expect(verdictLine(s)).toBe("upto ALLOWANCE-ALREADY-SUFFICIENT");
  });
});

describe("the validity analysis", () => {
  const evmAt = (remaining: number) => validityAnalysis(validity({ payload: { rail: "evm", valid_before: 1_000_000 + remaining }, evaluation_at_unix: 1_000_000 }), 0);
  const svmSlots = (slots: number) => validityAnalysis(validity({ payload: { rail: "svm", last_valid_block_height: 5_000 + slots, current_block_height: 5_000 }, evaluation_at_unix: 7 }), 0);

  it("EVM: STALE at or below 0 s, TIGHT up to 60 s, OK above", () => {
    expect([-100, -1, 0, 1, 59, 60, 61, 3600].map((r) => [r, evmAt(r).verdict])).toEqual([
      [-100, "STALE"], [-1, "STALE"], [0, "STALE"], [1, "TIGHT"], [59, "TIGHT"], [60, "TIGHT"], [61, "OK"], [3600, "OK"],
    ]);
    expect(evmAt(61)).toMatchObject({ remaining_seconds: 61, valid_before: 1_000_061, evaluation_instant_source: "submitted", guidance: GUIDANCE.OK });
  });

  it("SVM: STALE at or below 0 slots, TIGHT up to 150, OK above; the seconds figure is labelled and never decides", () => {
    expect([-3, 0, 1, 150, 151].map((s) => [s, svmSlots(s).verdict])).toEqual([[-3, "STALE"], [0, "STALE"], [1, "TIGHT"], [150, "TIGHT"], [151, "OK"]]);
    const a = svmSlots(151);
    expect(a).toMatchObject({ remaining_slots: 151, approximate_remaining_seconds: "60.4", rail: "svm" });
    expect(a.rail === "svm" && a.approximate_remaining_seconds_label).toMatch(/^APPROXIMATION/);
    expect(approximateSeconds(-3)).toBe("-1.2");
    expect(approximateSeconds(0)).toBe("0.0");
  });

  it("computes at the stated instant only: body level first, then the payload's, else the server time, printed as such", () => {
    const p = { rail: "evm", valid_before: 1000, evaluation_at_unix: 990 };
    expect(validityAnalysis(validity({ payload: p, evaluation_at_unix: 900 }), 5)).toMatchObject({ evaluation_instant_unix: 900, remaining_seconds: 100, evaluation_instant_source: "submitted" });
    expect(validityAnalysis(validity({ payload: p }), 5)).toMatchObject({ evaluation_instant_unix: 990, remaining_seconds: 10, verdict: "TIGHT" });
    expect(validityAnalysis(validity({ payload: { rail: "evm", valid_before: 1000 } }), 5)).toMatchObject({
      evaluation_instant_unix: 5,
      evaluation_instant: "1970-01-01T00:00:05.000Z",
      evaluation_instant_source: "server-time",
      remaining_seconds: 995,
    });
  });

  it("is exact at the ends of the accepted ranges", () => {
    const max = Number.MAX_SAFE_INTEGER;
    expect(validityAnalysis(validity({ payload: { rail: "evm", valid_before: max }, evaluation_at_unix: 0 }), 0)).toMatchObject({ remaining_seconds: max, verdict: "OK" });
    expect(validityAnalysis(validity({ payload: { rail: "svm", last_valid_block_height: 0, current_block_height: max } }), 0)).toMatchObject({ remaining_slots: -max, approximate_remaining_seconds: "-3602879701896396.4" });
  });
});

describe("pre-check facts", () => {
  it("state assessability facts only: no ceiling, no time remaining, no verdict", () => {
    const u = precheckFacts({ op: "upto", input: upto({ network: "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp" }) });
    expect(u).toEqual({ scheme: "upto", network_kind: "svm", ceiling_present: true, decimals_present: false });
    const v = precheckFacts({ op: "validity", input: validity({ payload: { rail: "evm", valid_before: 5 }, evaluation_at_unix: 1 }) });
    expect(v).toEqual({ rail: "evm", evaluation_instant_submitted: true });
  });
});

describe("the published examples are proven", () => {
  const ajv = new Ajv2020({ strict: false });
  it("upto: the example output is the statement of the example input at its instant, and fits the output schema", () => {
    const out = uptoStatement((checkUpto(UPTO_EXAMPLE_INPUT) as { value: UptoInput }).value, UPTO_EXAMPLE_ISSUED_AT_UNIX);
    expect(out).toEqual(UPTO_EXAMPLE_OUTPUT);
    expect(ajv.validate(UPTO_OUTPUT_SCHEMA, out), JSON.stringify(ajv.errors)).toBe(true);
  });
  it("validity: likewise", () => {
    const out = validityAnalysis((checkValidity(VALIDITY_EXAMPLE_INPUT) as { value: ValidityInput }).value, 0);
    expect(out).toEqual(VALIDITY_EXAMPLE_OUTPUT);
    expect(ajv.validate(VALIDITY_OUTPUT_SCHEMA, out), JSON.stringify(ajv.errors)).toBe(true);
    const svm = validityAnalysis(validity({ payload: { rail: "svm", last_valid_block_height: 9, current_block_height: 4 } }), 3);
    expect(ajv.validate(VALIDITY_OUTPUT_SCHEMA, svm), JSON.stringify(ajv.errors)).toBe(true);
  });
  it("the guidance, thresholds and statuses are the criteria document's own", () => {
    expect(GUIDANCE).toEqual(criteria.guidance);
    expect([...MACHINERY_STATUSES]).toEqual(criteria.machinery_statuses);
    expect([...VERDICTS]).toEqual(criteria.verdicts);
    expect(VALIDITY_EXAMPLE_OUTPUT.threshold.rule).toBe(criteria.tight_thresholds.evm.rule);
    const svm = validityAnalysis(validity({ payload: { rail: "svm", last_valid_block_height: 9, current_block_height: 4 } }), 3);
    expect(svm.threshold.rule).toBe(criteria.tight_thresholds.svm.rule);
  });
});

describe("the free allowance", () => {
  it("100 a UTC day per key, at least 5,000 ms apart; a refused attempt takes nothing; a new day starts over", () => {
    let t = Date.parse("2026-12-02T00:00:00.000Z");
    const a = new FreeAllowance(() => t);
    expect(a.take("w")).toEqual({ ok: true, remainingToday: 99 });
    t += 4_999;
    expect(a.take("w")).toEqual({ ok: false, refusal: "free_min_interval", retryAfterMs: 1 });
    expect(a.take("other")).toEqual({ ok: true, remainingToday: 99 });
    t += 1;
    expect(a.take("w")).toEqual({ ok: true, remainingToday: 98 });
    for (let i = 0; i < 98; i++) {
      t += 5_000;
      expect(a.take("w").ok).toBe(true);
    }
    t += 5_000;
    const refused = a.take("w");
    expect(refused).toMatchObject({ ok: false, refusal: "free_daily_allowance_exhausted" });
    expect(t + (refused as { retryAfterMs: number }).retryAfterMs).toBe(Date.parse("2026-12-03T00:00:00.000Z"));
    t = Date.parse("2026-12-03T00:00:00.000Z");
    expect(a.take("w")).toEqual({ ok: true, remainingToday: 99 });
  });
});
