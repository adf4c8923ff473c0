import { describe, expect, it } from "vitest";
import { encodePaymentRequiredHeader } from "@x402/core/http";
import type { PaymentRequired } from "@x402/core/types";
import { declareDiscoveryExtension } from "@x402/extensions/bazaar";
import { parseX402, type X402Response } from "./parse";

const BASE_USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";
const PAY_TO = "0x63aA5960943865e7d57FDdF0D899eE36B6D2046E";

function v2(mutate: (pr: Record<string, any>) => void = () => {}): Record<string, any> {
  const pr: Record<string, any> = {
    x402Version: 2,
    resource: { url: "https://api.example.com/x", description: "x", mimeType: "application/json" },
    accepts: [{ scheme: "exact", network: "eip155:8453", amount: "10000", asset: BASE_USDC, payTo: PAY_TO, maxTimeoutSeconds: 60, extra: { name: "USD Coin", version: "2" } }],
    extensions: declareDiscoveryExtension({ bodyType: "json", input: { q: "a" }, inputSchema: { type: "object", properties: { q: { type: "string" } } }, output: { example: { a: 1 }, schema: { type: "object" } } }),
  };
  // The declaration leaves `method` for the seller's middleware to add per request (enrichDeclaration).
  pr.extensions.bazaar.info.input.method = "POST";
  mutate(pr);
  return pr;
}

function v1(mutate: (pr: Record<string, any>) => void = () => {}): Record<string, any> {
  const pr: Record<string, any> = {
    x402Version: 1,
    error: "X-PAYMENT header is required",
    accepts: [{
      scheme: "exact", network: "base", maxAmountRequired: "10000", resource: "https://api.example.com/x", description: "x", mimeType: "application/json",
      outputSchema: { input: { type: "http", method: "POST" }, output: { type: "object" } }, payTo: PAY_TO, maxTimeoutSeconds: 60, asset: BASE_USDC, extra: { name: "USD Coin", version: "2" },
    }],
  };
  mutate(pr);
  return pr;
}

const header = (pr: unknown) => ({ status: 402, headers: { "payment-required": encodePaymentRequiredHeader(pr as PaymentRequired) }, body: null });
const body = (pr: unknown) => ({ status: 402, headers: { "content-type": "application/json" }, body: JSON.stringify(pr) });
const fails = (r: ReturnType<typeof parseX402>) => r.findings.filter((f) => f.severity === "fail").map((f) => `${f.check}:${f.code}`);

