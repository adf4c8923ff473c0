/**
 * Every named refusal of docs/spec/products.md "Validity-check malformed rule", each from a body
 * that breaks exactly that rule, with the pointer it names; and the bodies the contract accepts.
 */
import { describe, expect, it } from "vitest";
import { callerWallet, checkPrecheck, checkUpto, checkValidity, REFUSAL_CODES, type RefusalCode } from "./contract";

const CHALLENGE = {
  scheme: "upto",
  network: "eip155:8453",
  payTo: "0x209693Bc6afc0C5328bA36FaF03C514EF312287C",
  asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
  max_amount_required: "1000000",
};
const without = (o: Record<string, unknown>, k: string) => Object.fromEntries(Object.entries(o).filter(([key]) => key !== k));
const upto = (c: Record<string, unknown>) => ({ challenge: c });
const evm = (p: Record<string, unknown> = {}) => ({ payload: { rail: "evm", valid_before: 1796212800, ...p } });
const svm = (p: Record<string, unknown> = {}) => ({ payload: { rail: "svm", last_valid_block_height: 300, current_block_height: 100, ...p } });

const UPTO_CASES: [string, unknown, RefusalCode, string][] = [
  ["no body", undefined, "challenge_required", ""],
  ["a body that is an array", [CHALLENGE], "challenge_required", ""],
  ["no challenge", {}, "challenge_required", "/challenge"],
  ["challenge a string", { challenge: "upto" }, "challenge_required", "/challenge"],
  ["challenge null", { challenge: null }, "challenge_required", "/challenge"],
  ["scheme missing", upto(without(CHALLENGE, "scheme")), "scheme_required", "/challenge/scheme"],
  ["scheme exact", upto({ ...CHALLENGE, scheme: "exact" }), "scheme_not_upto", "/challenge/scheme"],
  ["scheme UPTO", upto({ ...CHALLENGE, scheme: "UPTO" }), "scheme_not_upto", "/challenge/scheme"],
  ["network missing", upto(without(CHALLENGE, "network")), "network_required", "/challenge/network"],
  ["network empty", upto({ ...CHALLENGE, network: "" }), "network_required", "/challenge/network"],
  ["network a number", upto({ ...CHALLENGE, network: 8453 }), "network_required", "/challenge/network"],
  ["payTo missing", upto(without(CHALLENGE, "payTo")), "payto_required", "/challenge/payTo"],
  ["asset missing", upto(without(CHALLENGE, "asset")), "asset_required", "/challenge/asset"],
  ["ceiling missing", upto(without(CHALLENGE, "max_amount_required")), "ceiling_required", "/challenge/max_amount_required"],
  ["ceiling above 10^18", upto({ ...CHALLENGE, max_amount_required: "1000000000000000001" }), "ceiling_malformed", "/challenge/max_amount_required"],
  ["ceiling 2x10^18", upto({ ...CHALLENGE, max_amount_required: "2000000000000000000" }), "ceiling_malformed", "/challenge/max_amount_required"],
  ["ceiling negative string", upto({ ...CHALLENGE, max_amount_required: "-1" }), "ceiling_malformed", "/challenge/max_amount_required"],
  ["ceiling negative number", upto({ ...CHALLENGE, max_amount_required: -1 }), "ceiling_malformed", "/challenge/max_amount_required"],
  ["ceiling decimal string", upto({ ...CHALLENGE, max_amount_required: "1.5" }), "ceiling_malformed", "/challenge/max_amount_required"],
  ["ceiling fractional number", upto({ ...CHALLENGE, max_amount_required: 1.5 }), "ceiling_malformed", "/challenge/max_amount_required"],
  ["ceiling an unsafe number", upto({ ...CHALLENGE, max_amount_required: 2 ** 53 }), "ceiling_malformed", "/challenge/max_amount_required"],
  ["ceiling hex", upto({ ...CHALLENGE, max_amount_required: "0x10" }), "ceiling_malformed", "/challenge/max_amount_required"],
  ["ceiling empty", upto({ ...CHALLENGE, max_amount_required: "" }), "ceiling_malformed", "/challenge/max_amount_required"],
  ["ceiling with a space", upto({ ...CHALLENGE, max_amount_required: " 1" }), "ceiling_malformed", "/challenge/max_amount_required"],
  ["ceiling boolean", upto({ ...CHALLENGE, max_amount_required: true }), "ceiling_malformed", "/challenge/max_amount_required"],
  ["decimals 19", upto({ ...CHALLENGE, asset_decimals: 19 }), "decimals_malformed", "/challenge/asset_decimals"],
  ["decimals -1", upto({ ...CHALLENGE, asset_decimals: -1 }), "decimals_malformed", "/challenge/asset_decimals"],
  ["decimals 6.5", upto({ ...CHALLENGE, asset_decimals: 6.5 }), "decimals_malformed", "/challenge/asset_decimals"],
  ["decimals \"6\"", upto({ ...CHALLENGE, asset_decimals: "6" }), "decimals_malformed", "/challenge/asset_decimals"],
  ["allowance flag a string", upto({ ...CHALLENGE, permit2_allowance_sufficient: "true" }), "machinery_flag_malformed", "/challenge/permit2_allowance_sufficient"],
  ["sponsor flag a number", upto({ ...CHALLENGE, facilitator_sponsors_approval: 1 }), "machinery_flag_malformed", "/challenge/facilitator_sponsors_approval"],
  ["sponsor flag null", upto({ ...CHALLENGE, facilitator_sponsors_approval: null }), "machinery_flag_malformed", "/challenge/facilitator_sponsors_approval"],
];

