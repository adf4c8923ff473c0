import { describe, expect, it } from "vitest";
import { env } from "@/lib/env";
import { callSnippets } from "./call-snippets";

const listing = { slug: "geo-coder", baseUrl: "https://api.example.com/v1/", protocols: ["x402"], networks: ["eip155:8453"] };
const LOCAL_USDC = "0x5FbDB2315678afecb367f032d93F642f64180aa3";

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

  it("declares the endpoint's asset in @x402/core's spend controls, capped at a fixed listed price", () => {
    const e = { method: "GET", path: "/rate", requestExample: null, priceAmount: "10000", priceAsset: LOCAL_USDC, priceMode: "fixed" };
    const s = callSnippets({ ...listing, networks: ["eip155:31337"] }, e, "eip155:31337");
    expect(s.client.code).toContain(`.setSpendControls({ allowedAssets: [{ network: "eip155:31337", asset: "${LOCAL_USDC}", maxAmountPerPayment: "10000" }] })`);
    // Without a listed asset, the network's canonical USDC; a dynamic price sets no cap.
    const dynamic = callSnippets(listing, { ...e, priceAsset: null, priceMode: "dynamic" }, null);
    expect(dynamic.client.code).toContain(`allowedAssets: [{ network: "eip155:8453", asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913" }]`);
    // An unknown network names the gap instead of inventing a token.
    const unknown = callSnippets({ ...listing, networks: ["eip155:999999"] }, { ...e, priceAsset: null }, null);
    expect(unknown.client.code).toContain(`asset: "<the token address the seller's 402 names>"`);
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

  it("gives mppx the token's EIP-712 domain and copies headers through new Headers(), never a spread", () => {
    const e = { method: "GET", path: "/weather", requestExample: null, priceAmount: "10000", priceAsset: LOCAL_USDC, priceMode: "fixed" };
    const s = callSnippets({ ...listing, protocols: ["mpp"], networks: ["eip155:31337"] }, e, "eip155:31337");
    expect(s.client.code).toContain(`authorization: { name: "USD Coin", version: "2" }`);
    expect(s.client.code).toContain("const headers = new Headers(init?.headers);");
    expect(s.client.code).not.toMatch(/\.\.\.init\?\.headers/);
    expect(s.client.code).toContain("networks: [31337],");
    expect(s.client.code).toContain(`currencies: ["${LOCAL_USDC}"],`);
    expect(s.client.code).toContain(`maxAtomicAmount: "10000",`);
    // Base Sepolia's USDC signs as "USDC", not "USD Coin": the domain is the token's own.
    const sepolia = callSnippets({ ...listing, protocols: ["mpp"], networks: ["eip155:84532"] }, { ...e, priceAsset: null }, null);
    expect(sepolia.client.code).toContain(`authorization: { name: "USDC", version: "2" }`);
  });
});