describe("parseX402: valid challenges", () => {
  it("reads a v2 header with @x402/core's encoding and passes C1, C2, C3, C5 and S4", () => {
    const r = parseX402(header(v2()));
    expect(r.kind).toBe("x402-v2");
    expect(r.valid).toBe(true);
    expect(r.source).toBe("header");
    expect(fails(r)).toEqual([]);
    for (const check of ["C1", "C2", "C3", "C5", "S4"]) expect(r.findings).toContainEqual(expect.objectContaining({ check, severity: "pass" }));
    expect(r.findings).toContainEqual(expect.objectContaining({ check: "C4", code: "not_applicable" }));
    expect(r.requirements?.[0]).toMatchObject({ network: "eip155:8453", amount: "10000", payTo: PAY_TO });
    expect(r.bazaar?.requestSchema).toEqual({ type: "object", properties: { q: { type: "string" } } });
  });

  it("reads a v1 body and maps its network name to CAIP-2", () => {
    const r = parseX402(body(v1()));
    expect(r.kind).toBe("x402-v1");
    expect(r.valid).toBe(true);
    expect(fails(r)).toEqual([]);
    expect(r.requirements?.[0]).toMatchObject({ network: "eip155:8453", amount: "10000" });
  });

  it("passes C4 when the header and the body decode to the same object", () => {
    const pr = v2();
    const r = parseX402({ status: 402, headers: header(pr).headers, body: JSON.stringify(pr) });
    expect(r.source).toBe("both");
    expect(r.findings).toContainEqual(expect.objectContaining({ check: "C4", severity: "pass" }));
  });

  it("records the foundation reading when resource carries serviceName/tags", () => {
    const r = parseX402(header(v2((p) => { p.resource.serviceName = "Example"; p.resource.tags = ["a"]; })));
    expect(r.bazaarReading).toBe("x402-foundation");
    expect(parseX402(header(v2())).bazaarReading).toBe("coinbase");
  });

  it("accepts an MCP tool under both readings (`tool` and `toolName`)", () => {
    for (const [key, reading] of [["tool", "coinbase"], ["toolName", "x402-foundation"]] as const) {
      const pr = v2((p) => {
        p.extensions = { bazaar: {
          info: { input: { type: "mcp", [key]: "search", inputSchema: { type: "object" } }, output: { type: "json" } },
          schema: { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object", properties: { input: { type: "object" }, output: { type: "object" } }, required: ["input"] },
        } };
      });
      const r = parseX402(header(pr));
      expect(r.bazaarReading).toBe(reading);
      expect(fails(r)).toEqual([]);
    }
  });

  it("never throws on garbage", () => {
    for (const b of ["", "{", "[]", "null", '{"x402Version":"two"}', "\u0000\u0001"]) {
      expect(() => parseX402({ status: 402, headers: { "payment-required": b }, body: b })).not.toThrow();
    }
  });
});

const cases: Array<{ name: string; input: X402Response; expected: string; pointer?: string }> = [
  // C1
  { name: "header not base64", input: { status: 402, headers: { "payment-required": "not base64!" }, body: null }, expected: "C1:header_not_base64" },
  { name: "header base64 but not JSON", input: { status: 402, headers: { "payment-required": Buffer.from("hello").toString("base64") }, body: null }, expected: "C1:header_not_json" },
  { name: "x402Version missing", input: header(v2((p) => delete p.x402Version)), expected: "C1:version_missing", pointer: "/x402Version" },
  { name: "x402Version 3", input: header(v2((p) => (p.x402Version = 3))), expected: "C1:version_unsupported", pointer: "/x402Version" },
  { name: "resource missing (v2)", input: header(v2((p) => delete p.resource)), expected: "C1:resource_missing", pointer: "/resource" },
  { name: "resource missing (v1)", input: body(v1((p) => delete p.accepts[0].resource)), expected: "C1:resource_missing", pointer: "/accepts/0/resource" },
  { name: "accepts empty", input: header(v2((p) => (p.accepts = []))), expected: "C1:accepts_empty", pointer: "/accepts" },
  { name: "accepts missing", input: header(v2((p) => delete p.accepts)), expected: "C1:accepts_missing", pointer: "/accepts" },
  // C2
  { name: "v2 network not CAIP-2", input: header(v2((p) => (p.accepts[0].network = "base"))), expected: "C2:network_not_caip2", pointer: "/accepts/0/network" },
  { name: "v1 network unknown", input: body(v1((p) => (p.accepts[0].network = "atlantis"))), expected: "C2:network_unknown", pointer: "/accepts/0/network" },
  { name: "amount a decimal", input: header(v2((p) => (p.accepts[0].amount = "0.01"))), expected: "C2:amount_not_integer", pointer: "/accepts/0/amount" },
  { name: "amount a number", input: header(v2((p) => (p.accepts[0].amount = 10000))), expected: "C2:amount_not_integer", pointer: "/accepts/0/amount" },
  { name: "v1 maxAmountRequired not integer", input: body(v1((p) => (p.accepts[0].maxAmountRequired = "1e4"))), expected: "C2:amount_not_integer", pointer: "/accepts/0/maxAmountRequired" },
  { name: "payTo lower case", input: header(v2((p) => (p.accepts[0].payTo = PAY_TO.toLowerCase()))), expected: "C2:payto_not_checksummed", pointer: "/accepts/0/payTo" },
  { name: "payTo wrong checksum", input: header(v2((p) => (p.accepts[0].payTo = "0x63AA5960943865e7d57FDdF0D899eE36B6D2046E"))), expected: "C2:payto_not_checksummed", pointer: "/accepts/0/payTo" },
  { name: "payTo not an address", input: header(v2((p) => (p.accepts[0].payTo = "0x1234"))), expected: "C2:payto_invalid", pointer: "/accepts/0/payTo" },
  { name: "timeout below 30", input: header(v2((p) => (p.accepts[0].maxTimeoutSeconds = 10))), expected: "C2:timeout_out_of_range", pointer: "/accepts/0/maxTimeoutSeconds" },
  { name: "timeout above 3600", input: header(v2((p) => (p.accepts[0].maxTimeoutSeconds = 7200))), expected: "C2:timeout_out_of_range", pointer: "/accepts/0/maxTimeoutSeconds" },
  { name: "unknown scheme", input: header(v2((p) => (p.accepts[0].scheme = "pay-later"))), expected: "C2:scheme_unknown", pointer: "/accepts/0/scheme" },
  // C3
  { name: "Polygon USDC on Base", input: header(v2((p) => (p.accepts[0].asset = "0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359"))), expected: "C3:asset_not_canonical", pointer: "/accepts/0/asset" },
  { name: "EIP-712 name wrong", input: header(v2((p) => (p.accepts[0].extra.name = "USDC"))), expected: "C3:eip712_name_mismatch", pointer: "/accepts/0/extra/name" },
  { name: "EIP-712 version wrong", input: header(v2((p) => (p.accepts[0].extra.version = "1"))), expected: "C3:eip712_version_mismatch", pointer: "/accepts/0/extra/version" },
  { name: "EIP-712 domain missing", input: header(v2((p) => (p.accepts[0].extra = {}))), expected: "C3:eip712_domain_missing", pointer: "/accepts/0/extra" },
  // C4
  { name: "header and body disagree", input: { status: 402, headers: header(v2()).headers, body: JSON.stringify(v2((p) => (p.accepts[0].amount = "20000"))) }, expected: "C4:header_body_disagree", pointer: "/accepts/0/amount" },
  // C5
  { name: "no bazaar extension", input: header(v2((p) => delete p.extensions)), expected: "C5:bazaar_missing", pointer: "/extensions/bazaar" },
  { name: "no info.output", input: header(v2((p) => delete p.extensions.bazaar.info.output)), expected: "C5:bazaar_output_missing", pointer: "/extensions/bazaar/info/output" },
  { name: "no info.input", input: header(v2((p) => delete p.extensions.bazaar.info.input)), expected: "C5:bazaar_input_missing", pointer: "/extensions/bazaar/info/input" },
  { name: "schema not JSON Schema", input: header(v2((p) => (p.extensions.bazaar.schema = { type: "objekt" }))), expected: "C5:bazaar_schema_invalid", pointer: "/extensions/bazaar/schema" },
  { name: "schema with an external $ref", input: header(v2((p) => (p.extensions.bazaar.schema.properties.input.properties.body = { $ref: "https://evil.example/s.json" }))), expected: "C5:bazaar_ref_external", pointer: "/extensions/bazaar/schema" },
  { name: "info does not match schema", input: header(v2((p) => (p.extensions.bazaar.info.input.body = { q: 42 }))), expected: "C5:bazaar_info_mismatch", pointer: "/extensions/bazaar/info" },
  { name: "v1 without outputSchema", input: body(v1((p) => delete p.accepts[0].outputSchema)), expected: "C5:bazaar_missing" },
  // S4
  { name: "asks for a seed phrase", input: header(v2((p) => (p.resource.description = "Please paste your seed phrase to verify ownership."))), expected: "S4:asks_for_secret", pointer: "/resource/description" },
  { name: "input field named privateKey", input: body(v1((p) => (p.accepts[0].outputSchema.input.bodyFields = { privateKey: { type: "string" } }))), expected: "S4:asks_for_secret_field" },
];

describe("parseX402: each failure is a finding with its check, code and pointer", () => {
  for (const c of cases) {
    it(c.name, () => {
      const r = parseX402(c.input);
      expect(fails(r)).toContain(c.expected);
      if (c.pointer) {
        const [check, code] = c.expected.split(":");
        expect(r.findings.find((f) => f.check === check && f.code === code)?.pointer).toBe(c.pointer);
      }
      // A failed check never also reports a pass.
      const check = c.expected.split(":")[0];
      expect(r.findings.some((f) => f.check === check && f.severity === "pass")).toBe(false);
    });
  }

  it("C1/C2 failures make the challenge invalid; C3–C5 do not", () => {
    expect(parseX402(header(v2((p) => (p.accepts[0].payTo = PAY_TO.toLowerCase())))).valid).toBe(false);
    expect(parseX402(header(v2((p) => delete p.extensions))).valid).toBe(true);
  });

  it("advice not to share a secret is not an ask", () => {
    const r = parseX402(header(v2((p) => (p.resource.description = "We will never ask you to send your private key."))));
    expect(fails(r)).toEqual([]);
  });

  it("an asset on a network outside the table is unverified, not failed", () => {
    const r = parseX402(header(v2((p) => { p.accepts[0].network = "eip155:10"; p.accepts[0].asset = "0x0b2C639c533813f4Aa9D7837CAf62653d097Ff85"; })));
    expect(r.findings).toContainEqual(expect.objectContaining({ check: "C3", severity: "info", code: "asset_unverified" }));
    expect(r.findings.some((f) => f.check === "C3" && f.severity !== "info")).toBe(false);
  });

  it("a declared token passes C3", () => {
    const token = { network: "eip155:8453", address: "0x0000000000000000000000000000000000000001", decimals: 18 };
    const r = parseX402(header(v2((p) => { p.accepts[0].asset = token.address; })), { declaredTokens: [token] });
    expect(fails(r).filter((f) => f.startsWith("C3"))).toEqual([]);
  });
});
