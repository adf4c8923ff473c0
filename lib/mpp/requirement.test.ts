import { describe, expect, it } from "vitest";
import { Challenge, PaymentRequest } from "mppx";
import { charge as evmCharge } from "mppx/evm";
import { Methods as TempoMethods } from "mppx/tempo";
import { parseMpp } from "./parse";
import { mppChainId, mppRequirement } from "./requirement";

const RECIPIENT = "0x63aA5960943865e7d57FDdF0D899eE36B6D2046E";
const NOW = new Date("2026-12-02T12:00:00Z");
const header = (method: string, request: Record<string, unknown>) =>
  Challenge.serialize(Challenge.from({ id: "c1", realm: "api.example.com", method, intent: "charge", request, expires: "2026-12-02T12:05:00Z" } as Parameters<typeof Challenge.from>[0]));

describe("MPP charges keep their chain", () => {
  it("reads methodDetails.chainId from an evm charge built by mppx's own method schema", () => {
    const request = PaymentRequest.fromMethod(evmCharge, { amount: "0.005", decimals: 6, currency: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", recipient: RECIPIENT, chainId: 8453 } as never) as Record<string, unknown>;
    expect(request).not.toHaveProperty("chainId"); // mppx never emits it at the top level
    const r = parseMpp({ headers: { "www-authenticate": header("evm", request) } }, { now: NOW });
    expect(mppRequirement(r.challenges[0])).toMatchObject({ network: "eip155:8453", amount: "5000", asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", payTo: RECIPIENT });
  });

  it("reads methodDetails.chainId from a tempo charge (Tempo is eip155:4217 on mainnet)", () => {
    const request = PaymentRequest.fromMethod(TempoMethods.charge, { amount: "1", decimals: 6, currency: "0x20C000000000000000000000b9537d11c60E8b50", recipient: RECIPIENT, chainId: 4217 } as never) as Record<string, unknown>;
    const r = parseMpp({ headers: { "www-authenticate": header("tempo", request) } }, { now: NOW });
    expect(mppRequirement(r.challenges[0]).network).toBe("eip155:4217");
  });

  it("still reads a top-level chainId, prefers methodDetails, and falls back to the method name", () => {
    expect(mppChainId({ chainId: 8453 })).toBe(8453);
    expect(mppChainId({ chainId: "8453" })).toBe(8453);
    expect(mppChainId({ chainId: 1, methodDetails: { chainId: 8453 } })).toBe(8453);
    expect(mppChainId({ methodDetails: { chainId: -1 } })).toBeNull();
    expect(mppChainId({ methodDetails: { chainId: "base" } })).toBeNull();
    expect(mppRequirement({ method: "stripe", intent: "charge", request: { amount: "100", currency: "usd" } }).network).toBe("stripe");
  });
});