const VALIDITY_CASES: [string, unknown, RefusalCode, string][] = [
  ["no body", undefined, "payload_required", ""],
  ["a body that is a number", 7, "payload_required", ""],
  ["no payload", { evaluation_at_unix: 1 }, "payload_required", "/payload"],
  ["payload an array", { payload: [] }, "payload_required", "/payload"],
  ["rail missing", { payload: { valid_before: 1796212800 } }, "rail_required", "/payload/rail"],
  ["rail base", { payload: { rail: "base", valid_before: 1796212800 } }, "rail_unsupported", "/payload/rail"],
  ["rail EVM", { payload: { rail: "EVM", valid_before: 1796212800 } }, "rail_unsupported", "/payload/rail"],
  ["evaluation_at negative", { ...evm(), evaluation_at_unix: -1 }, "evaluation_at_malformed", "/evaluation_at_unix"],
  ["evaluation_at a string", { ...evm(), evaluation_at_unix: "1796212700" }, "evaluation_at_malformed", "/evaluation_at_unix"],
  ["evaluation_at fractional", { ...evm(), evaluation_at_unix: 1.5 }, "evaluation_at_malformed", "/evaluation_at_unix"],
  ["evaluation_at past what ISO prints", { ...evm(), evaluation_at_unix: 8_640_000_000_001 }, "evaluation_at_malformed", "/evaluation_at_unix"],
  ["evaluation_at inside the payload, malformed", evm({ evaluation_at_unix: "soon" }), "evaluation_at_malformed", "/payload/evaluation_at_unix"],
  ["evm without valid_before", { payload: { rail: "evm" } }, "valid_before_required", "/payload/valid_before"],
  ["evm valid_before a string", evm({ valid_before: "1796212800" }), "valid_before_malformed", "/payload/valid_before"],
  ["evm valid_before fractional", evm({ valid_before: 1796212800.5 }), "valid_before_malformed", "/payload/valid_before"],
  ["evm valid_before negative", evm({ valid_before: -5 }), "valid_before_malformed", "/payload/valid_before"],
  ["evm valid_before unsafe", evm({ valid_before: 2 ** 60 }), "valid_before_malformed", "/payload/valid_before"],
  ["svm without last_valid_block_height", { payload: { rail: "svm", current_block_height: 1 } }, "block_height_required", "/payload/last_valid_block_height"],
  ["svm without current_block_height", { payload: { rail: "svm", last_valid_block_height: 1 } }, "block_height_required", "/payload/current_block_height"],
  ["svm a height a string", svm({ current_block_height: "100" }), "block_height_malformed", "/payload/current_block_height"],
  ["svm a height fractional", svm({ last_valid_block_height: 300.25 }), "block_height_malformed", "/payload/last_valid_block_height"],
];

