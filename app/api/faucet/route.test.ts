/**
 * POST /api/faucet and /faucet: 404 unless the demo mode is on; in it, a bad address is a 400 naming
 * /address, a good one is funded on a real anvil, and the per-wallet limit answers 429 with Retry-After.
 */
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startAnvil, type AnvilNode } from "@/devchain/anvil";
import { FAUCET_ADDRESS, FAUCET_RESERVE } from "@/devchain/faucet";
import { setupLocalChain, type LocalChain } from "@/devchain/local-chain";
import { createTestDatabase, type TestDatabase } from "@/test/db";

let t: TestDatabase;
let node: AnvilNode;
let local: LocalChain;
beforeAll(async () => {
  t = await createTestDatabase();
  node = await startAnvil();
  local = await setupLocalChain(node.rpcUrl, [{ address: FAUCET_ADDRESS, amount: FAUCET_RESERVE }]);
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await node?.stop();
  await t?.close();
});

async function load(demo: "1" | "0") {
  vi.stubEnv("TOLLGATE_DEMO_SIGNIN", demo);
  vi.stubEnv("TOLLGATE_CHAIN_RPC_URL", node.rpcUrl);
  vi.stubEnv("TOLLGATE_LIMIT_FAUCET_WALLET", "1/1h");
  vi.resetModules();
  return { route: await import("./route"), page: (await import("@/app/faucet/page")).default };
}

const post = (body: unknown, ip = "203.0.113.7") =>
  new Request("http://127.0.0.1:3000/api/faucet", { method: "POST", headers: { "content-type": "application/json", "x-forwarded-for": ip }, body: typeof body === "string" ? body : JSON.stringify(body) });

describe("the demo faucet outside demo mode", () => {
  it("the route answers 404 and sends nothing; the page is not found", async () => {
    const { route, page } = await load("0");
    const address = privateKeyToAccount(generatePrivateKey()).address;
    const res = await route.POST(post({ address }));
    expect(res.status).toBe(404);
    expect(await local.balanceOf(address)).toBe(0n);
    expect(() => page()).toThrow(/NEXT_HTTP_ERROR_FALLBACK;404/);
  });
});

describe("the demo faucet in demo mode", () => {
  it("a bad address is a 400 naming /address; a good one is funded", async () => {
    const { route } = await load("1");
    const bad = await route.POST(post({ address: "0xnothex" }));
    expect(bad.status).toBe(400);
    expect((await bad.json()).error).toMatchObject({ code: "bad_request", details: [{ pointer: "/address" }] });
    expect((await route.POST(post("{"))).status).toBe(400);

    const address = privateKeyToAccount(generatePrivateKey()).address;
    const ok = await route.POST(post({ address: address.toLowerCase() }));
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ address, usdcSent: "10000000", usdcBalance: "10" });
    expect(await local.balanceOf(address)).toBe(10_000_000n);
  });

  it("the same wallet again, from another client address, is refused by the per-wallet limit (429, Retry-After)", async () => {
    const { route } = await load("1");
    const address = privateKeyToAccount(generatePrivateKey()).address;
    expect((await route.POST(post({ address }, "198.51.100.1"))).status).toBe(200);
    const again = await route.POST(post({ address }, "198.51.100.2"));
    expect(again.status).toBe(429);
    expect(Number(again.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await again.json()).error.message).toMatch(/demo faucet requests.*one wallet/);
    expect(await local.balanceOf(address)).toBe(10_000_000n);
  });
});
