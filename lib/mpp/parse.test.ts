import { describe, expect, it } from "vitest";
import { Challenge } from "mppx";
import { parseMpp, splitPaymentChallenges } from "./parse";

const NOW = new Date("2026-12-02T12:00:00Z");
const request = { amount: "5000", currency: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", recipient: "0x63aA5960943865e7d57FDdF0D899eE36B6D2046E", chainId: 8453 };
const challenge = (over: Partial<Parameters<typeof Challenge.from>[0]> = {}) =>
  Challenge.serialize(Challenge.from({ id: "c1", realm: "api.example.com", method: "evm", intent: "charge", request, expires: "2026-12-02T12:05:00Z", ...over } as Parameters<typeof Challenge.from>[0]));
const fails = (r: ReturnType<typeof parseMpp>) => r.findings.filter((f) => f.severity === "fail").map((f) => `${f.check}:${f.code}`);

describe("parseMpp", () => {
  it("parses one challenge serialised by mppx", () => {
    const r = parseMpp({ headers: { "www-authenticate": challenge() } }, { now: NOW });
    expect(r.offered).toBe(1);
    expect(r.valid).toBe(true);
    expect(r.challenges[0]).toMatchObject({ id: "c1", realm: "api.example.com", method: "evm", intent: "charge", request, expires: "2026-12-02T12:05:00Z" });
    expect(fails(r)).toEqual([]);
  });

  it("parses several challenges sharing one header, beside another scheme", () => {
    const header = `Bearer realm="x", ${challenge({ id: "a", method: "tempo" })}, ${challenge({ id: "b", description: 'quoted "text", with commas' })}`;
    const r = parseMpp({ headers: { "www-authenticate": header } }, { now: NOW });
    expect(r.offered).toBe(2);
    expect(r.challenges.map((c) => c.id)).toEqual(["a", "b"]);
    expect(splitPaymentChallenges(header)).toHaveLength(2);
  });

  it("reports each missing field of a challenge and keeps the good ones", () => {
    const header = `${challenge({ id: "good" })}, Payment id="bad", method="evm"`;
    const r = parseMpp({ headers: { "www-authenticate": header } }, { now: NOW });
    expect(r.offered).toBe(2);
    expect(r.challenges.map((c) => c.id)).toEqual(["good"]);
    expect(r.valid).toBe(true);
    expect(fails(r)).toEqual(expect.arrayContaining(["C1:mpp_realm_missing", "C1:mpp_intent_missing", "C1:mpp_request_missing"]));
    expect(r.findings.find((f) => f.code === "mpp_realm_missing")?.pointer).toBe("/www-authenticate/1/realm");
  });

  it("fails an expired challenge", () => {
    const r = parseMpp({ headers: { "www-authenticate": challenge({ expires: "2026-12-02T11:59:00Z" }) } }, { now: NOW });
    expect(fails(r)).toEqual(["C2:mpp_expired"]);
    expect(r.valid).toBe(false);
  });

  it("fails a request that is not base64url JSON", () => {
    const notJson = Buffer.from("hello").toString("base64url");
    for (const [value, code] of [["***", "mpp_request_not_base64url"], [notJson, "mpp_request_not_json"], [Buffer.from("[1]").toString("base64url"), "mpp_request_not_object"]] as const) {
      const r = parseMpp({ headers: { "www-authenticate": `Payment id="x", realm="r", method="evm", intent="charge", request="${value}"` } }, { now: NOW });
      expect(fails(r)).toContain(`C1:${code}`);
    }
  });

  it("fails an upper-case method and warns on an unknown intent", () => {
    const req = Buffer.from(JSON.stringify(request)).toString("base64url");
    const r = parseMpp({ headers: { "www-authenticate": `Payment id="x", realm="r", method="EVM", intent="lease", request="${req}"` } }, { now: NOW });
    expect(fails(r)).toContain("C2:mpp_method_invalid");
    expect(r.findings).toContainEqual(expect.objectContaining({ check: "C2", severity: "warn", code: "mpp_intent_unknown" }));
  });

  it("finds a secret ask in the request", () => {
    const r = parseMpp({ headers: { "www-authenticate": challenge({ request: { ...request, note: "Include your API key in the Authorization header." } }) } }, { now: NOW });
    expect(fails(r)).toContain("S4:asks_for_secret");
  });

  it("returns nothing, without throwing, when there is no Payment challenge", () => {
    for (const h of [undefined, "", "Bearer realm=\"x\"", "Payment", 'Payment id="unterminated']) {
      const r = parseMpp({ headers: h === undefined ? {} : { "www-authenticate": h } }, { now: NOW });
      expect(r.challenges).toEqual([]);
    }
  });
});
