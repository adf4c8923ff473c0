import { describe, expect, it } from "vitest";
import { listingPriceSummary, priceView, type PricedEndpoint } from "./price";

const base: PricedEndpoint = { payable: true, priceUsd: null, priceLabel: null, priceNetwork: "eip155:8453", priceMode: null, dynamicMin: null, dynamicMax: null, dynamicUnit: null };

describe("priceView", () => {
  it("says fixed or dynamic only as declared, never assuming fixed", () => {
    expect(priceView({ ...base, priceUsd: "0.04", priceMode: "fixed" })).toMatchObject({ kind: "priced", listed: "$0.04", mode: "fixed", per: "per call", network: "Base" });
    expect(priceView({ ...base, priceUsd: "0.04" })).toMatchObject({ listed: "$0.04", mode: "not declared" });
    // The case: a dynamic price from $0.04 is not "$0.04 /call · fixed".
    const dyn = priceView({ ...base, priceUsd: "0.04", priceMode: "dynamic", dynamicMin: "0.04", priceLabel: "from $0.04 (dynamic quote)" });
    expect(dyn).toMatchObject({ listed: "from $0.04", mode: "dynamic", label: "from $0.04 (dynamic quote)" });
    expect(priceView({ ...base, priceMode: "dynamic", dynamicMin: "0.01", dynamicMax: "0.1", dynamicUnit: "per 1,000 tokens" })).toMatchObject({ listed: "$0.01–$0.1", per: "per call", basis: "per 1,000 tokens" });
  });

  it("a dynamic batch price reads per call, with what it scales by beside it, never the range 'per address'", () => {
    // Geocodr's batch: $0.002 per address, $0.002 to $2.00 per call (its own label).
    const batch = { ...base, priceMode: "dynamic" as const, dynamicMin: "0.002", dynamicMax: "2.00", dynamicUnit: "per address", priceLabel: "$0.002 per address, $0.002 to $2.00 per call" };
    const v = priceView(batch);
    expect(v).toMatchObject({ listed: "$0.002–$2.00", per: "per call", basis: "per address", label: batch.priceLabel });
    expect(`${v.listed} ${v.per}`).not.toMatch(/per address/);
    // A fixed price ignores a stray unit.
    expect(priceView({ ...base, priceUsd: "0.01", priceMode: "fixed", dynamicUnit: "per address" })).toMatchObject({ per: "per call", basis: null });
  });

  it("shows the quote the monitor saw with its time and network by name; free and unpriced endpoints say so", () => {
    const v = priceView({ ...base, priceUsd: "0.04", priceMode: "fixed" }, { amount: "0.045", network: "eip155:84532", quotedAt: "2026-12-03T10:00:00.000Z" });
    expect(v.quote).toEqual({ price: "$0.045", at: "2026-12-03T10:00:00.000Z", network: "Base Sepolia" });
    expect(priceView({ ...base, payable: false })).toMatchObject({ kind: "free", listed: null, quote: null });
    expect(priceView({ ...base, priceLabel: "contact us" })).toMatchObject({ kind: "unpriced", listed: null, label: "contact us" });
    expect(priceView({ ...base, priceUsd: "abc" })).toMatchObject({ kind: "unpriced", listed: null });
    // No atomic units anywhere in what a page renders.
    expect(JSON.stringify(v)).not.toMatch(/atomic|45000/);
  });
});

describe("listingPriceSummary", () => {
  it("is the lowest listed price, 'from' when endpoints differ or any is dynamic, and the declared mode", () => {
    expect(listingPriceSummary([{ ...base, priceUsd: "0.02", priceMode: "fixed" }])).toEqual({ listed: "$0.02", mode: "fixed", free: false });
    expect(listingPriceSummary([{ ...base, priceUsd: "0.02", priceMode: "fixed" }, { ...base, priceUsd: "0.01", priceMode: "fixed" }])).toEqual({ listed: "from $0.01", mode: "fixed", free: false });
    expect(listingPriceSummary([{ ...base, priceUsd: "0.05", priceMode: "fixed" }, { ...base, priceMode: "dynamic", dynamicMin: "0.03" }])).toEqual({ listed: "from $0.03", mode: "dynamic", free: false });
    expect(listingPriceSummary([{ ...base, priceUsd: "0.05" }])).toEqual({ listed: "$0.05", mode: "not declared", free: false });
    expect(listingPriceSummary([{ ...base, payable: false }])).toEqual({ listed: null, mode: "not declared", free: true });
    expect(listingPriceSummary([{ ...base, priceLabel: "ask" }])).toEqual({ listed: null, mode: "not declared", free: false });
  });
});
