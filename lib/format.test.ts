import { describe, expect, it } from "vitest";
import { formatRawTotal, formatUsd, formatUsdcAtomic, networkName } from "@/lib/format";

describe("formatUsd", () => {
  it.each([
    ["2", "$2.00"],
    ["12.5", "$12.50"],
    ["0.04", "$0.04"],
    ["0.003", "$0.003"],
    ["0.0275", "$0.0275"],
    ["0.001", "$0.001"],
    ["0.12345", "$0.123"],
    ["not a number", "not a number"],
  ])("%s → %s", (input, out) => expect(formatUsd(input)).toBe(out));
});

describe("formatUsdcAtomic", () => {
  it.each([
    ["5000000", "$5.00"],
    ["4950000", "$4.95"],
    ["10000", "$0.01"],
    ["3000", "$0.003"],
    ["0", "$0"],
    [5_000_000n, "$5.00"],
    [null, "—"],
    ["12abc", "12abc"],
  ] as const)("%s → %s", (input, out) => expect(formatUsdcAtomic(input)).toBe(out));
});

describe("networkName", () => {
  it("names known CAIP-2 networks and passes others through", () => {
    expect(networkName("eip155:8453")).toBe("Base");
    expect(networkName("eip155:999999")).toBe("eip155:999999");
  });
});

describe("formatRawTotal", () => {
  it.each<[number, string]>([
    [89.499999, "89.49"], // exact arithmetic (readiness/1.1.0 onwards): 89.49999987 beside its total 89, never "89.50"
    [89.5, "89.5"],
    [95.75, "95.75"],
    [100, "100"],
    [86.83, "86.83"],
    [56.6, "56.6"],
  ])("%d reads %s", (raw, text) => {
    expect(formatRawTotal(raw)).toBe(text);
  });
});