describe("the upto contract", () => {
  it.each(UPTO_CASES)("%s: %s", (_name, body, refusal, pointer) => {
    expect(checkUpto(body)).toEqual({ ok: false, refusal, pointer });
  });

  it("accepts the minimal challenge, a ceiling at exactly 10^18 (string or with leading zeros), a safe integer, zero, and every optional field", () => {
    for (const c of [
      CHALLENGE,
      { ...CHALLENGE, max_amount_required: "1000000000000000000" },
      { ...CHALLENGE, max_amount_required: "0001000000000000000000" },
      { ...CHALLENGE, max_amount_required: 9007199254740991 },
      { ...CHALLENGE, max_amount_required: "0" },
      { ...CHALLENGE, asset_decimals: 0, permit2_allowance_sufficient: false, facilitator_sponsors_approval: true },
      { ...CHALLENGE, asset_decimals: 18, maxTimeoutSeconds: 60, extra: { name: "USD Coin" } },
    ]) {
      expect(checkUpto({ challenge: c }), JSON.stringify(c)).toMatchObject({ ok: true });
    }
  });

  it("names the first broken rule in the rule's order when several are broken", () => {
    expect(checkUpto(upto({ scheme: "exact" }))).toMatchObject({ refusal: "scheme_not_upto" });
    expect(checkUpto(upto({ ...without(CHALLENGE, "asset"), asset_decimals: 40 }))).toMatchObject({ refusal: "asset_required" });
    expect(checkUpto(upto({ ...CHALLENGE, max_amount_required: "x", asset_decimals: 40, permit2_allowance_sufficient: 1 }))).toMatchObject({ refusal: "ceiling_malformed" });
  });
});

describe("the validity contract", () => {
  it.each(VALIDITY_CASES)("%s: %s", (_name, body, refusal, pointer) => {
    expect(checkValidity(body)).toEqual({ ok: false, refusal, pointer });
  });

  it("checks only the chosen rail's fields: an svm payload may carry anything as valid_before", () => {
    expect(checkValidity(svm({ valid_before: "whenever" }))).toMatchObject({ ok: true });
    expect(checkValidity(evm({ current_block_height: "x" }))).toMatchObject({ ok: true });
  });

  it("accepts instants at zero and at the last printable second, in the body or the payload", () => {
    expect(checkValidity({ ...evm(), evaluation_at_unix: 0 })).toMatchObject({ ok: true });
    expect(checkValidity({ ...svm(), evaluation_at_unix: 8_640_000_000_000 })).toMatchObject({ ok: true });
    expect(checkValidity(evm({ evaluation_at_unix: 1796212700 }))).toMatchObject({ ok: true });
  });
});

describe("the pre-check contract", () => {
  it("op_required, op_unsupported, then the op's own rules", () => {
    expect(checkPrecheck(undefined)).toEqual({ ok: false, op: null, refusal: "op_required", pointer: "" });
    expect(checkPrecheck({ challenge: CHALLENGE })).toEqual({ ok: false, op: null, refusal: "op_required", pointer: "/op" });
    expect(checkPrecheck({ op: "price", challenge: CHALLENGE })).toEqual({ ok: false, op: null, refusal: "op_unsupported", pointer: "/op" });
    expect(checkPrecheck({ op: "upto" })).toEqual({ ok: false, op: "upto", refusal: "challenge_required", pointer: "/challenge" });
    expect(checkPrecheck({ op: "validity", payload: { rail: "btc" } })).toEqual({ ok: false, op: "validity", refusal: "rail_unsupported", pointer: "/payload/rail" });
    expect(checkPrecheck({ op: "upto", challenge: CHALLENGE })).toMatchObject({ ok: true, op: "upto" });
  });

  it("a caller that is not a wallet is refused as caller_malformed; a wallet is normalised", () => {
    expect(checkPrecheck({ op: "upto", challenge: CHALLENGE, caller: "me" })).toEqual({ ok: false, op: "upto", refusal: "caller_malformed", pointer: "/caller" });
    expect(callerWallet({ caller: "0xABCDEFabcdef0123456789012345678901234567" })).toBe("0xabcdefabcdef0123456789012345678901234567");
    expect(callerWallet({ caller: "4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T" })).toBe("4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T");
    expect(callerWallet({ caller: "me" })).toBeNull();
    expect(callerWallet({})).toBeNull();
  });

  it("every refusal code of the malformed rule is reached by a case above", () => {
    const reached = new Set<string>([...UPTO_CASES, ...VALIDITY_CASES].map((c) => c[2]));
    // The pre-check's own codes, from the bodies the pre-check tests above send.
    for (const body of [undefined, { op: "price", challenge: CHALLENGE }, { op: "upto", challenge: CHALLENGE, caller: "me" }]) {
      const r = checkPrecheck(body);
      if (!r.ok) reached.add(r.refusal);
    }
    expect([...REFUSAL_CODES].filter((c) => !reached.has(c))).toEqual([]);
  });
});
