/**
 * The `unprobeable` state: an endpoint that validates its input before answering 402 (400/422 to the
 * probe's request) is recorded as unprobeable, not failed, and the readiness advice says how to make
 * it probeable; one that answers 402 once its documented example is valid is probed as usual.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { encodePaymentRequiredHeader } from "@x402/core/http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scoreWithAdvice, unprobeableEndpoints } from "@/lib/scoring/readiness/advice";
import { CURRENT_RUBRIC } from "@/lib/scoring/readiness";
import { TEST_NOW, fullEvidence, fullListing, probedEndpoint } from "@/test/readiness";
import { probeEndpoint } from "./probe-endpoint";

let server: Server;
let origin = "";
const CHALLENGE = encodePaymentRequiredHeader({
  x402Version: 2,
  resource: { url: "http://127.0.0.1/strict" },
  accepts: [{ scheme: "exact", network: "eip155:8453", amount: "10000", asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", payTo: "0x209693Bc6afc0C5328bA36FaF03C514EF312287C", maxTimeoutSeconds: 60, extra: { name: "USD Coin", version: "2" } }],
});

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => (raw += c));
    req.on("end", () => {
      const status = req.url === "/bad-request" ? 400 : req.url === "/missing" ? 404 : req.url === "/boom" ? 500 : 422;
      let valid = false;
      try {
        valid = typeof JSON.parse(raw).city === "string";
      } catch {}
      if (req.url === "/strict" && valid) return res.writeHead(402, { "payment-required": CHALLENGE, "content-type": "application/json" }).end("{}");
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify({ error: "city is required" }));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const probe = (path: string, requestExample: unknown) =>
  probeEndpoint({ method: "POST", path, url: origin + path, requestExample, payable: true }, { allowHosts: [new URL(origin).host] });

describe("unprobeable", () => {
  it.each([
    ["/strict", 422],
    ["/bad-request", 400],
  ])("%s without a valid body answers %i: unprobeable (a warning), no failed R2 or C1", async (path, status) => {
    const e = await probe(path, null);
    expect(e.status).toBe(status);
    expect(e.findings).toContainEqual(expect.objectContaining({ check: "R2", severity: "warn", code: "unprobeable" }));
    expect(e.findings.find((f) => f.code === "unprobeable")?.message).toMatch(/Answer 402 before validating, or publish a request example/);
    expect(e.findings.filter((f) => (f.check === "R2" || f.check === "C1") && f.severity === "fail")).toEqual([]);
  });

  it("the same endpoint with a valid published example is probed as usual (402, challenge read)", async () => {
    const e = await probe("/strict", { city: "Lisbon" });
    expect(e.status).toBe(402);
    expect(e.challenge.kind).toBe("x402-v2");
    expect(e.findings.some((f) => f.code === "unprobeable")).toBe(false);
  });

  it.each([
    ["/missing", "client_error"],
    ["/boom", "server_error"],
  ])("%s is still a failure (%s), never unprobeable", async (path, code) => {
    const e = await probe(path, null);
    expect(e.findings).toContainEqual(expect.objectContaining({ check: "R2", severity: "fail", code }));
    expect(e.findings.some((f) => f.code === "unprobeable")).toBe(false);
  });

  it("readiness advice names the unprobeable endpoint and both ways out; the score itself is the released rubric's", async () => {
    const listing = fullListing();
    const strict = probedEndpoint(listing.endpoints[0], { status: 422, challenge: { kind: "none", valid: false }, findings: [{ check: "R2", severity: "warn", code: "unprobeable", message: "Unprobeable" }] });
    const evidence = fullEvidence(listing);
    evidence.probe.endpoints = [strict, probedEndpoint(listing.endpoints[1], { status: 422, challenge: { kind: "none", valid: false }, findings: [] })];
    expect(unprobeableEndpoints(evidence)).toEqual([`${strict.method} ${strict.path}`]);
    const r = scoreWithAdvice(listing, evidence, CURRENT_RUBRIC, { now: TEST_NOW });
    const h1 = r.improvements.find((i) => i.ruleId === "H1");
    expect(h1?.action).toMatch(new RegExp(`Make ${strict.method} ${strict.path} probeable`));
    expect(h1?.action).toMatch(/Answer 402 before validating the input, or publish a request example/);
  });
});
