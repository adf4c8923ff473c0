/**
 * GET /api/attestations?url= and the MCP tool `preflight` on the database (PGlite, or server PostgreSQL
 * with TEST_DATABASE_URL): an endpoint graded by the sweep found by its URL, each error named, and the
 * buyer's guard (clients/guard) verifying what the route serves and refusing what differs.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signerFor, publicKeySet } from "@/lib/badges/keys";
import { gradeListing } from "@/lib/attest/sweep";
import { exec } from "@/lib/sql";
import { createTestDatabase, type TestDatabase } from "@/test/db";
import { fixedKeyring, RFC8032_TEST1_SEED_HEX } from "@/test/badges";
import { gradedListing } from "@/test/attest";
import { TollgateGuard } from "@/clients/guard/src/index";
import { POST as mcp } from "@/app/mcp/route";
import { GET } from "./route";

let t: TestDatabase;
const get = (query: string) => GET(new Request(`http://localhost/api/attestations${query}`));
const keyring = fixedKeyring();
const URL_X = "https://api.example.com/v1/x";
beforeAll(async () => {
  // preflight verifies with the process's badge keys: the same fixed key the sweep signs with here.
  process.env.BADGE_SIGNING_KEY = Buffer.from(RFC8032_TEST1_SEED_HEX, "hex").toString("base64");
  process.env.BADGE_SIGNING_KEY_NOT_BEFORE = "2026-01-01T00:00:00Z";
  t = await createTestDatabase();
  graded = await gradedListing(t.prisma, 4);
  const r = await get(`?url=${encodeURIComponent(URL_X)}`);
  beforeGrading = { status: r.status, reason: (await r.json()).error?.reason };
  // Graded as of now, so the statement is fresh for the guard and for preflight's clock alike.
  await gradeListing(t.prisma, graded.id, { now: new Date(), signer: signerFor(keyring) });
}, 120_000);
afterAll(async () => {
  await t?.close();
});

let graded: { id: string; endpointId: string };
let beforeGrading: { status: number; reason: string };

describe("GET /api/attestations?url=", () => {
  it("names each error: no url, a relative or non-http one, a bad method, a URL no listed endpoint has, one not graded yet", async () => {
    for (const [q, pointer] of [["", "/url"], ["?url=/v1/x", "/url"], ["?url=ftp%3A%2F%2Fa.example%2Fx", "/url"], [`?url=${encodeURIComponent(URL_X)}&method=TRACE`, "/method"]] as const) {
      const r = await get(q);
      expect(r.status, q).toBe(400);
      expect((await r.json()).error.details[0].pointer, q).toBe(pointer);
    }
    const none = await get(`?url=${encodeURIComponent("https://nowhere.example/v1/x")}`);
    expect(none.status).toBe(404);
    expect((await none.json()).error.reason).toBe("no_endpoint");
    expect(beforeGrading).toEqual({ status: 404, reason: "no_attestation" });
  });

  it("finds the endpoint's latest attestation by its URL (query and trailing slash ignored), as /api/endpoints/:id/attestation serves it", async () => {
    for (const u of [URL_X, `${URL_X}/`, `${URL_X}?q=Berlin`]) {
      const r = await get(`?url=${encodeURIComponent(u)}`);
      expect(r.status, u).toBe(200);
      expect(r.headers.get("access-control-allow-origin")).toBe("*");
      const body = await r.json();
      expect(body.statement.endpoint).toMatchObject({ id: graded.endpointId, url: URL_X });
    }
    expect((await get(`?url=${encodeURIComponent(URL_X)}&method=GET`)).status).toBe(404);
  });
});

describe("the guard and preflight against the route", () => {
  const at = Date.now() + 60_000;
  const viaRoute = (async (input: RequestInfo | URL) => GET(new Request(String(input)))) as typeof fetch;

  it("the guard verifies the served envelope under pinned keys and refuses a changed payee or price", async () => {
    const statement = (await (await get(`?url=${encodeURIComponent(URL_X)}`)).json()).statement;
    const p = statement.payment;
    expect(p.payTo).toMatch(/^0x[0-9a-f]{40}$/);
    const guard = new TollgateGuard({ tollgate: "http://localhost", keys: publicKeySet(keyring), fetch: viaRoute, now: () => at });
    const terms = { url: URL_X, scheme: "exact", network: p.network, asset: p.asset, payTo: p.payTo, amount: p.amount };
    // Four days of probes: the engine's verdict is insufficient_evidence, which the guard does not refuse by default.
    expect(statement.grade.verdict).toBe("insufficient_evidence");
    expect(await guard.check(terms)).toMatchObject({ ok: true, statement: { endpoint: { id: graded.endpointId } } });
    const strict = new TollgateGuard({ tollgate: "http://localhost", keys: publicKeySet(keyring), fetch: viaRoute, now: () => at, refuseVerdicts: ["avoid", "down", "insufficient_evidence"] });
    expect(await strict.check(terms)).toMatchObject({ ok: false, code: "avoid" });
    const other = new TollgateGuard({ tollgate: "http://localhost", keys: publicKeySet(keyring), fetch: viaRoute, now: () => at });
    expect(await other.check({ ...terms, payTo: "0x1111111111111111111111111111111111111111" })).toMatchObject({ ok: false, code: "payto_changed" });
    expect(await other.check({ ...terms, amount: String(BigInt(p.amount) + 1n) })).toMatchObject({ ok: false, code: "price_above_listing" });
    expect(await other.check({ ...terms, url: "https://api.example.com/v1/nope" })).toMatchObject({ ok: false, code: "unlisted" });
    expect(other.stats.lookups.get(`* ${URL_X}`)).toBe(1);
  });

  it("MCP preflight answers the same question with the same reason codes", async () => {
    const statement = (await (await get(`?url=${encodeURIComponent(URL_X)}`)).json()).statement;
    const p = statement.payment;
    const call = async (args: Record<string, unknown>) => {
      const res = await mcp(
        new Request("http://localhost/mcp", {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "preflight", arguments: args } }),
        }),
      );
      return (await res.json()).result;
    };
    const terms = { url: URL_X, network: p.network, asset: p.asset, payTo: p.payTo, amount: p.amount };
    expect((await call(terms)).structuredContent).toMatchObject({ pay: true, reason: "ok", endpointId: graded.endpointId, grade: { verdict: "insufficient_evidence" } });
    expect((await call({ ...terms, network: "eip155:1" })).structuredContent).toMatchObject({ pay: false, reason: "network_mismatch" });
    expect((await call({ ...terms, payTo: "0x1111111111111111111111111111111111111111" })).structuredContent).toMatchObject({ pay: false, reason: "payto_changed" });
    expect((await call({ ...terms, amount: "20000" })).structuredContent).toMatchObject({ pay: false, reason: "price_above_listing" });
    expect((await call({ ...terms, url: "https://nowhere.example/a" })).structuredContent).toMatchObject({ pay: false, reason: "unlisted" });
    const bad = await call({ ...terms, url: "not a url" });
    expect(bad.isError).toBe(true);
    expect(bad.content[0].text).toContain("/url");
  });

  it("a listing changed after its grade answers listing_changed", async () => {
    await exec(t.prisma, `UPDATE "endpoints" SET "id" = $2 WHERE "id" = $1`, graded.endpointId, `${graded.endpointId}x`);
    const r = await get(`?url=${encodeURIComponent(URL_X)}`);
    expect(r.status).toBe(404);
    expect((await r.json()).error.reason).toBe("attestation_pending");
    const guard = new TollgateGuard({ tollgate: "http://localhost", keys: publicKeySet(keyring), fetch: (async (i: RequestInfo | URL) => GET(new Request(String(i)))) as typeof fetch });
    expect(await guard.check({ url: URL_X, network: "eip155:8453", asset: "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913", payTo: "0x63aa5960943865e7d57fddf0d899ee36b6d2046e", amount: "10000" })).toMatchObject({ ok: false, code: "listing_changed" });
  });
});
