import { describe, expect, it } from "vitest";
import { env } from "@/lib/env";
import { callSnippets } from "./call-snippets";

const listing = { slug: "geo-coder", baseUrl: "https://api.example.com/v1/", protocols: ["x402"], networks: ["eip155:8453"] };

describe("callSnippets", () => {
  it("curls the seller's own URL unpaid, and pays through the router's call URL with @x402/fetch", () => {
    const s = callSnippets(listing, { method: "POST", path: "/geocode", requestExample: { q: "10 Downing St's" } }, "eip155:84532");
    expect(s.sellerUrl).toBe("https://api.example.com/v1/geocode");
    expect(s.callUrl).toBe(`${env().publicOrigin}/router/call/geo-coder/geocode`);
    expect(s.curl).toBe(`curl -i -X POST 'https://api.example.com/v1/geocode' \\\n  -H 'content-type: application/json' \\\n  -d '{"q":"10 Downing St'\\''s"}'`);
    expect(s.client.kind).toBe("x402-fetch");
    expect(s.client.code).toContain(`await pay("${s.callUrl}"`);
    expect(s.client.code).toContain(`register("eip155:84532"`);
    expect(s.client.code).toContain(`body: JSON.stringify({"q":"10 Downing St's"})`);
    expect(s.client.code).toContain("Bearer ${process.env.TOLLGATE_API_KEY}");
  });

  it("puts a flat GET example in the query string, sends no body, and uses mppx for an MPP-only listing", () => {
    const s = callSnippets({ ...listing, protocols: ["mpp"] }, { method: "GET", path: "weather", requestExample: { city: "Oslo", days: 3 } }, null);
    expect(s.sellerUrl).toBe("https://api.example.com/v1/weather?city=Oslo&days=3");
    expect(s.callUrl).toMatch(/\/router\/call\/geo-coder\/weather\?city=Oslo&days=3$/);
    expect(s.curl).toBe(`curl -i -X GET 'https://api.example.com/v1/weather?city=Oslo&days=3'`);
    expect(s.client.kind).toBe("mppx");
    expect(s.client.code).toContain("x-tollgate-key");
    expect(s.client.code).not.toContain("body:");
  });
});
