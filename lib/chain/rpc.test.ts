/** Reading chains: the TOLLGATE_RPC_URL_<network> settings, and an outage as an unmeasured value on a real anvil. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EnvError, parseEnv } from "@/lib/env";
import { startAnvil, type AnvilNode } from "@/devchain/anvil";
import { LOCAL_USDC_ADDRESS, setupLocalChain } from "@/devchain/local-chain";
import { evmChainId, isRpcOutage, readChain, rpcUrlFor } from "./rpc";
import { TEST_USDC_ABI } from "@/devchain/test-usdc";

describe("RPC settings", () => {
  it("TOLLGATE_RPC_URL_<namespace>_<reference> maps to the CAIP-2 network", () => {
    const e = parseEnv({ TOLLGATE_RPC_URL_eip155_8453: "https://base.example/rpc", TOLLGATE_RPC_URL_eip155_84532: "wss://sepolia.example/ws" });
    expect(e.rpcUrls).toEqual({ "eip155:8453": "https://base.example/rpc", "eip155:84532": "wss://sepolia.example/ws" });
    expect(rpcUrlFor("eip155:8453", e)).toBe("https://base.example/rpc");
    expect(rpcUrlFor("eip155:1", e)).toBeNull();
  });

  it("the local chain falls back to TOLLGATE_CHAIN_RPC_URL", () => {
    const e = parseEnv({ TOLLGATE_CHAIN_RPC_URL: "http://127.0.0.1:8545" });
    expect(rpcUrlFor("eip155:31337", e)).toBe("http://127.0.0.1:8545");
    expect(rpcUrlFor("eip155:8453", e)).toBeNull();
  });

  it("a malformed setting stops start-up naming the variable", () => {
    expect(() => parseEnv({ TOLLGATE_RPC_URL_base: "https://x.example" })).toThrow(EnvError);
    expect(() => parseEnv({ TOLLGATE_RPC_URL_base: "https://x.example" })).toThrow(/TOLLGATE_RPC_URL_base must name a CAIP-2 network/);
    expect(() => parseEnv({ TOLLGATE_RPC_URL_eip155_8453: "not a url" })).toThrow(/TOLLGATE_RPC_URL_eip155_8453 must be an http/);
    expect(() => parseEnv({ TOLLGATE_FACILITATOR_KEY: "0x1234" })).toThrow(/TOLLGATE_FACILITATOR_KEY/);
    expect(() => parseEnv({ TOLLGATE_CHAIN_RPC_URL: "localhost" })).toThrow(/TOLLGATE_CHAIN_RPC_URL/);
  });

  it("evmChainId reads eip155 ids only", () => {
    expect(evmChainId("eip155:8453")).toBe(8453);
    expect(evmChainId("solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc")).toBeNull();
  });
});

describe("readChain on a real anvil", () => {
  let node: AnvilNode;
  const settings = () => ({ rpcUrls: { "eip155:31337": node.rpcUrl } });

  beforeAll(async () => {
    node = await startAnvil();
    await setupLocalChain(node.rpcUrl);
  });
  afterAll(async () => {
    await node?.stop();
  });

  it("answers { ok: true, value } while the node is up", async () => {
    const read = await readChain("eip155:31337", (c) => c.readContract({ address: LOCAL_USDC_ADDRESS, abi: TEST_USDC_ABI, functionName: "decimals" }), { settings: settings() });
    expect(read).toEqual({ ok: true, value: 6 });
  });

  it("no RPC configured is unmeasured, naming the setting", async () => {
    expect(await readChain("eip155:8453", async () => 1, { settings: { rpcUrls: {} } })).toEqual({ ok: false, unmeasured: "no RPC configured for eip155:8453 (set TOLLGATE_RPC_URL_eip155_8453)" });
    expect(await readChain("solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc", async () => 1, { settings: { rpcUrls: {} } })).toMatchObject({ ok: false });
  });

  it("a revert is a real answer (thrown), not an outage", async () => {
    await expect(
      readChain("eip155:31337", (c) => c.simulateContract({ address: LOCAL_USDC_ADDRESS, abi: TEST_USDC_ABI, functionName: "mint", args: [LOCAL_USDC_ADDRESS, 1n], account: LOCAL_USDC_ADDRESS }), { settings: settings() }),
    ).rejects.toThrow(/reverted/);
  });

  it("the node stopped: { ok: false, unmeasured } instead of a thrown failure, without the URL", async () => {
    const s = settings();
    await node.stop();
    const read = await readChain("eip155:31337", (c) => c.getBlockNumber(), { settings: s, timeoutMs: 2000 });
    expect(read.ok).toBe(false);
    if (!read.ok) {
      expect(read.unmeasured).toMatch(/^the eip155:31337 RPC did not answer/);
      expect(read.unmeasured).not.toContain("127.0.0.1");
    }
  });

  it("isRpcOutage tells transport failures from other errors", () => {
    expect(isRpcOutage(new Error("plain"))).toBe(false);
    expect(isRpcOutage("not an error")).toBe(false);
  });
});
