/** The demo faucet on a real anvil: bounded sends of test USDC and gas, and the 400s for a bad address. */
import { privateKeyToAccount, generatePrivateKey } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isAppError } from "@/lib/errors";
import { startAnvil, type AnvilNode } from "./anvil";
import { FAUCET_ADDRESS, FAUCET_GAS, FAUCET_USDC, FAUCET_WALLET_CAP, faucetFund, parseFaucetAddress } from "./faucet";
import { setupLocalChain, type LocalChain } from "./local-chain";

let node: AnvilNode;
let local: LocalChain;
beforeAll(async () => {
  node = await startAnvil();
  local = await setupLocalChain(node.rpcUrl, [{ address: FAUCET_ADDRESS, amount: 25_000_000n }]);
});
afterAll(async () => {
  await node?.stop();
});

const fresh = () => privateKeyToAccount(generatePrivateKey()).address;

async function refusal(p: Promise<unknown> | (() => unknown)): Promise<{ code: string; status: number; message: string; pointer?: string }> {
  try {
    await (typeof p === "function" ? p() : p);
  } catch (e) {
    if (isAppError(e)) return { code: e.code, status: e.status, message: e.message, pointer: e.details[0]?.pointer };
    throw e;
  }
  throw new Error("expected a refusal");
}

describe("parseFaucetAddress", () => {
  it("takes a lower-case or EIP-55 address and returns it checksummed", () => {
    const a = fresh();
    expect(parseFaucetAddress({ address: a.toLowerCase() })).toBe(a);
    expect(parseFaucetAddress({ address: ` ${a} ` })).toBe(a);
  });

  it.each([
    [{}, /address is required/],
    [null, /address is required/],
    [{ address: 42 }, /address is required/],
    [{ address: "0x1234" }, /0x followed by 40 hexadecimal/],
    [{ address: "vitalik.eth" }, /0x followed by 40 hexadecimal/],
    [{ address: "0x5fbDB2315678afecb367f032d93F642f64180aa3" }, /wrong checksum/],
    [{ address: "0x0000000000000000000000000000000000000000" }, /zero address/],
  ])("refuses %j with a 400 naming /address", async (input, message) => {
    const r = await refusal(() => parseFaucetAddress(input));
    expect(r).toMatchObject({ code: "bad_request", status: 400, pointer: "/address" });
    expect(r.message).toMatch(message);
  });
});

describe("faucetFund", () => {
  it("sends a fresh wallet 10 test USDC and 0.1 ETH of gas, confirmed on chain", async () => {
    const to = fresh();
    const r = await faucetFund(node.rpcUrl, to);
    expect(r).toMatchObject({ address: to, usdcSent: FAUCET_USDC.toString(), gasSent: FAUCET_GAS.toString(), usdcBalance: "10", ethBalance: "0.1" });
    expect(r.usdcTx).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await local.balanceOf(to)).toBe(FAUCET_USDC);
    expect(await local.publicClient.getBalance({ address: to })).toBe(FAUCET_GAS);
    // Again: more USDC, no gas (it still has its 0.1 ETH).
    const again = await faucetFund(node.rpcUrl, to);
    expect(again).toMatchObject({ usdcSent: FAUCET_USDC.toString(), gasSent: "0", gasTx: null, usdcBalance: "20" });
  });

  it("sends no USDC to a wallet at the cap, and says so when there is nothing to send", async () => {
    const to = fresh();
    await local.mint(to, FAUCET_WALLET_CAP);
    const gasOnly = await faucetFund(node.rpcUrl, to);
    expect(gasOnly).toMatchObject({ usdcSent: "0", usdcTx: null, gasSent: FAUCET_GAS.toString() });
    const r = await refusal(faucetFund(node.rpcUrl, to));
    expect(r).toMatchObject({ code: "conflict", status: 409 });
    expect(r.message).toMatch(/already holds 100 test USDC/);
  });

  it("concurrent requests are serialised (no nonce clash), and a dry faucet is a 503, not a revert", async () => {
    const wallets = [fresh(), fresh(), fresh()];
    // Stock the faucet for two whole requests and a half: two are paid, the third is refused.
    const have = await local.balanceOf(FAUCET_ADDRESS);
    await local.mint(FAUCET_ADDRESS, 2n * FAUCET_USDC + FAUCET_USDC / 2n - have);
    const before = await local.balanceOf(FAUCET_ADDRESS);
    const results = await Promise.allSettled(wallets.map((w) => faucetFund(node.rpcUrl, w)));
    const sent = results.filter((r) => r.status === "fulfilled").length;
    expect(sent).toBe(2);
    for (const r of results) if (r.status === "rejected") expect(r.reason).toMatchObject({ code: "unavailable", message: expect.stringMatching(/run dry/) });
    expect(await local.balanceOf(FAUCET_ADDRESS)).toBe(before - BigInt(sent) * FAUCET_USDC);
  });

  it("a chain that does not answer is a 503 naming it", async () => {
    const r = await refusal(faucetFund("http://127.0.0.1:1", fresh()));
    expect(r).toMatchObject({ code: "unavailable", status: 503 });
    expect(r.message).toMatch(/does not answer/);
  });
});
