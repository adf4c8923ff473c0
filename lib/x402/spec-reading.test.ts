import { describe, expect, it } from "vitest";
import { isCaip2, SOLANA_MAINNET, toCaip2, V1_NETWORK_NAMES, KNOWN_ASSETS } from "./assets";
import { parseX402 } from "./parse";
import { networkName } from "@/lib/format";

const PAY_TO = "0x63aA5960943865e7d57FDdF0D899eE36B6D2046E";
const SOL_PAY_TO = "2wKupLR9q6wXYppw8Gr2NvWxKBUqm4PPJKkQfoxHDBg4";
const SOL_USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
const body = (pr: unknown) => ({ status: 402, headers: { "content-type": "application/json" }, body: JSON.stringify(pr) });
const fails = (r: ReturnType<typeof parseX402>) => r.findings.filter((f) => f.severity === "fail").map((f) => `${f.check}:${f.code}`);
const v1 = (req: Record<string, unknown>) => ({ x402Version: 1, error: "X-PAYMENT header is required", accepts: [{ scheme: "exact", maxAmountRequired: "10000", resource: "https://api.example.com/x", description: "x", mimeType: "application/json", payTo: PAY_TO, maxTimeoutSeconds: 60, outputSchema: { input: { type: "http", method: "GET" }, output: { type: "object" } }, ...req }] });

describe("Solana mainnet: one CAIP-2 id, the one x402 uses", () => {
  it("every network id in the tables passes the product's own CAIP-2 check", () => {
    for (const a of KNOWN_ASSETS) expect(isCaip2(a.network), a.network).toBe(true);
    for (const id of Object.values(V1_NETWORK_NAMES)) expect(isCaip2(id), id).toBe(true);
    expect(SOLANA_MAINNET).toBe("solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp");
    expect(toCaip2("solana")).toBe(SOLANA_MAINNET);
    expect(networkName(SOLANA_MAINNET)).toBe("Solana");
  });

  it("a v1 `solana` challenge maps to the right id and its asset is checked", () => {
    const good = parseX402(body(v1({ network: "solana", payTo: SOL_PAY_TO, asset: SOL_USDC, extra: { feePayer: SOL_PAY_TO } })));
    expect(good.requirements?.[0].network).toBe(SOLANA_MAINNET);
    expect(fails(good)).toEqual([]);
    expect(good.findings).toContainEqual(expect.objectContaining({ check: "C3", severity: "pass" }));
    expect(good.findings.some((f) => f.code === "asset_unverified")).toBe(false);
    const wrongMint = parseX402(body(v1({ network: "solana", payTo: SOL_PAY_TO, asset: "Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB" })));
    expect(fails(wrongMint)).toEqual(["C3:asset_not_canonical"]);
  });
});

describe("a token symbol where the contract address belongs", () => {
  it('asset "USDC" on an EVM network fails C2 asset_not_address and the challenge is not valid', () => {
    const r = parseX402(body(v1({ network: "base", asset: "USDC", extra: { name: "USD Coin", version: "2" } })));
    expect(fails(r)).toEqual(["C2:asset_not_address"]);
    expect(r.valid).toBe(false);
    expect(r.findings.find((f) => f.code === "asset_not_address")).toMatchObject({ pointer: "/accepts/0/asset" });
    expect(r.findings.find((f) => f.code === "asset_not_address")?.message).toContain("0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913");
  });

  it('asset "USDC" on Solana fails the same way', () => {
    const r = parseX402(body(v1({ network: "solana", payTo: SOL_PAY_TO, asset: "USDC" })));
    expect(fails(r)).toEqual(["C2:asset_not_address"]);
    expect(r.valid).toBe(false);
  });
});
