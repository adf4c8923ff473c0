import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodePaymentRequiredHeader } from "@x402/core/http";
import { PaymentRequiredV2Schema } from "@x402/core/schemas";
import { safeFetch } from "@/lib/net";
import { fixtureListings, startFixtureSellers, FIXTURE_SELLERS, type FixtureServer } from "./index";

let server: FixtureServer;
let allow: string[];
beforeAll(async () => {
  server = await startFixtureSellers({ port: 0 });
  allow = [`127.0.0.1:${server.port}`];
});
afterAll(() => server?.close());

describe("fixture sellers", () => {
  it("binds loopback only", async () => {
    await expect(startFixtureSellers({ host: "0.0.0.0" })).rejects.toThrow(/loopback only/);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it("serves every route it lists", async () => {
    const get = server.routes.filter((r) => r.startsWith("GET "));
    for (const route of get) {
      const r = await safeFetch(server.url + route.slice(4), { allowHosts: allow, deadlineMs: 3000 });
      expect(r.ok && r.status < 500, route).toBe(true);
    }
  });

  it("the agent-verdict product's 402 is what @x402/core encodes and its own schema accepts", async () => {
    const l = fixtureListings(server.url)["agent-verdict"];
    const r = await safeFetch(`${l.baseUrl}/api/x402/AGENT_VERDICT`, { method: "POST", body: JSON.stringify(l.endpoints[0].requestExample), headers: { "content-type": "application/json" }, allowHosts: allow });
    expect(r.ok && r.status).toBe(402);
    if (!r.ok) return;
    const pr = decodePaymentRequiredHeader(r.headers["payment-required"]);
    expect(PaymentRequiredV2Schema.safeParse(pr).success).toBe(true);
    expect(pr.accepts.every((a) => a.payTo === "0x63aA5960943865e7d57FDdF0D899eE36B6D2046E" && a.amount === "40000")).toBe(true);
    expect(JSON.parse(new TextDecoder().decode(r.body))).toEqual(pr); // the body echoes the header
  });

  it("serves real images as logos", async () => {
    for (const slug of ["agent-verdict", "validity-check"]) {
      const url = fixtureListings(server.url)[slug].logoUrl!;
      const r = await safeFetch(url, { allowHosts: allow });
      expect(r.ok && ["png", "svg"].includes(r.sniffedType)).toBe(true);
    }
  });

  it("has a listing for every seller, with unique slugs", () => {
    const listings = fixtureListings(server.url);
    expect(Object.keys(listings)).toHaveLength(FIXTURE_SELLERS.length);
    expect(new Set(FIXTURE_SELLERS.map((s) => s.slug)).size).toBe(FIXTURE_SELLERS.length);
  });
});
