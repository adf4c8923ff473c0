import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readWellKnown, readWellKnownEntry } from "./import-sources";
import { draftListingFromUrl } from "./import";

describe("/.well-known/x402 entries", () => {
  it("reads an absolute URL, a path, and x402scan's \"METHOD /path\" form", () => {
    expect(readWellKnownEntry("https://api.example.com/v1/x")).toEqual({ ok: true, resource: { ref: "https://api.example.com/v1/x", method: null } });
    expect(readWellKnownEntry("/api/x")).toEqual({ ok: true, resource: { ref: "/api/x", method: null } });
    expect(readWellKnownEntry("POST /api/send")).toEqual({ ok: true, resource: { ref: "/api/send", method: "POST" } });
    expect(readWellKnownEntry("get https://api.example.com/q")).toEqual({ ok: true, resource: { ref: "https://api.example.com/q", method: "GET" } });
  });

  it("refuses what is not a URL, a path or METHOD /path, with a named warning", () => {
    for (const bad of ["api/send", "POST api/send", "FETCH /api/send", "//evil.example/x", "ftp://x/y", "POST /a /b", ""]) {
      expect(readWellKnownEntry(bad).ok, bad).toBe(false);
    }
    const r = readWellKnown({ version: 1, resources: ["POST /api/send", "send money"] });
    expect(r.resources).toEqual([{ ref: "/api/send", method: "POST" }]);
    expect(r.warnings).toEqual([expect.stringMatching(/^well_known_entry_invalid: .*"send money"/)]);
  });
});

describe("draftListingFromUrl: a well-known list in the METHOD /path form", () => {
  let server: Server;
  let base: string;
  const seen: string[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      if (req.url === "/.well-known/x402") {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ version: 1, resources: ["POST /api/send", "send money"] }));
        return;
      }
      if (req.url === "/api/send" && req.method === "POST") {
        res.writeHead(402, { "content-type": "application/json" });
        res.end(JSON.stringify({ x402Version: 1, error: "payment required", accepts: [{ scheme: "exact", network: "base", maxAmountRequired: "10000", resource: `${base}/api/send`, description: "Send", mimeType: "application/json", payTo: "0x63aA5960943865e7d57FDdF0D899eE36B6D2046E", maxTimeoutSeconds: 60, asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", extra: { name: "USD Coin", version: "2" } }] }));
        return;
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => server?.close());

  it("drafts POST /api/send (no invented /POST%20/api/send) and names the entry it refused", async () => {
    const r = await draftListingFromUrl(base, { allowHosts: [new URL(base).host], deadlineMs: 4000 });
    if (!r.ok) throw new Error(JSON.stringify(r));
    expect(r.draft.endpoints.map((e) => `${e.method} ${e.path} ${e.pricing?.usd ?? "-"}`)).toEqual(["POST /api/send 0.01"]);
    expect(seen.some((s) => s.includes("%20"))).toBe(false);
    expect(seen).not.toContain("GET /api/send"); // the method came from the entry: no GET first
    expect(r.warnings.some((w) => w.startsWith("well_known_entry_invalid") && w.includes('"send money"'))).toBe(true);
  });
});
